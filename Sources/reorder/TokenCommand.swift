import Foundation
import ReorderAuth

/// `reorder token`: mints a room token from a secret file or a JWK Set's private key (as an app's
/// backend would) and, with `--url`, prints a share link for the web client that carries it in
/// the fragment.
enum TokenCommand {
  static let subcommand = Subcommand(
    name: "token",
    summary: "Mint a signed room token (HS256, or ES256/RS256 with a JWKS key) and, with --url, a share link.",
    options: [
      OptionSpec(
        name: "auth-secret-file", kind: .string, defaultValue: nil,
        help: "HS256 secret (at least 32 bytes), the one serve's --auth-secret-file reads. This or a JWKS is required."),
      OptionSpec(
        name: "secret-file", kind: .string, defaultValue: nil, help: "Another name for --auth-secret-file.",
        readsEnvironment: false),
      OptionSpec(
        name: "auth-jwks-file", kind: .string, defaultValue: nil,
        help: "Instead, a JWK Set holding the signing key with its private parts (oct k; EC d; RSA d, p, q, dp, dq, "
          + "qi); serve's --auth-jwks-file has the same kids, without the private parts of EC and RSA keys."),
      OptionSpec(
        name: "jwks-file", kind: .string, defaultValue: nil, help: "Another name for --auth-jwks-file.",
        readsEnvironment: false),
      OptionSpec(
        name: "kid", kind: .string, defaultValue: nil,
        help: "The JWKS key to sign with (needed when the set has several); it goes into the header as kid."),
      OptionSpec(
        name: "room", kind: .string, defaultValue: nil,
        help: "Room the token opens: a name, a prefix ending in * (team-a-*), or *. Required."),
      OptionSpec(
        name: "role", kind: .choice(["editor", "viewer"]), defaultValue: nil, help: "editor or viewer. Required."),
      OptionSpec(name: "sub", kind: .string, defaultValue: nil, help: "The person's id in your app (sub). Required."),
      OptionSpec(name: "name", kind: .string, defaultValue: nil, help: "Name the others see."),
      OptionSpec(name: "color", kind: .string, defaultValue: nil, help: "Colour the others see (#rrggbb)."),
      OptionSpec(name: "ttl", kind: .string, defaultValue: "1h", help: "Lifetime: 90s, 15m, 1h, 7d (at most a year)."),
      OptionSpec(
        name: "presence", kind: .choice(["true", "false"]), defaultValue: "true",
        help: "false: an invisible observer (not in peers, drags not relayed)."),
      OptionSpec(
        name: "broadcast", kind: .choice(["true", "false"]), defaultValue: "true",
        help: "false: the connection's broadcasts are refused (forbidden)."),
      OptionSpec(name: "audience", kind: .string, defaultValue: nil, help: "aud claim (serve's --auth-audience)."),
      OptionSpec(name: "issuer", kind: .string, defaultValue: nil, help: "iss claim (serve's --auth-issuer)."),
      OptionSpec(
        name: "url", kind: .string, defaultValue: nil,
        help: "Server address (http://HOST:PORT): also print a share link to the room (needs an exact --room)."),
    ],
    run: run
  )

  static func run(_ options: ParsedOptions) throws -> Int32 {
    let (minter, claims) = try request(from: options, now: TokenVerifier.systemClock())
    let token = minter.mint(claims)
    // The link is built (and its flags checked) before anything is printed: a usage error prints
    // only the error.
    let link = try options.string("url").map { try shareLink(base: $0, room: claims.room, token: token) }
    print(token)
    if let link { print(link) }
    return 0
  }

  /// The minter and claims the flags ask for, or a `UsageError` naming the flag at fault.
  static func request(from options: ParsedOptions, now: Int64) throws -> (TokenMinter, TokenClaims) {
    func required(_ name: String) throws -> String {
      guard let value = options.string(name), !value.isEmpty else {
        throw UsageError(description: "--\(name) is required")
      }
      return value
    }
    // --auth-secret-file or --auth-jwks-file ($REORDER_AUTH_SECRET_FILE, $REORDER_AUTH_JWKS_FILE:
    // the variables serve reads) or their other names --secret-file and --jwks-file, which have no
    // variable: given, they are the command line's, so they win.
    func file(_ name: String, alias: String) -> String? {
      (options.string(alias) ?? options.string(name)).flatMap { $0.isEmpty ? nil : $0 }
    }
    let secretFile = file("auth-secret-file", alias: "secret-file")
    let jwksFile = file("auth-jwks-file", alias: "jwks-file")
    if secretFile != nil && jwksFile != nil {
      throw UsageError(
        description: "give --auth-secret-file or --auth-jwks-file, not both "
          + "(they may come from $REORDER_AUTH_SECRET_FILE and $REORDER_AUTH_JWKS_FILE)")
    }
    if secretFile == nil && jwksFile == nil {
      throw UsageError(description: "--auth-secret-file (an HS256 secret) or --auth-jwks-file (a JWK Set) is required")
    }
    let keyID = options.string("kid")
    if keyID?.isEmpty == true { throw UsageError(description: "--kid takes the kid of a key") }
    guard let room = RoomScope(claim: try required("room")) else {
      throw UsageError(description: "--room takes a room name (1-64 of A-Z a-z 0-9 - _ .), a prefix ending in *, or *")
    }
    guard let role = TokenClaims.Role(rawValue: try required("role")) else {
      throw UsageError(description: "--role takes editor or viewer")
    }
    let subject = try required("sub")
    guard subject.utf8.count <= TokenClaims.maxSubjectBytes else {
      throw UsageError(description: "--sub takes at most \(TokenClaims.maxSubjectBytes) bytes")
    }
    if let name = options.string("name"), name.isEmpty || name.utf8.count > TokenClaims.maxNameBytes {
      throw UsageError(description: "--name takes 1-\(TokenClaims.maxNameBytes) bytes")
    }
    if let color = options.string("color"), !TokenClaims.isValidColor(color) {
      throw UsageError(description: "--color takes a CSS colour such as #e91e63 (at most 32 bytes)")
    }
    let ttlText = options.string("ttl") ?? "1h"
    guard let ttl = TokenLifetime.seconds(ttlText) else {
      throw UsageError(
        description: "--ttl takes a number and a unit (90s, 15m, 1h, 7d; at most a year), not '\(ttlText)'")
    }
    let key: SigningKey
    let headerKeyID: String?
    if let jwksFile {
      let set: JSONWebKeySet
      do {
        set = try JSONWebKeySet.read(file: jwksFile)
      } catch {
        throw UsageError(description: "--auth-jwks-file: \(error)")
      }
      if keyID == nil && set.keys.count > 1 {
        let kids = set.keys.compactMap(\.keyID).joined(separator: ", ")
        throw UsageError(description: "--kid is required: '\(jwksFile)' has \(set.keys.count) keys (kids: \(kids))")
      }
      do {
        (key, headerKeyID) = try set.signingKey(keyID: keyID, path: jwksFile)
      } catch {
        throw UsageError(description: "--auth-jwks-file: \(error)")
      }
    } else {
      do {
        guard case .secret(let secret) = try TokenKey.secret(file: secretFile ?? "") else { preconditionFailure() }
        key = .secret(secret)
      } catch {
        throw UsageError(description: "--auth-secret-file: \(error)")
      }
      headerKeyID = keyID
    }
    let claims = TokenClaims(
      subject: subject, room: room, role: role, expiresAt: now + ttl, issuedAt: now, name: options.string("name"),
      color: options.string("color"), presence: options.string("presence") != "false",
      broadcast: options.string("broadcast") != "false")
    let minter = TokenMinter(
      signingKey: key, keyID: headerKeyID, audience: options.string("audience"), issuer: options.string("issuer"))
    return (minter, claims)
  }

  /// `http://HOST:PORT/#/b/<room>?token=<token>`: the token rides in the fragment, which
  /// browsers never send to a server (so it stays out of access logs).
  static func shareLink(base: String, room: RoomScope, token: String) throws -> String {
    guard base.hasPrefix("http://") || base.hasPrefix("https://"), !base.contains("#"), !base.contains("?") else {
      throw UsageError(description: "--url takes the server's address, http://HOST:PORT or https://HOST")
    }
    guard case .exact(let name) = room else {
      throw UsageError(description: "--url needs an exact --room (a link opens one board, not \(room))")
    }
    let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
    return "\(trimmed)/#/b/\(name)?token=\(token)"
  }
}

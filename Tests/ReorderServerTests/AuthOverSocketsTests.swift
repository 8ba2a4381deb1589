import Foundation
import ReorderRooms
import ReorderServer
import ReorderTransport
import TestRandom
import TestSupport
import TestTokens
import Testing

/// Tokens through the server's websockets (in-process; the frame limit over real sockets): every
/// bad token gets its documented error and close code and changes no board; viewers cannot edit;
/// refreshes.
@Suite("Room tokens", .serialized)
struct AuthOverSocketsTests {
  static let secret = Array("0123456789abcdef0123456789abcdef-test-secret".utf8)
  static let audience = "reorder-tests"
  static let issuer = "test-backend"

  /// A server that checks HS256 tokens (audience and issuer set), in a temp directory; in-process
  /// unless `sockets`.
  final class AuthServer: RoomServer {
    let directory: TemporaryDirectory
    let server: any RoomServer

    init(publicKey: String? = nil, sockets: Bool = false) throws {
      directory = try TemporaryDirectory()
      try directory.write("secret", String(decoding: AuthOverSocketsTests.secret, as: UTF8.self))
      let secretPath = directory.path + "/secret"
      let configure = { (configuration: inout ServerConfiguration) in
        if let publicKey {
          configuration.authPublicKey = publicKey
        } else {
          configuration.authSecretFile = secretPath
          configuration.authAudience = AuthOverSocketsTests.audience
          configuration.authIssuer = AuthOverSocketsTests.issuer
        }
      }
      server = sockets ? try TestServer(configure: configure) : try InProcessServer(configure: configure)
    }

    deinit { directory.remove() }
    func connect(room: String) throws -> RoomClient { try server.connect(room: room) }
    func http(_ method: String, _ rawPath: String, headers: [String: String], body: [UInt8]?) throws -> HTTPReply {
      try server.http(method, rawPath, headers: headers, body: body)
    }
    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool { server.waitUntil(timeout: timeout, condition) }
  }

  static var now: Int { Int(Date().timeIntervalSince1970) }

  /// Claims as JSON text: valid ones for room `t`, changed by `set`, less `remove`.
  static func claims(_ set: [String: Any] = [:], remove: [String] = []) -> String {
    var claims: [String: Any] = [
      "sub": "user-1", "room": "t", "role": "editor", "exp": now + 3600, "aud": audience, "iss": issuer,
    ]
    claims.merge(set) { _, new in new }
    for name in remove { claims[name] = nil }
    let data = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  static func token(_ claims: String = claims(), header: String = #"{"alg":"HS256","typ":"JWT"}"#) -> String {
    HandMadeToken.hs256(header: header, claims: claims, secret: secret)
  }

  /// Opens `/ws/t`, sends hello (with `token` when given) and then an op; returns what came back.
  static func attempt(on server: some RoomServer, token: String?) throws -> (
    error: JSONValue?, close: (UInt16?, String)?
  ) {
    let client = try server.connect(room: "t")
    var hello: [(key: String, value: JSONValue)] = [
      ("type", .string("hello")), ("room", .string("t")), ("client", .string("bad")), ("name", .string("B")),
      ("color", .string("#123456")),
    ]
    if let token { hello.append(("token", .string(token))) }
    client.send(.object(hello))
    client.op("bad:1", Ops.createList("intruder"))
    let close = client.waitForClose(timeout: 10)
    return (client.buffer.first { $0["type"] == .string("error") }, close)
  }

  struct BadCase: Sendable, CustomStringConvertible {
    let description: String
    let token: String?
    let code: String
    let close: UInt16
  }

  static var badCases: [BadCase] {
    let good = token()
    let parts = good.split(separator: ".").map(String.init)
    let other = HandMadeToken.hs256(claims: claims(), secret: Array("another-secret-another-secret-another!".utf8))
    return [
      BadCase(description: "missing", token: nil, code: "unauthorized", close: 4401),
      BadCase(description: "empty", token: "", code: "unauthorized", close: 4401),
      BadCase(description: "one part", token: parts[0], code: "unauthorized", close: 4401),
      BadCase(description: "two parts", token: parts[0] + "." + parts[1], code: "unauthorized", close: 4401),
      BadCase(description: "four parts", token: good + ".e30", code: "unauthorized", close: 4401),
      BadCase(description: "bad base64", token: "e#J." + parts[1] + "." + parts[2], code: "unauthorized", close: 4401),
      BadCase(
        description: "bad JSON header", token: token(header: #"{"alg":"HS256""#), code: "unauthorized", close: 4401),
      BadCase(description: "bad JSON claims", token: token(#"{"sub":"#), code: "unauthorized", close: 4401),
      BadCase(
        description: "alg none",
        token: HandMadeToken.b64(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + ".",
        code: "unauthorized", close: 4401),
      BadCase(description: "unknown alg", token: token(header: #"{"alg":"HS512"}"#), code: "unauthorized", close: 4401),
      BadCase(
        description: "RS256 header", token: token(header: #"{"alg":"RS256"}"#), code: "unauthorized", close: 4401),
      BadCase(
        description: "crit header", token: token(header: #"{"alg":"HS256","crit":["exp"]}"#), code: "unauthorized",
        close: 4401),
      BadCase(description: "wrong signature", token: other, code: "unauthorized", close: 4401),
      BadCase(
        description: "expired", token: token(claims(["exp": now - 120])), code: "unauthorized", close: 4401),
      BadCase(
        description: "nbf in the future", token: token(claims(["nbf": now + 600])), code: "unauthorized", close: 4401),
      BadCase(description: "missing sub", token: token(claims(remove: ["sub"])), code: "unauthorized", close: 4401),
      BadCase(description: "missing room", token: token(claims(remove: ["room"])), code: "unauthorized", close: 4401),
      BadCase(description: "missing role", token: token(claims(remove: ["role"])), code: "unauthorized", close: 4401),
      BadCase(description: "missing exp", token: token(claims(remove: ["exp"])), code: "unauthorized", close: 4401),
      BadCase(description: "unknown role", token: token(claims(["role": "admin"])), code: "unauthorized", close: 4401),
      BadCase(description: "role not a string", token: token(claims(["role": 1])), code: "unauthorized", close: 4401),
      BadCase(description: "wrong aud", token: token(claims(["aud": "elsewhere"])), code: "unauthorized", close: 4401),
      BadCase(description: "missing aud", token: token(claims(remove: ["aud"])), code: "unauthorized", close: 4401),
      BadCase(description: "wrong iss", token: token(claims(["iss": "mallory"])), code: "unauthorized", close: 4401),
      BadCase(description: "other room", token: token(claims(["room": "u"])), code: "forbidden", close: 4403),
      BadCase(
        description: "other room prefix", token: token(claims(["room": "team-*"])), code: "forbidden", close: 4403),
      BadCase(
        description: "a 12 KiB token", token: token(claims(["pad": String(repeating: "p", count: 9_000)])),
        code: "unauthorized", close: 4401),
    ]
  }

  @Test("each bad token gets its documented error and close code, and changes no board", arguments: badCases)
  func badToken(_ bad: BadCase) throws {
    let server = try AuthServer()
    let outcome = try Self.attempt(on: server, token: bad.token)
    #expect(outcome.error?["code"] == .string(bad.code), "\(bad)")
    #expect(outcome.close?.0 == bad.close, "\(bad): \(String(describing: outcome.close))")
    let probe = try server.connect(room: "t")
    try probe.hello(room: "t", client: "probe", token: Self.token())
    #expect(probe.welcome["board"]?["lists"] == .array([]), "\(bad) changed the board")
    probe.close()
  }

  @Test("a 64 KiB token is over the frame limit: closed with 1009 before any check")
  func hugeToken() throws {
    let server = try AuthServer(sockets: true)
    let outcome = try Self.attempt(on: server, token: String(repeating: "a", count: 64 * 1024))
    #expect(outcome.close?.0 == 1009)
  }

  @Test("an HS256 token signed with the public key's text is refused by a server with that public key")
  func algorithmConfusion() throws {
    let keys = try TemporaryDirectory()
    defer { keys.remove() }
    let privateKey = keys.path + "/ec.pem"
    let publicKey = keys.path + "/ec.pub.pem"
    for arguments in [
      ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privateKey],
      ["pkey", "-in", privateKey, "-pubout", "-out", publicKey],
    ] {
      let process = try Process.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments: arguments)
      process.waitUntilExit()
    }
    let server = try AuthServer(publicKey: publicKey)
    let pem = try #require(FileManager.default.contents(atPath: publicKey))
    let confused = HandMadeToken.hs256(claims: Self.claims(remove: ["aud", "iss"]), secret: [UInt8](pem))
    let outcome = try Self.attempt(on: server, token: confused)
    #expect(outcome.error?["code"] == .string("unauthorized"))
    #expect(outcome.close?.0 == 4401)
  }

  @Test("editors and viewers: the viewer sees the editor's moves and drags, its ops are rejected read_only")
  func viewers() throws {
    let server = try AuthServer()
    let editor = try server.connect(room: "t")
    try editor.hello(room: "t", client: "e", token: Self.token())
    #expect(editor.welcome["role"] == .string("editor"))
    #expect((editor.welcome["expires_in_s"]?.numberValue ?? 0) > 3500)
    let viewer = try server.connect(room: "t")
    try viewer.hello(room: "t", client: "v", token: Self.token(Self.claims(["role": "viewer", "sub": "v"])))
    #expect(viewer.welcome["role"] == .string("viewer"))
    viewer.op("v:1", Ops.createList("nope"))
    #expect(try viewer.next(type: "rejected")["code"] == .string("read_only"))
    editor.op("e:1", Ops.createList("l"))
    editor.op("e:2", Ops.insert("a", list: "l"))
    _ = try viewer.applied(id: "e:2")
    editor.send(#"{"type":"drag","phase":"start","item":"a","list":"l","x":0.5,"y":0.5}"#)
    #expect(try viewer.next(type: "drags")["updates"] != nil)
    viewer.send(#"{"type":"drag","phase":"start","item":"a","list":"l","x":0.1,"y":0.1}"#)
    #expect(try editor.next(type: "drags")["updates"] != nil, "viewers may drag")
    editor.close()
    viewer.close()
  }

  @Test("randomized: 1,000 ops from viewers interleaved with editors' never change the board; no applied is a viewer's")
  func randomizedViewers() throws {
    let server = try AuthServer()
    let editors = try (0..<2).map { i -> RoomClient in
      let c = try server.connect(room: "t")
      try c.hello(room: "t", client: "e\(i)", token: Self.token(Self.claims(["sub": "e\(i)"])))
      return c
    }
    let viewers = try (0..<2).map { i -> RoomClient in
      let c = try server.connect(room: "t")
      try c.hello(room: "t", client: "v\(i)", token: Self.token(Self.claims(["sub": "v\(i)", "role": "viewer"])))
      return c
    }
    editors[0].op("e0:list", Ops.createList("l"))
    for i in 0..<10 { editors[0].op("e0:i\(i)", Ops.insert("i\(i)", list: "l")) }
    _ = try editors[0].applied(id: "e0:i9")
    var random = SplitMix64(seed: 42)
    var editorOps: [String] = []
    var lastViewerOp = ["", ""]
    for n in 0..<1_200 {
      let item = "i\(random.next() % 10)"
      let anchor = "i\(random.next() % 10)"
      let op = anchor == item ? Ops.move(item, list: "l") : Ops.move(item, list: "l", after: anchor)
      if n % 6 == 5 {
        let e = Int(random.next() % 2)
        let id = "e\(e):m\(n)"
        editors[e].op(id, op)
        editorOps.append(id)
      } else {
        let v = Int(random.next() % 2)
        viewers[v].op("v:m\(n)", op)
        lastViewerOp[v] = "v:m\(n)"
      }
      if n % 100 == 99 { usleep(30_000) }  // stay under --max-ops-per-second
    }
    // Two editors' ops interleave in apply order: wait for every one of them, not the last sent.
    for id in editorOps {
      _ = try editors[1].peek(timeout: 20) { $0["type"] == .string("applied") && $0["id"] == .string(id) }
    }
    let applied = editors[1].buffer.filter { $0["type"] == .string("applied") }
    #expect(!applied.contains { ($0["id"]?.stringValue ?? "").hasPrefix("v:") })
    #expect(applied.count == 11 + editorOps.count, "every editor op applied, nothing else")
    for (viewer, id) in zip(viewers, lastViewerOp) {
      _ = try viewer.peek(timeout: 20) { $0["type"] == .string("rejected") && $0["id"] == .string(id) }
    }
    let rejected = (viewers[0].buffer + viewers[1].buffer).filter { $0["type"] == .string("rejected") }
    #expect(rejected.count >= 900)
    #expect(rejected.allSatisfy { $0["code"] == .string("read_only") || $0["code"] == .string("rate_limited") })
    // The board is what the editors' applied moves make of it: a fresh welcome equals the order
    // an editor ends with after applying every applied frame to its welcome.
    let fresh = try server.connect(room: "t")
    try fresh.hello(room: "t", client: "fresh", token: Self.token(Self.claims(["sub": "fresh"])))
    var model = ClientModel(welcome: editors[1].welcome)
    for frame in applied { model.apply(frame) }
    #expect(model.lists["l"] == ClientModel(welcome: fresh.welcome).lists["l"])
    #expect(model.lists["l"]?.count == 10)
    for c in editors + viewers + [fresh] { c.close() }
  }

  @Test("refresh: a new role applies at once; another sub, another room or garbage is refused and the old rights stay")
  func refresh() throws {
    let server = try AuthServer()
    let c = try server.connect(room: "t")
    try c.hello(room: "t", client: "r", token: Self.token(Self.claims(["exp": Self.now + 30])))
    #expect(try c.next(type: "token_expiring")["expires_in_s"] != nil, "a short token is told at once")
    for bad in [
      Self.token(Self.claims(["sub": "someone-else"])), Self.token(Self.claims(["room": "u"])), "garbage",
    ] {
      c.send(.object([("type", .string("refresh")), ("token", .string(bad))]))
      #expect(try c.next(type: "error")["code"] == .string("unauthorized"))
      c.buffer.removeAll()
    }
    c.op("r:1", Ops.createList("l"))
    _ = try c.applied(id: "r:1")
    c.send(.object([("type", .string("refresh")), ("token", .string(Self.token(Self.claims(["role": "viewer"]))))]))
    #expect(try c.next(type: "refreshed")["role"] == .string("viewer"))
    c.op("r:2", Ops.createList("m"))
    #expect(try c.next(type: "rejected")["code"] == .string("read_only"))
    #expect(c.closeEvent == nil)
    c.close()
  }

  @Test("a token past exp but within the leeway joins and is closed 4401 within 5 s of exp plus the leeway")
  func expiredWithinLeewayClosesAtExpPlusLeeway() throws {
    let server = try AuthServer()
    // exp + 60 s of leeway falls 3 s after the join: closed then, not 60 s after the join.
    let c = try server.connect(room: "t")
    let joined = Date()
    try c.hello(room: "t", client: "late", token: Self.token(Self.claims(["exp": Self.now - 57])))
    #expect(c.welcome["expires_in_s"] == .number(0))
    let close = c.waitForClose(timeout: 20)
    let elapsed = Date().timeIntervalSince(joined)
    #expect(close?.code == 4401, "\(String(describing: close))")
    #expect(close?.reason == "token expired")
    #expect(elapsed < 3 + 5, "closed \(elapsed) s after the join")
    // A join after exp plus the leeway is refused at once.
    let outcome = try Self.attempt(on: server, token: Self.token(Self.claims(["exp": Self.now - 61])))
    #expect(outcome.error?["code"] == .string("unauthorized"))
    #expect(outcome.close?.0 == 4401)
  }
}

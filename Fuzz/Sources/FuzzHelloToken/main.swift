import FuzzSupport
import ReorderAuth
import ReorderBasics
import ReorderRooms

@testable import ReorderServer

// The hello/token path: a `hello` frame carrying a token, through the rooms (`RoomRegistry`) and the
// server's `TokenAccess` over `TokenVerifier` (HS256). The first byte picks what the rest is:
// - even: the token itself (any bytes: structure, base64url, header and signature checks);
// - odd: `header 0x00 claims` (or only claims), signed with the server's secret, so that mutations
//   reach libjwt's decoding and the claim rules past the signature.
// Contract: never crashes; the connection is either welcomed (and the verifier's claims obey the
// claim rules, and minting them again verifies to the same claims) or sent an `error` with code
// `unauthorized` / `forbidden` and closed 4401 / 4403, or, for a hello frame over the 16 KiB a
// connection may send before hello (a token's escapes count), closed 1008 with no frame.
Log.configure(level: .error, format: .text)  // the rooms' info lines would fill the fuzzer's log
let secret = Array("fuzz-secret-fuzz-secret-fuzz-secret-0123".utf8)
let now: Int64 = 1_800_000_000
let verifier = TokenVerifier(key: .secret(secret), now: { now })
let minter = TokenMinter(key: .secret(secret))
fuzzCheck(FuzzToken.agreesWithHandMade(secret: secret), "FuzzToken.hs256 differs from HandMadeToken.hs256")
// Every input starts from one registry, built once: the room loaded and the connection opened,
// waiting for its hello (as a fresh registry would be after `open`), set back before each input.
let rooms = FuzzRooms(verifier: TokenAccess(verifier: verifier))
let connection = ConnectionHandle(1)
rooms.open(connection, room: "food")
fuzzCheck(rooms.registry.room("food") != nil && rooms.frames.isEmpty, "the room did not load at once")
rooms.save()

runFuzzer { bytes in
  guard let mode = bytes.first else { return }
  let rest = Array(bytes.dropFirst())
  let token: String
  if mode & 1 == 0 {
    token = String(decoding: rest, as: UTF8.self)
  } else if let zero = rest.firstIndex(of: 0) {
    token = FuzzToken.hs256(
      header: String(decoding: rest[..<zero], as: UTF8.self),
      claims: String(decoding: rest[(zero + 1)...], as: UTF8.self), secret: secret)
  } else {
    token = FuzzToken.hs256(claims: String(decoding: rest, as: UTF8.self), secret: secret)
  }

  let verified = verifier.verify(token: token, forRoom: "food")
  if case .success(let claims) = verified {
    fuzzCheck(!claims.subject.isEmpty && claims.subject.utf8.count <= TokenClaims.maxSubjectBytes, "bad sub")
    fuzzCheck((claims.name?.utf8.count ?? 0) <= TokenClaims.maxNameBytes, "name too long")
    fuzzCheck(claims.color.map(TokenClaims.isValidColor) ?? true, "an invalid colour accepted")
    fuzzCheck(claims.allows(room: "food"), "a token for another room accepted")
    fuzzCheck(claims.expiresAt + verifier.leewaySeconds >= now, "an expired token accepted")
    let again = verifier.verify(token: minter.mint(claims), forRoom: "food")
    fuzzCheck(again == .success(claims), "minting the verified claims does not verify to them")
  }

  rooms.restore()
  let hello = JSONValue.object([
    ("type", .string("hello")), ("room", .string("food")), ("client", .string("c-fuzz")), ("name", .string("Fuzz")),
    ("color", .string("#e91e63")), ("token", .string(token)),
  ])
  let frame = hello.encoded()
  rooms.receive(connection, frame)
  let types = rooms.types(connection)
  if frame.count > AccessTimes.maxBytesBeforeHello {
    // Over the pre-hello budget (docs/PROTOCOL.md): closed before the token is read.
    fuzzCheck(types.isEmpty && rooms.closes[connection]?.code == 1008, "over budget: \(types)")
    return
  }
  switch verified {
  case .success:
    fuzzCheck(types.first == "welcome", "a verified token was not welcomed: \(types)")
    fuzzCheck(rooms.closes[connection] == nil, "a verified token was closed")
  case .failure(let error):
    let code = rooms.frames[connection]?.first?["code"]?.stringValue
    let close = rooms.closes[connection]?.code
    if error.reason == .forbidden {
      fuzzCheck(types == ["error"] && code == "forbidden" && close == 4403, "forbidden: \(types) \(close ?? 0)")
    } else {
      fuzzCheck(types == ["error"] && code == "unauthorized" && close == 4401, "refused: \(types) \(close ?? 0)")
    }
  }
}

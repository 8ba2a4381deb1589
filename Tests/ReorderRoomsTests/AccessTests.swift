import ReorderRooms
import Testing

/// A verifier for rooms tests: a token is `role:subject:room:seconds[:invisible]`, or
/// `role:subject:room:seconds:nobroadcast` for a visible one whose broadcasts are forbidden.
struct FakeVerifier: AccessVerifier {
  /// The leeway the accesses carry.
  var leeway = AccessTimes.leeway

  func verify(token: String, room: String) -> Result<Access, AccessDenial> {
    let parts = token.split(separator: ":").map(String.init)
    guard parts.count >= 4, let role = Access.Role(rawValue: parts[0]), let seconds = Double(parts[3]) else {
      return .failure(AccessDenial(forbidden: false, reason: "malformed", message: "token malformed"))
    }
    guard parts[2] == room else {
      return .failure(AccessDenial(forbidden: true, reason: "forbidden", message: "not for this room"))
    }
    return .success(
      Access(
        subject: parts[1], role: role, name: parts[1] == "named" ? "Named" : nil,
        presence: parts.count < 5 || parts[4] == "nobroadcast",
        broadcast: parts.count < 5 || parts[4] != "nobroadcast", expiresIn: seconds, leeway: leeway))
  }

  func verifyRefresh(token: String, current: Access, room: String) -> Result<Access, AccessDenial> {
    verify(token: token, room: room).flatMap {
      $0.subject == current.subject
        ? .success($0) : .failure(AccessDenial(forbidden: false, reason: "subject_mismatch", message: "other sub"))
    }
  }
}

@Suite("Access: tokens, viewers, invisible observers, expiry, hello timeout")
struct AccessTests {
  func harness() -> RoomsHarness {
    let h = RoomsHarness()
    h.registry.accessVerifier = FakeVerifier()
    return h
  }

  func hello(_ token: String?, client: String = "c") -> String {
    let member = token.map { #","token":"\#($0)""# } ?? ""
    return #"{"type":"hello","room":"r","client":"\#(client)","name":"N","color":"red"\#(member)}"#
  }

  @Test("no token, a bad one, or one for another room: error and close 4401 / 4403, nothing joins")
  func refusals() {
    let h = harness()
    for (id, token, code, error) in [
      (UInt64(1), nil as String?, UInt16(4401), "unauthorized"), (2, "garbage", 4401, "unauthorized"),
      (3, "editor:u:other:60", 4403, "forbidden"),
    ] {
      let c = h.open(id)
      h.send(c, hello(token))
      h.send(c, #"{"type":"op","id":"x","op":{"kind":"createList","title":"T","layout":"list"}}"#)
      #expect(h.take(c).first?["code"] == .string(error))
      #expect(h.closed[c]?.code == code)
    }
    #expect(h.registry.room("r")?.memberCount == 0)
    #expect(h.registry.statistics.opsApplied == 0)
  }

  @Test("a viewer receives the board and others' moves, and every op it sends is rejected read_only")
  func viewer() {
    let h = harness()
    let editor = h.open(1)
    h.send(editor, hello("editor:e:r:3600", client: "e"))
    let viewer = h.open(2)
    h.send(viewer, hello("viewer:v:r:3600", client: "v"))
    let welcome = h.take(viewer).first { $0["type"] == .string("welcome") }
    #expect(welcome?["role"] == .string("viewer"))
    #expect(welcome?["expires_in_s"] == .number(3600))
    h.send(viewer, #"{"type":"op","id":"v1","op":{"kind":"createList","title":"T","layout":"list"}}"#)
    #expect(h.take(viewer).first?["code"] == .string("read_only"))
    h.send(editor, #"{"type":"op","id":"e1","op":{"kind":"createList","list":"l","title":"T","layout":"list"}}"#)
    h.makeDurable()
    #expect(h.take(viewer).contains { $0["type"] == .string("applied") && $0["id"] == .string("e1") })
    #expect(h.registry.statistics.opsApplied == 1)
  }

  @Test("an invisible observer is not a peer and its drags are not relayed")
  func invisible() {
    let h = harness()
    let editor = h.open(1)
    h.send(editor, hello("editor:e:r:3600", client: "e"))
    h.send(editor, #"{"type":"op","id":"e1","op":{"kind":"createList","list":"l","title":"T","layout":"list"}}"#)
    h.send(editor, #"{"type":"op","id":"e2","op":{"kind":"insert","item":"a","list":"l","fields":{"title":"A"}}}"#)
    h.makeDurable()
    _ = h.take(editor)
    let ghost = h.open(2)
    h.send(ghost, hello("viewer:g:r:3600:invisible", client: "g"))
    #expect(h.take(editor).isEmpty, "no peer join for an invisible observer")
    h.send(ghost, #"{"type":"drag","phase":"start","item":"a","list":"l"}"#)
    h.tick()
    #expect(!h.take(editor).contains { $0["type"] == .string("drags") })
    let later = h.open(3)
    h.send(later, hello("editor:l:r:3600", client: "l"))
    let welcome = h.take(later).first { $0["type"] == .string("welcome") }
    #expect(welcome?["peer_count"] == .number(1), "only the editor")
    _ = h.take(editor)
    h.close(ghost)
    #expect(!h.take(editor).contains { $0["type"] == .string("peer") })
  }

  @Test("a token's name is the identity the others see")
  func tokenIdentity() {
    let h = harness()
    let a = h.open(1)
    h.send(a, hello("editor:e:r:3600", client: "e"))
    _ = h.take(a)
    let b = h.open(2)
    h.send(b, hello("editor:named:r:3600", client: "n"))
    #expect(h.take(a).first { $0["type"] == .string("peer") }?["name"] == .string("Named"))
  }

  @Test("token_expiring 60 s before exp; closed 4401 token expired after exp plus the leeway; a refresh moves both")
  func expiry() {
    let h = harness()
    let a = h.open(1)
    h.send(a, hello("editor:e:r:100", client: "e"))
    _ = h.take(a)
    h.now += 39
    h.perform(h.registry.tick(now: h.now))
    #expect(h.take(a).isEmpty)
    h.now += 2
    h.perform(h.registry.tick(now: h.now))
    #expect(h.take(a).first { $0["type"] == .string("token_expiring") }?["expires_in_s"] == .number(59))
    h.send(a, #"{"type":"refresh","token":"viewer:e:r:300"}"#)
    let refreshed = h.take(a).first { $0["type"] == .string("refreshed") }
    #expect(refreshed?["role"] == .string("viewer"))
    h.send(a, #"{"type":"op","id":"x","op":{"kind":"createList","title":"T","layout":"list"}}"#)
    #expect(h.take(a).first?["code"] == .string("read_only"), "the new role applies at once")
    h.now += 200
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a] == nil, "the old token's deadlines are void")
    h.now += 300 + 60 - 200 + 1  // past the refreshed token's exp plus the leeway
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a]?.code == 4401)
    #expect(h.closed[a]?.reason == "token expired")
  }

  @Test("a token already past its exp closes 4401 at exp plus the leeway, not the leeway after the join")
  func expiredAtJoinClosesAtExpPlusLeeway() {
    let h = harness()
    let a = h.open(1)
    h.send(a, hello("editor:e:r:-30", client: "e"))
    let welcome = h.take(a).first { $0["type"] == .string("welcome") }
    #expect(welcome?["expires_in_s"] == .number(0), "clamped in the message")
    h.now += 25  // exp + leeway is 30 s after the join
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a] == nil)
    h.now += 10  // 35 s after the join: within 5 s of exp + leeway, far before 60 s
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a]?.code == 4401)
    #expect(h.closed[a]?.reason == "token expired")
  }

  @Test("the close falls at exp plus the access's own leeway")
  func closeFollowsTheAccessLeeway() {
    let h = RoomsHarness()
    h.registry.accessVerifier = FakeVerifier(leeway: 2)
    let a = h.open(1)
    h.send(a, hello("editor:e:r:-1", client: "e"))
    h.now += 0.5
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a] == nil)
    h.now += 1  // exp + 2 s of leeway is 1 s after the join
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a]?.code == 4401)
  }

  @Test("a token past exp by more than the leeway at the join closes 4401 at the next tick")
  func closeAlreadyDueClosesAtNextTick() {
    let h = harness()
    let a = h.open(1)
    h.send(a, hello("editor:e:r:-90", client: "e"))
    h.perform(h.registry.tick(now: h.now))
    #expect(h.closed[a]?.code == 4401)
  }

  @Test("a bad refresh gets error unauthorized and keeps the old rights; a short token is told at once")
  func badRefresh() {
    let h = harness()
    let a = h.open(1)
    h.send(a, hello("editor:e:r:30", client: "e"))
    h.perform(h.registry.tick(now: h.now))
    #expect(h.take(a).contains { $0["type"] == .string("token_expiring") })
    for token in ["garbage", "editor:other:r:300", "editor:e:elsewhere:300"] {
      h.send(a, #"{"type":"refresh","token":"\#(token)"}"#)
      #expect(h.take(a).first?["code"] == .string("unauthorized"), "\(token)")
    }
    h.send(a, #"{"type":"op","id":"e1","op":{"kind":"createList","list":"l","title":"T","layout":"list"}}"#)
    h.makeDurable()
    #expect(h.take(a).contains { $0["type"] == .string("applied") })
    #expect(h.closed[a] == nil)
  }

  @Test("no hello within 10 s closes with 4408 hello timeout, with or without tokens")
  func helloTimeout() {
    for tokens in [true, false] {
      let h = RoomsHarness()
      if tokens { h.registry.accessVerifier = FakeVerifier() }
      let silent = h.open(1)
      let joined = h.open(2)
      h.send(joined, hello(tokens ? "editor:e:r:3600" : nil, client: "e"))
      #expect(h.registry.nextTick(now: h.now) == h.now + 10)
      h.now += 10
      h.perform(h.registry.tick(now: h.now))
      #expect(h.closed[silent]?.code == 4408)
      #expect(h.closed[silent]?.reason == "hello timeout")
      #expect(h.closed[joined] == nil)
    }
  }

  @Test("more than a few frames or KB before hello closes with 1008")
  func beforeHello() {
    let h = harness()
    let chatty = h.open(1)
    for _ in 0..<5 { h.send(chatty, #"{"type":"drag","phase":"start","item":"a"}"#) }
    #expect(h.closed[chatty]?.code == 1008)
    let big = h.open(2)
    h.send(big, hello(String(repeating: "x", count: 20_000)))
    #expect(h.closed[big]?.code == 1008)
  }

  @Test("a hello over 16 KiB closes with 1008 before its token is read, even when the token is under 8 KiB")
  func escapedTokenOverHelloBudget() {
    // The budget counts the bytes sent (escapes included): 3,000 escaped NULs are 18,000 bytes.
    let h = harness()
    let c = h.open(1)
    h.send(c, hello(String(repeating: #"\u0000"#, count: 3_000)))
    #expect(h.closed[c]?.code == 1008)
    #expect(h.take(c).isEmpty)
  }

  @Test("without a verifier a token is ignored and everyone edits")
  func noVerifier() {
    let h = RoomsHarness()
    let a = h.open(1)
    h.send(a, hello("anything", client: "a"))
    #expect(h.take(a).first { $0["type"] == .string("welcome") }?["role"] == .string("editor"))
  }
}

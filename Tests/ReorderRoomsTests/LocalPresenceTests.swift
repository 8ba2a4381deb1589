import Testing

@testable import ReorderRooms

@Suite("The in-process presence channel (LocalPresence)")
struct LocalPresenceTests {
  /// A roster entry of `session` on `node`.
  private func entry(_ node: String, _ session: String) -> [UInt8] {
    PresenceMessage.rosterEntry(node: node, peer: PeerInfo(session: session, name: session, color: "#123456"))
  }

  @Test("A publish reaches every other follower of the room, in order; a late follower gets the roster")
  func publishAndRoster() {
    var channel = LocalPresence()
    #expect(channel.perform(.follow(room: "r"), node: "A").isEmpty)
    #expect(channel.perform(.rosterJoin(room: "r", session: "A-s1", peer: entry("A", "A-s1")), node: "A").isEmpty)
    // Following again, A learns nothing of its own sessions.
    #expect(channel.perform(.follow(room: "r"), node: "A").isEmpty)
    #expect(
      channel.perform(.follow(room: "r"), node: "B") == [.roster(to: "B", room: "r", entries: [entry("A", "A-s1")])])
    _ = channel.perform(.follow(room: "other"), node: "C")
    var message = PresenceMessage()
    message.join(PeerInfo(session: "A-s2", name: "n", color: "#123456"))
    #expect(
      channel.perform(.publish(room: "r", message: message), node: "A") == [
        .message(to: "B", room: "r", from: "A", message)
      ])
    // Nobody else follows "other": C's publish reaches no one, as one node's does.
    #expect(channel.perform(.publish(room: "other", message: message), node: "C").isEmpty)
  }

  @Test("A node's roster entries go when it stops following; it cannot remove another node's")
  func rosterBelongsToItsNode() {
    var channel = LocalPresence()
    _ = channel.perform(.follow(room: "r"), node: "A")
    _ = channel.perform(.follow(room: "r"), node: "B")
    _ = channel.perform(.rosterJoin(room: "r", session: "A-s1", peer: entry("A", "A-s1")), node: "A")
    _ = channel.perform(.rosterJoin(room: "r", session: "B-s1", peer: entry("B", "B-s1")), node: "B")
    _ = channel.perform(.rosterLeave(room: "r", session: "A-s1"), node: "B")
    _ = channel.perform(.unfollow(room: "r"), node: "B")
    #expect(
      channel.perform(.follow(room: "r"), node: "C") == [.roster(to: "C", room: "r", entries: [entry("A", "A-s1")])])
    // A node that does not follow the room adds nothing to its roster.
    _ = channel.perform(.rosterJoin(room: "r", session: "D-s1", peer: entry("D", "D-s1")), node: "D")
    _ = channel.perform(.unfollow(room: "r"), node: "A")
    _ = channel.perform(.unfollow(room: "r"), node: "C")
    #expect(channel.channels.isEmpty)
  }

  @Test("Two registries in one process share presence through it: joins, leaves, broadcasts, the roster")
  func registriesSharePresence() {
    let hub = PresenceHub()
    let a = RoomsHarness(node: "A", sessionPrefix: "A-s", presenceHub: hub)
    let b = RoomsHarness(node: "B", sessionPrefix: "B-s", presenceHub: hub)
    let a1 = a.join(1, name: "Ann")
    // B follows the room after A's member joined: the roster brings A's member in.
    let b1 = b.join(2, name: "Bob")
    let welcome = b.frames(b1, type: "welcome")[0]
    #expect(welcome["peers"]?.arrayItems?.compactMap { $0["session"]?.stringValue } == ["A-s1"])
    // B's join is published at its next flush; A hears of it once it takes what the channel
    // delivered.
    b.tick()
    a.deliverPresence()
    a.tick()
    #expect(
      a.frames(a1, type: "peer").map { "\($0["event"]!.stringValue!) \($0["session"]!.stringValue!)" } == [
        "join B-s1"
      ])
    b.send(b1, #"{"type":"broadcast","event":{"emoji":"wave"}}"#)
    b.tick()
    a.deliverPresence()
    a.tick()
    #expect(a.frames(a1, type: "broadcast").first?["event"]?["emoji"] == .string("wave"))
    b.close(b1)
    b.tick()
    a.deliverPresence()
    a.tick()
    #expect(
      a.frames(a1, type: "peer").map { "\($0["event"]!.stringValue!) \($0["session"]!.stringValue!)" } == [
        "join B-s1", "leave B-s1",
      ])
    #expect(hub.channel.channels["r"]?.roster.keys.sorted() == ["A-s1"])
  }
}

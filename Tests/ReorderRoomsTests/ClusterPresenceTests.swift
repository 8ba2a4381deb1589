import Testing

@testable import ReorderRooms

/// The drag updates a connection received, as `session phase item` strings.
func dragUpdates(_ node: ClusterHarness.Node, _ c: ConnectionHandle) -> [String] {
  node.frames(c, "drags").flatMap { $0["updates"]?.arrayItems ?? [] }.map {
    "\($0["session"]!.stringValue!) \($0["phase"]!.stringValue!) \($0["item"]!.stringValue!)"
  }
}

/// The `peer` frames a connection received, as `event session` strings.
func peerEvents(_ node: ClusterHarness.Node, _ c: ConnectionHandle) -> [String] {
  node.frames(c, "peer").map { "\($0["event"]!.stringValue!) \($0["session"]!.stringValue!)" }
}

/// The sessions a connection's `welcome` listed as peers, sorted.
func welcomePeers(_ node: ClusterHarness.Node, _ c: ConnectionHandle) -> [String] {
  (node.frames(c, "welcome").first?["peers"]?.arrayItems ?? []).compactMap { $0["session"]?.stringValue }.sorted()
}

@Suite("Cluster mode: presence across nodes")
struct ClusterPresenceTests {
  @Test("A drag on node A is seen on node B, and its end too")
  func dragCrossesNodes() {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    cluster.send(0, a, #"{"type":"drag","phase":"start","item":"c","list":"L","x":0.5,"y":0.25}"#)
    cluster.settle()
    #expect(dragUpdates(cluster.nodes[1], b) == ["A-s1 start c"])
    let update = cluster.nodes[1].frames(b, "drags").last!["updates"]!.arrayItems![0]
    #expect(update["x"] == .number(0.5) && update["name"] == .string("n1"))
    cluster.send(0, a, #"{"type":"drag","phase":"end","item":"c","list":"L"}"#)
    cluster.settle()
    #expect(dragUpdates(cluster.nodes[1], b) == ["A-s1 start c", "A-s1 end c"])
    // Nothing comes back to A: a node ignores its own messages.
    #expect(dragUpdates(cluster.nodes[0], a).isEmpty)
    #expect(
      cluster.nodes[0].registry.presenceReceived(room: "r", node: "A", payload: [1, 2], now: cluster.now).isEmpty)
  }

  @Test("A peer joining and leaving node A is seen joining and leaving on B; mid-drag its drag is cancelled")
  func peerLeavingCrossesNodes() {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    let a2 = cluster.join(0, 3)
    cluster.settle()
    // B read the roster when it followed the room: its member's welcome lists A's first session.
    #expect(welcomePeers(cluster.nodes[1], b) == ["A-s1"])
    #expect(peerEvents(cluster.nodes[1], b) == ["join A-s2"])
    // B's member welcomed later lists A's peers.
    let late = cluster.join(1, 4)
    let peers = cluster.nodes[1].frames(late, "welcome")[0]["peers"]!.arrayItems!.map { $0["session"]!.stringValue! }
    #expect(peers.sorted() == ["A-s1", "A-s2", "B-s1"])
    #expect(cluster.nodes[1].frames(late, "welcome")[0]["peer_count"] == .number(3))
    cluster.send(0, a2, #"{"type":"drag","phase":"start","item":"b","list":"L"}"#)
    cluster.settle()
    cluster.leave(0, a2)
    cluster.settle()
    #expect(peerEvents(cluster.nodes[1], b) == ["join A-s2", "join B-s2", "leave A-s2"])
    #expect(dragUpdates(cluster.nodes[1], b) == ["A-s2 start b", "A-s2 cancel b"])
    #expect(cluster.log.rooms["r"]!.roster.keys.sorted() == ["A-s1", "B-s1", "B-s2"])
  }

  @Test("A crashed node's sessions leave when the roster drops them, their drags cancelled for everyone")
  func crashedNodeSessionsExpire() {
    let cluster = ClusterHarness(nodes: 3)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    let c = cluster.join(2, 3)
    seedCluster(cluster, from: a)
    cluster.send(0, a, #"{"type":"drag","phase":"start","item":"d","list":"L"}"#)
    cluster.settle()
    #expect(dragUpdates(cluster.nodes[2], c) == ["A-s1 start d"])
    // A dies without a word: nothing is published; the roster lists A-s1 until it expires.
    cluster.restart(0)
    cluster.readRoster(1)
    #expect(welcomePeers(cluster.nodes[1], b) == ["A-s1"])
    #expect(peerEvents(cluster.nodes[1], b) == ["join C-s1"])
    cluster.log.rooms["r"]!.roster["A-s1"] = nil
    cluster.now += 10
    cluster.readRoster(1)
    cluster.readRoster(2)
    cluster.settle()
    for (i, m) in [(1, b), (2, c)] {
      #expect(peerEvents(cluster.nodes[i], m).last == "leave A-s1")
      #expect(dragUpdates(cluster.nodes[i], m).last == "A-s1 cancel d")
    }
  }

  @Test("The roster brings in sessions nobody announced, and a stale read does not drop a fresh join")
  func rosterJoinsAndGrace() {
    let cluster = ClusterHarness(nodes: 2)
    let b = cluster.join(1, 2)
    cluster.settle()
    // A session of a node B never heard from, listed in the roster.
    let entry = PresenceMessage.rosterEntry(node: "Q", peer: PeerInfo(session: "Q-s9", name: "Quinn", color: "#000000"))
    #expect(PresenceMessage.rosterEntry(entry)?.node == "Q")
    cluster.perform(1, cluster.nodes[1].registry.roster(room: "r", entries: [entry], now: cluster.now))
    #expect(peerEvents(cluster.nodes[1], b) == ["join Q-s9"])
    // A joins on A; B reads a roster taken before A wrote it: the join stands for the grace period.
    let a = cluster.join(0, 1)
    cluster.settle()
    #expect(peerEvents(cluster.nodes[1], b) == ["join Q-s9", "join A-s1"])
    cluster.perform(1, cluster.nodes[1].registry.roster(room: "r", entries: [entry], now: cluster.now))
    #expect(peerEvents(cluster.nodes[1], b).last == "join A-s1")
    cluster.now += 6
    cluster.readRoster(1)
    #expect(peerEvents(cluster.nodes[1], b) == ["join Q-s9", "join A-s1", "leave Q-s9"])
    _ = a
  }

  @Test("Drags are published at most once per presence interval, the latest of each; a join at once")
  func publishesFollowThePacing() throws {
    let cluster = ClusterHarness(nodes: 2)
    let a = cluster.join(0, 1)
    let b = cluster.join(1, 2)
    seedCluster(cluster, from: a)
    // The first drag flushes at once (leading edge); the next two wait for the room's pace.
    for x in [0.1, 0.2, 0.3] {
      cluster.send(0, a, #"{"type":"drag","phase":"move","item":"c","list":"L","x":\#(x)}"#)
    }
    #expect(cluster.nodes[1].presence.count == 1)
    #expect(cluster.nodes[0].registry.nextTick(room: "r", now: cluster.now)! > cluster.now)
    cluster.tick()
    #expect(cluster.nodes[1].presence.count == 2)
    let second = try PresenceMessage(payload: cluster.nodes[1].presence[1].payload)
    #expect(second.drags.map(\.drag.x) == [0.3])
    // A join waits for no drag or tick: it is published at once, and nothing is left to publish.
    cluster.join(0, 3)
    #expect(cluster.nodes[1].presence.count == 3)
    #expect(cluster.nodes[0].registry.room("r")?.publishDue(now: cluster.now) == nil)
    cluster.settle()
    #expect(peerEvents(cluster.nodes[1], b).last == "join A-s2")
  }

  @Test("Peers of other nodes count towards a large room: their joins and leaves are coalesced notices")
  func remotePeersMakeARoomLarge() {
    var limits = RoomLimits()
    limits.largeRoomMembers = 2
    let cluster = ClusterHarness(nodes: 2, limits: limits)
    let b = cluster.join(1, 1)
    cluster.settle()
    let a = [cluster.join(0, 2), cluster.join(0, 3), cluster.join(0, 4)]
    cluster.settle()
    // B's one member hears of A's three through `peers` frames once the room counts as large.
    let peers = cluster.nodes[1].frames(b, "peers")
    let joined = peers.flatMap { $0["joined"]?.arrayItems ?? [] }.compactMap { $0["session"]?.stringValue }
    let announced = peerEvents(cluster.nodes[1], b).map { String($0.dropFirst("join ".count)) }
    #expect(Set(joined + announced) == ["A-s1", "A-s2", "A-s3"])
    #expect(!peers.isEmpty)
    #expect(peers.last?["count"] == .number(3))
    cluster.leave(0, a[0])
    cluster.settle()
    let left = cluster.nodes[1].frames(b, "peers").flatMap { $0["left"]?.arrayItems ?? [] }
    #expect(left == [.string("A-s1")])
    #expect(cluster.nodes[1].frames(b, "peers").last?["count"] == .number(2))
  }

  @Test("Presence messages and roster entries read back what was written")
  func presenceMessageRoundTrip() throws {
    var message = PresenceMessage()
    let ann = PeerInfo(session: "A-s1", name: "Ann \"A\"", color: "#e11d48")
    let bob = PeerInfo(session: "A-s2", name: "Bob", color: "#2563eb")
    message.join(ann)
    message.join(bob)
    message.drag(ann, DragMessage(phase: .start, item: "paris", list: "cities"))
    message.drag(
      ann, DragMessage(phase: .move, item: "paris", list: "cities", over: "rome", index: 2, x: 0.5, y: 1, t: .number(7))
    )
    message.leave("A-s2")
    message.leave("A-s7")
    #expect(message.joined == [ann])
    #expect(message.left == ["A-s7"])
    #expect(message.drags.count == 1 && message.drags[0].drag.phase == .move)
    let read = try PresenceMessage(payload: message.encoded())
    #expect(read == message)
    #expect(throws: BoardDataError.self) { try PresenceMessage(payload: Array(#"{"drags":[{"session":"x"}]}"#.utf8)) }
    #expect(try PresenceMessage(payload: Array("{}".utf8)).isEmpty)
  }
}

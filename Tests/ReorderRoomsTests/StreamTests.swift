import TestRandom
import Testing

@testable import ReorderRooms

@Suite("Gap-free streams")
struct StreamTests {
  /// Checks one connection's frames: a welcome at W (with ops W'+1…W for a catch-up), then applied
  /// W+1, W+2, … with no gap (repeats are re-sent op ids acknowledged again). Returns the last seq.
  func checkStream(_ frames: [JSONValue], connection: ConnectionHandle) -> UInt64? {
    guard let welcome = frames.first(where: { $0["type"] == .string("welcome") }) else { return nil }
    var last = UInt64(welcome["seq"]?.numberValue ?? 0)
    if case .array(let ops)? = welcome["ops"], let first = ops.first?["seq"]?.numberValue {
      let seqs = ops.compactMap { $0["seq"]?.numberValue.map { UInt64($0) } }
      #expect(seqs == Array(UInt64(first)...last), "catch-up ops of \(connection) are not contiguous")
    }
    for frame in frames where frame["type"] == .string("applied") {
      let seq = UInt64(frame["seq"]?.numberValue ?? 0)
      if seq <= last { continue }  // a re-sent op id acknowledged again (same seq): clients ignore it
      #expect(seq == last + 1, "\(connection): applied \(seq) after \(last)")
      last = seq
    }
    return last
  }

  @Test(
    "Random joins, leaves, ops and partial durability: every member sees welcome then a gap-free stream",
    arguments: Array(UInt64(1)...6))
  func randomSchedule(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let h = RoomsHarness(autoDurable: false)
    var open: [ConnectionHandle] = []
    var nextID: UInt64 = 1
    var lastSeen: [String: UInt64] = [:]
    var clientOf: [ConnectionHandle: String] = [:]
    var opCounter = 0
    var frames: [ConnectionHandle: [JSONValue]] = [:]
    func collect() {
      for c in open { frames[c, default: []] += h.take(c) }
    }
    let first = h.join(nextID, client: "c0")
    open.append(first)
    clientOf[first] = "c0"
    nextID += 1
    h.send(first, #"{"type":"op","id":"init","op":{"kind":"createList","list":"l","title":"L","layout":"list"}}"#)
    for _ in 0..<400 {
      switch rng.below(10) {
      case 0 where open.count < 6:
        let client = "c\(rng.below(4))"
        let since = lastSeen[client].flatMap { rng.below(2) == 0 ? $0 : nil }
        let c = h.join(nextID, client: client, since: since)
        nextID += 1
        open.append(c)
        clientOf[c] = client
      case 1 where open.count > 1:
        let c = open.remove(at: rng.below(open.count))
        collect()
        if let seen = checkStream(frames[c] ?? [], connection: c) { lastSeen[clientOf[c]!] = seen }
        h.close(c)
      case 2, 3:
        h.makeDurable(count: rng.below(3))
      default:
        let c = open[rng.below(open.count)]
        opCounter += 1
        let id = rng.below(5) == 0 ? "r\(rng.below(max(1, opCounter)))" : "o\(opCounter)"
        h.send(c, #"{"type":"op","id":"\#(id)","op":{"kind":"insert","list":"l","fields":{}}}"#)
      }
      collect()
    }
    h.makeDurable()
    collect()
    let final = h.registry.room("r")!.seq
    for c in open {
      #expect(checkStream(frames[c] ?? [], connection: c) == final, "\(c) did not reach seq \(final)")
    }
  }
}

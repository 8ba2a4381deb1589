import Testing

@testable import ReorderRooms

/// A burst is answered with `rate_limited`; only sustained abuse closes the connection.
@Suite("Rate limits: bursts and sustained abuse")
struct RateLimitTests {
  @Test("A reconnecting client re-sending 5× the op rate at once is rate limited, not closed")
  func reconnectBurstNotClosed() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    for i in 0..<1_000 { h.send(a, #"{"type":"op","id":"o\#(i)","op":{"kind":"delete","item":"x"}}"#) }
    #expect(h.closed[a] == nil)
    let frames = h.take(a)
    #expect(frames.filter { $0["code"] == .string("rate_limited") }.count == 600)
    #expect(frames.filter { $0["code"] == .string("unknown_item") }.count == 400)
    // The rejected ones, re-sent in bursts the bucket allows, are served.
    for start in stride(from: 400, to: 1_000, by: 300) {
      h.now += 2
      for i in start..<start + 300 {
        h.send(a, #"{"type":"op","id":"o\#(i)","op":{"kind":"delete","item":"x"}}"#)
      }
      #expect(h.closed[a] == nil)
      #expect(h.take(a).allSatisfy { $0["code"] == .string("unknown_item") })
    }
  }

  @Test("Ops at several times the rate for seconds close the connection with 1008")
  func sustainedOverRateCloses() {
    let h = RoomsHarness()
    let a = h.join(1)
    _ = h.take(a)
    var sent = 0
    while h.closed[a] == nil && sent < 20_000 {
      h.now += 0.001  // 1,000 ops per second, five times the rate
      h.send(a, #"{"type":"op","id":"o\#(sent)","op":{"kind":"delete","item":"x"}}"#)
      sent += 1
    }
    #expect(h.closed[a]?.code == 1008)
    #expect(sent > 1_000)
  }

  @Test("A drag flood gets one error rate_limited per burst")
  func dragFloodOneErrorPerBurst() {
    let h = RoomsHarness()
    let a = h.join(1)
    h.seed(a, ids: ["p"])
    _ = h.take(a)
    for _ in 0..<3 {
      for _ in 0..<1_500 {
        h.now += 0.0002  // 5,000 frames per second, refilling a few tokens as it goes
        h.send(a, #"{"type":"drag","phase":"move","item":"p","x":0.5}"#)
      }
      #expect(h.closed[a] == nil)
      #expect(h.take(a).filter { $0["code"] == .string("rate_limited") }.count == 1)
      h.now += 5
    }
  }
}

import Testing

@testable import ReorderTransport

@Suite("Keepalive: when a silent websocket is pinged and when it is dropped")
struct KeepaliveRuleTests {
  let rule = KeepaliveRule(pingSeconds: 30, idleSeconds: 60)

  @Test("heard within the ping interval: nothing; silent for it: one ping; silent for the idle timeout: dropped")
  func decisions() {
    #expect(rule.decide(now: 129.9, lastHeard: 100, pinged: false) == .none)
    #expect(rule.decide(now: 130, lastHeard: 100, pinged: false) == .ping)
    #expect(rule.decide(now: 150, lastHeard: 100, pinged: true) == .none, "pinged once, not again")
    #expect(rule.decide(now: 160, lastHeard: 100, pinged: true) == .drop)
    #expect(rule.decide(now: 160, lastHeard: 100, pinged: false) == .drop, "a ping that never went out still drops")
  }

  @Test("the sweep runs four times per ping interval, at least once a second")
  func sweep() {
    #expect(rule.sweepSeconds == 1)
    #expect(KeepaliveRule(pingSeconds: 1, idleSeconds: 2).sweepSeconds == 0.25)
  }
}

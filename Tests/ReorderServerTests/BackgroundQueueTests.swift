import Foundation
import ReorderBasics
import Testing

@testable import ReorderServer

@Suite("The store's reader queue")
struct BackgroundQueueTests {
  @Test("jobs run in order, one at a time, on a thread below the service thread's priority")
  func orderAndPriority() {
    let queue = BackgroundQueue.make(name: "test-reader")
    let lock = NSLock()
    nonisolated(unsafe) var seen: [Int] = []
    nonisolated(unsafe) var niceness: Int32 = 0
    nonisolated(unsafe) var policy: Int32 = -1
    let done = DispatchSemaphore(value: 0)
    for i in 0..<100 {
      queue.async {
        lock.withLock { seen.append(i) }
        if i == 99 {
          niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
          policy = sched_getscheduler(0)
          done.signal()
        }
      }
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(lock.withLock { seen } == Array(0..<100))
    #expect(niceness == BackgroundQueue.niceness)
    #expect(policy == SCHED_OTHER)  // not SCHED_IDLE: BackgroundQueueBusyHostTests
  }
}

import Foundation
import Testing

@testable import ReorderServer

/// The guard of an idle-class `BackgroundQueue`: a job kept waiting beside busy cores lifts the
/// worker out of the idle class, and the worker goes back once its queue is empty. Only where the
/// process may lift a thread out of the idle class (root, `CAP_SYS_NICE`, `RLIMIT_NICE` ≥ 10);
/// elsewhere the queue never enters it (`BackgroundQueueTests`).
@Suite("The idle-class queue's guard", .enabled(if: BackgroundQueue.idleClassAllowed))
struct BackgroundQueueGuardTests {
  @Test("a job starved beside busy cores is lifted to nice 10, and the thread returns to the idle class after")
  func starvedJobIsLiftedAndTheThreadReturns() {
    let queue = BackgroundQueue(name: "test-reader-guard")
    let spinners = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
      BackgroundQueueBusyHostTests.Spinner()
    }
    for spinner in spinners { Thread { spinner.spin() }.start() }
    for spinner in spinners { #expect(spinner.running.wait(timeout: .now() + 30) == .success) }
    nonisolated(unsafe) var worker: pthread_t?
    nonisolated(unsafe) var liftedPolicy: Int32 = -1
    nonisolated(unsafe) var niceness: Int32 = 0
    let done = DispatchSemaphore(value: 0)
    queue.async {
      worker = pthread_self()
      // Runs until the guard has lifted this thread (it may have before the job started).
      let start = Date()
      while sched_getscheduler(0) != SCHED_OTHER && Date().timeIntervalSince(start) < 30 {
        var sink: UInt64 = 0
        for i in 0..<1_000 { sink = sink &* 6_364_136_223_846_793_005 &+ UInt64(i) }
        if sink == 42 { print("") }
      }
      liftedPolicy = sched_getscheduler(0)
      niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
      done.signal()
    }
    let ran = done.wait(timeout: .now() + 60) == .success
    for spinner in spinners { spinner.set(phase: 2) }
    for spinner in spinners { _ = spinner.finished.wait(timeout: .now() + 10) }
    #expect(ran)
    #expect(liftedPolicy == SCHED_OTHER)
    #expect(niceness == BackgroundQueue.niceness)
    #expect(queue.raises >= 1)
    // With the queue empty the worker puts itself back in the idle class before it waits.
    var policy: Int32 = -1
    let deadline = Date().addingTimeInterval(10)
    while let worker, Date() < deadline {
      var parameters = sched_param()
      _ = pthread_getschedparam(worker, &policy, &parameters)
      if policy == BackgroundQueue.idleClassPolicy { break }
      usleep(1_000)
    }
    #expect(policy == BackgroundQueue.idleClassPolicy)
  }
}

import Foundation
import ReorderBasics
import Testing

@testable import ReorderServer

/// The kill-and-restart soak's finding (docs/RELIABILITY.md, "Recovery"): room loads, which the
/// members of a restarted server wait for, run on a `BackgroundQueue`; on a host whose cores are
/// all busy a queue thread under `SCHED_IDLE` gets almost no CPU (weight 3 against a nice-0
/// thread's 1,024), so loads waited seconds. The queue must stay below the busy threads but make
/// progress beside them.
@Suite("The reader queue on a busy host")
struct BackgroundQueueBusyHostTests {
  /// One busy thread per core, each measuring the CPU it got while the job ran.
  final class Spinner: @unchecked Sendable {
    private let lock = NSLock()
    private var phase = 0  // 0 before the job, 1 while it runs, 2 once it is done
    private var cpuAtOpen = 0.0
    private var cpuAtClose = 0.0
    private var started = false
    let running = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)

    func set(phase: Int) { lock.withLock { self.phase = phase } }

    /// The CPU seconds this thread got while the job ran.
    var cpuDuringJob: Double { lock.withLock { cpuAtClose - cpuAtOpen } }

    func spin() {
      var opened = false
      var sink: UInt64 = 0
      while true {
        for i in 0..<20_000 { sink = sink &* 6_364_136_223_846_793_005 &+ UInt64(i) }
        let current = lock.withLock { phase }
        if !started, threadCPUSeconds() > 0.005 {
          started = true
          running.signal()
        }
        if current == 1, !opened {
          opened = true
          let now = threadCPUSeconds()
          lock.withLock { cpuAtOpen = now }
        }
        if current == 2 {
          let now = threadCPUSeconds()
          lock.withLock {
            if !opened { cpuAtOpen = now }
            cpuAtClose = now
          }
          break
        }
      }
      if sink == 42 { print("") }  // keeps the loop from being optimized away
      finished.signal()
    }
  }

  static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // Not a timing assertion: the figure compared is a ratio of CPU time the scheduler gave two
  // threads over the same interval, which follows their weights whatever else the host runs. By
  // the weights a nice-10 thread beside a nice-0 one gets about 11 % of its CPU (more when the
  // tests run niced), an idle-class one 0.3 % (2.7 % beside nice-10 threads), a few per cent at
  // most with the migrations of a shared host. 5 % separates the two.
  @Test("a queued job gets a share of the CPU while every core is busy with normal-priority threads")
  func jobProgressesBesideBusyCores() {
    let queue = BackgroundQueue.make(name: "test-reader-busy")
    let spinners = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map { _ in Spinner() }
    for spinner in spinners {
      let thread = Thread { spinner.spin() }
      thread.start()
    }
    for spinner in spinners { #expect(spinner.running.wait(timeout: .now() + 30) == .success) }
    let jobCPU = 0.02
    let done = DispatchSemaphore(value: 0)
    queue.async {
      for spinner in spinners { spinner.set(phase: 1) }
      let start = Self.threadCPUSeconds()
      var sink: UInt64 = 0
      while Self.threadCPUSeconds() - start < jobCPU {
        for i in 0..<1_000 { sink = sink &* 6_364_136_223_846_793_005 &+ UInt64(i) }
      }
      if sink == 42 { print("") }
      for spinner in spinners { spinner.set(phase: 2) }
      done.signal()
    }
    let ran = done.wait(timeout: .now() + 60) == .success
    for spinner in spinners { spinner.set(phase: 2) }
    for spinner in spinners { _ = spinner.finished.wait(timeout: .now() + 10) }
    #expect(ran, "the job did not get \(jobCPU) s of CPU in 60 s beside \(spinners.count) busy threads")
    let spinnerCPU = spinners.map(\.cpuDuringJob).reduce(0, +) / Double(spinners.count)
    #expect(
      !ran || jobCPU / spinnerCPU >= 0.05,
      "the job got \(jobCPU) s of CPU while each busy thread got \(spinnerCPU) s (\(jobCPU / spinnerCPU))")
  }
}

import Foundation
import ReorderBasics
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// glibc's `pthread_getname_np` (declared only under `_GNU_SOURCE`, so not imported).
@_silgen_name("pthread_getname_np")
private func threadName(_ thread: pthread_t, _ name: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32

/// The kernel's name of the calling thread.
private func threadName() -> String {
  var buffer = [CChar](repeating: 0, count: 64)
  _ = threadName(pthread_self(), &buffer, buffer.count)
  return String(cString: buffer)
}

/// Starts `worker`'s loop over a list of numbers: `next` takes all of them (`.run`), or what is
/// left when stopping (`.finish`); `perform` hands each batch to `done`.
private func startNumbers(_ worker: WorkerThread<[Int]>, done: @escaping @Sendable ([Int], Bool) -> Void) {
  worker.start(
    next: { numbers, stopping in
      defer { numbers = [] }
      if stopping { return .finish((numbers, true)) }
      return numbers.isEmpty ? .wait : .run((numbers, false))
    },
    perform: { batch in done(batch.0, batch.1) })
}

@Suite("WorkerThread")
struct WorkerThreadTests {
  @Test("The loop runs on a thread of the worker's name; work queued before start() runs after it")
  func startsNamedThread() {
    let names = Locked<[String]>([])
    let seen = Locked<[Int]>([])
    let ran = DispatchSemaphore(value: 0)
    let worker = WorkerThread<[Int]>(name: "reorder-test-start", state: [])
    worker.update { $0.append(1) }
    #expect(!worker.isStarted)
    startNumbers(worker) { numbers, _ in
      names.withLock { $0.append(threadName()) }
      seen.withLock { $0 += numbers }
      if !numbers.isEmpty { ran.signal() }
    }
    startNumbers(worker) { _, _ in Issue.record("a second start() started a loop") }
    #expect(worker.isStarted)
    #expect(ran.wait(timeout: .now() + 5) == .success)
    #expect(seen.snapshot == [1])
    #expect(names.snapshot.first == "reorder-test-st")  // the kernel keeps 15 bytes
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
  }

  @Test("Every update wakes the thread: 4 producers x 2,000 numbers all arrive, in each producer's order")
  func noLostWakeups() {
    let seen = Locked<[Int]>([])
    let all = DispatchSemaphore(value: 0)
    let total = 4 * 2_000
    let worker = WorkerThread<[Int]>(name: "test-producers", state: [])
    startNumbers(worker) { numbers, _ in
      let count = seen.withLock { seen in
        seen += numbers
        return seen.count
      }
      if count == total && !numbers.isEmpty { all.signal() }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { producer in
      for i in 0..<2_000 { worker.update { $0.append(producer * 10_000 + i) } }
    }
    #expect(all.wait(timeout: .now() + 10) == .success)
    let numbers = seen.snapshot
    #expect(numbers.count == total)
    for producer in 0..<4 {
      let mine = numbers.filter { $0 / 10_000 == producer }
      #expect(mine == (0..<2_000).map { producer * 10_000 + $0 })
    }
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
  }

  @Test("One update at a time, each waited for: the thread wakes for every one (a lost wake-up hangs)")
  func wakesForEachUpdate() {
    let done = DispatchSemaphore(value: 0)
    let worker = WorkerThread<[Int]>(name: "test-each", state: [])
    startNumbers(worker) { numbers, _ in
      for _ in numbers { done.signal() }
    }
    var answered = 0
    for i in 0..<500 {
      worker.update { $0.append(i) }
      guard done.wait(timeout: .now() + 5) == .success else { break }
      answered += 1
    }
    #expect(answered == 500)
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
  }

  @Test("update(waking:) wakes the thread only when asked to")
  func wakesWhenAsked() {
    let runs = Locked(0)
    let ran = DispatchSemaphore(value: 0)
    // Signalled under the lock as the loop goes to sleep: once `update` has the lock after it,
    // the thread is asleep.
    let idle = DispatchSemaphore(value: 0)
    let worker = WorkerThread<(count: Int, seen: Int)>(name: "test-waking", state: (0, 0))
    worker.start(
      next: { state, stopping in
        if stopping { return .finish(false) }
        // Runs only for a count it has not seen; a wake for nothing new finds nothing to do.
        guard state.count != state.seen else {
          idle.signal()
          return .wait
        }
        state.seen = state.count
        return .run(true)
      },
      perform: { _ in
        runs.withLock { $0 += 1 }
        ran.signal()
      })
    #expect(idle.wait(timeout: .now() + 5) == .success)  // the first sleep, before any update
    worker.update(waking: { state, wake in
      state.count = 1
      wake = true
    })
    #expect(ran.wait(timeout: .now() + 5) == .success)
    #expect(idle.wait(timeout: .now() + 5) == .success)  // asleep again after the run
    worker.update(waking: { state, _ in state.count = 2 })  // not woken: stays unseen
    #expect(ran.wait(timeout: .now() + 0.2) == .timedOut)
    #expect(runs.snapshot == 1)
    worker.update(waking: { _, wake in wake = true })
    #expect(ran.wait(timeout: .now() + 5) == .success)
    #expect(runs.snapshot == 2)
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
  }

  @Test("stop(): next sees stopping, .finish's work runs, then the thread ends and join returns true")
  func stopFinishesAndJoins() {
    let finished = Locked<[Int]?>(nil)
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    let worker = WorkerThread<[Int]>(name: "test-stop", state: [])
    startNumbers(worker) { numbers, stopping in
      if stopping {
        finished.withLock { $0 = numbers }
      } else {
        entered.signal()
        gate.wait()
      }
    }
    worker.update { $0.append(1) }
    #expect(entered.wait(timeout: .now() + 5) == .success)
    // The thread is inside perform: these wait in the state, and stop() comes before it looks again.
    worker.update { $0 += [2, 3] }
    worker.stop()
    #expect(worker.isStopping)
    #expect(!worker.join(timeoutSeconds: 0.05))  // still held in perform
    gate.signal()
    worker.join()
    #expect(worker.join(timeoutSeconds: 0))
    #expect(finished.snapshot == [2, 3])
  }

  @Test("A worker that never started joins at once")
  func joinUnstarted() {
    let worker = WorkerThread<[Int]>(name: "test-unstarted", state: [])
    worker.stop()
    #expect(worker.join(timeoutSeconds: 0))
  }

  @Test(".waitUntil wakes the thread at its deadline with no update")
  func deadlineWakes() {
    let woke = DispatchSemaphore(value: 0)
    let deadline = MonotonicClock.now() + 0.05
    let worker = WorkerThread<Bool>(name: "test-deadline", state: false)
    worker.start(
      next: { fired, stopping in
        if stopping { return .finish(()) }
        if fired { return .wait }
        guard MonotonicClock.now() >= deadline else { return .waitUntil(deadline) }
        fired = true
        return .run(())
      },
      perform: { woke.signal() })
    #expect(woke.wait(timeout: .now() + 5) == .success)
    #expect(MonotonicClock.now() >= deadline)
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
  }

  @Test("pause(seconds:) in perform returns false as soon as stop() is called")
  func pauseEndsOnStop() {
    let paused = Locked<Bool?>(nil)
    let entered = DispatchSemaphore(value: 0)
    let worker = WorkerThread<Bool>(name: "test-pause", state: true)
    worker.start(
      next: { first, stopping in
        if first {
          first = false
          return .run(true)
        }
        return stopping ? .finish(false) : .wait
      },
      perform: { pause in
        guard pause else { return }
        entered.signal()
        let result = worker.pause(seconds: 60)
        paused.withLock { $0 = result }
      })
    #expect(entered.wait(timeout: .now() + 5) == .success)
    worker.stop()
    #expect(worker.join(timeoutSeconds: 5))
    #expect(paused.snapshot == false)
  }
}

@Suite("JobQueue")
struct JobQueueTests {
  @Test("Jobs run in order on one named thread, started by the first job")
  func runsInOrder() {
    let queue = JobQueue(name: "reorder-test-jobs")
    #expect(!queue.isStarted)
    let seen = Locked<[Int]>([])
    let threads = Locked<Set<String>>([])
    let done = DispatchSemaphore(value: 0)
    for i in 0..<1_000 {
      queue.async {
        seen.withLock { $0.append(i) }
        threads.withLock { $0.insert(threadName()) }
        if i == 999 { done.signal() }
      }
    }
    #expect(queue.isStarted)
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(seen.snapshot == Array(0..<1_000))
    #expect(threads.snapshot == ["reorder-test-jo"])  // the kernel keeps 15 bytes
  }

  @Test("The thread ends once the queue is gone, after the jobs queued before")
  func threadEndsWithQueue() {
    let thread = Locked<Thread?>(nil)
    let ran = Locked(0)
    var queue: JobQueue? = JobQueue(name: "reorder-test-end")
    for _ in 0..<3 {
      queue!.async {
        thread.withLock { $0 = Thread.current }
        ran.withLock { $0 += 1 }
      }
    }
    queue = nil
    let deadline = Date(timeIntervalSinceNow: 10)
    while ran.snapshot < 3 || thread.snapshot?.isFinished != true, Date() < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(ran.snapshot == 3)
    #expect(thread.snapshot?.isFinished == true)
  }
}

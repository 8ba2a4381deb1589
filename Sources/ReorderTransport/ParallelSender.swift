import Foundation

/// A second thread that takes half of a large fan-out: `send()`s of already framed bytes to plain
/// TCP sockets, while the service thread does the other half, then both meet again (fork-join).
///
/// A fan-out is one `send()` per recipient, nearly all of its time in the kernel; the last of many
/// recipients waits for every one before it. Two threads halve that wait. The
/// helper only ever calls `send()` on descriptors the service thread hands it, and only while the
/// service thread is waiting for it in `run`: lws is never entered from two threads. What the kernel
/// does not take at once is reported back, and the service thread hands the rest to lws.
final class ParallelSender: @unchecked Sendable {
  /// One `send()`: `count` bytes at `bytes` to `fd`; `sent` is filled in (bytes, or -1 on error).
  struct Job {
    let fd: Int32
    let bytes: UnsafeRawPointer
    let count: Int
    var sent = 0
  }

  private let start = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  /// Written by the service thread before `start.signal()`, read back after `done.wait()`.
  private var jobs: UnsafeMutableBufferPointer<Job> = .init(start: nil, count: 0)
  private var stopping = false
  /// Service thread only: whether the helper thread was started (on the first `run`).
  private var started = false

  /// Service thread: performs every job, the second half on the helper thread. Returns when all
  /// are done; each job's `sent` says how far it got.
  func run(_ all: UnsafeMutableBufferPointer<Job>) {
    if !started {
      started = true
      let thread = Thread { [self] in work() }
      thread.name = "lws-fanout"
      thread.stackSize = 256 << 10
      thread.start()
    }
    let half = all.count / 2
    jobs = UnsafeMutableBufferPointer(rebasing: all[half...])
    start.signal()
    Self.perform(UnsafeMutableBufferPointer(rebasing: all[..<half]))
    done.wait()
    jobs = .init(start: nil, count: 0)
  }

  /// Service thread: ends the helper thread (after the last `run`).
  func stop() {
    guard started else { return }
    stopping = true
    start.signal()
  }

  private func work() {
    while true {
      start.wait()
      if stopping { return }
      Self.perform(jobs)
      done.signal()
    }
  }

  private static func perform(_ jobs: UnsafeMutableBufferPointer<Job>) {
    for index in jobs.indices {
      let job = jobs[index]
      let sent = Glibc.send(job.fd, job.bytes, job.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
      if sent >= 0 {
        jobs[index].sent = sent
      } else {
        jobs[index].sent = errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1
      }
    }
  }
}

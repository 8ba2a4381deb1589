import CLibWebSockets
import Foundation
import Synchronization

/// One lws context and the one thread that services it.
///
/// Ownership: the context is created on the caller's thread (so bind errors surface synchronously),
/// then only the service thread touches it — `lws_service`, every callback, `lws_context_destroy`.
/// Other threads only `post(_:)` work: it is appended to a locked inbox and `lws_cancel_service()`
/// wakes the loop, which drains the inbox in `LWS_CALLBACK_EVENT_WAIT_CANCELLED` (see `drainInbox`).
final class ServiceLoop: @unchecked Sendable {
  private struct Shared {
    var inbox: [@Sendable () -> Void] = []
    /// Set (under the lock) before the context is destroyed: no more `lws_cancel_service` after it.
    var closed = false
  }

  private let shared = Locked(Shared())
  private let name: String
  /// Written once before the thread starts; read by any thread (only for `lws_cancel_service`).
  private(set) var context: OpaquePointer?
  /// The service thread's id (`pthread_t`, 0 until the thread runs); written once at the top of
  /// the thread, read by ownership checks. Atomic rather than locked: every send and queue-depth
  /// query checks it, hundreds of times per broadcast.
  private let serviceThread = Atomic<UInt>(0)
  /// Service thread only.
  private var stopRequested = false
  /// Runs on the service thread after every pass of the loop (one `lws_service`: the events of one
  /// wait). Set before `start()`.
  var afterPass: (() -> Void)?
  private let finished = DispatchSemaphore(value: 0)
  private var started = false

  init(name: String) {
    self.name = name
  }

  /// Creates the context from `info` (on the calling thread). Throws when lws refuses; `failure`
  /// says what was being attempted and what to check (lws logs the exact cause just before).
  func createContext(_ info: inout lws_context_creation_info, failure: String) throws {
    precondition(context == nil, "context created twice")
    Self.raiseOpenFileLimit()
    guard let created = lws_create_context(&info) else {
      throw TransportError.contextCreationFailed(failure)
    }
    shared.withLock { _ in context = created }  // post() reads it under the same lock
  }

  /// lws sizes its descriptor tables from RLIMIT_NOFILE when a context is created, and a soft limit
  /// of 1,024 would cap a server (or the load tool) below 1,000 connections. Like Go's runtime, raise
  /// the soft limit to the hard one, capped at 65,536 (lws allocates a slot per possible fd).
  static func raiseOpenFileLimit(cap: rlim_t = 65_536) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    let target = min(limit.rlim_max, cap)
    guard limit.rlim_cur < target else { return }
    limit.rlim_cur = target
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  /// Starts the service thread. `onStopped` runs on it after the context is destroyed.
  func start(onStopped: @escaping @Sendable () -> Void = {}) {
    precondition(context != nil && !started, "start() needs a context, once")
    started = true
    let thread = Thread { [self] in
      serviceThread.store(UInt(pthread_self()), ordering: .releasing)
      run()
      onStopped()
      finished.signal()
    }
    thread.name = name
    thread.stackSize = 1 << 20
    thread.start()
    // Work posted before the thread existed is waiting in the inbox: wake the loop for it.
    shared.withLock { shared in
      if !shared.inbox.isEmpty, let context { lws_cancel_service(context) }
    }
  }

  private func run() {
    guard let context else { return }
    while !stopRequested {
      if lws_service(context, 0) < 0 { break }
      afterPass?()
    }
    shared.withLock { $0.closed = true }
    lws_context_destroy(context)
    // Work posted after the stop is dropped; release it here, on the thread that owned it.
    shared.withLock { $0.inbox.removeAll() }
  }

  /// True on the service thread.
  var isServiceThread: Bool {
    let id = serviceThread.load(ordering: .acquiring)
    return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
  }

  /// Precondition for every entry point that touches lws state.
  func assertServiceThread(_ function: StaticString = #function) {
    precondition(isServiceThread, "\(function) must be called on the lws service thread (use post(_:))")
  }

  /// Any thread: runs `work` on the service thread soon. Returns false when the loop has stopped.
  @discardableResult
  func post(_ work: @escaping @Sendable () -> Void) -> Bool {
    shared.withLock { shared in
      guard !shared.closed else { return false }
      shared.inbox.append(work)
      if let context { lws_cancel_service(context) }
      return true
    }
  }

  /// Service thread: runs everything posted so far (called from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`).
  func drainInbox() {
    let work = shared.withLock { shared in
      defer { shared.inbox.removeAll(keepingCapacity: true) }
      return shared.inbox
    }
    for item in work { item() }
  }

  /// Service thread: leave the loop after this iteration (the context is destroyed on the way out).
  ///
  /// Also wakes the loop: lws runs timer callbacks *before* it waits in poll, so a stop asked from a
  /// timer would otherwise wait for the next network event (up to lws' 30 s poll limit).
  func requestStop() {
    assertServiceThread()
    stopRequested = true
    if let context { lws_cancel_service(context) }
  }

  /// Any thread (not the service thread): waits until the service thread has finished.
  func waitUntilFinished() {
    precondition(!isServiceThread, "waiting for the service thread on itself would deadlock")
    guard started else { return }
    finished.wait()
    finished.signal()  // let later waiters through too
  }

  /// True once the thread has finished (or never started).
  var hasStopped: Bool { shared.withLock { $0.closed } }
}

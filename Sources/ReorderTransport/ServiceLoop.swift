import CLibWebSockets
import Foundation
import ReorderBasics
import Synchronization

/// One lws context and the one thread that services it.
///
/// The thread waits either in lws' own `poll()` loop (`lws_service`, one pass per call) or, for a
/// server with many connections, in a libev loop of ours that lws runs on (`TransportConfiguration.EventLoop.libev`: epoll,
/// whose cost does not grow with the descriptors that are idle); `afterPass` ends each pass
/// either way.
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
  /// The libev loop of each context that runs on one, for `LWSTimer`; a context leaves it when
  /// its loop is destroyed.
  private static let libevLoops = Locked<[OpaquePointer: LibevLoop]>([:])
  /// Tests only: runs on the service thread right after `lws_context_destroy`, with the address
  /// the context had (free for another context from then on).
  nonisolated(unsafe) static var afterContextDestroyed: ((OpaquePointer) -> Void)?
  private let name: String
  /// Written once before the thread starts; read by any thread (only for `lws_cancel_service`).
  private(set) var context: OpaquePointer?
  /// The service thread's id (`pthread_t`, 0 until the thread runs); written once at the top of
  /// the thread, read by ownership checks. Atomic rather than locked: every send and queue-depth
  /// query checks it, hundreds of times per broadcast.
  private let serviceThread = Atomic<UInt>(0)
  /// Service thread only.
  private var stopRequested = false
  /// Runs on the service thread after every pass of the loop (the events of one wait), before it
  /// waits again. Set before `start()`.
  var afterPass: (() -> Void)?
  /// What was asked for.
  let waiting: TransportConfiguration.EventLoop
  /// The libev loop (`struct ev_loop *`) when the context runs on one; nil: lws' poll loop.
  private var eventLoop: OpaquePointer?
  /// The same loop as timers hold it (told when it is destroyed).
  private var libevLoop: LibevLoop?
  /// How the thread actually waits (poll when libev was asked for but lws could not use it).
  var waitsWith: TransportConfiguration.EventLoop { eventLoop == nil ? .poll : .libev }
  private let finished = DispatchSemaphore(value: 0)
  private var started = false

  init(name: String, waiting: TransportConfiguration.EventLoop = .poll) {
    self.name = name
    self.waiting = waiting
  }

  /// Creates the context from `info` (on the calling thread). Throws when lws refuses; `failure`
  /// says what was being attempted and what to check (lws logs the exact cause just before).
  func createContext(_ info: inout lws_context_creation_info, failure: String) throws {
    precondition(context == nil, "context created twice")
    Self.raiseOpenFileLimit()
    var created: OpaquePointer?
    if waiting == .libev, let loop = reorder_ev_loop_new() {
      var libevInfo = info
      libevInfo.options |= UInt64(LWS_SERVER_OPTION_LIBEV)
      var loops: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(loop)]
      created = loops.withUnsafeMutableBufferPointer { loops in
        libevInfo.foreign_loops = loops.baseAddress
        return lws_create_context(&libevInfo)
      }
      if let created {
        eventLoop = loop
        let held = LibevLoop(loop)
        libevLoop = held
        Self.libevLoops.withLock { $0[created] = held }
      } else {
        reorder_ev_loop_destroy(loop)
      }
    }
    if created == nil {
      created = lws_create_context(&info)
      // A context that fails on poll too failed for another reason (the port, the certificate).
      if created != nil && waiting == .libev {
        Log.warn("lws could not run on libev (is libwebsockets-evlib-ev installed?): using poll()")
      }
    }
    guard let created else { throw TransportError.contextCreationFailed(failure) }
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
    if let eventLoop {
      let me = Unmanaged.passUnretained(self).toOpaque()
      let hook = reorder_ev_pass_start(
        eventLoop, { data in Unmanaged<ServiceLoop>.fromOpaque(data!).takeUnretainedValue().endOfLibevPass() }, me)
      let heartbeat = reorder_ev_timer_new(
        { data in Unmanaged<ServiceLoop>.fromOpaque(data!).takeUnretainedValue().libevHeartbeat() }, me)
      if let heartbeat { reorder_ev_timer_every(eventLoop, heartbeat, Self.libevHeartbeatSeconds) }
      while !stopRequested { reorder_ev_run(eventLoop) }
      if let hook { reorder_ev_pass_stop(eventLoop, hook) }
      if let heartbeat {
        reorder_ev_timer_cancel(eventLoop, heartbeat)
        free(heartbeat)
      }
    } else {
      while !stopRequested {
        if lws_service(context, 0) < 0 { break }
        afterPass?()
      }
    }
    shared.withLock { $0.closed = true }
    // Out of the registry before lws frees the context: from then on its address may be another
    // context's (on poll, say), whose timers must not find this loop. Timers armed on it hold
    // the loop themselves, so the ones lws' destroy callbacks cancel still reach it.
    if eventLoop != nil { _ = Self.libevLoops.withLock { $0.removeValue(forKey: context) } }
    lws_context_destroy(context)
    Self.afterContextDestroyed?(context)
    if let eventLoop {
      libevLoop?.destroyed()
      reorder_ev_loop_destroy(eventLoop)
    }
    // Work posted after the stop is dropped; release it here, on the thread that owned it.
    shared.withLock { $0.inbox.removeAll() }
  }

  /// libev's prepare watcher: the end of a pass.
  private func endOfLibevPass() { afterPass?() }

  /// How late lws' own timers (`lws_sul`: close, ping and HTTP timeouts) may fire on libev at
  /// most. lws 4.1.6 re-arms its one libev timer for a sul due sooner with `ev_timer_set` on the
  /// active watcher, which libev ignores; but it runs every sul that is due after each socket
  /// event. A wake-up through its event pipe this often is such an event, so a timeout due while
  /// nothing else happens (a client that never answers a close) still fires.
  static let libevHeartbeatSeconds = 0.1

  private func libevHeartbeat() {
    if !stopRequested, let context { lws_cancel_service(context) }
  }

  /// The libev loop `context` runs on; nil when it runs on lws' poll loop (or is gone). Only
  /// for a live context: once it is destroyed its address may be another's.
  static func libevLoop(of context: OpaquePointer) -> LibevLoop? {
    libevLoops.withLock { $0[context] }
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
    if let eventLoop { reorder_ev_break(eventLoop) }
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

/// A libev loop as a timer holds on to it: a timer released after its loop was destroyed must not
/// touch it (nor a loop of another context that took the old one's address).
final class LibevLoop: @unchecked Sendable {
  /// `struct ev_loop *`.
  let loop: OpaquePointer
  private let alive = Atomic<Bool>(true)

  init(_ loop: OpaquePointer) { self.loop = loop }

  /// Whether the loop still exists.
  var isAlive: Bool { alive.load(ordering: .acquiring) }

  /// Service thread, just before the loop is destroyed.
  func destroyed() { alive.store(false, ordering: .releasing) }
}

import CEpoll
import Foundation
import ReorderBasics
import ReorderTransport
import Synchronization

/// The load tool's own websocket client: one thread waiting in `epoll_wait` on every connection
/// of its shard (edge-triggered), reading each ready socket in `recv`s of up to 64 KB and parsing
/// the frames out of them (`ServerFrameReader`). lws' client (`TransportSocketContext`) waits in `poll()`, which
/// scans all 10,000 descriptors of a big room at every wake-up, and parses frames a byte at a time:
/// with a room of 10,000 it becomes the limit of a run before the server does. Plain `ws://` only;
/// `wss://` runs on lws.
///
/// Threads: every method may be called from any thread; work for the service thread is posted
/// (a locked inbox and an eventfd that wakes the wait) unless the caller is already on it.
final class EpollSocketContext: LoadSocketContext, @unchecked Sendable {
  /// A bound on any one message (a big board's `welcome` is about 0.5 MB).
  let maxMessageBytes: Int
  private let poller: Int32
  private let waker: Int32
  private let inbox = Locked<[@Sendable () -> Void]>([])
  private let serviceThread = Atomic<UInt>(0)
  private let finished = DispatchSemaphore(value: 0)
  private let stopped = Locked(false)

  // Service thread only.
  private var sockets: [UInt64: EpollSocket] = [:]
  /// Sockets that sent a close and wait for the server's (checked for their deadline).
  private var closing: [UInt64: EpollSocket] = [:]
  private var nextToken: UInt64 = 1
  private var stopRequested = false
  private var addresses: [String: [UInt8]] = [:]
  /// Where every socket reads into before its frames are parsed (what a frame leaves unfinished
  /// is copied into that socket's own buffer).
  var scratch = [UInt8](repeating: 0, count: 1 << 16)
  /// Masks for the frames the clients send (RFC 6455 §5.3 asks for a fresh key per frame).
  var maskKeys = SplitMix64(seed: UInt64(truncatingIfNeeded: MonotonicClock.microseconds()))

  static let wakeToken: UInt64 = 0

  /// The IPv4 address every socket binds to before it connects (`--source-address`), or nil for
  /// the kernel's choice: spreading the clients of several processes over 127.0.0.2, 127.0.0.3…
  /// gives each its own range of ephemeral ports.
  let sourceAddress: in_addr?

  /// The IPv4 address `text` spells (`127.0.0.2`), or nil.
  static func ipv4(_ text: String) -> in_addr? {
    var address = in_addr()
    return inet_pton(AF_INET, text, &address) == 1 ? address : nil
  }

  init(maxMessageBytes: Int = 16 << 20, sourceAddress: in_addr? = nil) throws {
    self.maxMessageBytes = maxMessageBytes
    self.sourceAddress = sourceAddress
    poller = epoll_create1(Int32(EPOLL_CLOEXEC))
    waker = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    guard poller >= 0, waker >= 0 else {
      throw LoadError.io("epoll client: epoll_create1 or eventfd failed: \(String(cString: strerror(errno)))")
    }
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = Self.wakeToken
    _ = epoll_ctl(poller, EPOLL_CTL_ADD, waker, &event)
    let thread = Thread { [self] in
      serviceThread.store(UInt(pthread_self()), ordering: .releasing)
      run()
      finished.signal()
    }
    thread.name = "load-epoll"
    thread.stackSize = 1 << 20
    thread.start()
  }

  deinit {
    close(poller)
    close(waker)
  }

  var isServiceThread: Bool {
    let id = serviceThread.load(ordering: .acquiring)
    return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
  }

  func connect(url: String, subprotocol: String?, onEvent: @escaping @Sendable (LoadSocketEvent) -> Void)
    -> any LoadSocket
  {
    let socket = EpollSocket(context: self, url: url, subprotocol: subprotocol, onEvent: onEvent)
    onServiceThread { [self] in open(socket) }
    return socket
  }

  func post(_ work: @escaping @Sendable () -> Void) {
    let wake = inbox.withLock { inbox in
      inbox.append(work)
      return inbox.count == 1
    }
    if wake {
      var one: UInt64 = 1
      _ = write(waker, &one, 8)
    }
  }

  func shutdown() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first { post { [self] in stopRequested = true } }
    finished.wait()
    finished.signal()
  }

  /// Runs `work` now when called on the service thread, else posts it.
  func onServiceThread(_ work: @escaping @Sendable () -> Void) {
    if isServiceThread { work() } else { post(work) }
  }

  private func run() {
    var events = [epoll_event](repeating: epoll_event(), count: 1_024)
    while !stopRequested {
      let timeout: Int32 = closing.isEmpty ? 1_000 : 100
      let count = epoll_wait(poller, &events, Int32(events.count), timeout)
      if count < 0 && errno != EINTR { break }
      for index in 0..<max(0, Int(count)) {
        let token = events[index].data.u64
        if token == Self.wakeToken {
          var value: UInt64 = 0
          _ = read(waker, &value, 8)
          continue
        }
        let socket = sockets[token]
        socket?.handle(events: events[index].events)
      }
      drainInbox()
      expireClosingSockets()
    }
    for socket in sockets.values { socket.abandon() }
    sockets.removeAll()
    inbox.withLock { $0.removeAll() }
  }

  private func drainInbox() {
    while true {
      let work = inbox.withLock { inbox in
        defer { inbox.removeAll(keepingCapacity: true) }
        return inbox
      }
      if work.isEmpty { return }
      for item in work { item() }
    }
  }

  private func expireClosingSockets() {
    let now = MonotonicClock.microseconds()
    guard !closing.isEmpty else { return }
    for socket in closing.values where socket.closeDeadline <= now {
      socket.finish(code: socket.sentClose?.code, reason: socket.sentClose?.reason ?? "close timed out")
    }
  }

  /// Service thread: creates the socket and starts connecting.
  private func open(_ socket: EpollSocket) {
    guard let target = WebSocketURL(socket.url), !target.secure else {
      socket.finish(code: nil, reason: "not a ws:// URL: \(socket.url)")
      return
    }
    guard let address = address(of: target) else {
      socket.finish(code: nil, reason: "cannot resolve \(target.host)")
      return
    }
    let token = nextToken
    nextToken += 1
    sockets[token] = socket
    socket.start(token: token, target: target, address: address)
  }

  /// Service thread: the socket address for `target` (resolved once per host and port).
  private func address(of target: WebSocketURL) -> [UInt8]? {
    let key = "\(target.host) \(target.port)"
    if let known = addresses[key] { return known }
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(target.host, String(target.port), &hints, &found) == 0, let first = found else { return nil }
    defer { freeaddrinfo(found) }
    let bytes = Array(UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
    addresses[key] = bytes
    return bytes
  }

  /// Service thread: registers `fd` for `events`.
  func watch(_ fd: Int32, token: UInt64, events: UInt32) {
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    _ = epoll_ctl(poller, EPOLL_CTL_ADD, fd, &event)
  }

  /// Service thread: the socket is done (its descriptor is closed, which leaves the epoll set).
  func forget(token: UInt64) {
    sockets[token] = nil
    closing[token] = nil
  }

  /// Service thread: the socket sent its close frame and waits for the server's until its deadline.
  func waitForClose(token: UInt64) { closing[token] = sockets[token] }
}

import CEpoll
import Foundation
import ReorderBasics
import ReorderTransport

/// One connection of an `EpollSocketContext`: a non-blocking TCP socket, the handshake, then
/// frames. Its state lives on the context's service thread; the `LoadSocket` methods hop there.
///
/// The socket is registered once, edge-triggered, for input and output: no `epoll_ctl` per pause
/// or write, and no re-poll of a socket at every wait. Reading: at each edge, `recv` until the
/// socket is empty (or the client pauses), each chunk parsed at once; a frame cut off at the end
/// waits in `inbox`. A paused reader that resumes drains what came meanwhile itself (its edge was
/// spent). Writing: frames are written at once and only what the kernel does not take waits in
/// `outbox` for the next output edge.
final class EpollSocket: LoadSocket, @unchecked Sendable {
  enum State { case idle, connecting, handshaking, open, closing, finished }

  /// The most a socket reads at once once it has been paused (`setReceiving(false)`): a throttled
  /// reader takes small bites, as lws' client does (4 KB), so its pace is the throttle's.
  static let throttledReadBytes = 4_096

  unowned let context: EpollSocketContext
  let url: String
  let subprotocol: String?
  let onEvent: @Sendable (LoadSocketEvent) -> Void

  // Service thread only.
  private var fd: Int32 = -1
  private var token: UInt64 = 0
  private var state = State.idle
  private var handshake: ClientHandshake?
  private var reader: ServerFrameReader
  private var inbox: [UInt8] = []
  private var outbox: [UInt8] = []
  private var outboxStart = 0
  private var receiving = true
  private var readLimit = 1 << 16
  /// What this side sent in its close frame, once it did.
  private(set) var sentClose: (code: UInt16, reason: String)?
  /// When a close this side started gives up waiting for the server's answer (µs).
  private(set) var closeDeadline: Int64 = .max
  /// Messages sent before the handshake completed, sent right after it.
  private var early: [String] = []
  private var closeWhenOpen: (code: UInt16, reason: String)?

  init(
    context: EpollSocketContext, url: String, subprotocol: String?,
    onEvent: @escaping @Sendable (LoadSocketEvent) -> Void
  ) {
    self.context = context
    self.url = url
    self.subprotocol = subprotocol
    self.onEvent = onEvent
    reader = ServerFrameReader(maxMessageBytes: context.maxMessageBytes)
  }

  // MARK: LoadSocket (any thread)

  func send(_ text: String) {
    context.onServiceThread { [self] in
      switch state {
      case .idle, .connecting, .handshaking: early.append(text)
      case .open: sendFrame(opcode: 1, payload: Array(text.utf8))
      case .closing, .finished: break
      }
    }
  }

  func close(code: UInt16, reason: String) {
    context.onServiceThread { [self] in
      switch state {
      case .idle, .connecting, .handshaking: closeWhenOpen = (code, reason)
      case .open: startClose(code: code, reason: reason)
      case .closing, .finished: break
      }
    }
  }

  func setReceiving(_ receiving: Bool) {
    context.onServiceThread { [self] in
      guard state != .finished, self.receiving != receiving else { return }
      self.receiving = receiving
      readLimit = EpollSocket.throttledReadBytes
      // In a turn of its own: a resume asked for while another socket delivers must not read
      // into the shared buffer that one is still parsing.
      if receiving {
        context.post { [self] in
          guard self.receiving else { return }
          parseInbox()
          readAvailable()
        }
      }
    }
  }

  // MARK: Service thread

  /// Creates the socket and starts connecting to `address` (a `sockaddr`'s bytes).
  func start(token: UInt64, target: WebSocketURL, address: [UInt8]) {
    self.token = token
    let family = address.withUnsafeBytes { Int32($0.load(as: sockaddr.self).sa_family) }
    fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return finish(code: nil, reason: "socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    if let source = context.sourceAddress, family == AF_INET {
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr = source
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      guard bound == 0 else { return finish(code: nil, reason: "bind: \(String(cString: strerror(errno)))") }
    }
    var nonce = [UInt8](repeating: 0, count: 16)
    for index in nonce.indices { nonce[index] = UInt8.random(in: 0...255) }
    handshake = ClientHandshake(
      host: target.host, port: target.port, path: target.path, subprotocol: subprotocol, nonce: nonce)
    let result = address.withUnsafeBytes {
      Glibc.connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
    }
    guard result == 0 || errno == EINPROGRESS else {
      return finish(code: nil, reason: "connect: \(String(cString: strerror(errno)))")
    }
    state = .connecting
    context.watch(fd, token: token, events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLET.rawValue)
  }

  /// What `epoll_wait` reported for this socket.
  func handle(events: UInt32) {
    if state == .connecting {
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
      if error != 0 { return finish(code: nil, reason: "connect: \(String(cString: strerror(error)))") }
      guard events & EPOLLOUT.rawValue != 0 else { return }
      state = .handshaking
      enqueue(handshake!.request)
      return
    }
    if events & EPOLLOUT.rawValue != 0, outboxStart < outbox.count { flush() }
    guard state != .finished else { return }
    // A paused reader reads on when it resumes; a reset or hang-up ends it now.
    if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 && !receiving { return lost("connection lost") }
    if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readAvailable() }
  }

  /// Reads and parses until the socket is empty, the client pauses, or the connection ends.
  private func readAvailable() {
    while receiving && state != .finished && state != .connecting && fd >= 0 {
      let limit = min(readLimit, context.scratch.count)
      let count = context.scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, limit, 0) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { return }
        return lost("read: \(String(cString: strerror(errno)))")
      }
      if count == 0 { return lost("connection lost") }
      if inbox.isEmpty {
        let used = context.scratch.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        if state != .finished, used < count { inbox.append(contentsOf: context.scratch[used..<count]) }
      } else {
        inbox.append(contentsOf: context.scratch[..<count])
        parseInbox()
      }
      // A short read emptied the socket: what arrives later raises a new edge. (Saves the
      // `EAGAIN` read per frame.)
      if count < limit { return }
    }
  }

  private func parseInbox() {
    guard !inbox.isEmpty else { return }
    // Parsed from a local copy: delivering may finish the socket, which empties `inbox`.
    let pending = inbox
    inbox = []
    let used = pending.withUnsafeBytes { consume($0) }
    if state != .finished, used < pending.count { inbox = Array(pending[used...]) }
  }

  /// Consumes what it can of `bytes` (the handshake answer, then frames); returns how much.
  private func consume(_ bytes: UnsafeRawBufferPointer) -> Int {
    var used = 0
    if state == .handshaking {
      switch handshake!.check(bytes) {
      case .incomplete: return 0
      case .refused(let why):
        finish(code: nil, reason: why)
        return bytes.count
      case .accepted(let headerBytes):
        used = headerBytes
        becomeOpen()
        if state != .open { return bytes.count }
      }
    }
    guard state == .open || state == .closing else { return bytes.count }
    let progress = reader.read(UnsafeRawBufferPointer(rebasing: bytes[used...])) { event in
      deliver(event)
      return receiving && state != .finished
    }
    if let failure = progress.failure {
      fail(code: failure.code, reason: failure.reason)
      return bytes.count
    }
    return used + progress.consumed
  }

  private func becomeOpen() {
    state = .open
    handshake = nil
    onEvent(.opened)
    for text in early where state == .open { sendFrame(opcode: 1, payload: Array(text.utf8)) }
    early = []
    if let (code, reason) = closeWhenOpen, state == .open { startClose(code: code, reason: reason) }
  }

  private func deliver(_ event: ServerFrameReader.Event) {
    switch event {
    case .text(let text): if state == .open { onEvent(.text(text)) }
    case .binary: if state == .open { onEvent(.binary) }
    case .ping(let payload): sendFrame(opcode: 10, payload: payload)
    case .pong: break
    case .close(let code, let reason):
      if state == .open {
        // Echo the code (RFC 6455 §5.5.1); 1005 means "none" and is never sent.
        sendFrame(opcode: 8, payload: code.map { Self.closePayload($0, "") } ?? [])
        finish(code: code, reason: reason)
      } else {
        finish(code: sentClose?.code ?? code, reason: sentClose?.reason ?? reason)
      }
    }
  }

  private func startClose(code: UInt16, reason: String) {
    sentClose = (code, reason)
    sendFrame(opcode: 8, payload: Self.closePayload(code, reason))
    guard state == .open else { return }
    state = .closing
    closeDeadline = MonotonicClock.microseconds() + 2_000_000
    context.waitForClose(token: token)
  }

  /// Fails the connection: a close frame with `code` (best effort), then done.
  private func fail(code: UInt16, reason: String) {
    sendFrame(opcode: 8, payload: Self.closePayload(code, String(reason.prefix(100))))
    finish(code: code, reason: reason)
  }

  private func lost(_ why: String) {
    if state == .closing, let sent = sentClose { return finish(code: sent.code, reason: sent.reason) }
    finish(code: nil, reason: state == .handshaking ? "handshake: \(why)" : why)
  }

  static func closePayload(_ code: UInt16, _ reason: String) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
  }

  /// Frames `payload` (masked, as every client frame must be) and writes it.
  private func sendFrame(opcode: UInt8, payload: [UInt8]) {
    guard fd >= 0, state == .open || state == .closing || (opcode == 8 && state != .finished) else { return }
    var frame: [UInt8] = []
    frame.reserveCapacity(payload.count + 14)
    frame.append(0x80 | opcode)
    if payload.count < 126 {
      frame.append(0x80 | UInt8(payload.count))
    } else if payload.count < 65_536 {
      frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
      frame.append(0x80 | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        frame.append(UInt8(truncatingIfNeeded: payload.count >> shift))
      }
    }
    let key = UInt32(truncatingIfNeeded: context.maskKeys.next())
    let mask = [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
    frame += mask
    for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
    enqueue(frame)
  }

  private func enqueue(_ bytes: [UInt8]) {
    let wasEmpty = outboxStart == outbox.count
    outbox += bytes
    if wasEmpty { flush() }
  }

  private func flush() {
    while outboxStart < outbox.count {
      let written = outbox.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + outboxStart, $0.count - outboxStart, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EAGAIN || errno == EINTR { break }
        return lost("write: \(String(cString: strerror(errno)))")
      }
      outboxStart += written
    }
    if outboxStart == outbox.count {
      outbox.removeAll(keepingCapacity: outbox.capacity <= 1 << 16)
      outboxStart = 0
    }
  }

  /// Closes the descriptor and reports `.closed` once.
  func finish(code: UInt16?, reason: String) {
    guard state != .finished else { return }
    state = .finished
    release()
    onEvent(.closed(code: code, reason: reason))
  }

  /// The context is stopping: closes the descriptor without an event.
  func abandon() {
    state = .finished
    release()
  }

  private func release() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
    context.forget(token: token)
    inbox = []
    outbox = []
    outboxStart = 0
  }
}

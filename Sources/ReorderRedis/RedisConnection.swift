import CHiredis
import Foundation
import ReorderBasics

/// How long a connection waits: for the TCP connection (and AUTH, SELECT), and for each reply.
public struct RedisTimeouts: Sendable, Equatable {
  /// Connecting, in seconds.
  public var connectSeconds: Double
  /// Each reply, in seconds.
  public var commandSeconds: Double

  /// Timeouts of `connectSeconds` and `commandSeconds`.
  public init(connectSeconds: Double = 2, commandSeconds: Double = 2) {
    self.connectSeconds = connectSeconds
    self.commandSeconds = commandSeconds
  }
}

/// One blocking connection to Redis: owns one hiredis `redisContext`, released in `close()`.
///
/// For threads of its own: every call waits for Redis (at most the timeouts). Not thread safe:
/// one thread uses it at a time. Arguments are binary safe (`redisAppendCommandArgv` with
/// lengths). After a failure of the connection itself (`RedisError.connectionLost`) every later
/// call fails too: make a new connection (`RedisLink` does that with backoff). An error reply of
/// Redis leaves the connection usable.
///
/// hiredis 0.14 writes with plain `write(2)`: a write to a socket Redis has reset raises SIGPIPE,
/// whose default action ends the process. The first connection therefore sets SIGPIPE to ignored
/// for the process (the write then fails with EPIPE, a `connectionLost`); nothing in Reorder
/// wants that signal (libwebsockets sends with MSG_NOSIGNAL).
public final class RedisConnection: @unchecked Sendable {
  private static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()

  private var context: UnsafeMutablePointer<redisContext>?
  private var failure: String?
  /// Where this connection goes.
  public let url: RedisURL
  /// Its timeouts.
  public let timeouts: RedisTimeouts
  private let metrics: RedisMetrics?

  /// Connects to `url`, sends `AUTH` (with its user, if any) when it has a password and `SELECT` when its database is not 0.
  public init(url: RedisURL, timeouts: RedisTimeouts = RedisTimeouts(), metrics: RedisMetrics? = nil)
    throws(RedisError)
  {
    self.url = url
    self.timeouts = timeouts
    self.metrics = metrics
    Self.ignoreBrokenPipe
    guard let context = redisConnectWithTimeout(url.host, Int32(url.port), Self.timeval(timeouts.connectSeconds))
    else { throw .cannotConnect(endpoint: url.description, reason: "out of memory") }
    if context.pointee.err != 0 {
      let reason = Self.errorText(context)
      redisFree(context)
      throw .cannotConnect(endpoint: url.description, reason: reason)
    }
    self.context = context
    redisSetTimeout(context, Self.timeval(timeouts.commandSeconds))
    do {
      if let password = url.password {
        if let user = url.user { try command("AUTH", user, password) } else { try command("AUTH", password) }
      }
      if url.database != 0 { try command("SELECT", url.database) }
    } catch {
      close()
      throw .cannotConnect(endpoint: url.description, reason: Self.reason(of: error))
    }
  }

  deinit { close() }

  /// Frees the hiredis context. Idempotent; later calls throw `RedisError.closed`.
  public func close() {
    if let context {
      redisFree(context)
      self.context = nil
    }
  }

  /// Whether the connection failed or was closed (every call would throw).
  public var isBroken: Bool { context == nil || failure != nil }

  /// Sends one command and waits for its reply. An error reply throws `RedisError.server`.
  @discardableResult
  public func command(_ arguments: any RedisArgument...) throws(RedisError) -> RedisReply {
    try command(arguments)
  }

  /// Sends one command (`arguments[0]` is its name) and waits for its reply. An error reply
  /// throws `RedisError.server`.
  @discardableResult
  public func command(_ arguments: [any RedisArgument]) throws(RedisError) -> RedisReply {
    let bytes = arguments.map(\.redisBytes)
    let reply = try roundTrip([bytes])[0]
    if case .error(let message) = reply { throw .server(command: Self.name(bytes), message: message) }
    return reply
  }

  /// Sends every command at once and then reads their replies, in order: one round trip. Error
  /// replies are returned as `.error` values, in their place.
  public func pipeline(_ commands: [[any RedisArgument]]) throws(RedisError) -> [RedisReply] {
    guard !commands.isEmpty else { return [] }
    return try roundTrip(commands.map { $0.map(\.redisBytes) })
  }

  /// Writes a command without waiting for a reply (a subscriber's SUBSCRIBE: its confirmations
  /// arrive through `receive`).
  func send(_ arguments: [any RedisArgument]) throws(RedisError) {
    let bytes = arguments.map(\.redisBytes)
    let context = try usable(Self.name(bytes))
    try appendCommand(bytes, to: context)
    var done: Int32 = 0
    repeat {
      if redisBufferWrite(context, &done) != REDIS_OK { throw lost(Self.name(bytes), context) }
    } while done == 0
  }

  /// The next reply pushed by Redis (a subscriber's messages), waiting at most `waitSeconds`
  /// for it; nil when none came in time. Replies already read are returned without waiting.
  func receive(waitSeconds: Double) throws(RedisError) -> RedisReply? {
    if let reply = try buffered() { return reply }
    guard let descriptor = try Self.readable([self], waitSeconds: waitSeconds).first, descriptor else { return nil }
    try readAvailable()
    return try buffered()
  }

  /// A reply already read from the socket, if any; never waits.
  func buffered() throws(RedisError) -> RedisReply? {
    try bufferedReply(try usable("receive"))
  }

  /// Reads what the socket holds into the reply buffer (after `readable` said it has bytes).
  func readAvailable() throws(RedisError) {
    let context = try usable("receive")
    if redisBufferRead(context) != REDIS_OK { throw lost("receive", context) }
  }

  /// Waits at most `waitSeconds` until one of `connections` has bytes to read (or was closed by
  /// Redis); which ones have, in their order. A broken connection counts as readable (its read
  /// then throws).
  static func readable(_ connections: [RedisConnection], waitSeconds: Double) throws(RedisError) -> [Bool] {
    var descriptors = connections.map { pollfd(fd: $0.context?.pointee.fd ?? -1, events: Int16(POLLIN), revents: 0) }
    if connections.contains(where: \.isBroken) { return connections.map(\.isBroken) }
    let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(max(0, (waitSeconds * 1000).rounded(.up))))
    if ready == 0 || (ready < 0 && errno == EINTR) { return connections.map { _ in false } }
    if ready < 0 { throw .connectionLost(command: "receive", reason: String(cString: strerror(errno))) }
    return descriptors.map { $0.revents != 0 }
  }

  // MARK: - The one place hiredis calls and their failures are interpreted

  private func roundTrip(_ commands: [[[UInt8]]]) throws(RedisError) -> [RedisReply] {
    let name = Self.name(commands[0]) + (commands.count > 1 ? " (pipeline of \(commands.count))" : "")
    let context = try usable(name)
    let started = MonotonicClock.now()
    for command in commands { try appendCommand(command, to: context) }
    var replies: [RedisReply] = []
    replies.reserveCapacity(commands.count)
    for _ in commands {
      var raw: UnsafeMutableRawPointer?
      guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw lost(name, context) }
      let reply = raw.assumingMemoryBound(to: redisReply.self)
      replies.append(Self.convert(reply))
      freeReplyObject(raw)
    }
    metrics?.recordRoundTrip(seconds: MonotonicClock.now() - started)
    return replies
  }

  private func appendCommand(_ arguments: [[UInt8]], to context: UnsafeMutablePointer<redisContext>)
    throws(RedisError)
  {
    let lengths = arguments.map { $0.count }  // a closure: a key path here is applied at run time, per argument
    var flat: [UInt8] = []
    flat.reserveCapacity(lengths.reduce(1, +))
    for argument in arguments { flat += argument }
    flat.append(0)  // never an empty buffer: a zero-length argument still points somewhere valid
    let status = flat.withUnsafeBufferPointer { buffer -> Int32 in
      let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
      var pointers: [UnsafePointer<CChar>?] = []
      pointers.reserveCapacity(lengths.count)
      var offset = 0
      for length in lengths {
        pointers.append(base + offset)
        offset += length
      }
      return pointers.withUnsafeMutableBufferPointer { argv in
        lengths.withUnsafeBufferPointer { argvlen in
          redisAppendCommandArgv(context, Int32(lengths.count), argv.baseAddress, argvlen.baseAddress)
        }
      }
    }
    if status != REDIS_OK { throw lost(Self.name(arguments), context) }
  }

  private func bufferedReply(_ context: UnsafeMutablePointer<redisContext>) throws(RedisError) -> RedisReply? {
    var raw: UnsafeMutableRawPointer?
    guard redisGetReplyFromReader(context, &raw) == REDIS_OK else { throw lost("receive", context) }
    guard let raw else { return nil }
    defer { freeReplyObject(raw) }
    return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
  }

  private func usable(_ name: String) throws(RedisError) -> UnsafeMutablePointer<redisContext> {
    guard let context else { throw .closed }
    if let failure { throw .connectionLost(command: name, reason: "the connection already failed (\(failure))") }
    return context
  }

  /// Marks the connection failed with hiredis' reason (a read timeout shows as EAGAIN).
  private func lost(_ name: String, _ context: UnsafeMutablePointer<redisContext>) -> RedisError {
    var reason = Self.errorText(context)
    if context.pointee.err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK) {
      reason = "no reply within the command timeout of \(timeouts.commandSeconds) s"
    } else if context.pointee.err == REDIS_ERR_EOF {
      reason = "Redis closed the connection"
    }
    return fail(name, reason: reason)
  }

  private func fail(_ name: String, reason: String) -> RedisError {
    failure = reason
    metrics?.recordConnectionLost()
    return .connectionLost(command: name, reason: reason)
  }

  private static func convert(_ reply: UnsafePointer<redisReply>) -> RedisReply {
    let value = reply.pointee
    func bytes() -> [UInt8] {
      guard let str = value.str, value.len > 0 else { return [] }
      return Array(UnsafeRawBufferPointer(start: str, count: value.len))
    }
    switch value.type {
    case REDIS_REPLY_STRING: return .bulk(bytes())
    case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
    case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
    case REDIS_REPLY_INTEGER: return .integer(value.integer)
    case REDIS_REPLY_ARRAY:
      return .array((0..<value.elements).map { convert(value.element[$0]!) })
    default: return .null
    }
  }

  private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
    withUnsafeBytes(of: context.pointee.errstr) { raw in
      let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      return text.isEmpty ? "error \(context.pointee.err)" : text
    }
  }

  /// The name errors use for a command: its first word, and the function of an FCALL. Never its
  /// other arguments (user data).
  static func name(_ arguments: [[UInt8]]) -> String {
    let word = arguments.first.map { String(decoding: $0.prefix(24), as: UTF8.self).uppercased() } ?? "?"
    if word == "FCALL" || word == "FUNCTION", arguments.count > 1 {
      return word + " " + String(decoding: arguments[1].prefix(32), as: UTF8.self)
    }
    return word
  }

  private static func reason(of error: RedisError) -> String {
    switch error {
    case .server(_, let message): message
    case .connectionLost(_, let reason): reason
    default: error.description
    }
  }

  private static func timeval(_ seconds: Double) -> Foundation.timeval {
    let whole = seconds.rounded(.down)
    return Foundation.timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
  }
}

import Foundation

/// Polls `condition` until it is true or `timeout` seconds passed; returns its last value.
///
/// This is the tests' only way to wait: on a condition, with a bound, never a fixed sleep.
@discardableResult
public func waitUntil(timeout: Double = 10, pollMilliseconds: Int = 5, _ condition: () throws -> Bool) rethrows -> Bool
{
  let deadline = Date(timeIntervalSinceNow: timeout)
  while true {
    if try condition() { return true }
    if Date() >= deadline { return false }
    usleep(useconds_t(pollMilliseconds * 1000))
  }
}

/// Raises the soft limit of open files (RLIMIT_NOFILE) to at least `minimum` (the hard limit too
/// when allowed, i.e. as root; otherwise capped by it); returns the soft limit now in force. Needed for the 1,000-connection tests.
@discardableResult
public func raiseOpenFileLimit(to minimum: UInt64) -> UInt64 {
  var limit = rlimit()
  guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
  if limit.rlim_cur < minimum {
    var wanted = limit
    wanted.rlim_cur = rlim_t(minimum)
    wanted.rlim_max = max(limit.rlim_max, rlim_t(minimum))
    if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) != 0 {  // raising the hard limit needs root
      limit.rlim_cur = min(rlim_t(minimum), limit.rlim_max)
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }
  return UInt64(limit.rlim_cur)
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
  /// Absolute path of the directory.
  public let path: String

  /// Creates `…/reorder-test-<random>`.
  public init(prefix: String = "reorder-test") throws {
    let base = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    path = base
  }

  /// Writes `contents` to `relativePath` (creating parent directories).
  public func write(_ relativePath: String, _ contents: String) throws {
    let full = path + "/" + relativePath
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try contents.write(toFile: full, atomically: true, encoding: .utf8)
  }

  /// Deletes the directory and everything in it.
  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// Asks the kernel for a free TCP port on 127.0.0.1 (bind to port 0, read it back, close).
/// Prefer passing port 0 to the server itself; this is for processes that must be told a port.
public func freePort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  precondition(fd >= 0, "socket() failed")
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
    }
  }
  precondition(bound, "could not bind an ephemeral port on 127.0.0.1")
  return Int(UInt16(bigEndian: address.sin_port))
}

/// A value shared between a test and the threads it starts (locked).
public final class SharedValue<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value

  /// Wraps `value`.
  public init(_ value: Value) { stored = value }

  /// The current value.
  public var value: Value {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }

  /// Replaces the value.
  public func set(_ value: Value) {
    lock.lock()
    stored = value
    lock.unlock()
  }

  /// Mutates the value under the lock.
  public func update<T>(_ body: (inout Value) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&stored)
  }
}

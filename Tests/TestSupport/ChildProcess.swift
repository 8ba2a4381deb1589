import Foundation

/// A child process started by a test, stopped by its PID only.
///
/// Standard output and error are captured line by line, by a thread of its own that reads the pipe
/// with blocking `read`s to end of file (no dispatch source: Foundation's `readabilityHandler` can
/// crash libdispatch on Linux when a handle goes away while its source unregisters); `waitForLine`
/// blocks until a line matches.
public final class ChildProcess: @unchecked Sendable {
  private let process = Process()
  private let lines = LineCollector()
  private let outputPipe = Pipe()
  /// Signalled once the reader reached end of file.
  private let readerDone = DispatchSemaphore(value: 0)

  /// The child's process id.
  public var pid: Int32 { process.processIdentifier }

  /// Starts `executable` with `arguments` and extra `environment` variables, in
  /// `currentDirectory` (nil: this process's).
  public init(
    executable: String, arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil
  ) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    process.standardOutput = outputPipe
    process.standardError = outputPipe
    try process.run()
    // The child has its copy; without closing ours the pipe would never reach end of file.
    try? outputPipe.fileHandleForWriting.close()
    let collector = lines
    let handle = outputPipe.fileHandleForReading
    let done = readerDone
    let reader = Thread {
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = read(handle.fileDescriptor, &buffer, buffer.count)
        if count > 0 {
          collector.append(Data(buffer[0..<count]))
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          break
        }
      }
      done.signal()
    }
    reader.name = "child-output"
    reader.start()
  }

  /// Once the child exited: waits (up to 5 s) for the reader to reach end of file, so `output`
  /// holds everything the child wrote.
  private func drainAfterExit() {
    guard !process.isRunning, readerDone.wait(timeout: .now() + 5) == .success else { return }
    readerDone.signal()  // for the next caller
  }

  /// Path of a product built next to the test bundle (e.g. `reorder`), or nil if not built.
  public static func builtProduct(_ name: String) -> String? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent(name).path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      directory = directory.deletingLastPathComponent()
    }
    return nil
  }

  /// Waits until a line for which `matches` is true was printed; returns it (nil on timeout or exit).
  public func waitForLine(timeout: Double = 10, where matches: (String) -> Bool) -> String? {
    var found: String?
    waitUntil(timeout: timeout) {
      found = lines.snapshot().first(where: matches)
      return found != nil || !process.isRunning
    }
    if found == nil { drainAfterExit() }  // a child that exited at once: its output may still be in the pipe
    return found ?? lines.snapshot().first(where: matches)
  }

  /// Waits for the server's "listening" line; returns it.
  public func waitForListening(timeout: Double = 20) -> String? {
    waitForLine(timeout: timeout) { $0.contains("listening") || $0.contains("http://") }
  }

  /// Everything printed so far, one entry per line.
  public var output: [String] { lines.snapshot() }

  /// Sends `signal` to this child (by PID).
  public func send(signal: Int32) {
    if process.isRunning { kill(pid, signal) }
  }

  /// Waits up to `timeout` seconds for the child to exit; its exit status, or nil if still running.
  public func waitForExit(timeout: Double = 5) -> Int32? {
    waitUntil(timeout: timeout) { !process.isRunning }
    if process.isRunning { return nil }
    drainAfterExit()
    return process.terminationStatus
  }

  /// Kills the child (SIGKILL, by PID) if it still runs, and reaps it.
  public func terminate() {
    if process.isRunning {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
  }

  deinit { terminate() }
}

/// Collects bytes into lines (thread safe).
final class LineCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var pending: [UInt8] = []
  private var lines: [String] = []

  func append(_ data: Data) {
    lock.lock()
    defer { lock.unlock() }
    for byte in data {
      if byte == UInt8(ascii: "\n") {
        lines.append(String(decoding: pending, as: UTF8.self))
        pending.removeAll()
      } else {
        pending.append(byte)
      }
    }
  }

  func snapshot() -> [String] {
    lock.lock()
    defer { lock.unlock() }
    return lines + (pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)])
  }
}

/// Makes a self-signed certificate for 127.0.0.1/localhost with the openssl command line.
/// Returns (certificate path, key path) inside `directory`.
public func makeSelfSignedCertificate(in directory: String) throws -> (certificate: String, key: String) {
  let cert = directory + "/cert.pem"
  let key = directory + "/key.pem"
  let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  guard let openssl else { throw RawSocketError.failed("the openssl command line tool is not installed") }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: openssl)
  process.arguments = [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ]
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw RawSocketError.failed("openssl req failed with status \(process.terminationStatus)")
  }
  return (cert, key)
}

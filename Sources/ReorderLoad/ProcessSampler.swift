import Foundation
import ReorderBasics

/// CPU time and resident memory of a process, read from `/proc/<pid>` (Linux).
public struct ProcessSample: Sendable, Codable, Equatable {
  /// User + system CPU seconds since the process started.
  public var cpuSeconds: Double
  /// Resident set size in bytes.
  public var rssBytes: Int
  /// Seconds its threads spent runnable but waiting for a CPU (sum of `/proc/<pid>/task/*/schedstat`
  /// run-queue delays; 0 when schedstats are not available).
  public var runQueueSeconds: Double = 0
  /// When it was taken (monotonic µs).
  public var time: Int64
}

/// Reads `ProcessSample`s of one process; a missing or unreadable `/proc` gives nil, never a crash.
public struct ProcessSampler: Sendable {
  /// The process (`--server-pid`), or nil for this process.
  public let pid: Int32?
  private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

  /// Samples `pid`, or this process when nil.
  public init(pid: Int32?) { self.pid = pid }

  private var directory: String { pid.map { "/proc/\($0)" } ?? "/proc/self" }

  /// True when the process exists (its `/proc` directory is readable).
  public var isAlive: Bool { FileManager.default.fileExists(atPath: directory + "/stat") }

  /// One sample now, or nil when the process is gone or /proc is not there.
  public func sample() -> ProcessSample? {
    guard let stat = try? String(contentsOfFile: directory + "/stat", encoding: .utf8),
      let status = try? String(contentsOfFile: directory + "/status", encoding: .utf8),
      let cpu = Self.cpuSeconds(stat: stat), let rss = Self.rssBytes(status: status)
    else { return nil }
    return ProcessSample(
      cpuSeconds: cpu, rssBytes: rss, runQueueSeconds: runQueueSeconds(), time: MonotonicClock.microseconds())
  }

  /// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line, in seconds.
  ///
  /// The command name (field 2) may contain spaces and parentheses, so fields are counted after the
  /// last `)`.
  static func cpuSeconds(stat: String) -> Double? {
    guard let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 (state); utime is field 14 → index 11, stime index 12.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / ticksPerSecond
  }

  /// Sum over the threads of the run-queue delay (second field of `schedstat`, ns), in seconds.
  func runQueueSeconds() -> Double {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/task")) ?? []
    var total = 0.0
    for task in tasks {
      guard let text = try? String(contentsOfFile: "\(directory)/task/\(task)/schedstat", encoding: .utf8) else {
        continue
      }
      let fields = text.split(separator: " ")
      if fields.count >= 2, let waited = Double(fields[1]) { total += waited / 1e9 }
    }
    return total
  }

  /// The 1-minute load average from /proc/loadavg, or nil.
  public static func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
  }

  /// `VmRSS` of a `/proc/<pid>/status` text, in bytes.
  static func rssBytes(status: String) -> Int? {
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count >= 2, let kilobytes = Int(parts[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }
}

/// CPU and memory of a process over a run.
public struct ProcessUsage: Sendable, Codable, Equatable {
  /// Average CPU over the traffic phase, in % of one core.
  public var cpuPercent: Double
  /// Highest per-second CPU, in % of one core.
  public var peakCPUPercent: Double
  /// RSS before any client connected (bytes).
  public var rssBeforeBytes: Int
  /// RSS with every client connected and idle, before the traffic (bytes).
  public var rssIdleBytes: Int
  /// Highest RSS seen (bytes).
  public var rssPeakBytes: Int
  /// (idle − before) / clients: memory per idle connection, beyond the server without them.
  public var bytesPerIdleConnection: Double
  /// CPU % per second of traffic.
  public var cpuPercentPerSecond: [Double]
  /// RSS (bytes) per second of traffic.
  public var rssBytesPerSecond: [Int]
  /// Share of the traffic phase its threads spent runnable but waiting for a CPU, in % of wall
  /// time (summed over threads): high values mean the machine, not the process, set the pace.
  public var runQueueWaitPercent: Double = 0
}

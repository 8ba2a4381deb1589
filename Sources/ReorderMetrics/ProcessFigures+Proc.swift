import Foundation

extension ProcessFigures {
  /// This process' figures from `/proc/self/stat` (CPU time, virtual and resident size, start
  /// time), `/proc/self/fd` (open descriptors) and `getrlimit` (the descriptor limit); zeros
  /// where `/proc` is not there.
  ///
  /// With plain system calls (`read`, `readdir`): a scrape runs once a second under load, and a
  /// server with thousands of sockets has thousands of entries in `/proc/self/fd`, which
  /// `FileManager` would turn into as many strings.
  public static func read() -> Self {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    var figures =
      smallFile("/proc/self/stat").map { parse(stat: $0, ticksPerSecond: ticks, pageBytes: page, bootTime: bootTime) }
      ?? Self(cpuSeconds: 0, residentBytes: 0, openFiles: 0)
    figures.openFiles = entries(of: "/proc/self/fd")
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {  // RLIM_INFINITY
      figures.maxFiles = Int(clamping: limit.rlim_cur)
    }
    return figures
  }

  /// The figures in a `/proc/<pid>/stat` line (proc(5)): utime + stime (fields 14, 15) in clock
  /// ticks, starttime (22) in ticks since boot, vsize (23) in bytes, rss (24) in pages. Counted
  /// after the `)` that ends the command name, which may itself hold spaces and parentheses.
  static func parse(stat: String, ticksPerSecond: Double, pageBytes: Int, bootTime: Double) -> Self {
    var figures = Self(cpuSeconds: 0, residentBytes: 0, openFiles: 0)
    guard let end = stat.lastIndex(of: ")"), ticksPerSecond > 0 else { return figures }
    // The first field after the name is field 3 (state): field n is at index n - 3.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    func field(_ n: Int) -> Double? { fields.count > n - 3 ? Double(fields[n - 3]) : nil }
    if let user = field(14), let system = field(15) { figures.cpuSeconds = (user + system) / ticksPerSecond }
    if let start = field(22), bootTime > 0 { figures.startTimeSeconds = bootTime + start / ticksPerSecond }
    if let virtual = field(23) { figures.virtualBytes = Int(virtual) }
    if let pages = field(24) { figures.residentBytes = Int(pages) * pageBytes }
    return figures
  }

  /// When the system booted, in seconds since the Unix epoch (`btime` in `/proc/stat`); read once,
  /// as it does not change and `/proc/stat` grows with the number of CPUs.
  static let bootTime: Double = {
    guard let text = wholeFile("/proc/stat"),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
      let seconds = Double(line.dropFirst("btime ".count))
    else { return 0 }
    return seconds
  }()

  /// The text of a file of at most 4 KiB (a `/proc` record), or nil.
  static func smallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
  }

  /// The whole text of a file read to its end (a `/proc` file, whose size `stat` says is 0), or nil.
  static func wholeFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
  }

  /// Entries of `directory` other than `.` and `..` (the listing's own descriptor among them).
  static func entries(of directory: String) -> Int {
    guard let listing = opendir(directory) else { return 0 }
    defer { closedir(listing) }
    var count = 0
    while let entry = readdir(listing) {
      let dot = withUnsafeBytes(of: entry.pointee.d_name) { $0[0] == UInt8(ascii: ".") }
      if !dot { count += 1 }
    }
    return count
  }
}

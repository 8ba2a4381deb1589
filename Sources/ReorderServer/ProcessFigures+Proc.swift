import Foundation

extension MetricsText.ProcessFigures {
  /// This process' CPU time (`/proc/self/stat` utime + stime), resident size (`/proc/self/statm`)
  /// and open descriptors (`/proc/self/fd`); zeros where `/proc` is not there.
  ///
  /// With plain system calls (`read`, `readdir`): a scrape runs once a second under load, and a
  /// server with thousands of sockets has thousands of entries in `/proc/self/fd`, which
  /// `FileManager` would turn into as many strings.
  static func read() -> Self {
    var figures = Self(cpuSeconds: 0, residentBytes: 0, openFiles: 0)
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    if let stat = smallFile("/proc/self/stat"), let end = stat.lastIndex(of: ")") {
      // Fields after the command name: state is field 3, utime 14, stime 15.
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), ticks > 0 {
        figures.cpuSeconds = (user + system) / ticks
      }
    }
    if let statm = smallFile("/proc/self/statm") {
      let fields = statm.split(separator: " ")
      if fields.count > 1, let pages = Int(fields[1]) {
        figures.residentBytes = pages * Int(sysconf(Int32(_SC_PAGESIZE)))
      }
    }
    figures.openFiles = entries(of: "/proc/self/fd")
    return figures
  }

  /// The text of a file of at most 4 KiB (a `/proc` record), or nil.
  static func smallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
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

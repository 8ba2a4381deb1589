import Foundation

extension MetricsText.ProcessFigures {
  /// This process' CPU time (`/proc/self/stat` utime + stime), resident size (`/proc/self/statm`)
  /// and open descriptors (`/proc/self/fd`); zeros where `/proc` is not there.
  static func read() -> Self {
    var figures = Self(cpuSeconds: 0, residentBytes: 0, openFiles: 0)
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    {
      // Fields after the command name: state is field 3, utime 14, stime 15.
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), ticks > 0 {
        figures.cpuSeconds = (user + system) / ticks
      }
    }
    if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
      let fields = statm.split(separator: " ")
      if fields.count > 1, let pages = Int(fields[1]) {
        figures.residentBytes = pages * Int(sysconf(Int32(_SC_PAGESIZE)))
      }
    }
    figures.openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    return figures
  }
}

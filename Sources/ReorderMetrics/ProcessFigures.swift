/// What the process reads of itself (`ProcessFigures.read()`, from `/proc`), exported as the
/// standard process collector's families, with the names, types and help texts the Prometheus
/// client libraries give them on Linux.
public struct ProcessFigures: Equatable, Sendable {
  /// User and system CPU time, in seconds.
  public var cpuSeconds: Double
  /// Resident set size, in bytes.
  public var residentBytes: Int
  /// Open file descriptors.
  public var openFiles: Int
  /// The soft limit on open file descriptors (`RLIMIT_NOFILE`); 0 when unlimited or unknown.
  public var maxFiles = 0
  /// Virtual memory size, in bytes.
  public var virtualBytes = 0
  /// When the process started, in seconds since the Unix epoch; 0 when unknown.
  public var startTimeSeconds = 0.0
}

extension MetricsText {
  /// The `process_*` families.
  public mutating func process(_ p: ProcessFigures) {
    family(
      "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
      [([], p.cpuSeconds)])
    family("process_open_fds", "gauge", "Number of open file descriptors.", [([], Double(p.openFiles))])
    family("process_max_fds", "gauge", "Maximum number of open file descriptors.", [([], Double(p.maxFiles))])
    family(
      "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", [([], Double(p.virtualBytes))])
    family(
      "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [([], Double(p.residentBytes))])
    family(
      "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
      [([], p.startTimeSeconds)])
  }

  /// `reorder_build_info`: 1, with the build's labels.
  public mutating func buildInfo(_ labels: [(String, String)]) {
    family(
      "reorder_build_info", "gauge",
      "Always 1; the labels say which build this is: version, swift (the compiler), libwebsockets and sqlite "
        + "(the libraries linked at run time).", [(labels, 1)])
  }
}

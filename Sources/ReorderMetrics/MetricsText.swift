import ReorderBasics

/// A `/metrics` page in the Prometheus text exposition format (version 0.0.4): families, each
/// with `# HELP` and `# TYPE`, then its samples. Pure: what it renders comes in as values.
public struct MetricsText: Sendable {
  /// The lines so far.
  public private(set) var lines: [String] = []

  /// An empty page.
  public init() {}

  /// The page: its lines, each ended by a newline.
  public var text: String { lines.joined(separator: "\n") + "\n" }

  /// One family: `# HELP`, `# TYPE`, then its samples.
  public mutating func family(
    _ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]
  ) {
    lines.append("# HELP \(name) \(help)")
    lines.append("# TYPE \(name) \(type)")
    for sample in samples { lines.append(Self.sample(name, sample.labels, sample.value)) }
  }

  /// A histogram family of one series without labels.
  public mutating func histogram(_ name: String, _ help: String, _ buckets: LatencyBuckets) {
    histogram(name, help, series: [([], buckets)])
  }

  /// A histogram family with one series per label set: cumulative `_bucket`s ending in `+Inf`,
  /// then `_sum` and `_count`, for each.
  public mutating func histogram(
    _ name: String, _ help: String, series: [(labels: [(String, String)], buckets: LatencyBuckets)]
  ) {
    lines.append("# HELP \(name) \(help)")
    lines.append("# TYPE \(name) histogram")
    for (labels, buckets) in series {
      for (le, count) in buckets.cumulative {
        let bound = ("le", le.isInfinite ? "+Inf" : Self.number(le))
        lines.append(Self.sample(name + "_bucket", labels + [bound], Double(count)))
      }
      lines.append(Self.sample(name + "_sum", labels, buckets.sum))
      lines.append(Self.sample(name + "_count", labels, Double(buckets.count)))
    }
  }

  /// One sample line.
  public static func sample(_ name: String, _ labels: [(String, String)], _ value: Double) -> String {
    let labelText =
      labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
    return "\(name)\(labelText) \(number(value))"
  }

  /// A sample value: integers without a fraction.
  public static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }

  /// A label value with `\`, `"` and newlines escaped. Byte by byte, and only when one is there:
  /// every scrape escapes every label value.
  public static func escape(_ text: String) -> String {
    let special: (UInt8) -> Bool = { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }
    guard text.utf8.contains(where: special) else { return text }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
      if special(byte) { out.append(UInt8(ascii: "\\")) }
      out.append(byte == UInt8(ascii: "\n") ? UInt8(ascii: "n") : byte)
    }
    return String(decoding: out, as: UTF8.self)
  }
}

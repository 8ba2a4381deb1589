/// A log-linear histogram of durations in microseconds (about 1.6% relative precision).
///
/// Values below 64 µs are exact; above, each power of two is split into 64 buckets. Recording is
/// a few integer operations, so a service thread can record every delivery; histograms of
/// different threads are merged at the end.
public struct LatencyHistogram: Sendable, Equatable {
  static let subBucketBits = 6
  static let subBuckets = 1 << subBucketBits
  static let bucketCount = (64 - subBucketBits + 1) * subBuckets

  /// Counts per bucket (allocated lazily, so empty histograms are cheap to merge and encode).
  private(set) var counts: [UInt64] = []
  /// Number of recorded values.
  public private(set) var count: UInt64 = 0
  /// Sum of recorded values, in microseconds.
  public private(set) var sum: Double = 0
  /// Smallest recorded value (µs); `UInt64.max` when empty.
  public private(set) var min: UInt64 = .max
  /// Largest recorded value (µs); 0 when empty.
  public private(set) var max: UInt64 = 0

  /// An empty histogram.
  public init() {}

  /// The bucket holding `value`.
  static func bucket(of value: UInt64) -> Int {
    if value < UInt64(subBuckets) { return Int(value) }
    let magnitude = 63 - value.leadingZeroBitCount  // ≥ subBucketBits
    let shift = magnitude - subBucketBits
    let sub = Int(value >> UInt64(shift)) - subBuckets  // 0..<64
    return (shift + 1) * subBuckets + sub
  }

  /// The smallest value that falls in `bucket`.
  static func lowerBound(of bucket: Int) -> UInt64 {
    if bucket < subBuckets { return UInt64(bucket) }
    let shift = bucket / subBuckets - 1
    let sub = bucket % subBuckets
    return UInt64(subBuckets + sub) << UInt64(shift)
  }

  /// Records one duration; negative durations (clock skew) count as 0.
  ///
  /// - Complexity: O(1).
  public mutating func record(microseconds value: Int64) {
    let clamped = UInt64(Swift.max(0, value))
    if counts.isEmpty { counts = Array(repeating: 0, count: Self.bucketCount) }
    counts[Self.bucket(of: clamped)] &+= 1
    count &+= 1
    sum += Double(clamped)
    if clamped < min { min = clamped }
    if clamped > max { max = clamped }
  }

  /// Adds every value of `other`.
  ///
  /// - Complexity: O(buckets).
  public mutating func merge(_ other: LatencyHistogram) {
    guard other.count > 0 else { return }
    if counts.isEmpty { counts = Array(repeating: 0, count: Self.bucketCount) }
    for index in other.counts.indices where other.counts[index] != 0 {
      counts[index] &+= other.counts[index]
    }
    count &+= other.count
    sum += other.sum
    min = Swift.min(min, other.min)
    max = Swift.max(max, other.max)
  }

  /// The value below which `fraction` (0…1) of the recorded values fall, in µs (0 when empty).
  ///
  /// Reported as the midpoint of the bucket, clamped to the recorded min and max.
  /// - Complexity: O(buckets).
  public func percentile(_ fraction: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    let rank = Swift.max(1, UInt64((Double(count) * Swift.min(1, Swift.max(0, fraction))).rounded(.up)))
    var seen: UInt64 = 0
    for index in counts.indices {
      seen &+= counts[index]
      if seen >= rank {
        let low = Self.lowerBound(of: index)
        let high = index + 1 < Self.bucketCount ? Self.lowerBound(of: index + 1) : low
        let middle = low + (high &- low) / 2
        return Swift.min(max, Swift.max(min, middle))
      }
    }
    return max
  }

  /// Mean in µs (0 when empty).
  public var mean: Double { count == 0 ? 0 : sum / Double(count) }

  /// Counts grouped into bins whose edges (µs) are given, for plotting: `edges.count + 1` bins,
  /// the first below `edges[0]`, the last at or above `edges.last`.
  public func binned(edges: [UInt64]) -> [UInt64] {
    var result = Array(repeating: UInt64(0), count: edges.count + 1)
    guard count > 0 else { return result }
    for index in counts.indices where counts[index] != 0 {
      let value = Self.lowerBound(of: index)
      var bin = 0
      while bin < edges.count && value >= edges[bin] { bin += 1 }
      result[bin] &+= counts[index]
    }
    return result
  }
}

/// Percentiles of a histogram in milliseconds, as reported and encoded.
public struct LatencySummary: Sendable, Codable, Equatable {
  public var count: UInt64
  public var p50: Double
  public var p90: Double
  public var p99: Double
  public var max: Double
  public var mean: Double

  /// Summarises `histogram` (µs) in milliseconds.
  public init(_ histogram: LatencyHistogram) {
    count = histogram.count
    p50 = Double(histogram.percentile(0.50)) / 1000
    p90 = Double(histogram.percentile(0.90)) / 1000
    p99 = Double(histogram.percentile(0.99)) / 1000
    max = Double(histogram.max) / 1000
    mean = histogram.mean / 1000
  }
}

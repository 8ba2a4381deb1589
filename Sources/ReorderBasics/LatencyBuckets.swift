/// A latency histogram with fixed buckets, as Prometheus keeps one: counts per upper bound
/// (`le`, seconds), plus the total count and sum, so a snapshot is a small value and two
/// snapshots subtract.
public struct LatencyBuckets: Sendable, Equatable {
  /// Bounds for commits (0.5 ms … 10 s: an fsync takes about the first).
  public static let commitBounds: [Double] = [
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
  ]
  /// Bounds for network round trips to a local server (0.1 ms … 2.5 s: a local Redis answers in
  /// about the first).
  public static let roundTripBounds: [Double] = [
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]

  /// The upper bounds of the buckets in seconds, ascending; one more bucket above the last is
  /// `+Inf`.
  public let bounds: [Double]

  /// Observations per bucket (not cumulative): `counts[i]` for `bounds[i-1] < s <= bounds[i]`,
  /// the last one above every bound.
  public private(set) var counts: [Int]
  /// Observations.
  public private(set) var count = 0
  /// Sum of the observations, in seconds.
  public private(set) var sum = 0.0

  /// No observations, in buckets with these upper `bounds` (ascending).
  public init(bounds: [Double] = LatencyBuckets.commitBounds) {
    self.bounds = bounds
    counts = [Int](repeating: 0, count: bounds.count + 1)
  }

  /// Records one latency in seconds (negative counts as 0).
  /// - Complexity: O(buckets).
  public mutating func record(seconds: Double) {
    let s = max(0, seconds)
    let index = bounds.firstIndex { s <= $0 } ?? bounds.count
    counts[index] += 1
    count += 1
    sum += s
  }

  /// Cumulative counts per upper bound, as Prometheus' `_bucket{le=…}` lines (`+Inf` last).
  public var cumulative: [(le: Double, count: Int)] {
    var running = 0
    return counts.enumerated().map { index, n in
      running += n
      return (index < bounds.count ? bounds[index] : .infinity, running)
    }
  }

  /// The upper bound of the bucket holding the `q`-quantile (0…1), or nil without observations.
  public func quantileBound(_ q: Double) -> Double? {
    guard count > 0 else { return nil }
    let rank = max(1, Int((q * Double(count)).rounded(.up)))
    return cumulative.first { $0.count >= rank }?.le
  }
}

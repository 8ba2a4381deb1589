/// The cluster runs of issue 14 read against their targets (docs/LOAD.md, "Cluster scenarios g and
/// h (issue 14)"): each scenario on two nodes sharing rooms through Redis (`g`, `h`, `h-ramp`) and
/// the same on one node (`g-1node`, `h-1node`, `h-ramp-1node`), with the ratios cluster ÷ one node.
public struct ClusterFigures: Sendable, Codable, Equatable {
  /// Drags across nodes (`g`): coverage within the window (0…1) and drag p99 (ms).
  public var coverage: Double?
  public var dragP99: Double?
  /// Committed moves at 2,000/s (`h`): ack p99 (ms).
  public var ackP99: Double?
  /// Ramped moves (`h-ramp`): the best step's acknowledged (durable) moves per second.
  public var durableMovesPerSecond: Double?
  /// Cluster ÷ one node, for each figure above both runs of a pair have.
  public var coverageRatio: Double?
  public var dragP99Ratio: Double?
  public var ackP99Ratio: Double?
  public var durableMovesRatio: Double?

  /// Targets of issue 14: g's coverage (at least) and drag p99 (at most, ms); h's ack p99 (below,
  /// ms); h-ramp's durable moves per second (at least).
  public static let coverageTarget = 0.995
  public static let dragP99Target = 100.0
  public static let ackP99Target = 20.0
  public static let durableMovesTarget = 10_000.0

  /// Labels of the cluster runs, and the suffix of their one-node twins.
  public static let clusterLabels = ["g", "h", "h-ramp"]
  public static let oneNodeSuffix = "-1node"

  /// Whether `label` is one of the cluster runs or a one-node twin.
  public static func isClusterRun(_ label: String) -> Bool {
    clusterLabels.contains(label) || clusterLabels.contains { label == $0 + oneNodeSuffix }
  }

  /// Acknowledged (durable: `applied` goes out once the op is stored) moves per second of `run`:
  /// its best step when ramped.
  static func durableMoves(_ run: LoadResult) -> Double {
    run.best?.acknowledgedPerSecond ?? run.acknowledgedPerSecond
  }

  /// Reads the figures from `runs`; nil when none of the cluster runs is among them.
  init?(runs: [LoadResult]) {
    let byLabel = Dictionary(runs.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
    guard Self.clusterLabels.contains(where: { byLabel[$0] != nil }) else { return nil }
    func ratio(_ label: String, _ value: (LoadResult) -> Double) -> Double? {
      guard let cluster = byLabel[label], let one = byLabel[label + Self.oneNodeSuffix] else { return nil }
      let base = value(one)
      return base > 0 ? value(cluster) / base : nil
    }
    if let g = byLabel["g"] {
      coverage = g.coverage
      dragP99 = g.dragLatency.p99
    }
    coverageRatio = ratio("g") { $0.coverage }
    dragP99Ratio = ratio("g") { $0.dragLatency.p99 }
    ackP99 = byLabel["h"]?.ackLatency.p99
    ackP99Ratio = ratio("h") { $0.ackLatency.p99 }
    durableMovesPerSecond = byLabel["h-ramp"].map { Self.durableMoves($0) }
    durableMovesRatio = ratio("h-ramp") { Self.durableMoves($0) }
  }
}

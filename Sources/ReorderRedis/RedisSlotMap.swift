/// One node of a Redis Cluster, as the slot map and redirects name it.
public struct RedisClusterNode: Sendable, Hashable, CustomStringConvertible {
  /// Its address (an IP or a name) as the cluster announces it.
  public var host: String
  /// Its port.
  public var port: Int
  /// Its node id (40 hex characters), when the map gave one.
  public var id: String?

  /// A node.
  public init(host: String, port: Int, id: String? = nil) {
    self.host = host
    self.port = port
    self.id = id
  }

  /// `host:port`.
  public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  /// `host:port`.
  public var description: String { endpoint }

  /// Two nodes are one when they have the same address (ids are not always known).
  public static func == (a: Self, b: Self) -> Bool { a.host == b.host && a.port == b.port }

  /// Hashes the address.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(host)
    hasher.combine(port)
  }
}

/// Which master serves each of the 16,384 slots, from a `CLUSTER SLOTS` reply (Redis 3.0 to 7.x).
///
/// Invariants: every range is within 0…16,383 with `first <= last`; ranges do not overlap (a
/// reply that overlaps is refused); a slot no range covers has no master (the cluster is not
/// fully covered, or a failover is under way).
public struct RedisSlotMap: Sendable, Equatable {
  /// Slots `first...last`, served by `master`, replicated on `replicas`.
  public struct Range: Sendable, Equatable {
    /// The first slot.
    public var first: Int
    /// The last slot (included).
    public var last: Int
    /// The master serving them.
    public var master: RedisClusterNode
    /// Its replicas, as the map lists them.
    public var replicas: [RedisClusterNode]

    /// A range.
    public init(first: Int, last: Int, master: RedisClusterNode, replicas: [RedisClusterNode] = []) {
      self.first = first
      self.last = last
      self.master = master
      self.replicas = replicas
    }
  }

  /// The ranges, sorted by `first`.
  public private(set) var ranges: [Range]
  /// The master of each slot, as an index into `ranges` (-1: none).
  private var owner: [Int16]

  /// A map of `ranges`.
  /// - Throws: `RedisError.unexpectedReply` for a range out of bounds or overlapping another.
  public init(ranges: [Range]) throws(RedisError) {
    self.ranges = ranges.sorted { $0.first < $1.first }
    owner = Array(repeating: -1, count: RedisKeySlot.count)
    for (index, range) in self.ranges.enumerated() {
      guard range.first >= 0, range.first <= range.last, range.last < RedisKeySlot.count else {
        throw .unexpectedReply(command: "CLUSTER", reply: "a slot range \(range.first)-\(range.last)")
      }
      for slot in range.first...range.last {
        guard owner[slot] < 0 else {
          throw .unexpectedReply(command: "CLUSTER", reply: "overlapping slot ranges at \(slot)")
        }
        owner[slot] = Int16(index)
      }
    }
  }

  /// The map a `CLUSTER SLOTS` reply states: an array of ranges, each
  /// `[first, last, [host, port, id?, …], replicas…]`. A node whose host is empty (Redis 7 when it
  /// does not know its address) or `?` is taken to be at `source`'s host.
  /// - Throws: `RedisError.unexpectedReply` when the reply is not in that shape.
  public init(clusterSlots reply: RedisReply, source: RedisClusterNode? = nil) throws(RedisError) {
    func refuse(_ what: String) -> RedisError { .unexpectedReply(command: "CLUSTER SLOTS", reply: what) }
    guard let entries = reply.elements else { throw refuse(reply.description) }
    var ranges: [Range] = []
    for entry in entries {
      guard let fields = entry.elements, fields.count >= 3, let first = fields[0].integer,
        let last = fields[1].integer, first >= 0, last < RedisKeySlot.count, first <= last
      else { throw refuse("a range that is not [first, last, master, …]") }
      var nodes: [RedisClusterNode] = []
      for field in fields[2...] {
        guard let node = field.elements, node.count >= 2, var host = node[0].text, let port = node[1].integer,
          (1...65_535).contains(port)
        else { throw refuse("a node that is not [host, port, …]") }
        if host.isEmpty || host == "?" {
          guard let source else { throw refuse("a node without an address") }
          host = source.host
        }
        nodes.append(RedisClusterNode(host: host, port: Int(port), id: node.count > 2 ? node[2].text : nil))
      }
      ranges.append(Range(first: Int(first), last: Int(last), master: nodes[0], replicas: Array(nodes.dropFirst())))
    }
    try self.init(ranges: ranges)
  }

  /// The master serving `slot`, if the map has one.
  public func master(ofSlot slot: Int) -> RedisClusterNode? {
    guard (0..<RedisKeySlot.count).contains(slot) else { return nil }
    let index = owner[slot]
    return index < 0 ? nil : ranges[Int(index)].master
  }

  /// The master serving `key`'s slot.
  public func master(ofKey key: [UInt8]) -> RedisClusterNode? { master(ofSlot: RedisKeySlot.slot(of: key)) }

  /// Every master, once each, in the order of their first range.
  public var masters: [RedisClusterNode] {
    var seen = Set<RedisClusterNode>()
    return ranges.map(\.master).filter { seen.insert($0).inserted }
  }

  /// Whether every slot has a master.
  public var coversAllSlots: Bool { !owner.contains(-1) }

  /// The map with `slot` served by `node` (a `MOVED` learned before the map is read again).
  public func moving(slot: Int, to node: RedisClusterNode) -> RedisSlotMap {
    var ranges: [Range] = []
    for range in self.ranges {
      guard (range.first...range.last).contains(slot) else {
        ranges.append(range)
        continue
      }
      if range.first < slot {
        ranges.append(Range(first: range.first, last: slot - 1, master: range.master, replicas: range.replicas))
      }
      if slot < range.last {
        ranges.append(Range(first: slot + 1, last: range.last, master: range.master, replicas: range.replicas))
      }
    }
    ranges.append(Range(first: slot, last: slot, master: node))
    // No overlap: the range that held the slot was split around it.
    return (try? RedisSlotMap(ranges: ranges)) ?? self
  }
}

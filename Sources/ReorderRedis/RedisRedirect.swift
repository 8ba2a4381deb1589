/// A Redis Cluster redirection: the error reply a master gives for a key of a slot it does not
/// serve (`MOVED <slot> <host>:<port>`: the slot lives there now, refresh the map) or is handing
/// over (`ASK <slot> <host>:<port>`: send this one command there, after `ASKING`; the map is
/// unchanged).
public struct RedisRedirect: Sendable, Equatable {
  /// Whether the slot moved for good (`MOVED`) or only this key is elsewhere for now (`ASK`).
  public enum Kind: Sendable, Equatable {
    /// `MOVED`: the slot is served by `target` from now on.
    case moved
    /// `ASK`: the slot is being migrated to `target`; ask it with `ASKING` first, once.
    case ask
  }

  /// `MOVED` or `ASK`.
  public var kind: Kind
  /// The slot the key hashes to.
  public var slot: Int
  /// Where to send the command.
  public var target: RedisClusterNode

  /// A redirect.
  public init(kind: Kind, slot: Int, target: RedisClusterNode) {
    self.kind = kind
    self.slot = slot
    self.target = target
  }

  /// The redirect an error reply's message states, or nil when it states none (any other error,
  /// a slot out of range, an endpoint without a port). The host may be empty (Redis 7 sends
  /// `:port` when it does not know its own address): the node the error came from is meant.
  public init?(error message: String, from source: RedisClusterNode? = nil) {
    let words = message.split(separator: " ", omittingEmptySubsequences: true)
    guard words.count == 3, let slot = Int(words[1]), (0..<RedisKeySlot.count).contains(slot) else { return nil }
    switch words[0] {
    case "MOVED": kind = .moved
    case "ASK": kind = .ask
    default: return nil
    }
    let endpoint = words[2]
    guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]),
      (1...65_535).contains(port)
    else { return nil }
    var host = String(endpoint[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host.isEmpty {
      guard let source else { return nil }
      host = source.host
    }
    self.slot = slot
    target = RedisClusterNode(host: host, port: port)
  }
}

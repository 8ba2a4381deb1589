import ReorderAPI
import ReorderRooms
import ReorderTransport

/// What the server learned of a websocket at its upgrade: the room it asked for (or why its path is
/// not one) and the address it comes from. The transport hands it back when the websocket opens.
struct Admission: Sendable, Equatable {
  /// The room of `/ws/<room>`, or the close reason for a path that names none.
  enum Target: Sendable, Equatable {
    case room(String)
    case invalid(reason: String)
  }

  let target: Target
  /// The client's address (see `clientAddress`), which per-address limits count.
  let address: String
}

/// Decides websocket upgrades: the path, the page's origin (`OriginPolicy`, 403), connections per
/// address (`--max-connections-per-ip`, 429) and handshakes per address (a token bucket,
/// `--max-handshakes-per-ip` per second with bursts of four times that, 429). Service thread only;
/// time is injected.
final class AdmissionControl {
  /// What it enforces.
  struct Limits: Equatable {
    var origins: OriginPolicy
    var maxConnectionsPerAddress: Int
    var handshakesPerSecond: Double
    var trustedProxies: [AddressRange]
  }

  let limits: Limits
  private var open: [String: Int] = [:]
  private var handshakes: [String: TokenBucket] = [:]

  init(limits: Limits) {
    self.limits = limits
  }

  /// Accepts with an `Admission` context, or refuses with a status and reason. A bad room name is
  /// accepted and then closed with 1008 and its reason (`invalid room name: …`), so that browsers,
  /// which cannot read an HTTP refusal, see why.
  /// `port` is the one the server listens on (its default origins name it).
  func decide(_ request: UpgradeRequest, now: Double, port: Int) -> UpgradeDecision {
    let fromProxy = limits.trustedProxies.contains { $0.contains(request.peerAddress) }
    let forwarding =
      fromProxy
      ? ProxyForwarding(
        forwarded: request.forwarded, forwardedProto: request.forwardedProto, forwardedHost: request.forwardedHost)
      : nil
    let address = clientAddress(
      peer: request.peerAddress, forwardedFor: request.forwardedFor ?? forwarding?.forwardedForList,
      trusted: limits.trustedProxies)
    if !takeHandshake(address, now: now) {
      return .refuse(status: 429, reason: "too many connection attempts from \(address): slow down")
    }
    guard limits.origins.allows(origin: request.origin, host: request.host, port: port, forwarding: forwarding) else {
      return .refuse(status: 403, reason: "origin not allowed: \(request.origin ?? "")")
    }
    if open[address, default: 0] >= limits.maxConnectionsPerAddress {
      return .refuse(
        status: 429, reason: "too many connections from \(address) (limit \(limits.maxConnectionsPerAddress))")
    }
    let target: Admission.Target
    switch RoomPath.parse(decodedPath: request.path) {
    case .success(let room): target = .room(room)
    case .failure(let refusal): target = .invalid(reason: refusal.reason)
    }
    return .accept(context: Admission(target: target, address: address))
  }

  /// An admitted websocket opened (counts against its address until `closed`).
  func opened(_ admission: Admission) {
    open[admission.address, default: 0] += 1
  }

  /// An admitted websocket closed.
  func closed(_ admission: Admission) {
    guard let count = open[admission.address] else { return }
    open[admission.address] = count > 1 ? count - 1 : nil
  }

  /// Connections open from `address`.
  func openConnections(from address: String) -> Int { open[address, default: 0] }

  /// Takes a handshake token of `address`. Buckets that have refilled are forgotten now and then,
  /// so the table holds only addresses seen recently.
  private func takeHandshake(_ address: String, now: Double) -> Bool {
    let rate = limits.handshakesPerSecond
    if handshakes.count > 10_000 {
      handshakes = handshakes.filter { _, bucket in
        var copy = bucket
        _ = copy.hasToken(now: now)
        return copy.tokens < copy.burst
      }
    }
    var bucket = handshakes[address] ?? TokenBucket(rate: rate, burst: rate * 4, now: now)
    let taken = bucket.take(now: now)
    handshakes[address] = bucket
    return taken
  }
}

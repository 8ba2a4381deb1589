/// How often a room's drag presence goes out: at up to `maxHz` while the server has few
/// connections, slowing towards `minHz` as they grow, so that all rooms together send at most about
/// `framesPerSecond` `drags` frames.
///
/// Each room has a token bucket of flushes: rate `1 / interval(connections:)`, up to `burst` saved
/// up. A drag goes out at once while the room has a token, and otherwise when the next one comes;
/// each flush sends each member at most one frame. So a room below its rate relays every drag
/// without delay, and one above it batches every drag of an interval into one frame per
/// connection. With `maxHz <= minHz` the rate is fixed at `minHz`.
public struct PresencePacing: Sendable, Equatable {
  /// The rate under load (`--presence-hz`): the longest interval is `1 / minHz`.
  public var minHz: Double
  /// The rate of a light server (`--presence-max-hz`): the shortest interval is `1 / maxHz`.
  public var maxHz: Double
  /// The server-wide budget of `drags` frames per second (`--presence-budget`).
  public var framesPerSecond: Double
  /// Flushes a room may make back to back after a quiet spell (the bucket's size).
  public var burst: Int

  /// A pacing; rates and budget are clamped to at least 1, `burst` to 1...`maxHz`.
  public init(minHz: Double, maxHz: Double, framesPerSecond: Double, burst: Int = PresencePacing.defaultBurst) {
    self.minHz = max(1, minHz)
    self.maxHz = max(self.minHz, maxHz)
    self.framesPerSecond = max(1, framesPerSecond)
    self.burst = min(max(1, burst), Int(self.maxHz))
  }

  /// The burst unless told: 1, so a room flushes at most once per interval and a connection gets
  /// at most one `drags` frame per interval (bursts measured no better on the load matrix).
  public static let defaultBurst = 1

  /// A fixed rate of `hz` flushes per second, no bursts: one flush per `1 / hz`.
  public static func fixed(hz: Double) -> PresencePacing {
    PresencePacing(minHz: hz, maxHz: hz, framesPerSecond: .greatestFiniteMagnitude, burst: 1)
  }

  /// The shortest time in seconds between two flushes of one room, with `connections` open on
  /// the server: `connections / framesPerSecond`, within `[1 / maxHz, 1 / minHz]`.
  public func interval(connections: Int) -> Double {
    let byBudget = Double(max(1, connections)) / framesPerSecond
    return min(1 / minHz, max(1 / maxHz, byBudget))
  }
}

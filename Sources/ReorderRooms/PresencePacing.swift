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
  /// The most members one flush of a room paced by its fan-outs writes to (`PresenceFanout`): a
  /// larger room is flushed in waves of at most this many, one wave per flush, each wave getting
  /// the state of the moment it is written.
  public var waveSize = PresencePacing.defaultWaveSize

  /// The default `waveSize`: a room of 10,000 goes out in 4 waves, so a member gets its frame
  /// within a quarter of a fan-out to everyone of it being made. Smaller waves cost more per frame
  /// (each wave is a pass of the service loop and a fork-join of its sends) than they save.
  public static let defaultWaveSize = 2_500

  /// A pacing; rates and budget are clamped to at least 1, `burst` to 1...`maxHz`. Without a
  /// `burst`: 1 at a fixed rate (at most one flush per interval), `adaptiveBurst` when the rate
  /// adapts (`maxHz > minHz`).
  public init(minHz: Double, maxHz: Double, framesPerSecond: Double, burst: Int? = nil) {
    self.minHz = max(1, minHz)
    self.maxHz = max(self.minHz, maxHz)
    self.framesPerSecond = max(1, framesPerSecond)
    let told = burst ?? (self.maxHz > self.minHz ? PresencePacing.adaptiveBurst : 1)
    self.burst = min(max(1, told), Int(self.maxHz))
  }

  /// The burst of an adaptive pacing: a room may flush up to 4 times back to back after a quiet
  /// spell, so drags that arrive together on a light server all go at once instead of waiting an
  /// interval (which shortens their latency); a busy room has no tokens saved and batches as with
  /// a burst of 1.
  public static let adaptiveBurst = 4

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

  /// The rate a room may slow down to when it alone would exceed the budget at `minHz`: a room of
  /// `members` flushing every interval sends `members` frames per flush, so a room of 10,000
  /// would need 300,000 frames/s at 30 Hz. Between `minHz` and this, fewer, larger `drags` frames
  /// keep it real time. 8 Hz (125 ms) leaves half of a 250 ms window for writing a flush to every
  /// member and reading it: a viewer sees each drag within a quarter of a second.
  public static let largeRoomMinHz = 8.0

  /// The interval of a room of `members` on a server whose rooms with drags in progress have
  /// `audience` members in all: the server's (`interval(connections:)`), or longer when those rooms
  /// together, or this room alone, would send more than `framesPerSecond` frames per second at it
  /// (`max(members, audience) / framesPerSecond`), at most `1 / largeRoomMinHz`. With the default
  /// budget of 40,000 frames/s only above 1,333 such members do rooms slow down (4,000: 100 ms;
  /// 5,000 and more: 125 ms): one room of 4,000, or 40 rooms of 100 all dragging at once. A flush
  /// of a room of n members is n sends of one shared frame, so the interval is what bounds the
  /// rooms' fan-out work.
  ///
  /// The audience counts only where it would slow rooms below `minHz` (the audience is at most
  /// the connections, so below that the server's interval is as long), and its share is rounded
  /// up to `audienceStep` there, so that drags starting and ending in small rooms do not change
  /// every room's interval (and what large rooms announce) each time.
  public func interval(connections: Int, members: Int, audience: Int = 0) -> Double {
    let server = interval(connections: connections)
    let step = PresencePacing.audienceStep
    let together = Double(audience) / framesPerSecond
    let byAudience = together > 1 / minHz ? (together / step - 1e-9).rounded(.up) * step : 0
    let byLoad = min(1 / PresencePacing.largeRoomMinHz, max(Double(members) / framesPerSecond, byAudience))
    return max(server, byLoad)
  }

  /// The grid of the interval the rooms dragging at once set: 5 ms (200 members per step at the
  /// default budget).
  public static let audienceStep = 0.005
}

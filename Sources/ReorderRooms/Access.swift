/// What a connection may do in a room, from its token (`AccessVerifier`), or everything when the
/// server runs without tokens.
public struct Access: Sendable, Equatable {
  /// Editors change the board; viewers receive everything and may drag, but their ops are
  /// rejected with `read_only`.
  public enum Role: String, Sendable, Equatable {
    case editor
    case viewer
  }

  /// The app's id for the person (the token's `sub`).
  public var subject: String
  public var role: Role
  /// The identity the others see, when the token names one (it wins over hello's).
  public var name: String?
  public var color: String?
  /// False: an invisible observer, left out of peers, whose drags are not relayed.
  public var presence: Bool
  /// False: its `broadcast` messages are refused with `forbidden` (the token's `broadcast` claim).
  public var broadcast: Bool
  /// Seconds until the token expires, as of its verification: negative for a token already past
  /// its exp (still within the leeway), so its close falls at exp plus the leeway, not the leeway
  /// after the join. Messages clamp it to 0.
  public var expiresIn: Double
  /// Seconds past `expiresIn` the token is still honoured (the verifier's leeway for clock
  /// differences): the connection is closed 4401 `token expired` at `expiresIn + leeway`.
  public var leeway: Double

  /// An access.
  public init(
    subject: String, role: Role, name: String? = nil, color: String? = nil, presence: Bool = true,
    broadcast: Bool = true, expiresIn: Double, leeway: Double = AccessTimes.leeway
  ) {
    self.broadcast = broadcast
    self.subject = subject
    self.role = role
    self.name = name
    self.color = color
    self.presence = presence
    self.expiresIn = expiresIn
    self.leeway = leeway
  }
}

/// Why a token was refused: the `error` code (`unauthorized`, or `forbidden` for a valid token of
/// another room), a stable machine reason (for metrics) and a message that says which check failed.
public struct AccessDenial: Error, Sendable, Equatable {
  public var forbidden: Bool
  public var reason: String
  public var message: String

  /// A refusal.
  public init(forbidden: Bool, reason: String, message: String) {
    self.forbidden = forbidden
    self.reason = reason
    self.message = message
  }
}

/// Checks tokens for the rooms: in `hello` (`verify`) and in `refresh` (`verifyRefresh`: the same
/// subject, still covering the room; the role may change). Implemented by the server over
/// `ReorderAuth`; deterministic for a given clock, so rooms tests inject one.
public protocol AccessVerifier: Sendable {
  /// The access a token gives in `room`.
  func verify(token: String, room: String) -> Result<Access, AccessDenial>
  /// The access a refresh token gives a connection that has `current` in `room`.
  func verifyRefresh(token: String, current: Access, room: String) -> Result<Access, AccessDenial>
}

/// The time limits of a connection's first moments and of its token.
public enum AccessTimes {
  /// A connection that has not said hello this long after it opened is closed (4408).
  public static let helloTimeout = 10.0
  /// `token_expiring` goes out this long before the token expires (or at once when it is shorter).
  public static let expiringNotice = 60.0
  /// Clocks may disagree by this much: an expired token's connection is closed this long after
  /// its expiry (the default of `Access.leeway`; the server's verifier gives its own).
  public static let leeway = 60.0
  /// Frames a connection may send before a successful hello, and bytes in all; more closes it (1008).
  public static let maxFramesBeforeHello = 4
  public static let maxBytesBeforeHello = 16 * 1024
}

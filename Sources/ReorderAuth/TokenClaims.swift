/// The verified claims of a room token: who (`sub`), where (`room`), with which rights (`role`),
/// until when (`exp`), and how the others see them (`name`, `color`, `presence`).
public struct TokenClaims: Sendable, Equatable {
  /// What a connection may do in its room.
  public enum Role: String, Sendable, CaseIterable {
    /// Reads, drags and changes the board.
    case editor
    /// Reads and drags; every op it sends is rejected with `read_only`.
    case viewer
  }

  /// `sub`: the app's id for the person; a refresh must name the same one. Never empty.
  public var subject: String
  /// `room`: the rooms the token opens.
  public var room: RoomScope
  /// `role`.
  public var role: Role
  /// `exp`, Unix seconds.
  public var expiresAt: Int64
  /// `nbf`, Unix seconds.
  public var notBefore: Int64?
  /// `iat`, Unix seconds (informative: not checked).
  public var issuedAt: Int64?
  /// `name`: when present, the name the others see (instead of hello's).
  public var name: String?
  /// `color`: when present, the colour the others see (instead of hello's).
  public var color: String?
  /// `presence`: false makes an invisible observer (left out of peers, its drags not relayed).
  public var presence: Bool
  /// `broadcast`: false forbids the connection's `broadcast` messages (refused with `forbidden`).
  public var broadcast: Bool

  /// Claims as a backend would mint them; `presence` is true unless said otherwise.
  public init(
    subject: String, room: RoomScope, role: Role, expiresAt: Int64, notBefore: Int64? = nil, issuedAt: Int64? = nil,
    name: String? = nil, color: String? = nil, presence: Bool = true,
    broadcast: Bool = true
  ) {
    self.subject = subject
    self.room = room
    self.role = role
    self.expiresAt = expiresAt
    self.notBefore = notBefore
    self.issuedAt = issuedAt
    self.name = name
    self.color = color
    self.presence = presence
    self.broadcast = broadcast
  }

  /// Longest `sub`, in UTF-8 bytes (it is logged and compared, not shown).
  public static let maxSubjectBytes = 256
  /// Longest `name`, in UTF-8 bytes: the rule of `hello.name` (ReorderRooms' `WireLimits`).
  public static let maxNameBytes = 64
  /// Longest `color`, in UTF-8 bytes: the rule of `hello.color`.
  public static let maxColorBytes = 32

  /// The rule of `hello.color`: 1–32 bytes of `a-z A-Z 0-9 # ( ) , . % -` and spaces.
  public static func isValidColor(_ color: String) -> Bool {
    !color.isEmpty && color.utf8.count <= maxColorBytes
      && color.unicodeScalars.allSatisfy { scalar in
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "#", "(", ")", ",", ".", "%", " ", "-": true
        default: false
        }
      }
  }

  /// Whether the token opens `room` (a room name as the transport validated it).
  public func allows(room: String) -> Bool { self.room.allows(room: room) }
}

/// The `room` claim: one room, every room whose name starts with a prefix, or every room.
public enum RoomScope: Sendable, Equatable, CustomStringConvertible {
  /// Exactly this room (`"team-a-board"`).
  case exact(String)
  /// Every room whose name starts with this (`"team-a-*"` is `.prefix("team-a-")`; the room
  /// named exactly `team-a-` too).
  case prefix(String)
  /// Every room (`"*"`).
  case any

  /// Longest room name (the transport's rule: 1–64 of `[A-Za-z0-9._-]`).
  public static let maxRoomNameLength = 64

  /// Parses a claim: a room name, a room-name prefix followed by one `*`, or `*`; nil otherwise
  /// (`*` anywhere else, characters a room name cannot have, longer than a room name).
  public init?(claim: String) {
    let bytes = Array(claim.utf8)
    if bytes == [UInt8(ascii: "*")] {
      self = .any
      return
    }
    let isPrefix = bytes.last == UInt8(ascii: "*")
    let name = isPrefix ? bytes.dropLast() : bytes[...]
    guard !name.isEmpty, name.count <= Self.maxRoomNameLength, name.allSatisfy(Self.isRoomNameByte) else {
      return nil
    }
    let text = String(decoding: name, as: UTF8.self)
    self = isPrefix ? .prefix(text) : .exact(text)
  }

  /// The claim as written in a token.
  public var description: String {
    switch self {
    case .exact(let name): name
    case .prefix(let prefix): prefix + "*"
    case .any: "*"
    }
  }

  /// Whether this scope covers `room`.
  public func allows(room: String) -> Bool {
    switch self {
    case .exact(let name): room == name
    case .prefix(let prefix): room.utf8.starts(with: prefix.utf8)
    case .any: true
    }
  }

  private static func isRoomNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
      true
    default: false
    }
  }
}

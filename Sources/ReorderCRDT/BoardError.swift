/// Why an intent or a decode was refused. Nothing changed in the board when one is thrown.
public enum BoardError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No item with this id exists on this replica.
  case unknownItem(ItemID)
  /// No live list with this id exists on this replica.
  case unknownList(ListID)
  /// No live assignment with this id exists on this replica.
  case unknownAssignment(AssignmentID)
  /// An item with this id already exists.
  case duplicateItem(ItemID)
  /// A list with this id already exists.
  case duplicateList(ListID)
  /// An assignment with this id already exists.
  case duplicateAssignment(AssignmentID)
  /// An anchor cannot be used (e.g. it is in another list).
  case invalidAnchor(String)
  /// A field name or value is not allowed (empty or too long name, non-finite number, …).
  case invalidField(String)
  /// An id is empty or too long.
  case invalidID(String)
  /// Bytes or JSON could not be decoded as an op or a snapshot.
  case malformed(String)

  public var description: String {
    switch self {
    case .unknownItem(let id): "unknown item '\(Self.clip(id.rawValue))'"
    case .unknownList(let id): "unknown list '\(Self.clip(id.rawValue))'"
    case .unknownAssignment(let id): "unknown assignment '\(Self.clip(id.rawValue))'"
    case .duplicateItem(let id): "item '\(Self.clip(id.rawValue))' already exists"
    case .duplicateList(let id): "list '\(Self.clip(id.rawValue))' already exists"
    case .duplicateAssignment(let id): "assignment '\(Self.clip(id.rawValue))' already exists"
    case .invalidAnchor(let why): "invalid anchor: \(why)"
    case .invalidField(let why): "invalid field: \(why)"
    case .invalidID(let why): "invalid id: \(why)"
    case .malformed(let why): "malformed data: \(why)"
    }
  }

  /// Ids are user data: show at most 40 characters of them.
  static func clip(_ text: String) -> String {
    text.count <= 40 ? text : String(text.prefix(40)) + "…"
  }
}

/// Limits on user-provided values (checked by intents and by decoders).
public enum BoardLimits {
  /// Longest id (item, list, assignment), in UTF-8 bytes.
  public static let maxIDBytes = 128
  /// Longest field name, in UTF-8 bytes.
  public static let maxFieldNameBytes = 64
  /// Longest string value or list title, in UTF-8 bytes.
  public static let maxStringBytes = 4096
  /// Most fields on one item.
  public static let maxFields = 32
}

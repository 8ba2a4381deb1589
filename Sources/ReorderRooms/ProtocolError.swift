/// Every error code the server puts in an `error` or `rejected` frame (see docs/PROTOCOL.md).
public enum ErrorCode: String, Sendable, CaseIterable {
  // Frame-level (`error`): the frame was not understood; nothing happened.
  /// Not valid JSON (syntax, bad UTF-8, nesting deeper than 32, a number beyond ±1.8e308).
  case badJSON = "bad_json"
  /// Valid JSON but not a protocol message: not an object, no string `type`, or a binary frame.
  case badMessage = "bad_message"
  /// `type` is not one the client may send.
  case unknownType = "unknown_type"
  /// A required field is absent.
  case missingField = "missing_field"
  /// A field has the wrong JSON type.
  case wrongType = "wrong_type"
  /// A field has the right type but an unacceptable value (too long, out of range, not allowed).
  case invalidValue = "invalid_value"
  /// A message other than `hello` arrived before `hello`.
  case notJoined = "not_joined"
  /// A second `hello` on the same connection.
  case alreadyJoined = "already_joined"
  /// `hello.v` is not a protocol version this server speaks; the connection is closed with 4400.
  case unsupportedVersion = "unsupported_version"
  /// `hello.room` differs from the room in the websocket path.
  case roomMismatch = "room_mismatch"
  /// Too many frames or ops per second from this connection.
  case rateLimited = "rate_limited"
  /// The room has `--max-connections-per-room` connections (the connection is then closed).
  case roomFull = "room_full"
  /// The server has `--max-rooms` rooms loaded (the connection is then closed).
  case serverFull = "server_full"
  /// The room could not be loaded from storage (the connection is then closed).
  case roomUnavailable = "room_unavailable"
  /// A missing or bad token (the message says which); the connection is closed with 4401.
  case unauthorized = "unauthorized"
  /// A valid token for another room (the connection is then closed with 4403), or a `broadcast`
  /// from a connection whose token says `"broadcast": false` (the connection stays open).
  case forbidden = "forbidden"
  /// A `presence` state or `broadcast` event over its size limit; nothing was relayed.
  case tooLarge = "too_large"

  // Op-level (`rejected`): the op was understood but cannot apply; the board did not change.
  /// The op names an item that does not exist (or is deleted, when that matters).
  case unknownItem = "unknown_item"
  /// The op names a list that does not exist.
  case unknownList = "unknown_list"
  /// The op names an assignment that does not exist.
  case unknownAssignment = "unknown_assignment"
  /// `insert` with an `item` id that already exists.
  case duplicateItem = "duplicate_item"
  /// `createList` with a `list` id that already exists.
  case duplicateList = "duplicate_list"
  /// `after`/`before` do not name neighbours in the target list (or name the moved item itself).
  case invalidAnchor = "invalid_anchor"
  /// A field name or value the board does not accept.
  case invalidField = "invalid_field"
  /// The op `kind` is not known.
  case unknownKind = "unknown_kind"
  /// The room has `--max-items-per-room` items.
  case itemLimit = "item_limit"
  /// The room has `--max-lists-per-room` lists.
  case listLimit = "list_limit"
  /// The connection is a viewer: nothing it sends changes the board.
  case readOnly = "read_only"
  /// Cluster mode: the shared log could not be reached, so the op was not applied. Retryable: the
  /// client re-sends it later with the same id.
  case unavailable = "unavailable"
  /// The disk under the server's data directory is full: the op was not stored and nobody saw it.
  /// The room goes on (reads, joins, presence) and takes ops again once space is freed; the web
  /// client does not re-send it (docs/PROTOCOL.md, "Rejection codes").
  case storageFull = "storage_full"
}

/// A protocol violation, turned into an `error` or `rejected` frame.
public struct ProtocolError: Error, Equatable, Sendable {
  /// The machine-readable code.
  public var code: ErrorCode
  /// A human-readable sentence: what went wrong and what to do. Never echoes raw user data.
  public var message: String

  /// An error with a code and a message.
  public init(_ code: ErrorCode, _ message: String) {
    self.code = code
    self.message = message
  }

  static func missing(_ field: String) -> ProtocolError {
    ProtocolError(.missingField, "field '\(field)' is required")
  }

  static func wrongType(_ field: String, expected: String, got: JSONValue) -> ProtocolError {
    ProtocolError(.wrongType, "field '\(field)' must be \(expected), not \(got.kindDescription)")
  }

  static func invalid(_ field: String, _ why: String) -> ProtocolError {
    ProtocolError(.invalidValue, "field '\(field)' \(why)")
  }
}

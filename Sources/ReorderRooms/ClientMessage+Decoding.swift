/// Size bounds on strings and collections inside client messages.
public enum WireLimits {
  /// Ids (item, list, assignment, op, client, room): 1…128 UTF-8 bytes, no control characters.
  public static let maxIDBytes = 128
  /// `hello.name`: 1…64 UTF-8 bytes.
  public static let maxNameBytes = 64
  /// `hello.color`: 1…32 UTF-8 bytes.
  public static let maxColorBytes = 32
  /// Field names: 1…64 UTF-8 bytes.
  public static let maxFieldNameBytes = 64
  /// String field values and list titles: up to 1,024 UTF-8 bytes.
  public static let maxFieldValueBytes = 1_024
  /// Fields per `insert`.
  public static let maxFields = 32
  /// `drag.t`: any JSON value of at most 256 bytes encoded, passed through as it is.
  public static let maxOpaqueBytes = 256
  /// `hello.token` and `refresh.token`: at most 8 KiB (a longer one is `unauthorized`, too large).
  public static let maxTokenBytes = 8 * 1024
  /// `presence.state`: a JSON object of at most 1,024 bytes encoded.
  public static let maxPresenceStateBytes = 1_024
  /// `broadcast.event`: a JSON object of at most 4 KiB encoded.
  public static let maxBroadcastEventBytes = 4 * 1_024
  /// Largest `drag.index`.
  public static let maxIndex = 1 << 31
  /// Largest magnitude of a numeric field value (`insert.fields`, `set.value`): sums of up to 2^53 of
  /// them stay finite and exact to the cent well beyond any real price.
  public static let maxFieldNumber = 1e15
  /// Largest `hello.since` (2^53: every seq a JSON number holds exactly).
  public static let maxSeq = 1 << 53
}

extension ClientMessage {
  /// Decodes a client frame. Unknown members are ignored (forward compatibility).
  ///
  /// Throws a `ProtocolError` whose code says what is wrong; for an `op` frame whose `id` could be read,
  /// the error carries that id in `OpDecodingError` so the reply can be a `rejected`.
  public static func decode(_ bytes: [UInt8]) throws(MessageDecodingError) -> ClientMessage {
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes)
    } catch {
      throw MessageDecodingError(ProtocolError(.badJSON, "the frame is not valid JSON: \(error.description)"))
    }
    return try decode(value)
  }

  /// Decodes a parsed client frame.
  public static func decode(_ value: JSONValue) throws(MessageDecodingError) -> ClientMessage {
    guard case .object = value else {
      throw MessageDecodingError(ProtocolError(.badMessage, "a message must be a JSON object"))
    }
    guard let typeValue = value["type"] else {
      throw MessageDecodingError(ProtocolError(.badMessage, "a message must have a string 'type'"))
    }
    guard case .string(let type) = typeValue else {
      throw MessageDecodingError(ProtocolError(.badMessage, "a message must have a string 'type'"))
    }
    do {
      switch type {
      case "hello": return .hello(try decodeHello(value))
      case "drag": return .drag(try decodeDrag(value))
      case "refresh": return .refresh(token: try Field.string(value, "token"))
      case "presence":
        return .presence(state: try decodeBounded(value, "state", limit: WireLimits.maxPresenceStateBytes))
      case "broadcast":
        return .broadcast(event: try decodeBounded(value, "event", limit: WireLimits.maxBroadcastEventBytes))
      case "history":
        let before = try Field.optionalInt(value, "before", range: 1...(1 << 53)).map(UInt64.init)
        let limit = try Field.optionalInt(value, "limit", range: 1...HistoryRequest.maxLimit) ?? 50
        return .history(HistoryRequest(before: before, limit: limit))
      case "op":
        let id = try Field.id(value, "id")
        do {
          return .op(OpRequest(id: id, intent: try Intent.decode(try Field.object(value, "op"))))
        } catch {
          throw MessageDecodingError(error, opID: id)
        }
      default:
        throw ProtocolError(
          .unknownType, "unknown message type; expected hello, op, drag, refresh, presence, broadcast or history")
      }
    } catch var error as MessageDecodingError {
      error.type = type
      throw error
    } catch let error as ProtocolError {
      throw MessageDecodingError(error, type: type)
    } catch {
      throw MessageDecodingError(ProtocolError(.badMessage, "the message could not be decoded"), type: type)
    }
  }

  /// The object member `key` of a `presence` or `broadcast`, at most `limit` bytes encoded
  /// (`too_large` beyond; `missing_field` or `wrong_type` when it is absent or not an object).
  static func decodeBounded(_ value: JSONValue, _ key: String, limit: Int) throws(ProtocolError) -> JSONValue {
    guard let member = value[key], member != .null else {
      throw ProtocolError(.missingField, "field '\(key)' is required")
    }
    guard case .object = member else { throw ProtocolError(.wrongType, "field '\(key)' must be an object") }
    let size = member.encoded().count
    guard size <= limit else {
      throw ProtocolError(.tooLarge, "field '\(key)' must be at most \(limit) bytes as JSON, not \(size)")
    }
    return member
  }

  static func decodeHello(_ v: JSONValue) throws(ProtocolError) -> Hello {
    // The version first: the other fields of a hello in another version may mean something else.
    try checkVersion(v["v"])
    let room = try Field.id(v, "room")
    let client = try Field.id(v, "client")
    let name = try Field.text(v, "name", maxBytes: WireLimits.maxNameBytes)
    let color = try Field.text(v, "color", maxBytes: WireLimits.maxColorBytes)
    guard !name.isEmpty else { throw ProtocolError.invalid("name", "must not be empty") }
    guard !color.isEmpty, color.unicodeScalars.allSatisfy(Field.isColorScalar) else {
      throw ProtocolError.invalid("color", "must be a CSS colour such as #e91e63")
    }
    let since = try Field.optionalInt(v, "since", range: 0...WireLimits.maxSeq).map { UInt64($0) }
    // "" is the epoch of a room whose stored op 1 carries none: accepted, and compared like any other.
    let epoch = try Field.optionalID(v, "epoch", allowEmpty: true)
    let token: String?
    switch v["token"] {
    case nil, .null?: token = nil
    case .string(let text)?: token = text
    case let other?: throw ProtocolError.wrongType("token", expected: "a string", got: other)
    }
    return Hello(room: room, client: client, name: name, color: color, since: since, epoch: epoch, token: token)
  }

  /// `hello.v`: absent (or `null`) is version 1; anything but the integer `Hello.protocolVersion`
  /// is `unsupported_version`, which closes the connection (4400).
  static func checkVersion(_ member: JSONValue?) throws(ProtocolError) {
    switch member {
    case nil, .null?: return
    case .number(let n)? where n == Double(Hello.protocolVersion): return
    default:
      throw ProtocolError(
        .unsupportedVersion,
        "hello.v must be \(Hello.protocolVersion), the protocol version this server speaks (or be left out)")
    }
  }

  static func decodeDrag(_ v: JSONValue) throws(ProtocolError) -> DragMessage {
    let phaseText = try Field.string(v, "phase")
    guard let phase = DragPhase(rawValue: phaseText) else {
      throw ProtocolError.invalid("phase", "must be one of start, move, end, cancel")
    }
    var drag = DragMessage(phase: phase, item: try Field.id(v, "item"))
    drag.list = try Field.optionalID(v, "list")
    drag.over = try Field.optionalID(v, "over")
    drag.index = try Field.optionalInt(v, "index", range: 0...WireLimits.maxIndex)
    drag.x = try Field.optionalCoordinate(v, "x")
    drag.y = try Field.optionalCoordinate(v, "y")
    switch v["t"] {
    case nil, .null?: break
    case let value?:
      guard value.encoded().count <= WireLimits.maxOpaqueBytes else {
        throw ProtocolError.invalid("t", "must be at most \(WireLimits.maxOpaqueBytes) bytes of JSON")
      }
      drag.t = value
    }
    return drag
  }
}

/// A decoding failure, with the op id when the frame was an `op` whose id could be read.
public struct MessageDecodingError: Error, Equatable, Sendable {
  /// What is wrong.
  public var error: ProtocolError
  /// The op id, so that the reply is `rejected {id,…}` rather than `error`.
  public var opID: String?
  /// The frame's `type` when it could be read (so the connection state can be checked first).
  public var type: String?

  /// A decoding failure.
  public init(_ error: ProtocolError, opID: String? = nil, type: String? = nil) {
    self.error = error
    self.opID = opID
    self.type = type
  }
}

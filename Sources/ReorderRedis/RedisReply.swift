/// One reply of Redis (RESP2, the protocol of hiredis 0.14), as a Swift value.
public enum RedisReply: Sendable, Equatable, CustomStringConvertible {
  /// A simple string such as `OK`.
  case status(String)
  /// An error reply such as `ERR unknown command`.
  case error(String)
  /// An integer.
  case integer(Int64)
  /// A bulk string: bytes, binary safe.
  case bulk([UInt8])
  /// The nil bulk string or nil array (a missing key, an XREAD that timed out).
  case null
  /// An array of replies.
  case array([RedisReply])

  /// The bytes of a bulk or status reply.
  public var bytes: [UInt8]? {
    switch self {
    case .bulk(let bytes): bytes
    case .status(let text): Array(text.utf8)
    default: nil
    }
  }

  /// The text of a bulk or status reply (bytes that are not UTF-8 are replaced).
  public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

  /// Whether this is an error reply.
  public var isErrorReply: Bool {
    if case .error = self { return true }
    return false
  }

  /// An integer reply, or a bulk string holding a decimal integer (hash fields are strings).
  public var integer: Int64? {
    switch self {
    case .integer(let value): value
    case .bulk(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
    default: nil
    }
  }

  /// The elements of an array reply.
  public var elements: [RedisReply]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// Whether this is the nil reply.
  public var isNull: Bool { self == .null }

  /// The shape of the reply, for error messages (never its contents: they may be user data).
  public var description: String {
    switch self {
    case .status: "a status"
    case .error(let message): "the error \(message.prefix(80))"
    case .integer: "an integer"
    case .bulk(let bytes): "a string of \(bytes.count) bytes"
    case .null: "nil"
    case .array(let elements): "an array of \(elements.count)"
    }
  }
}

/// A value that can be one argument of a Redis command: its bytes, binary safe.
public protocol RedisArgument {
  /// The bytes sent for this argument.
  var redisBytes: [UInt8] { get }
}

extension String: RedisArgument {
  /// The UTF-8 bytes.
  public var redisBytes: [UInt8] { Array(utf8) }
}

extension Array: RedisArgument where Element == UInt8 {
  /// The bytes themselves.
  public var redisBytes: [UInt8] { self }
}

extension Int: RedisArgument {
  /// The decimal text.
  public var redisBytes: [UInt8] { Array(String(self).utf8) }
}

extension Int64: RedisArgument {
  /// The decimal text.
  public var redisBytes: [UInt8] { Array(String(self).utf8) }
}

extension UInt64: RedisArgument {
  /// The decimal text.
  public var redisBytes: [UInt8] { Array(String(self).utf8) }
}

/// Reads what a websocket server sends a client (RFC 6455 §5.2): frames with no mask and no
/// extension bits, messages possibly in fragments (with control frames between them), control
/// frames final and at most 125 bytes. Pure: the socket code feeds it bytes and keeps what it
/// did not consume (a frame not complete yet) for the next read.
struct ServerFrameReader: Sendable {
  /// One message or control frame.
  enum Event: Equatable {
    case text(String)
    case binary(byteCount: Int)
    case ping([UInt8])
    case pong
    /// The server's close frame: its code (nil when it sent none) and reason.
    case close(code: UInt16?, reason: String)
  }

  /// Why the bytes cannot be read on: the close code to fail the connection with and the reason.
  struct Failure: Equatable {
    /// 1002 (protocol error) or 1009 (a message over the limit).
    var code: UInt16
    var reason: String

    static func protocolError(_ reason: String) -> Failure { Failure(code: 1002, reason: reason) }
    static func tooLarge(_ limit: Int) -> Failure { Failure(code: 1009, reason: "message larger than \(limit) bytes") }
  }

  /// What `read` did with the bytes it was given.
  struct Progress: Equatable {
    /// Bytes at the start that were whole frames, consumed.
    var consumed: Int
    /// Set when the bytes break the protocol or the size limit: the connection must be failed.
    var failure: Failure?
  }

  /// The largest message (all fragments together) accepted.
  let maxMessageBytes: Int
  /// The fragments of a message not finished yet, and whether it is text.
  private var fragments: [UInt8] = []
  private var fragmentedText: Bool?

  init(maxMessageBytes: Int) { self.maxMessageBytes = maxMessageBytes }

  /// Consumes the whole frames at the start of `bytes`, passing each complete message and each
  /// control frame to `deliver`, until the bytes end in the middle of a frame or `deliver` returns
  /// false (the reader stops reading; the rest is consumed by the next call).
  mutating func read(_ bytes: UnsafeRawBufferPointer, deliver: (Event) -> Bool) -> Progress {
    var at = 0
    while bytes.count - at >= 2 {
      let first = bytes[at]
      let second = bytes[at + 1]
      if first & 0x70 != 0 {
        return Progress(consumed: at, failure: .protocolError("reserved bits set (no extension was agreed)"))
      }
      if second & 0x80 != 0 { return Progress(consumed: at, failure: .protocolError("a masked frame from the server")) }
      var header = 2
      var length = Int(second & 0x7F)
      if length == 126 {
        guard bytes.count - at >= 4 else { break }
        length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        header = 4
      } else if length == 127 {
        guard bytes.count - at >= 10 else { break }
        var wide: UInt64 = 0
        for index in 2..<10 { wide = wide << 8 | UInt64(bytes[at + index]) }
        guard wide <= UInt64(maxMessageBytes) else {
          return Progress(consumed: at, failure: .tooLarge(maxMessageBytes))
        }
        length = Int(wide)
        header = 10
      }
      let isFinal = first & 0x80 != 0
      let opcode = first & 0x0F
      if opcode >= 8 {
        guard isFinal, length <= 125 else {
          return Progress(consumed: at, failure: .protocolError("a control frame fragmented or over 125 bytes"))
        }
      } else if length > maxMessageBytes - fragments.count {
        return Progress(consumed: at, failure: .tooLarge(maxMessageBytes))
      }
      guard bytes.count - at - header >= length else { break }
      let payload = UnsafeRawBufferPointer(rebasing: bytes[(at + header)..<(at + header + length)])
      at += header + length
      let event: Event?
      switch opcode {
      case 0:
        guard let isText = fragmentedText else {
          return Progress(consumed: at, failure: .protocolError("a continuation frame outside a message"))
        }
        fragments.append(contentsOf: payload)
        event = isFinal ? finishFragments(isText: isText) : nil
      case 1, 2:
        guard fragmentedText == nil else {
          return Progress(consumed: at, failure: .protocolError("a new message inside a fragmented one"))
        }
        if isFinal {
          event = opcode == 1 ? .text(String(decoding: payload, as: UTF8.self)) : .binary(byteCount: payload.count)
        } else {
          fragments.append(contentsOf: payload)
          fragmentedText = opcode == 1
          event = nil
        }
      case 8:
        guard payload.count != 1 else {
          return Progress(consumed: at, failure: .protocolError("a close frame of one byte"))
        }
        event =
          payload.isEmpty
          ? .close(code: nil, reason: "")
          : .close(
            code: UInt16(payload[0]) << 8 | UInt16(payload[1]),
            reason: String(decoding: payload.dropFirst(2), as: UTF8.self))
      case 9: event = .ping(Array(payload))
      case 10: event = .pong
      default: return Progress(consumed: at, failure: .protocolError("unknown opcode \(opcode)"))
      }
      if let event, !deliver(event) { break }
    }
    return Progress(consumed: at, failure: nil)
  }

  private mutating func finishFragments(isText: Bool) -> Event {
    defer {
      fragments.removeAll(keepingCapacity: false)
      fragmentedText = nil
    }
    return isText ? .text(String(decoding: fragments, as: UTF8.self)) : .binary(byteCount: fragments.count)
  }
}

import Foundation

/// The opening handshake of a client websocket (RFC 6455 §4.1): the request to send, and the check
/// of the server's answer (status 101, `Upgrade`, `Connection`, `Sec-WebSocket-Accept` and, when one
/// was asked for, the same `Sec-WebSocket-Protocol`). No extensions are offered, so frames arrive
/// uncompressed.
struct ClientHandshake: Sendable {
  /// What RFC 6455 appends to the key before hashing it.
  static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
  /// The most bytes an answer's status line and headers may take.
  static let maxResponseBytes = 16_384

  /// `Sec-WebSocket-Key`: base64 of the 16-byte nonce.
  let key: String
  /// The subprotocol asked for, if any.
  let subprotocol: String?
  /// The request's bytes.
  let request: [UInt8]

  /// What the server's answer says so far.
  enum Outcome: Equatable {
    /// The headers are not complete yet.
    case incomplete
    /// Upgraded: frames start after the first `headerBytes` bytes.
    case accepted(headerBytes: Int)
    /// Not upgraded, and why (e.g. `HTTP 403 Forbidden`).
    case refused(String)
  }

  init(host: String, port: Int, path: String, subprotocol: String?, nonce: [UInt8]) {
    key = Data(nonce).base64EncodedString()
    self.subprotocol = subprotocol
    let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    var text =
      "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
    if let subprotocol { text += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
    text += "\r\n"
    request = Array(text.utf8)
  }

  /// The `Sec-WebSocket-Accept` a server must answer `key` with.
  static func accept(for key: String) -> String {
    Data(SHA1.digest(Array((key + acceptGUID).utf8))).base64EncodedString()
  }

  /// Checks the bytes received so far.
  func check(_ bytes: UnsafeRawBufferPointer) -> Outcome {
    guard let end = Self.headerEnd(bytes) else {
      return bytes.count > Self.maxResponseBytes ? .refused("handshake answer longer than 16 KB") : .incomplete
    }
    let lines = String(decoding: bytes[..<(end - 4)], as: UTF8.self).components(separatedBy: "\r\n")
    let status = lines[0].split(separator: " ", maxSplits: 2)
    guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
      return .refused("not an HTTP answer: '\(lines[0].prefix(80))'")
    }
    guard code == 101 else { return .refused("HTTP \(code)" + (status.count > 2 ? " \(status[2])" : "")) }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    guard headers["upgrade"]?.lowercased() == "websocket" else { return .refused("101 without Upgrade: websocket") }
    guard headers["connection"]?.lowercased().contains("upgrade") == true else {
      return .refused("101 without Connection: Upgrade")
    }
    guard headers["sec-websocket-accept"] == Self.accept(for: key) else {
      return .refused("101 with a wrong Sec-WebSocket-Accept")
    }
    guard headers["sec-websocket-protocol"] == subprotocol else {
      return .refused("101 with subprotocol '\(headers["sec-websocket-protocol"] ?? "")', not '\(subprotocol ?? "")'")
    }
    return .accepted(headerBytes: end)
  }

  /// The index just past the first `\r\n\r\n`, if there is one.
  static func headerEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 3..<bytes.count
    where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
      return index + 1
    }
    return nil
  }
}

import Foundation

/// A plain TCP client on 127.0.0.1 for requests the websocket client cannot make: raw HTTP paths
/// (traversal attempts), and a websocket that completes its handshake and then never reads.
public final class RawSocket {
  /// The socket descriptor (closed by `close()` / deinit).
  public private(set) var fd: Int32

  /// Connects to 127.0.0.1:`port`. `receiveBufferBytes` shrinks SO_RCVBUF before connecting (so a
  /// client that stops reading fills up quickly).
  public init(port: Int, receiveBufferBytes: Int? = nil) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawSocketError.failed("socket() failed") }
    if let size = receiveBufferBytes {
      var value = Int32(size)
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      Foundation.close(fd)
      throw RawSocketError.failed("connect to 127.0.0.1:\(port) failed")
    }
  }

  /// Writes all of `text`.
  public func write(_ text: String) throws {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeMutableBytes { Foundation.send(fd, $0.baseAddress! + offset, $0.count - offset, 0) }
      guard sent > 0 else { throw RawSocketError.failed("send failed") }
      offset += sent
    }
  }

  /// Reads until `terminator` appears (returns everything read, terminator included) or EOF.
  public func read(until terminator: String) throws -> [UInt8] {
    var data: [UInt8] = []
    let needle = Array(terminator.utf8)
    var byte: UInt8 = 0
    while true {
      let count = Foundation.recv(fd, &byte, 1, 0)
      if count == 0 { return data }
      guard count > 0 else { throw RawSocketError.failed("recv failed or timed out") }
      data.append(byte)
      if data.count >= needle.count && Array(data.suffix(needle.count)) == needle { return data }
    }
  }

  /// Reads until the peer closes (10 s receive timeout per read).
  public func readToEnd() throws -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { Foundation.recv(fd, $0.baseAddress!, $0.count, 0) }
      if count == 0 { return data }
      if count < 0 {
        if errno == ECONNRESET { return data }
        throw RawSocketError.failed("recv failed or timed out")
      }
      data.append(contentsOf: buffer[0..<count])
    }
  }

  /// Closes the socket.
  public func close() {
    if fd >= 0 { Foundation.close(fd) }
    fd = -1
  }

  deinit { close() }

  /// Sends a websocket upgrade for `path` (plus `headers`) and reads the response head; returns its
  /// status line.
  public func websocketHandshake(path: String, headers: [(String, String)] = []) throws -> String {
    let head = try websocketHandshakeHead(path: path, headers: headers)
    return head.components(separatedBy: "\r\n").first ?? ""
  }

  /// Sends a websocket upgrade request and returns the whole response head (status line and
  /// headers, up to the blank line).
  public func websocketHandshakeHead(path: String, headers: [(String, String)] = []) throws -> String {
    let extra = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
    try write(
      "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n")
    return String(decoding: try read(until: "\r\n\r\n"), as: UTF8.self)
  }
}

/// Errors of `RawSocket`.
public enum RawSocketError: Error {
  case failed(String)
}

/// A parsed HTTP/1.1 response.
public struct HTTPReply: Sendable {
  /// Status code, e.g. 200.
  public let status: Int
  /// The status line as sent, e.g. `HTTP/1.1 200 OK`.
  public var statusLine = ""
  /// Header names lowercased.
  public let headers: [String: String]
  /// The body bytes.
  public let body: [UInt8]
  /// The body as UTF-8 text.
  public var text: String { String(decoding: body, as: UTF8.self) }

  /// A reply (for a transport without sockets, whose answers tests read the same way).
  public init(status: Int, statusLine: String = "", headers: [String: String], body: [UInt8]) {
    self.status = status
    self.statusLine = statusLine
    self.headers = headers
    self.body = body
  }
}

/// Sends `GET <rawPath>` (plus `headers`) exactly as given (no normalisation) to 127.0.0.1:`port` and reads the
/// whole response (`Connection: close`).
public func httpGet(port: Int, rawPath: String, headers: [String: String] = [:]) throws -> HTTPReply {
  let socket = try RawSocket(port: port)
  let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
  try socket.write("GET \(rawPath) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)Connection: close\r\n\r\n")
  let data = try socket.readToEnd()
  return try parseHTTPResponse(data)
}

/// Sends one request (`Connection: close`) with `body` and a Content-Length (none when `body` is
/// nil) and reads the whole response.
public func httpRequest(
  port: Int, method: String, rawPath: String, headers: [String: String] = [:], body: [UInt8]? = nil
) throws -> HTTPReply {
  let socket = try RawSocket(port: port)
  var head = "\(method) \(rawPath) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
  for (name, value) in headers { head += "\(name): \(value)\r\n" }
  if let body { head += "Content-Length: \(body.count)\r\n" }
  try socket.write(head + "Connection: close\r\n\r\n")
  if let body, !body.isEmpty { try socket.write(bytes: body) }
  return try parseHTTPResponse(try socket.readToEnd())
}

/// Parses a response head and body (body by Content-Length when present, else to the end).
public func parseHTTPResponse(_ data: [UInt8]) throws -> HTTPReply {
  let separator = Array("\r\n\r\n".utf8)
  guard
    let end = (0...(max(0, data.count - 4))).first(where: { data.count >= 4 && Array(data[$0..<$0 + 4]) == separator })
  else { throw RawSocketError.failed("no HTTP response head in \(data.count) bytes") }
  let head = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
  let statusParts = head[0].split(separator: " ")
  guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
    throw RawSocketError.failed("bad status line '\(head[0])'")
  }
  var headers: [String: String] = [:]
  for line in head.dropFirst() {
    guard let colon = line.firstIndex(of: ":") else { continue }
    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
  }
  var body = Array(data[(end + 4)...])
  if let length = headers["content-length"].flatMap(Int.init), body.count > length { body = Array(body.prefix(length)) }
  return HTTPReply(status: status, statusLine: head[0], headers: headers, body: body)
}

extension RawSocket {
  /// Sends one client websocket frame (masked, as clients must) with `opcode` (1 text, 2 binary,
  /// 8 close, 9 ping…).
  public func writeFrame(opcode: UInt8, payload: [UInt8], final: Bool = true) throws {
    var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
    if payload.count < 126 {
      frame.append(0x80 | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
      frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
      frame.append(0x80 | 127)
      for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
    }
    let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    frame += mask
    frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    try write(bytes: frame)
  }

  /// Reads one server frame (unmasked); nil at end of stream.
  public func readFrame() throws -> (opcode: UInt8, payload: [UInt8])? {
    guard let head = try readExactly(2) else { return nil }
    var length = Int(head[1] & 0x7F)
    if length == 126 {
      guard let extended = try readExactly(2) else { return nil }
      length = Int(extended[0]) << 8 | Int(extended[1])
    } else if length == 127 {
      guard let extended = try readExactly(8) else { return nil }
      length = extended.reduce(0) { $0 << 8 | Int($1) }
    }
    guard let payload = try readExactly(length) else { return nil }
    return (head[0] & 0x0F, payload)
  }

  /// Reads frames until a close frame; returns its code (nil if none) — or nil at end of stream.
  public func readCloseCode() throws -> UInt16? {
    while let frame = try readFrame() {
      if frame.opcode == 8 {
        return frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
      }
    }
    return nil
  }

  /// Writes raw bytes.
  public func write(bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress! + offset, $0.count - offset, 0) }
      guard sent > 0 else { throw RawSocketError.failed("send failed") }
      offset += sent
    }
  }

  private func readExactly(_ count: Int) throws -> [UInt8]? {
    var data = [UInt8](repeating: 0, count: count)
    var offset = 0
    while offset < count {
      let received = data.withUnsafeMutableBytes { Foundation.recv(fd, $0.baseAddress! + offset, count - offset, 0) }
      if received == 0 { return nil }
      guard received > 0 else { throw RawSocketError.failed("recv failed or timed out") }
      offset += received
    }
    return data
  }
}

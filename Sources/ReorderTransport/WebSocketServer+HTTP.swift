import CLibWebSockets
import Foundation

extension WebSocketServer {
  /// The Content-Security-Policy sent with every HTTP response: no inline script or style.
  static let contentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

  /// Headers on every HTTP response.
  static let securityHeaders: [(name: String, value: String)] = [
    ("content-security-policy", contentSecurityPolicy),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
  ]

  /// The request methods lws parses, with the header token that holds the path for each.
  static let methods: [(name: String, token: lws_token_indexes)] = [
    ("GET", WSI_TOKEN_GET_URI), ("HEAD", WSI_TOKEN_HEAD_URI), ("POST", WSI_TOKEN_POST_URI),
    ("PUT", WSI_TOKEN_PUT_URI), ("PATCH", WSI_TOKEN_PATCH_URI), ("DELETE", WSI_TOKEN_DELETE_URI),
    ("OPTIONS", WSI_TOKEN_OPTIONS_URI),
  ]

  /// The request headers an `HTTPRequestHead` carries, by lowercase name.
  static let requestHeaders: [(name: String, token: lws_token_indexes)] = [
    ("host", WSI_TOKEN_HOST), ("origin", WSI_TOKEN_ORIGIN), ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION),
    ("cookie", WSI_TOKEN_HTTP_COOKIE), ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE),
    ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH), ("accept", WSI_TOKEN_HTTP_ACCEPT),
    ("if-none-match", WSI_TOKEN_HTTP_IF_NONE_MATCH), ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
    ("x-forwarded-for", WSI_TOKEN_X_FORWARDED_FOR),
  ]

  /// `LWS_CALLBACK_HTTP`: the handler's route, else a static file, else 404 (405 for methods other
  /// than GET and HEAD).
  func handleHTTP(_ wsi: OpaquePointer) -> Int32 {
    guard let head = requestHead(wsi) else {
      return queueResponse(wsi, .text(405, "method not allowed\n", headers: [("allow", "GET, HEAD")]))
    }
    switch handler.route(head) {
    case .handle(let maxBodyBytes, let tooLarge):
      let declared = head.headers["content-length"].flatMap { Int($0) }
      if let declared, declared > maxBodyBytes {
        http.discarding[wsi] = false
        return queueResponse(wsi, tooLarge ?? Self.tooLarge(maxBodyBytes), close: true)
      }
      let hasBody = (declared ?? 0) > 0
      let exchange = HTTPExchange(head: head, maxBodyBytes: maxBodyBytes, tooLarge: tooLarge)
      http.open(exchange, on: wsi)
      if declared == nil, ["POST", "PUT", "PATCH"].contains(head.method) {
        // On HTTP/2 the body runs to the end of the stream: lws' body callbacks dispatch it.
        if isHTTP2(wsi) { return 0 }
        // No Content-Length on HTTP/1.1 (`curl -X POST` without data): an empty body, answered
        // now. lws reads whatever follows as this request's body (up to 100 MB), so the
        // connection is closed after the answer rather than kept for a next request.
        exchange.closeAfterResponse = true
        dispatchHTTP(wsi)
        return 0
      }
      // A POST with an explicit empty body still gets lws' body callbacks, which dispatch it.
      if !hasBody && !(head.method == "POST" && declared == 0) { dispatchHTTP(wsi) }
      return 0
    case .pass:
      return serveStatic(wsi, head)
    }
  }

  /// `LWS_CALLBACK_HTTP_BODY`: one chunk of a routed request's body; 413 past its limit.
  func receiveHTTPBody(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
    guard let exchange = http[wsi], exchange.id == 0 else { return 0 }
    if exchange.body.count + chunk.count > exchange.maxBodyBytes {
      http.refuse(wsi)
      return queueResponse(wsi, exchange.tooLarge ?? Self.tooLarge(exchange.maxBodyBytes), close: true)
    }
    exchange.body.append(contentsOf: chunk)
    return 0
  }

  /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the body is whole; the handler gets the request.
  ///
  /// The body of a request refused before it was read (413) is read to its end and dropped, and the
  /// connection closed after that: closing a socket with unread data makes the kernel answer with a
  /// reset, which can destroy the response before the client reads it.
  func completeHTTPBody(_ wsi: OpaquePointer) -> Int32 {
    if let refusalSent = http.discarding[wsi] {
      if refusalSent { return -1 }
      http.discarding[wsi] = true
      return 0
    }
    if http[wsi] != nil { dispatchHTTP(wsi) }
    return 0
  }

  /// Hands a routed request to the handler with a responder that finds its way back to `wsi` on the
  /// service thread (dropped if the client went away meanwhile).
  private func dispatchHTTP(_ wsi: OpaquePointer) {
    guard let exchange = http.dispatch(wsi) else { return }
    counted.httpRequests += 1
    let id = exchange.id
    // A slow answer (the handler waits for the store) must not be cut by lws' default timeout.
    lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.httpAnswerTimeoutSeconds)
    let responder = HTTPResponder { [weak self] response in
      guard let self else { return }
      if loop.isServiceThread {
        deliverHTTPResponse(id, response)
      } else {
        loop.post { [weak self] in self?.deliverHTTPResponse(id, response) }
      }
    }
    handler.handle(HTTPRequest(head: exchange.head, body: exchange.body), responder: responder)
  }

  /// Service thread: the response of exchange `id`, if its client is still there.
  private func deliverHTTPResponse(_ id: UInt64, _ response: HTTPResponse) {
    guard let (wsi, close) = http.answered(id) else { return }
    _ = queueResponse(wsi, response, close: close)
  }

  /// Whether `wsi` is an HTTP/2 stream (it has a `:path` pseudo-header).
  func isHTTP2(_ wsi: OpaquePointer) -> Bool {
    lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COLON_PATH) > 0
  }

  /// Static files for GET and HEAD (with `If-None-Match` → 304); 404 or 405 otherwise.
  private func serveStatic(_ wsi: OpaquePointer, _ head: HTTPRequestHead) -> Int32 {
    guard head.method == "GET" || head.method == "HEAD" else {
      return queueResponse(
        wsi, .text(405, "method not allowed: only GET and HEAD are served here\n", headers: [("allow", "GET, HEAD")]))
    }
    let route = handler.staticFile(for: head)
    guard let staticFiles,
      case .file(let file, let contentType, let cacheControl, let etag) = staticFiles.resolve(route.path)
    else {
      return queueResponse(wsi, .text(404, "not found\n"))
    }
    let validators = [("cache-control", cacheControl), ("etag", etag)] + route.headers.map { ($0.name, $0.value) }
    if let tags = head.headers["if-none-match"], Self.matches(tags, etag) {
      return queueResponse(wsi, HTTPResponse(status: 304, contentType: contentType, headers: validators))
    }
    var headers = ""
    for (name, value) in Self.securityHeaders + validators {
      headers += "\(name): \(value)\r\n"
    }
    let result = headers.withCString { pointer in
      lws_serve_http_file(wsi, file, contentType, pointer, Int32(strlen(pointer)))
    }
    if result < 0 || (result > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
    return 0
  }

  /// True when an `If-None-Match` list names `etag` (or is `*`).
  static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
    ifNoneMatch.split(separator: ",").contains { candidate in
      let tag = candidate.trimmingCharacters(in: .whitespaces)
      return tag == "*" || tag == etag || tag == "W/" + etag
    }
  }

  /// 413 with the limit.
  static func tooLarge(_ limit: Int) -> HTTPResponse {
    .text(413, "request body too large (limit \(limit) bytes)\n")
  }

  /// The method, path, query and headers of the request on `wsi`; nil for a method lws does not parse.
  func requestHead(_ wsi: OpaquePointer) -> HTTPRequestHead? {
    guard
      let (method, path) = Self.methods.lazy.compactMap({ m in self.header(wsi, m.token).map { (m.name, $0) } }).first
    else { return nil }
    var headers: [String: String] = [:]
    for (name, token) in Self.requestHeaders {
      if let value = header(wsi, token) { headers[name] = value }
    }
    return HTTPRequestHead(method: method, path: path, query: query(wsi), headers: headers, peerAddress: peer(wsi))
  }

  /// Queues `response` on `wsi`: headers and body are written from the writeable callback (headers
  /// first, then the body, as lws wants them for HTTP/1 and HTTP/2 alike). With `close`, the
  /// connection is closed once it is sent (the request's body is not read).
  func queueResponse(_ wsi: OpaquePointer, _ response: HTTPResponse, close: Bool = false) -> Int32 {
    let isHead = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0
    http.responses[wsi] = PendingHTTPResponse(
      response: response, sendBody: !isHead && !response.body.isEmpty, close: close)
    lws_callback_on_writable(wsi)
    return 0
  }

  /// `LWS_CALLBACK_HTTP_WRITEABLE`: the headers of a queued response, then (on the next callback)
  /// its body. File transfers are lws' own.
  func writePendingHTTP(_ wsi: OpaquePointer) -> Int32 {
    guard let pending = http.responses[wsi] else { return 0 }
    if !pending.headersSent {
      guard writeHeaders(wsi, pending.response, final: !pending.sendBody) else { return -1 }
      pending.headersSent = true
      if pending.sendBody {
        lws_callback_on_writable(wsi)
        return 0
      }
    } else {
      let pre = Int(reorder_lws_pre())
      var buffer = [UInt8](repeating: 0, count: pre) + pending.response.body
      let count = pending.response.body.count
      let written = buffer.withUnsafeMutableBufferPointer { raw in
        lws_write(wsi, raw.baseAddress! + pre, count, LWS_WRITE_HTTP_FINAL)
      }
      if written < count { return -1 }
    }
    http.responses[wsi] = nil
    if pending.close {
      // Wait for the rest of a refused body (bounded by lws' timeout), then close.
      if http.discarding[wsi] == false {
        http.discarding[wsi] = true
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.discardTimeoutSeconds)
        return 0
      }
      return -1
    }
    return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
  }

  /// Writes the status line and headers (content-length from the body, then the security headers).
  /// A 204 has no content, so no content type.
  private func writeHeaders(_ wsi: OpaquePointer, _ response: HTTPResponse, final: Bool) -> Bool {
    let flags =
      final
      ? Int32(LWS_WRITE_HTTP_HEADERS.rawValue) | Int32(LWS_WRITE_H2_STREAM_END.rawValue)
      : Int32(LWS_WRITE_HTTP_HEADERS.rawValue)
    let contentType = response.status == 204 ? nil : response.header("content-type") ?? "application/octet-stream"
    return writeHead(
      wsi, status: response.status, contentType: contentType,
      contentLength: response.body.count, headers: response.headers.filter { $0.name != "content-type" },
      flags: lws_write_protocol(rawValue: UInt32(flags)))
  }

  /// One write of a status line, the common headers (content type and length), the security
  /// headers, `headers`, and `inlineBody` right after them (only where the body may share the
  /// headers' write: an HTTP/1.1 answer to an upgrade). The HTTP/1 status line carries the
  /// reason phrase of `HTTPStatus` (lws 4.1.6 writes none for 201, 202, 204, 422, 429 and others).
  func writeHead(
    _ wsi: OpaquePointer, status: Int, contentType: String?, contentLength: Int,
    headers: [(name: String, value: String)], inlineBody: [UInt8] = [], flags: lws_write_protocol
  ) -> Bool {
    let pre = Int(reorder_lws_pre())
    let space = 4096 + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    var buffer = [UInt8](repeating: 0, count: pre + space + inlineBody.count)
    return buffer.withUnsafeMutableBufferPointer { raw -> Bool in
      let start = raw.baseAddress! + pre
      let end = raw.baseAddress! + raw.count - 1 - inlineBody.count
      var cursor: UnsafeMutablePointer<UInt8>? = start
      if lws_add_http_common_headers(
        wsi, UInt32(status), contentType, lws_filepos_t(contentLength), &cursor, end) != 0
      {
        return false
      }
      guard Self.replaceReasonPhrase(start, &cursor, end: end, status: status) else { return false }
      for (name, value) in Self.securityHeaders + headers {
        var nameBytes = Array((name + ":").utf8) + [0]
        var valueBytes = Array(value.utf8)
        if lws_add_http_header_by_name(wsi, &nameBytes, &valueBytes, Int32(valueBytes.count), &cursor, end) != 0 {
          return false
        }
      }
      guard lws_finalize_http_header(wsi, &cursor, end) == 0, var cursor else { return false }
      for byte in inlineBody {
        cursor.pointee = byte
        cursor += 1
      }
      let count = start.distance(to: cursor)
      return lws_write(wsi, start, count, flags) == count
    }
  }

  /// Rewrites the HTTP/1 status line lws put at `start` (up to `cursor`) as `HTTP/1.x <status>
  /// <reason phrase>`, moving what follows it; an HTTP/2 head (no status line) is left alone.
  /// False when the buffer up to `end` has no room.
  static func replaceReasonPhrase(
    _ start: UnsafeMutablePointer<UInt8>, _ cursor: inout UnsafeMutablePointer<UInt8>?,
    end: UnsafeMutablePointer<UInt8>,
    status: Int
  ) -> Bool {
    guard let current = cursor else { return false }
    let written = Array(UnsafeBufferPointer(start: start, count: start.distance(to: current)))
    let prefix = Array("HTTP/1.".utf8)
    guard written.starts(with: prefix), written.count > prefix.count,
      let lineEnd = written.firstIndex(of: UInt8(ascii: "\r"))
    else { return true }
    let version = written[0..<(prefix.count + 1)]
    let line = Array(version) + Array(" \(status) \(HTTPStatus.reasonPhrase(status))".utf8)
    let rewritten = line + written[lineEnd...]
    guard rewritten.count <= start.distance(to: end) else { return false }
    rewritten.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: $0.count) }
    cursor = start + rewritten.count
    return true
  }

  /// Seconds the rest of a refused body is read for before the connection is closed anyway.
  static let discardTimeoutSeconds: Int32 = 5

  /// Seconds a routed request may wait for its answer before lws drops the connection.
  static let httpAnswerTimeoutSeconds: Int32 = 60
}

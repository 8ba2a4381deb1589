import CLibWebSockets
import Foundation

extension WebSocketServer {
  /// The Content-Security-Policy sent with every HTTP response: no inline script or style.
  static let contentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

  /// Headers on every HTTP response (names end with a colon, as lws wants them).
  static let securityHeaders: [(String, String)] = [
    ("content-security-policy:", contentSecurityPolicy),
    ("x-content-type-options:", "nosniff"),
    ("referrer-policy:", "no-referrer"),
  ]

  /// `LWS_CALLBACK_HTTP`: `/healthz`, else a static file, else 404. GET and HEAD are served.
  func handleHTTP(_ wsi: OpaquePointer) -> Int32 {
    guard let path = header(wsi, WSI_TOKEN_GET_URI) ?? header(wsi, WSI_TOKEN_HEAD_URI) else {
      return respond(
        wsi, status: 405, body: "method not allowed: only GET and HEAD are served\n",
        extraHeaders: [("allow:", "GET, HEAD")])
    }
    if path == "/healthz" {
      return respond(
        wsi, status: 200, contentType: "application/json", body: healthJSON() + "\n",
        extraHeaders: [("cache-control:", "no-store")])
    }
    guard let staticFiles, case .file(let file, let contentType, let cacheControl, let etag) = staticFiles.resolve(path)
    else {
      return respond(wsi, status: 404, body: "not found\n")
    }
    let validators = [("cache-control:", cacheControl), ("etag:", etag)]
    if let tags = header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH), Self.matches(tags, etag) {
      return respond(wsi, status: 304, contentType: contentType, body: "", extraHeaders: validators)
    }
    var headers = ""
    for (name, value) in Self.securityHeaders + validators {
      headers += "\(name) \(value)\r\n"
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

  /// The `/healthz` JSON object: status, uptime, connections, plus the handler's fields.
  func healthJSON() -> String {
    var fields: [String: Int] = [
      "uptime_s": Int(Date().timeIntervalSince(startedAt)),
      "connections": connectionCount,
      "rooms": 0,
    ]
    fields.merge(handler.healthFields()) { _, handlers in handlers }
    var json = "{\"status\":\"ok\""
    for key in fields.keys.sorted() {
      json += ",\(TransportLog.jsonString(key)):\(fields[key]!)"
    }
    return json + "}"
  }

  /// Writes the status line and headers now; the body follows in `LWS_CALLBACK_HTTP_WRITEABLE`.
  func respond(
    _ wsi: OpaquePointer, status: UInt32, contentType: String = "text/plain; charset=utf-8", body: String,
    extraHeaders: [(String, String)] = []
  ) -> Int32 {
    // HEAD: the same headers (Content-Length included), no body.
    let bodyBytes = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 ? [] : Array(body.utf8)
    let contentLength = body.utf8.count
    let pre = Int(reorder_lws_pre())
    var buffer = [UInt8](repeating: 0, count: pre + 2048)
    let ok = buffer.withUnsafeMutableBufferPointer { raw -> Bool in
      let start = raw.baseAddress! + pre
      let end = raw.baseAddress! + raw.count - 1
      var cursor: UnsafeMutablePointer<UInt8>? = start
      if lws_add_http_common_headers(wsi, status, contentType, lws_filepos_t(contentLength), &cursor, end) != 0 {
        return false
      }
      for (name, value) in Self.securityHeaders + extraHeaders {
        var nameBytes = Array(name.utf8) + [0]
        var valueBytes = Array(value.utf8)
        if lws_add_http_header_by_name(wsi, &nameBytes, &valueBytes, Int32(valueBytes.count), &cursor, end) != 0 {
          return false
        }
      }
      return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
    }
    guard ok else { return -1 }
    pendingHTTPBodies[wsi] = bodyBytes
    lws_callback_on_writable(wsi)
    return 0
  }

  /// `LWS_CALLBACK_HTTP_WRITEABLE`: the body of a `respond` (file transfers are lws' own).
  func writePendingHTTPBody(_ wsi: OpaquePointer) -> Int32 {
    guard let body = pendingHTTPBodies.removeValue(forKey: wsi) else { return 0 }
    let pre = Int(reorder_lws_pre())
    var buffer = [UInt8](repeating: 0, count: pre) + body
    let written = buffer.withUnsafeMutableBufferPointer { raw in
      lws_write(wsi, raw.baseAddress! + pre, body.count, LWS_WRITE_HTTP_FINAL)
    }
    if written < body.count { return -1 }
    return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
  }
}

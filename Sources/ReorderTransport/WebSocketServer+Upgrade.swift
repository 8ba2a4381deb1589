import CLibWebSockets
import Foundation
import ReorderBasics

extension WebSocketServer {
  /// `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE`: the handler accepts the upgrade (its context is kept for
  /// `websocketOpened`) or refuses it with an HTTP response written now, before lws answers 101.
  /// Returns 0 to let the upgrade go on, 1 when a response was written instead.
  func confirmUpgrade(_ wsi: OpaquePointer, protocol name: String?) -> Int32 {
    guard name == "websocket" else { return 0 }  // h2c: lws' own
    if windDown.isShuttingDown {
      return refuseUpgrade(wsi, status: 503, reason: "server shutting down")
    }
    if windDown.drain != nil {
      return refuseUpgrade(wsi, status: 503, reason: "server draining: connect to another node")
    }
    switch handler.admit(upgradeRequest(wsi)) {
    case .accept(let context):
      admittedUpgrades[wsi] = AdmittedUpgrade(context: context)
      return 0
    case .refuse(let status, let reason):
      Log.info("websocket upgrade refused", ["status": String(status), "reason": reason])
      counted.refused += 1
      return refuseUpgrade(wsi, status: status, reason: reason)
    }
  }

  /// The decision for a websocket that reached `LWS_CALLBACK_ESTABLISHED`: the one made at its
  /// upgrade, or (for a websocket over HTTP/2, which has no upgrade callback) one made now.
  func admission(_ wsi: OpaquePointer) -> UpgradeDecision {
    if let admitted = admittedUpgrades.removeValue(forKey: wsi) { return .accept(context: admitted.context) }
    return handler.admit(upgradeRequest(wsi))
  }

  /// What the handler sees of an upgrade request.
  func upgradeRequest(_ wsi: OpaquePointer) -> UpgradeRequest {
    UpgradeRequest(
      path: header(wsi, WSI_TOKEN_GET_URI) ?? "", query: query(wsi), origin: header(wsi, WSI_TOKEN_ORIGIN),
      host: header(wsi, WSI_TOKEN_HOST), cookie: header(wsi, WSI_TOKEN_HTTP_COOKIE),
      authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), webSocketProtocol: header(wsi, WSI_TOKEN_PROTOCOL),
      forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR), forwardedProto: customHeader(wsi, "x-forwarded-proto:"),
      forwardedHost: customHeader(wsi, "x-forwarded-host:"), forwarded: customHeader(wsi, "forwarded:"),
      userAgent: header(wsi, WSI_TOKEN_HTTP_USER_AGENT), peerAddress: peer(wsi))
  }

  /// Writes a whole plain-text HTTP/1.1 response (status line with its reason phrase, headers,
  /// body) in one write, as an answer to an upgrade request; a 429 and a 503 say `Retry-After: 1`
  /// (the handshake bucket refills every second; a draining node is gone in its window). The status line is written here rather than by lws,
  /// which has not recorded the request's version yet at this callback and would write `HTTP/1.0`,
  /// which strict websocket clients cannot parse.
  private func refuseUpgrade(_ wsi: OpaquePointer, status: Int, reason: String) -> Int32 {
    let body = reason + "\n"
    var head = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
    var headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", String(body.utf8.count))]
    if status == 429 || status == 503 { headers.append(("retry-after", "1")) }
    for (name, value) in headers + Self.securityHeaders { head += "\(name): \(value)\r\n" }
    let bytes = Array((head + "\r\n" + body).utf8)
    let pre = Int(reorder_lws_pre())
    var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
    buffer.replaceSubrange(pre..., with: bytes)
    let written = buffer.withUnsafeMutableBufferPointer { raw in
      lws_write(wsi, raw.baseAddress! + pre, bytes.count, LWS_WRITE_HTTP_HEADERS)
    }
    return written == bytes.count ? 1 : -1
  }

  /// The query string's parts as lws decoded them, joined with `&`; nil without a query.
  func query(_ wsi: OpaquePointer) -> String? {
    var parts: [String] = []
    var buffer = [CChar](repeating: 0, count: 4096)
    var index: Int32 = 0
    while true {
      let length = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index)
      guard length >= 0 else { break }
      parts.append(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
      index += 1
    }
    return parts.isEmpty ? nil : parts.joined(separator: "&")
  }

  /// The TCP peer's address as text.
  func peer(_ wsi: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    guard let text = lws_get_peer_simple(wsi, &buffer, buffer.count) else { return "" }
    return String(cString: text)
  }
}

/// A websocket accepted at its upgrade, until it is established.
struct AdmittedUpgrade {
  let context: (any Sendable)?
}

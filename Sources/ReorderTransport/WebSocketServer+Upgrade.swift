import CLibWebSockets
import Foundation
import ReorderBasics

extension WebSocketServer {
  /// `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE`: the handler accepts the upgrade (its context is kept for
  /// `websocketOpened`) or refuses it with an HTTP response written now, before lws answers 101.
  /// Returns 0 to let the upgrade go on, 1 when a response was written instead.
  func confirmUpgrade(_ wsi: OpaquePointer, protocol name: String?) -> Int32 {
    guard name == "websocket" else { return 0 }  // h2c: lws' own
    if isShuttingDown {
      return refuseUpgrade(wsi, status: 503, reason: "server shutting down")
    }
    switch handler.admit(upgradeRequest(wsi)) {
    case .accept(let context):
      admittedUpgrades[wsi] = AdmittedUpgrade(context: context)
      return 0
    case .refuse(let status, let reason):
      Log.info("websocket upgrade refused", ["status": String(status), "reason": reason])
      refusedTotal += 1
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

  /// Writes a whole plain-text HTTP response (status line, headers, body) in one write, as an
  /// answer to an upgrade request (HTTP/1.1: the connection stays usable for another request).
  private func refuseUpgrade(_ wsi: OpaquePointer, status: Int, reason: String) -> Int32 {
    let body = Array((reason + "\n").utf8)
    let ok = writeHead(
      wsi, status: status, contentType: "text/plain; charset=utf-8", contentLength: body.count, headers: [],
      inlineBody: body, flags: LWS_WRITE_HTTP_HEADERS)
    return ok ? 1 : -1
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

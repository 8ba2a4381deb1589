import CLibWebSockets
import Foundation

extension WebSocketServer {
  /// Dispatches one lws callback. Runs on the service thread (or, for context set-up callbacks,
  /// on the thread creating the context, where it only defers to lws' defaults).
  func handleCallback(
    wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
  ) -> Int32 {
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
      loop.drainInbox()
      return 0
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
      return windDown.isShuttingDown ? 1 : 0  // stop accepting: refuse new sockets while shutting down
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
      return confirmUpgrade(wsi, protocol: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) })
    case LWS_CALLBACK_HTTP:
      return handleHTTP(wsi)
    case LWS_CALLBACK_HTTP_BODY:
      return receiveHTTPBody(wsi, UnsafeRawBufferPointer(start: input, count: length))
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
      return completeHTTPBody(wsi)
    case LWS_CALLBACK_HTTP_WRITEABLE:
      return writePendingHTTP(wsi)
    case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
      forgetHTTP(wsi)
      return reason == LWS_CALLBACK_WSI_DESTROY ? lws_callback_http_dummy(wsi, reason, user, input, length) : 0
    case LWS_CALLBACK_ESTABLISHED:
      return websocketOpened(wsi)
    case LWS_CALLBACK_RECEIVE:
      return websocketReceived(wsi, UnsafeRawBufferPointer(start: input, count: length))
    case LWS_CALLBACK_SERVER_WRITEABLE:
      return websocketWritable(wsi)
    case LWS_CALLBACK_RECEIVE_PONG:
      connections[wsi]?.heard = true
      return 0
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
      if let conn = connections[wsi], let input, length >= 2 {
        let bytes = input.assumingMemoryBound(to: UInt8.self)
        conn.peerCloseCode = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
      }
      return 0
    case LWS_CALLBACK_CLOSED:
      websocketClosed(wsi)
      return 0
    default:
      return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
  }

  /// Drops what was kept for an HTTP request or an upgrade on `wsi`.
  func forgetHTTP(_ wsi: OpaquePointer) {
    http.forget(wsi)
    admittedUpgrades[wsi] = nil
  }

  /// A request header as a string (nil when absent). Service thread.
  func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
    let length = Int(lws_hdr_total_length(wsi, token))
    guard length > 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: length + 1)
    let copied = Int(lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token))
    guard copied >= 0 else { return nil }
    return String(decoding: buffer.prefix(copied).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A request header lws has no token for (`name` in lower case with its colon, as lws stores
  /// it: `"x-forwarded-proto:"`), or nil when absent. Service thread.
  func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
    let nameLength = Int32(name.utf8.count)
    let length = Int(lws_hdr_custom_length(wsi, name, nameLength))
    guard length > 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: length + 1)
    let copied = Int(lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), name, nameLength))
    guard copied >= 0 else { return nil }
    return String(decoding: buffer.prefix(copied).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

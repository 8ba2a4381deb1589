import CLibWebSockets

extension WebSocketClientContext {
  /// Dispatches one client lws callback (service thread).
  func handleCallback(
    wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
  ) -> Int32 {
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
      loop.drainInbox()
      return 0
    }
    guard let opaque = lws_get_opaque_user_data(wsi) else {
      return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let connection = Unmanaged<ClientConnection>.fromOpaque(opaque).takeUnretainedValue()
    switch reason {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
      let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
      finished(connection, wsi: wsi, code: nil, reason: why)
      return 0
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
      connection.wsi = wsi
      connection.onEvent(connection, .opened)
      if !connection.outgoing.isEmpty || connection.pendingClose != nil { lws_callback_on_writable(wsi) }
      return 0
    case LWS_CALLBACK_CLIENT_RECEIVE:
      return received(connection, wsi, UnsafeRawBufferPointer(start: input, count: length))
    case LWS_CALLBACK_CLIENT_WRITEABLE:
      return writable(connection, wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
      connection.receivedClose = Self.parseClose(UnsafeRawBufferPointer(start: input, count: length))
      return 0
    case LWS_CALLBACK_CLIENT_CLOSED:
      if let received = connection.receivedClose {
        finished(connection, wsi: wsi, code: received.code, reason: received.reason)
      } else if let sent = connection.pendingClose {
        finished(connection, wsi: wsi, code: sent.code, reason: sent.reason)
      } else {
        finished(connection, wsi: wsi, code: nil, reason: "connection lost")
      }
      return 0
    default:
      return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
  }

  private func received(_ connection: ClientConnection, _ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer)
    -> Int32
  {
    let outcome = connection.incoming.append(
      chunk, isBinary: lws_frame_is_binary(wsi) != 0, isFinalFragment: lws_is_final_fragment(wsi) != 0,
      remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
    switch outcome {
    case .incomplete:
      return 0
    case .complete(let bytes, let isBinary):
      connection.onEvent(connection, isBinary ? .binary(bytes) : .text(String(decoding: bytes, as: UTF8.self)))
      return 0
    case .tooLarge(let bytes):
      let reason = "message too large: \(bytes) bytes (limit \(maxMessageBytes))"
      connection.pendingClose = (1009, reason)
      setCloseReason(wsi, code: 1009, reason: reason)
      return -1
    }
  }

  private func writable(_ connection: ClientConnection, _ wsi: OpaquePointer) -> Int32 {
    if let frame = connection.outgoing.dequeue() {
      let flags = writeFlags(frame.kind, isFirst: frame.isFirst, isFinal: frame.isFinal)
      let written = lws_write(wsi, frame.buffer.payload, frame.payloadCount, flags)
      if written < 0 { return -1 }
      if !connection.outgoing.isEmpty || connection.pendingClose != nil { lws_callback_on_writable(wsi) }
      return 0
    }
    if let close = connection.pendingClose {
      setCloseReason(wsi, code: close.code, reason: close.reason)
      return -1
    }
    return 0
  }

  private func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
    var bytes = Array(reason.utf8.prefix(123))
    lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
  }

  /// A close frame's payload: a big-endian code then a UTF-8 reason (both optional).
  static func parseClose(_ payload: UnsafeRawBufferPointer) -> (code: UInt16?, reason: String) {
    guard payload.count >= 2 else { return (nil, "") }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    return (code, String(decoding: payload[2...], as: UTF8.self))
  }
}

/// The one C callback of client contexts: finds its context through the context user pointer.
let clientCallback: LWSCallback = { wsi, reason, user, input, length in
  guard let wsi, let client = ServiceLoop.clientOwner(WebSocketClientContext.self, of: wsi) else {
    return lws_callback_http_dummy(wsi, reason, user, input, length)
  }
  return client.handleCallback(wsi: wsi, reason: reason, user: user, input: input, length: length)
}

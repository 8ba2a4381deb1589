import CLibWebSockets

extension HTTPClient {
  /// Dispatches one lws callback of a client HTTP connection (service thread).
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
    let exchange = Unmanaged<HTTPClientExchange>.fromOpaque(opaque).takeUnretainedValue()
    exchange.wsi = wsi
    switch reason {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
      let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
      finished(exchange, .failure(.connectFailed(why)))
      return 0
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
      guard let input else { return -1 }
      let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
      guard let start = cursor.pointee else { return -1 }
      return appendHeaders(exchange, wsi, cursor, end: start + length)
    case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
      // Once: lws may call again for the response's sake after the body went.
      guard !exchange.bodySent else { return 0 }
      exchange.bodySent = true
      lws_client_http_body_pending(wsi, 0)
      let count = exchange.request.body.count
      let written = exchange.outgoing.withUnsafeMutableBufferPointer { buffer in
        lws_write(wsi, buffer.baseAddress! + Int(reorder_lws_pre()), count, LWS_WRITE_HTTP_FINAL)
      }
      return written < 0 ? -1 : 0
    case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
      exchange.status = Int(lws_http_client_http_response(wsi))
      return 0
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
      // lws only says data waits: lws_http_client_read drains it (de-chunked) into
      // RECEIVE_CLIENT_HTTP_READ callbacks.
      var buffer = [CChar](repeating: 0, count: Int(reorder_lws_pre()) + 4096)
      return buffer.withUnsafeMutableBufferPointer { buffer in
        var start: UnsafeMutablePointer<CChar>? = buffer.baseAddress! + Int(reorder_lws_pre())
        var space = Int32(4096)
        return lws_http_client_read(wsi, &start, &space) < 0 ? -1 : 0
      }
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
      if let input, exchange.received.count < Self.maxResponseBytes {
        let kept = min(length, Self.maxResponseBytes - exchange.received.count)
        exchange.received.append(contentsOf: UnsafeRawBufferPointer(start: input, count: kept))
      }
      return 0
    case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
      finished(exchange, .success(HTTPClientResponse(status: exchange.status ?? 0, body: exchange.received)))
      return 0
    case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
      // A server that answers without a length ends its body by closing: the status is the answer.
      if let status = exchange.status {
        finished(exchange, .success(HTTPClientResponse(status: status, body: exchange.received)))
      } else {
        finished(exchange, .failure(.closedEarly))
      }
      return 0
    default:
      return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
  }

  /// The request's headers, then its `content-length`; a body to send makes lws call
  /// `CLIENT_HTTP_WRITEABLE` after the headers.
  private func appendHeaders(
    _ exchange: HTTPClientExchange, _ wsi: OpaquePointer,
    _ cursor: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, end: UnsafeMutablePointer<UInt8>
  ) -> Int32 {
    let headers = exchange.request.headers + [("content-length", String(exchange.request.body.count))]
    for (name, value) in headers {
      var bytes = Array(value.utf8)
      let failed = (name.lowercased() + ":").withCString { name in
        name.withMemoryRebound(to: UInt8.self, capacity: 1) { name in
          lws_add_http_header_by_name(wsi, name, &bytes, Int32(bytes.count), cursor, end)
        }
      }
      if failed != 0 { return -1 }
    }
    if !exchange.request.body.isEmpty {
      lws_client_http_body_pending(wsi, 1)
      lws_callback_on_writable(wsi)
    }
    return 0
  }
}

/// The one C callback of HTTP client contexts: finds its client through the context user pointer.
let httpClientCallback: LWSCallback = { wsi, reason, user, input, length in
  guard let wsi, let client = ServiceLoop.clientOwner(HTTPClient.self, of: wsi) else {
    return lws_callback_http_dummy(wsi, reason, user, input, length)
  }
  return client.handleCallback(wsi: wsi, reason: reason, user: user, input: input, length: length)
}

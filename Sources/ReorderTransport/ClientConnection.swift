import CLibWebSockets

/// One client websocket of a `WebSocketClientContext`.
///
/// The methods may be called from any thread: they post to the context's service thread, where the
/// state below lives. Messages sent before the handshake completes are queued and sent after it.
public final class ClientConnection: @unchecked Sendable {
  /// A number unique within the process, for logs and bookkeeping.
  public let id: UInt64
  let context: WebSocketClientContext
  let onEvent: @Sendable (ClientConnection, WebSocketEvent) -> Void

  // Service thread only.
  var wsi: OpaquePointer?
  var outgoing = OutgoingQueue(limitBytes: Int.max, headroom: Int(reorder_lws_pre()))
  var incoming: MessageAssembler
  var pendingClose: (code: UInt16, reason: String)?
  var receivedClose: (code: UInt16?, reason: String)?
  var finished = false

  init(
    id: UInt64, context: WebSocketClientContext, maxMessageBytes: Int,
    onEvent: @escaping @Sendable (ClientConnection, WebSocketEvent) -> Void
  ) {
    self.id = id
    self.context = context
    self.onEvent = onEvent
    incoming = MessageAssembler(maxBytes: maxMessageBytes)
  }

  /// Any thread: queues one text message (written when the socket is writable).
  public func send(_ text: String) {
    context.loop.post { [self] in
      enqueue(Array(text.utf8), kind: .text, isFirst: true, isFinal: true)
    }
  }

  /// Any thread: queues one binary message.
  public func send(binary bytes: [UInt8]) {
    context.loop.post { [self] in
      enqueue(bytes, kind: .binary, isFirst: true, isFinal: true)
    }
  }

  /// Any thread: sends ONE text message as `fragments.count` websocket frames (a test helper for
  /// reassembly). An empty array sends nothing.
  public func send(fragments: [String]) {
    context.loop.post { [self] in
      for (index, fragment) in fragments.enumerated() {
        enqueue(
          Array(fragment.utf8), kind: index == 0 ? .text : .continuation, isFirst: index == 0,
          isFinal: index == fragments.count - 1)
      }
    }
  }

  /// Any thread: flushes what is queued, then closes with `code` and `reason`.
  public func close(code: UInt16 = 1000, reason: String = "") {
    context.loop.post { [self] in
      guard !finished, pendingClose == nil else { return }
      pendingClose = (code, reason)
      if let wsi { lws_callback_on_writable(wsi) }
    }
  }

  /// Any thread: stops (false) or resumes (true) taking data from the socket, through lws rx flow
  /// control. While stopped the kernel buffers fill, so the server sees a client that does not
  /// read (TCP backpressure); what lws had already read is delivered after resuming.
  public func setReceiving(_ receiving: Bool) {
    context.loop.post { [self] in
      guard !finished, let wsi else { return }
      _ = lws_rx_flow_control(wsi, receiving ? 1 : 0)
    }
  }

  /// Service thread.
  private func enqueue(_ bytes: [UInt8], kind: OutgoingQueue.Kind, isFirst: Bool, isFinal: Bool) {
    guard !finished, pendingClose == nil else { return }
    _ = outgoing.enqueue(bytes, kind: kind, isFirst: isFirst, isFinal: isFinal)
    if let wsi { lws_callback_on_writable(wsi) }
  }

  /// Service thread: delivers the last event once.
  func finish(code: UInt16?, reason: String) {
    guard !finished else { return }
    finished = true
    wsi = nil
    outgoing.removeAll()
    onEvent(self, .closed(code: code, reason: reason))
  }
}

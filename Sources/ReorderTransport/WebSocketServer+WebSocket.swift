import CLibWebSockets
import Foundation
import ReorderBasics

extension WebSocketServer {
  /// `LWS_CALLBACK_ESTABLISHED`: register the connection and tell the handler (refused ones are
  /// closed at once).
  func websocketOpened(_ wsi: OpaquePointer) -> Int32 {
    let conn = ServerConnection(
      id: connections.nextID(), wsi: wsi, socket: lws_get_socket_fd(wsi), ownsSocket: lws_get_network_wsi(wsi) == wsi,
      maxMessageBytes: configuration.maxMessageBytes, maxQueueBytes: configuration.maxQueueBytes,
      slowReaderLimits: configuration.slowReaders)
    connections.insert(conn)
    keepalive.arm(context: loop.context) { [unowned self] in sweepKeepalive() }
    if let bytes = configuration.socketSendBufferBytes {
      var size = Int32(clamping: bytes)
      setsockopt(conn.socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    // The peer's window now is its empty buffer: what later windows are measured against.
    if conn.ownsSocket, configuration.slowReaders.isOn, let sample = SocketBacklog.read(socket: conn.socket) {
      conn.slowReader.opened(sample)
    }
    if windDown.isShuttingDown {
      conn.pendingClose = .init(code: CloseCode.goingAway, reason: "server shutting down")
      lws_callback_on_writable(wsi)
      return 0
    }
    switch admission(wsi) {
    case .refuse(let status, let reason):
      // Only a websocket over HTTP/2 is refused this late (HTTP/1.1 upgrades get an HTTP answer).
      Log.info("websocket refused", ["connection": conn.id.description, "reason": reason])
      counted.refused += 1
      conn.pendingClose = .init(code: CloseCode.policyViolation, reason: "\(status) \(reason)")
      lws_callback_on_writable(wsi)
    case .accept(let context):
      conn.announced = true
      counted.opened += 1
      adjustOpenCount(1)
      Log.debug("websocket opened", ["connection": conn.id.description])
      handler.connectionOpened(conn.id, context: context)
    }
    return 0
  }

  /// `LWS_CALLBACK_RECEIVE`: reassemble; deliver whole messages; close 1009 above the limit.
  func websocketReceived(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
    guard let conn = connections[wsi] else { return -1 }
    conn.heard = true
    let outcome = conn.incoming.append(
      chunk, isBinary: lws_frame_is_binary(wsi) != 0, isFinalFragment: lws_is_final_fragment(wsi) != 0,
      remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
    switch outcome {
    case .incomplete:
      return 0
    case .complete(let message, let isBinary):
      // Input after a close was decided (refusal, overflow, shutdown) is ignored.
      guard conn.pendingClose == nil, conn.announced else { return 0 }
      counted.messagesReceived += 1
      counted.bytesReceived += message.count
      handler.connectionReceived(conn.id, message: message, isBinary: isBinary)
      return 0
    case .tooLarge(let bytes):
      let reason = "message too large: \(bytes) bytes (limit \(configuration.maxMessageBytes))"
      Log.info("websocket closed", ["connection": conn.id.description, "reason": reason])
      setCloseReason(wsi, code: CloseCode.messageTooBig, reason: reason)
      return -1
    }
  }

  /// `LWS_CALLBACK_SERVER_WRITEABLE`: writes what is queued — one `lws_write` per callback, as lws
  /// asks (a write the kernel does not take whole is buffered by lws and finished before the next
  /// writeable callback) — and asks for another callback while more is queued; then the pending
  /// close, if any. When several whole messages are queued they go out framed back to back in that
  /// one write (`FrameCork`); otherwise the oldest frame alone. A connection whose queue backs up
  /// is not read from meanwhile (`resumeReadingIfDrained`).
  func websocketWritable(_ wsi: OpaquePointer) -> Int32 {
    guard let conn = connections[wsi] else { return -1 }
    if conn.pingDue && conn.pendingClose == nil {
      guard writePing(conn) else { return -1 }
      if !conn.outgoing.isEmpty { lws_callback_on_writable(wsi) }
      return 0
    }
    if !conn.outgoing.isEmpty {
      guard writes.writeQueued(conn) else { return -1 }
      writes.afterWrite(conn)
      return 0
    }
    if let close = conn.pendingClose {
      // Once: lws then sends the close frame and reads on until the peer acknowledges it (or a
      // timeout), so what the peer still sends is drained instead of answered with a reset. A
      // writeable callback after that must not end the handshake early.
      guard !conn.closeStarted else { return 0 }
      conn.closeStarted = true
      setCloseReason(wsi, code: close.code, reason: close.reason)
      return -1
    }
    return 0
  }

  /// `LWS_CALLBACK_CLOSED`: forget the connection and tell the handler.
  func websocketClosed(_ wsi: OpaquePointer) {
    guard let conn = connections.remove(wsi) else { return }
    conn.isClosed = true
    writes.discardQueue(conn)
    writes.slowReaders.forget(conn)
    if conn.announced {
      adjustOpenCount(-1)
      // The code the server sent, else the peer's, else 1006 (the connection was lost).
      counted.disconnects[conn.pendingClose?.code ?? conn.peerCloseCode ?? 1006, default: 0] += 1
      Log.debug("websocket closed", ["connection": conn.id.description])
      handler.connectionClosed(conn.id)
      flushSoonAfterClose()
    }
    if windDown.isShuttingDown && connections.isEmpty { loop.requestStop() }
  }
}

import CLibWebSockets
import Foundation
import ReorderBasics

extension WebSocketServer {
  /// `LWS_CALLBACK_ESTABLISHED`: register the connection and tell the handler (refused ones are
  /// closed at once).
  func websocketOpened(_ wsi: OpaquePointer) -> Int32 {
    nextConnectionID += 1
    let conn = ServerConnection(
      id: ConnectionID(rawValue: nextConnectionID), wsi: wsi,
      maxMessageBytes: configuration.maxMessageBytes, maxQueueBytes: configuration.maxQueueBytes)
    connections[wsi] = conn
    connectionsByID[conn.id] = conn
    if let bytes = configuration.socketSendBufferBytes {
      var size = Int32(clamping: bytes)
      setsockopt(conn.socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    if isShuttingDown {
      conn.pendingClose = .init(code: CloseCode.goingAway, reason: "server shutting down")
      lws_callback_on_writable(wsi)
      return 0
    }
    switch admission(wsi) {
    case .refuse(let status, let reason):
      // Only a websocket over HTTP/2 is refused this late (HTTP/1.1 upgrades get an HTTP answer).
      TransportLog.info("websocket refused", ["connection": conn.id.description, "reason": reason])
      conn.pendingClose = .init(code: CloseCode.policyViolation, reason: "\(status) \(reason)")
      lws_callback_on_writable(wsi)
    case .accept(let context):
      conn.announced = true
      adjustOpenCount(1)
      TransportLog.debug("websocket opened", ["connection": conn.id.description])
      handler.connectionOpened(conn.id, context: context)
    }
    return 0
  }

  /// `LWS_CALLBACK_RECEIVE`: reassemble; deliver whole messages; close 1009 above the limit.
  func websocketReceived(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
    guard let conn = connections[wsi] else { return -1 }
    let outcome = conn.incoming.append(
      chunk, isBinary: lws_frame_is_binary(wsi) != 0, isFinalFragment: lws_is_final_fragment(wsi) != 0,
      remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
    switch outcome {
    case .incomplete:
      return 0
    case .complete(let message, let isBinary):
      // Input after a close was decided (refusal, overflow, shutdown) is ignored.
      guard conn.pendingClose == nil, conn.announced else { return 0 }
      handler.connectionReceived(conn.id, message: message, isBinary: isBinary)
      return 0
    case .tooLarge(let bytes):
      let reason = "message too large: \(bytes) bytes (limit \(configuration.maxMessageBytes))"
      TransportLog.info("websocket closed", ["connection": conn.id.description, "reason": reason])
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
    if !conn.outgoing.isEmpty {
      guard writeQueued(conn) else { return -1 }
      afterWrite(conn)
      return 0
    }
    if let close = conn.pendingClose {
      setCloseReason(wsi, code: close.code, reason: close.reason)
      return -1
    }
    return 0
  }

  /// Writes the oldest queued frame, or — when several are queued — as many whole messages from the
  /// front of the queue as one corked write takes. False when lws failed the write.
  func writeQueued(_ conn: ServerConnection) -> Bool {
    if let cork, conn.outgoing.count > 1, conn.ownsSocket {
      cork.reset()
      while let next = conn.outgoing.peek(), next.isWhole, cork.fits(next.payloadCount) {
        _ = conn.outgoing.dequeue()
        cork.append(
          UnsafeRawBufferPointer(start: next.buffer.payload, count: next.payloadCount), binary: next.kind == .binary)
      }
      // Framed by the cork: lws sends (or buffers) the bytes as they are.
      if cork.frames > 0 {
        corkedWrites += 1
        corkedMessages += cork.frames
        return lws_write(conn.wsi, cork.bytes, cork.count, LWS_WRITE_HTTP) >= 0
      }
    }
    guard let frame = conn.outgoing.dequeue() else { return false }
    let flags = writeFlags(frame.kind, isFirst: frame.isFirst, isFinal: frame.isFinal)
    return lws_write(conn.wsi, frame.buffer.payload, frame.payloadCount, flags) >= 0
  }

  /// `LWS_CALLBACK_CLOSED`: forget the connection and tell the handler.
  func websocketClosed(_ wsi: OpaquePointer) {
    guard let conn = connections.removeValue(forKey: wsi) else { return }
    connectionsByID[conn.id] = nil
    conn.isClosed = true
    discardQueue(conn)
    if conn.announced {
      adjustOpenCount(-1)
      TransportLog.debug("websocket closed", ["connection": conn.id.description])
      handler.connectionClosed(conn.id)
      flushSoonAfterClose()
    }
    if isShuttingDown && connections.isEmpty { loop.requestStop() }
  }

  /// The queue of `conn` overflowed: drop it and cut the connection now (its socket is not being
  /// drained, so a graceful close could wait forever).
  func overflowed(_ conn: ServerConnection) {
    let reason = "outgoing queue overflow: client is not reading (limit \(configuration.maxQueueBytes) bytes)"
    TransportLog.warn("websocket cut off", ["connection": conn.id.description, "reason": reason])
    discardQueue(conn)
    conn.pendingClose = .init(code: CloseCode.policyViolation, reason: reason)
    setCloseReason(conn.wsi, code: CloseCode.policyViolation, reason: reason)
    lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }

  /// Drops whatever `conn` still had queued.
  func discardQueue(_ conn: ServerConnection) {
    if !conn.outgoing.isEmpty { nonEmptyQueues -= 1 }
    setBacklogged(conn, false)
    conn.outgoing.removeAll()
  }

  /// Stashes the close code and reason (≤ 123 bytes) for the close frame lws sends.
  func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
    var bytes = Array(reason.utf8.prefix(123))
    lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
  }
}

/// The lws write flags for one frame of a (possibly fragmented) message.
func writeFlags(_ kind: OutgoingQueue.Kind, isFirst: Bool, isFinal: Bool) -> lws_write_protocol {
  let initial = kind == .binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT
  return reorder_lws_write_flags(Int32(initial.rawValue), isFirst ? 1 : 0, isFinal ? 1 : 0)
}

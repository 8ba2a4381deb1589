import CLibWebSockets

extension WebSocketServer {
  /// Most bytes one `send()` carries (the protocol's `tx_packet_size`); a corked write fits in one.
  static let maxSendBytes = 64 * 1024

  /// Service thread, when a callback (or tick) that sent something ends: writes to each connection
  /// it sent to, now, instead of asking lws for a writeable callback and waiting for the next pass
  /// of the service loop. Everything a callback sent to one connection leaves in one write (it is
  /// corked); what does not fit, and connections whose last write lws is still finishing, are left
  /// to `LWS_CALLBACK_SERVER_WRITEABLE` as before. lws sends a write the kernel does not take
  /// whole later, in order (its output buffer), so writing outside the writeable callback is safe.
  func flushSends() {
    var index = 0
    while index < unflushed.count {
      let conn = unflushed[index]
      index += 1
      conn.awaitingFlush = false
      guard !conn.isClosed, !conn.outgoing.isEmpty else { continue }
      guard conn.pendingClose == nil, lws_partial_buffered(conn.wsi) == 0 else {
        lws_callback_on_writable(conn.wsi)
        continue
      }
      guard writeQueued(conn) else {
        // lws failed the socket (the peer reset it): refuse further sends and have lws close it
        // from the loop (we are not in its callback).
        TransportLog.info("websocket write failed", ["connection": conn.id.description])
        discardQueue(conn)
        conn.pendingClose = .init(code: 1011, reason: "write failed")
        lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        continue
      }
      afterWrite(conn)
    }
    unflushed.removeAll(keepingCapacity: unflushed.count <= 4096)
  }

  /// After a write to `conn`: queue bookkeeping, another writeable callback while anything (or the
  /// close) is left, reading resumed once drained.
  func afterWrite(_ conn: ServerConnection) {
    if conn.outgoing.isEmpty {
      nonEmptyQueues -= 1
      trimHeapIfDrained()
    }
    if !conn.outgoing.isEmpty || conn.pendingClose != nil { lws_callback_on_writable(conn.wsi) }
    resumeReadingIfDrained(conn)
  }
}

import CLibWebSockets
import ReorderBasics

extension WebSocketServer {
  /// Most bytes one `send()` carries (the protocol's `tx_packet_size`); a corked write fits in one.
  static let maxSendBytes = 64 * 1024

  /// Service thread, when a pass of the service loop ends (and after a tick): writes to each
  /// connection sent something during it, now, instead of asking lws for a writeable callback and
  /// waiting for the next pass. Everything the pass sent to one connection leaves in one write (it
  /// is corked): a join or leave storm (each join is broadcast to every member) or a burst of
  /// commits costs one send per member per pass, not one per event. What does not fit, and
  /// connections whose last write lws is still finishing, are left to
  /// `LWS_CALLBACK_SERVER_WRITEABLE` as before. lws sends a write the kernel does not take whole
  /// later, in order (its output buffer), so writing outside the writeable callback is safe.
  func flushSends() {
    if let parallelSender, unflushed.count >= Self.parallelMinimum { flushInParallel(parallelSender) }
    var index = 0
    while index < unflushed.count {
      let conn = unflushed[index]
      index += 1
      conn.awaitingFlush = false
      guard !conn.isClosed, !conn.outgoing.isEmpty else { continue }
      guard conn.pendingClose == nil, lws_partial_buffered(conn.wsi) == 0 else {
        setBacklogged(conn, true)
        lws_callback_on_writable(conn.wsi)
        continue
      }
      guard writeQueued(conn) else {
        writeFailed(conn)
        continue
      }
      afterWrite(conn)
    }
    unflushed.removeAll(keepingCapacity: unflushed.count <= 4096)
  }

  /// After a write to `conn`: queue bookkeeping, another writeable callback while anything (or the
  /// close) is left, reading resumed once drained.
  func afterWrite(_ conn: ServerConnection) {
    setBacklogged(conn, !conn.outgoing.isEmpty)
    if conn.outgoing.isEmpty {
      nonEmptyQueues -= 1
      trimHeapIfDrained()
    }
    if !conn.outgoing.isEmpty || conn.pendingClose != nil { lws_callback_on_writable(conn.wsi) }
    resumeReadingIfDrained(conn)
  }

  /// Marks `conn` as waiting for its socket (or not), keeping `backloggedQueues`.
  func setBacklogged(_ conn: ServerConnection, _ value: Bool) {
    guard conn.backlogged != value else { return }
    conn.backlogged = value
    backloggedQueues += value ? 1 : -1
  }

  /// After a close told the others (`handler.connectionClosed`): lws closes connections from its
  /// timers too (idle and kill timeouts), which run before the service loop waits, so the end of
  /// that pass could be far off. A timer due at once flushes what the close sent: in the same round
  /// of timers when that is where the close came from, else (already flushed at the end of the
  /// pass) as a no-op at the next one. One timer for any number of closes.
  func flushSoonAfterClose() {
    guard !unflushed.isEmpty, let context = loop.context else { return }
    let timer =
      closeFlushTimer
      ?? LWSTimer { [unowned self] in
        if !unflushed.isEmpty { flushSends() }
      }
    closeFlushTimer = timer
    if !timer.firesWithin(microseconds: 0) { timer.schedule(on: context, afterMicroseconds: 0) }
  }

  /// Fan-outs to at least this many connections in one pass are shared with `ParallelSender`.
  static let parallelMinimum = 32

  /// The connections of `unflushed` with exactly one whole message queued (a broadcast's usual
  /// case: one shared buffer) are written in parallel: the websocket header goes into the buffer's
  /// headroom, and the framed bytes are `send()` directly, half of them by the helper thread. What
  /// a socket did not take goes to lws as raw bytes (it sends or buffers the rest, in order). The
  /// others are left to the sequential loop of `flushSends`.
  private func flushInParallel(_ sender: ParallelSender) {
    var picked: [ServerConnection] = []
    var jobs: [ParallelSender.Job] = []
    picked.reserveCapacity(unflushed.count)
    jobs.reserveCapacity(unflushed.count)
    for conn in unflushed {
      guard !conn.isClosed, conn.pendingClose == nil, conn.outgoing.count == 1, let frame = conn.outgoing.peek(),
        frame.isWhole, conn.ownsSocket, lws_partial_buffered(conn.wsi) == 0
      else { continue }
      let header = FrameCork.headerCount(frame.payloadCount)
      let start = frame.buffer.payload - header
      FrameCork.writeHeader(start, payloadCount: frame.payloadCount, binary: frame.kind == .binary)
      jobs.append(.init(fd: conn.socket, bytes: start, count: header + frame.payloadCount))
      picked.append(conn)
    }
    guard picked.count >= Self.parallelMinimum else { return }
    parallelFanouts += 1
    jobs.withUnsafeMutableBufferPointer { sender.run($0) }
    for (conn, job) in zip(picked, jobs) {
      conn.awaitingFlush = false
      guard let frame = conn.outgoing.dequeue() else { continue }
      var ok = job.sent >= 0
      if ok && job.sent < job.count {
        let rest = UnsafeMutablePointer(mutating: job.bytes.assumingMemoryBound(to: UInt8.self)) + job.sent
        ok = lws_write(conn.wsi, rest, job.count - job.sent, LWS_WRITE_HTTP) >= 0
      }
      withExtendedLifetime(frame) {}
      guard ok else {
        writeFailed(conn)
        continue
      }
      afterWrite(conn)
    }
  }

  /// A write to `conn` failed (the peer reset it): refuse further sends and have lws close it from
  /// the loop (we are not in its callback).
  func writeFailed(_ conn: ServerConnection) {
    TransportLog.info("websocket write failed", ["connection": conn.id.description])
    discardQueue(conn)
    conn.pendingClose = .init(code: CloseCode.internalError, reason: "write failed")
    lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }
}

import CLibWebSockets
import ReorderBasics

/// The write path of the server: what each connection is sent is queued (bounded), and when a pass
/// of the service loop ends (and after a tick) each connection sent something during it is
/// written to at once, everything the pass sent it in one corked write. Service thread only.
///
/// Sends do not wait for lws' writeable callback (one more pass per fan-out): lws sends a write the
/// kernel does not take whole later, in order (its output buffer), so writing outside the callback
/// is safe. What does not fit in one write, connections whose last write lws is still finishing,
/// and pending closes go through `LWS_CALLBACK_SERVER_WRITEABLE`, one `lws_write` per callback.
/// A connection whose queue holds frames a write was already attempted for is *backlogged*: it
/// waits for its socket, and counts as busy for presence (`ServerConnection.isBusy`); so does a
/// connection whose reader has not read what the kernel already took (`WriteScheduler+SlowReaders`).
final class WriteScheduler {
  /// Most bytes one `send()` carries (the protocol's `tx_packet_size`); a corked write fits in one.
  static let maxSendBytes = 64 * 1024
  /// Fan-outs to at least this many connections in one pass are shared with `ParallelSender`.
  static let parallelMinimum = 32

  /// Frames several queued messages into one write (nil: one message per write).
  let cork: FrameCork?
  /// Takes half of a large fan-out (nil with TLS or when turned off).
  let parallelSender: ParallelSender?
  /// Gives the heap back after a drained burst.
  let trimmer: HeapTrimmer
  /// Watches, gates and closes connections that do not read what they are sent.
  let slowReaders: SlowReaderSweep
  /// The lws context (nil before it exists or after it is gone).
  let context: () -> OpaquePointer?
  /// Connections sent something during the current pass, in the order first sent to.
  private(set) var unflushed: [ServerConnection] = []
  /// Connections with frames queued (kept on every empty ↔ non-empty change of a queue).
  private(set) var nonEmptyQueues = 0
  /// Connections waiting for their socket.
  private(set) var backloggedQueues = 0
  /// Counters for `TransportStatistics`.
  var framesSent = 0
  var bytesSent = 0
  var presenceDropped = 0
  var overflowCloses = 0
  var failedWrites = 0
  var corkedWrites = 0
  var corkedMessages = 0
  var parallelFanouts = 0

  init(
    cork: FrameCork?, parallelSender: ParallelSender?, slowReaders: SlowReaderSweep,
    context: @escaping () -> OpaquePointer?
  ) {
    self.cork = cork
    self.parallelSender = parallelSender
    self.slowReaders = slowReaders
    self.context = context
    var drained: () -> Bool = { true }
    trimmer = HeapTrimmer(allDrained: { drained() }, context: context)
    drained = { [unowned self] in nonEmptyQueues == 0 }
    slowReaders.onSweep { [unowned self] in sweepSlowReaders() }
  }

  /// Acts on an enqueue result: schedules the connection for the end of this pass, pauses reading
  /// from it when backlogged, or cuts it when its queue overflowed. True when the frame was taken
  /// (a dropped presence frame counts as taken). `frames`: how many frames the message was queued
  /// as (fragments, `OutgoingQueue.enqueue(fragmenting:)`).
  func admit(_ result: OutgoingQueue.EnqueueResult, _ conn: ServerConnection, bytes: Int, frames: Int = 1) -> Bool {
    switch result {
    case .queued:
      if conn.outgoing.count == frames { nonEmptyQueues += 1 }
      framesSent += frames
      bytesSent += bytes
      trimmer.queued(bytes: bytes)
      if !conn.awaitingFlush {
        conn.awaitingFlush = true
        unflushed.append(conn)
      }
      pauseReadingIfBacklogged(conn)
      slowReaderQueued(conn, bytes: bytes)
      return true
    case .dropped:
      presenceDropped += 1
      return true
    case .overflow:
      overflowed(conn)
      return false
    }
  }

  /// Writes to every connection sent something during this pass (see the type's note).
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

  /// Whether anything waits for the end of this pass.
  var hasUnflushed: Bool { !unflushed.isEmpty }

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

  /// After a write to `conn`: queue bookkeeping, another writeable callback while anything (or the
  /// close) is left, reading resumed once drained.
  func afterWrite(_ conn: ServerConnection) {
    setBacklogged(conn, !conn.outgoing.isEmpty)
    if conn.outgoing.isEmpty {
      nonEmptyQueues -= 1
      trimmer.drained()
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

  /// Drops whatever `conn` still had queued.
  func discardQueue(_ conn: ServerConnection) {
    if !conn.outgoing.isEmpty { nonEmptyQueues -= 1 }
    setBacklogged(conn, false)
    conn.outgoing.removeAll()
  }

  /// The queue of `conn` overflowed: drop it and cut the connection now (its socket is not being
  /// drained, so a graceful close could wait forever).
  func overflowed(_ conn: ServerConnection) {
    let reason = "outgoing queue overflow: client is not reading (limit \(conn.outgoing.limitBytes) bytes)"
    Log.warn("websocket cut off", ["connection": conn.id.description, "reason": reason])
    overflowCloses += 1
    discardQueue(conn)
    conn.pendingClose = .init(code: CloseCode.policyViolation, reason: reason)
    setCloseReason(conn.wsi, code: CloseCode.policyViolation, reason: reason)
    lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }

  /// A write to `conn` failed (the peer reset it): refuse further sends and have lws close it from
  /// the loop (we are not in its callback).
  func writeFailed(_ conn: ServerConnection) {
    Log.info("websocket write failed", ["connection": conn.id.description])
    failedWrites += 1
    discardQueue(conn)
    conn.pendingClose = .init(code: CloseCode.internalError, reason: "write failed")
    lws_set_timeout(conn.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }

  /// Backpressure: once a connection has more than a quarter of its queue limit queued, the server
  /// stops reading from it (lws rx flow control) until its queue is down to a sixteenth. A client
  /// that sends faster than it reads what its messages cause (acks, broadcasts) is slowed by TCP
  /// instead of growing the queue until it overflows and is closed; a client that does not read at
  /// all still overflows (others' broadcasts keep coming).
  func pauseReadingIfBacklogged(_ conn: ServerConnection) {
    guard !conn.readingPaused, conn.pendingClose == nil, conn.outgoing.bytes > conn.outgoing.limitBytes / 4 else {
      return
    }
    conn.readingPaused = true
    _ = lws_rx_flow_control(conn.wsi, Int32(LWS_RXFLOW_REASON_FLAG_PROCESS_NOW))
  }

  /// Resumes reading from a paused connection whose queue has drained.
  func resumeReadingIfDrained(_ conn: ServerConnection) {
    guard conn.outgoing.bytes <= conn.outgoing.limitBytes / 16 else { return }
    resumeReading(conn)
  }

  /// Resumes reading from a paused connection.
  func resumeReading(_ conn: ServerConnection) {
    guard conn.readingPaused else { return }
    conn.readingPaused = false
    _ = lws_rx_flow_control(conn.wsi, 1 | Int32(LWS_RXFLOW_REASON_FLAG_PROCESS_NOW))
  }
}

/// Stashes the close code and reason (≤ 123 bytes) for the close frame lws sends.
func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
  var bytes = Array(reason.utf8.prefix(123))
  lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
}

/// The lws write flags for one frame of a (possibly fragmented) message.
func writeFlags(_ kind: OutgoingQueue.Kind, isFirst: Bool, isFinal: Bool) -> lws_write_protocol {
  let initial = kind == .binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT
  return reorder_lws_write_flags(Int32(initial.rawValue), isFirst ? 1 : 0, isFinal ? 1 : 0)
}

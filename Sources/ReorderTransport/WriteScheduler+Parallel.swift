import CLibWebSockets

extension WriteScheduler {
  /// The connections of `unflushed` with exactly one whole message queued (a broadcast's usual
  /// case: one shared buffer) are written in parallel: the websocket header goes into the buffer's
  /// headroom, and the framed bytes are `send()` directly, half of them by the helper thread. What
  /// a socket did not take goes to lws as raw bytes (it sends or buffers the rest, in order). The
  /// others are left to the sequential loop of `flushSends`.
  func flushInParallel(_ sender: ParallelSender) {
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
}

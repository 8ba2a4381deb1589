import ReorderBasics

/// Slow readers (`--slow-readers`): each reads its socket at most at the configured byte rate,
/// by stopping to read (lws rx flow control) while it is ahead of its budget, so the kernel
/// buffers fill and the server sees a client that does not keep up. Service thread only.
extension LoadShard {
  /// Starts every slow reader's budget at the traffic's start.
  func startThrottles(at origin: Int64) {
    for client in clients.values where client.throttle != nil {
      client.throttle?.start = origin
    }
  }

  /// Accounts a message of `payload` bytes read by slow reader `client`; stops its reading when
  /// it is ahead of its rate.
  func throttle(_ client: LoadClient, payload: Int, at arrival: Int64) {
    guard client.throttle?.read(payload: payload, at: arrival) == true else { return }
    measurements.slow.pauses += 1
    pausedReaders.insert(client.index)
    client.connection?.setReceiving(false)
  }

  /// Lets every paused slow reader that is back within its budget read again.
  func resumeSlowReaders() {
    guard !pausedReaders.isEmpty else { return }
    let now = MonotonicClock.microseconds()
    for index in pausedReaders {
      guard let client = clients[index] else { continue }
      if client.phase == .closed {
        pausedReaders.remove(index)
      } else if client.throttle?.resume(at: now) == true {
        pausedReaders.remove(index)
        client.connection?.setReceiving(true)
      }
    }
  }

  /// Accounts the drag updates of one frame read by a slow reader: their number and age.
  func receiveSlow(_ scanner: FrameScanner, client: LoadClient, arrival: Int64) {
    guard measurements.origin.map({ arrival >= $0 }) == true else { return }
    measurements.slow.dragFrames += 1
    scanner.forEachDragStamp { stamp in
      measurements.slow.dragUpdates += 1
      measurements.slow.dragAge.record(microseconds: arrival - stamp.sent)
    }
  }
}

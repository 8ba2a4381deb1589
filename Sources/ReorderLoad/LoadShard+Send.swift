import ReorderBasics

/// The send path and the periodic work the driver posts to a shard.
extension LoadShard {
  /// Phases of a drag, as sent.
  enum DragPhase: String { case start, move, end }

  /// Service thread: sends the next update of `client`'s drag (registering the drag on start).
  func sendDrag(_ phase: DragPhase, client index: Int, board: RoomBoard) {
    guard let client = clients[index], client.phase == .ready, let connection = client.connection else { return }
    if phase == .start {
      guard client.drag == nil, !board.items.isEmpty else { return }
      let position = index / max(1, configuration.rooms)
      client.dragItem = board.items[position % board.items.count]
      client.dragList = board.list
      client.dragSeq = 0
      client.drag = sentLog.withLock { $0.addDrag(room: client.room, owner: index) }
    }
    guard let drag = client.drag else { return }
    if phase != .start && client.dragSeq == 0 { return }
    let seq = client.dragSeq
    client.dragSeq += 1
    let now = MonotonicClock.microseconds()
    _ = sentLog.withLock { $0.recordSend(drag: drag, seq: seq, time: now, isEnd: phase == .end) }
    let stamp = DragStamp(drag: drag, seq: seq, sent: now).text
    let slot = Int(seq) % max(1, board.items.count)
    let x = Double(Int(seq) % 100) / 100
    var frame =
      #"{"type":"drag","phase":"\#(phase.rawValue)","item":"\#(client.dragItem)","list":"\#(client.dragList)","#
      + #""over":"\#(board.items.isEmpty ? client.dragItem : board.items[slot])","index":\#(slot),"#
      + #""x":\#(x),"y":0.5,"t":"\#(stamp)""#
    if isMirror && frame.utf8.count < configuration.mirrorMessageBytes {
      frame += #","pad":""# + String(repeating: "x", count: configuration.mirrorMessageBytes - frame.utf8.count) + "\""
    }
    frame += "}"
    connection.send(frame)
    measurements.counters.dragUpdatesSent += 1
    ThroughputSeries.bump(&measurements.series.dragUpdatesSent, measurements.second(of: now))
  }

  /// Service thread: sends one committed move of a random item of the room's list.
  func sendMove(client index: Int, board: RoomBoard) {
    guard let client = clients[index], client.phase == .ready, let connection = client.connection,
      board.items.count >= 1
    else { return }
    let item = board.items[Int(random.next() % UInt64(board.items.count))]
    let anchorIndex = Int(random.next() % UInt64(board.items.count + 1))
    let anchor = anchorIndex < board.items.count && board.items[anchorIndex] != item ? board.items[anchorIndex] : nil
    client.movesSent += 1
    let now = MonotonicClock.microseconds()
    let id = MoveStamp(client: index, number: client.movesSent, sent: now).text
    let after = anchor.map { #","after":"\#($0)""# } ?? ""
    connection.send(
      #"{"type":"op","id":"\#(id)","op":{"kind":"move","item":"\#(item)","list":"\#(board.list)"\#(after)}}"#)
    measurements.counters.movesSent += 1
    ThroughputSeries.bump(&measurements.series.movesSent, measurements.second(of: now))
  }

  /// Service thread: samples staleness at up to `limit` receivers, rotating through them.
  func sampleStaleness(limit: Int) {
    let now = MonotonicClock.microseconds()
    let ordered = clients.values.lazy.filter(\.measured).map(\.index).sorted()
    guard !ordered.isEmpty else { return }
    let count = min(limit, ordered.count)
    sentLog.withLock { log in
      for step in 0..<count {
        let client = clients[ordered[(stalenessCursor + step) % ordered.count]]!
        guard client.phase == .ready else { continue }
        measurements.sampleStaleness(
          receiver: client.index, room: client.room, state: client.receiver, now: now, log: log)
      }
    }
    stalenessCursor = (stalenessCursor + count) % ordered.count
  }

  /// Service thread: final accounting, then closes every connection and publishes the result.
  func finish() {
    closing = true
    sentLog.withLock { log in
      for client in clients.values where client.phase != .idle && client.measured {
        measurements.finish(receiver: client.index, room: client.room, state: client.receiver, log: log)
      }
    }
    for client in clients.values where client.phase == .ready || client.phase == .connecting {
      client.connection?.close(code: 1000, reason: "load run done")
    }
    let final = measurements
    result.withLock { $0 = final }
  }
}

/// A small seeded generator (SplitMix64), so runs pick the same items for the same seed.
struct SplitMix64 {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

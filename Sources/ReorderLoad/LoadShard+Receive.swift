import ReorderBasics

/// The receive path: one text frame of one client, scanned cheaply.
extension LoadShard {
  /// Kinds of server frames the tool reacts to.
  enum FrameType {
    case drags, applied, welcome, rejected, error, peer, other
  }

  /// Service thread: accounts one text message received by `client`.
  func receive(_ text: String, for client: LoadClient) {
    let arrival = MonotonicClock.microseconds()
    var text = text
    var type = FrameType.other
    var appliedID: String?
    var appliedSeq: Int64?
    text.withUTF8 { bytes in
      measurements.counters.bytesReceived += bytes.count
      if client.throttle != nil {
        if measurements.origin != nil { measurements.slow.bytes += bytes.count }
        throttle(client, payload: bytes.count, at: arrival)
      }
      let scanner = FrameScanner(bytes: bytes)
      if isMirror {
        measurements.counters.dragFrames += 1
        ThroughputSeries.bump(&measurements.series.dragFrames, measurements.second(of: arrival))
        receiveStamps(scanner, client: client, arrival: arrival)
        return
      }
      type = Self.frameType(scanner)
      switch type {
      case .drags:
        measurements.counters.dragFrames += 1
        ThroughputSeries.bump(&measurements.series.dragFrames, measurements.second(of: arrival))
        if client.throttle != nil {
          receiveSlow(scanner, client: client, arrival: arrival)
        } else {
          receiveStamps(scanner, client: client, arrival: arrival)
        }
      case .applied:
        appliedID = scanner.string("id")
        appliedSeq = scanner.integer("seq")
      case .welcome:
        appliedSeq = scanner.integer("seq")
      case .rejected:
        measurements.counters.rejected += 1
        ThroughputSeries.bump(&measurements.series.errors, measurements.second(of: arrival))
      case .error:
        measurements.counters.errors += 1
        ThroughputSeries.bump(&measurements.series.errors, measurements.second(of: arrival))
      case .peer:
        measurements.counters.peerFrames += 1
      case .other:
        break
      }
    }
    switch type {
    case .applied:
      measurements.applied(
        id: appliedID, seq: appliedSeq, receiver: client.index, state: &client.receiver, arrival: arrival)
      if let seeder = client.seeder, appliedID?.hasPrefix("seed") == true {
        afterSeeding(client, frames: seeder.received(type: "applied", text: text), seeder: seeder)
      }
    case .rejected:
      if let seeder = client.seeder {
        afterSeeding(client, frames: seeder.received(type: "rejected", text: text), seeder: seeder)
      }
    case .welcome:
      if let appliedSeq { client.receiver.lastAppliedSeq = appliedSeq }
      becomeReady(client)
      if let seeder = client.seeder {
        afterSeeding(client, frames: seeder.welcome(text), seeder: seeder)
      }
    default:
      break
    }
  }

  private func receiveStamps(_ scanner: FrameScanner, client: LoadClient, arrival: Int64) {
    guard client.measured else { return }
    measurements.frameArrived(state: &client.receiver, arrival: arrival)
    sentLog.withLock { log in
      scanner.forEachDragStamp { stamp in
        measurements.receive(stamp, receiver: client.index, state: &client.receiver, arrival: arrival, log: log)
      }
    }
  }

  private func afterSeeding(_ client: LoadClient, frames: [String], seeder: RoomSeeder) {
    for frame in frames { client.connection?.send(frame) }
    if let board = seeder.board, boards[seeder.room] == nil {
      boards[seeder.room] = board
      publishSeedProgress()
    } else if let failure = seeder.failure {
      seedingFailures.append("room \(seeder.room): \(failure)")
      client.seeder = nil
      publishSeedProgress()
    } else if seeder.opsApplied % 1_000 == 0 {
      publishSeedProgress()
    }
  }

  /// Publishes, with the seeding ops applied over this shard's seeders (progress, result).
  private func publishSeedProgress() {
    seedOpsApplied = clients.values.reduce(0) { $0 + ($1.seeder?.opsApplied ?? 0) }
    publishConnectionCounts()
  }

  static func frameType(_ scanner: FrameScanner) -> FrameType {
    guard let position = scanner.valueStart(of: "type"), let range = scanner.stringRange(at: position) else {
      return .other
    }
    let word = UnsafeBufferPointer(rebasing: scanner.bytes[range])
    switch word.count {
    case 4 where word.elementsEqual("peer".utf8): return .peer
    case 5 where word.elementsEqual("peers".utf8): return .peer
    case 5 where word.elementsEqual("drags".utf8): return .drags
    case 5 where word.elementsEqual("error".utf8): return .error
    case 7 where word.elementsEqual("applied".utf8): return .applied
    case 7 where word.elementsEqual("welcome".utf8): return .welcome
    case 8 where word.elementsEqual("rejected".utf8): return .rejected
    default: return .other
    }
  }
}

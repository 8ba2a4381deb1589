import ReorderRooms
import ReorderTransport

extension ServerConfiguration {
  /// The transport part.
  var transportConfiguration: TransportConfiguration {
    var t = TransportConfiguration()
    t.host = host
    t.port = port
    t.webRoot = webRoot.map { $0.isEmpty ? nil : $0 } ?? WebRoot.installed()
    t.maxMessageBytes = maxMessageBytes
    t.maxQueueBytes = maxQueueBytes
    t.slowReaders.gateBytes = slowReaderBytes
    t.slowReaders.closeSeconds = Double(slowReaderSeconds)
    t.tlsCertificatePath = tlsCertificatePath
    t.tlsPrivateKeyPath = tlsPrivateKeyPath
    t.pingIntervalSeconds = pingIntervalSeconds
    t.idleTimeoutSeconds = idleTimeoutSeconds
    t.eventLoop = TransportConfiguration.EventLoop(rawValue: eventLoop) ?? t.eventLoop
    return t
  }

  /// How fast rooms flush drag presence.
  var presencePacing: PresencePacing {
    PresencePacing(minHz: Double(presenceHz), maxHz: Double(presenceMaxHz), framesPerSecond: Double(presenceBudget))
  }

  /// Ops the store keeps before each room's latest snapshot: the catch-up window and the
  /// idempotency window (re-sent op ids are recognised that far back), whichever is longer.
  var retainedOps: Int { max(historyOps, RoomLimits().rememberedOpIDs) }

  /// The rooms part.
  var roomLimits: RoomLimits {
    var l = RoomLimits()
    l.maxOpsPerSecond = max(1, maxOpsPerSecond)
    l.maxBroadcastsPerSecond = max(1, maxBroadcastsPerSecond)
    l.maxItemsPerRoom = maxItemsPerRoom
    l.maxListsPerRoom = maxListsPerRoom
    l.maxRooms = maxRooms
    l.maxConnectionsPerRoom = maxConnectionsPerRoom
    l.roomIdleSeconds = Double(roomIdleSeconds)
    l.snapshotEvery = max(1, snapshotEvery)
    l.maxCatchUpOps = historyOps
    return l
  }
}

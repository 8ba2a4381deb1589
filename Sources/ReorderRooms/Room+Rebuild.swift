/// A full disk: the ops that were not stored are refused, and the room is rebuilt from what is
/// stored while its members stay connected.
///
/// When a write of the room fails because the disk is full (`RoomStoreError.full`), the store
/// stores none of the room's later writes until it is reopened (`RoomStore`'s rule), so every op
/// still pending (`durableSeq+1 … seq`) is lost, and nobody saw it: `applied` goes out only once
/// durable. Those ops are rejected `storage_full` to their senders, and the registry loads the
/// room again (`.load`, which the driver precedes with the store's `reopen`): the rebuilt board
/// is the stored one, which is exactly what every welcomed member was sent.
///
/// Until the rebuilt room replaces this one, this one keeps its members, presence and catch-up
/// window, and:
/// - refuses every new op at once with `storage_full` (bounded work per op; a re-send of an op
///   that is durable is still acknowledged);
/// - lets joins wait for their welcome, as they would for durability (`durability` is not empty),
///   and welcomes them from the rebuilt room;
/// - takes no snapshot (its board is ahead of the disk) and is not unloaded.
///
/// After the rebuild the room takes ops again; if the disk is still full, the next failed write
/// refuses its ops and rebuilds the room the same way.
extension Room {
  /// What every op refused by a full disk is told.
  static let storageFullError = ProtocolError(
    .storageFull, "the server's disk is full, so the op was not stored; send it again once space is freed")

  /// A write of the room was refused for a full disk: every op not stored is rejected
  /// `storage_full` to the members of the client that sent it (the sender, or its reconnection
  /// that re-sent the same id) and forgotten; the room starts rebuilding.
  /// - Complexity: O(remembered op ids + members + lost ops).
  mutating func beginRebuild() -> [RoomAction] {
    rebuilding = true
    // Nothing of this board may be snapshotted: its ops after `durableSeq` are not stored.
    snapshots.forgetOps()
    let lost = opIDs.forget(after: durableSeq)
    var byClient: [String: [ConnectionHandle]] = [:]
    for member in members.values { byClient[member.client, default: []].append(member.connection) }
    var actions: [RoomAction] = []
    for (key, _) in lost {
      counters.opsRejected[ErrorCode.storageFull.rawValue, default: 0] += 1
      guard let separator = key.firstIndex(of: "\u{1F}") else { continue }
      let id = String(key[key.index(after: separator)...])
      let frame = ServerMessage.rejected(id: id, error: Room.storageFullError)
      for connection in (byClient[String(key[..<separator])] ?? []).sorted() {
        actions.append(.send(connection, frame, .data))
      }
    }
    return actions
  }

  /// An op that arrived while the room rebuilds: refused at once.
  mutating func refuseWhileRebuilding(_ id: String, to connection: ConnectionHandle) -> [RoomAction] {
    counters.opsRejected[ErrorCode.storageFull.rawValue, default: 0] += 1
    return [.send(connection, ServerMessage.rejected(id: id, error: Room.storageFullError), .data)]
  }

  /// This room, just loaded from storage, replaces `old`, which was rebuilding: it takes over its
  /// members, presence and counts. A welcomed member keeps its stream when this room's history
  /// goes on from what it was sent (same epoch, this room's seq is `old`'s durable one): the next
  /// op it gets is `applied` at seq + 1. Members still waiting for their welcome get it now,
  /// from this board. Should the stored history differ (it cannot, unless the store lost what it
  /// acknowledged), everyone is welcomed again with the full board.
  mutating func adoptMembers(rebuilding old: Room) -> [RoomAction] {
    let continuous = seq == old.durableSeq && epoch == old.epoch
    roster = old.roster
    presence = old.presence
    counters = old.counters
    idleSince = old.idleSince
    var waiting: [ConnectionHandle] = []
    for (connection, var member) in old.members {
      if member.welcomedAt == nil || !continuous {
        member.welcomedAt = nil
        member.joinSeq = seq
        member.capturedBoard = nil
        if continuous {
          member.acksAfterWelcome.removeAll { $0 > seq }
        } else {
          member.since = nil
          member.epoch = nil
          member.acksAfterWelcome = []
        }
        waiting.append(connection)
      }
      members[connection] = member
    }
    var actions: [RoomAction] = []
    for connection in waiting.sorted() { actions.append(contentsOf: sendWelcome(connection)) }
    return actions
  }
}

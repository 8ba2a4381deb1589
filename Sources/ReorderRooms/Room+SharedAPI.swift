/// One `POST /api/v1/boards/{room}/ops` request in cluster mode, as its room runs it.
///
/// Invariants: `results.count <= ops.count`; `ticket` and `seq` concern the op at
/// `results.count`, and at most one of them is set.
struct SharedAPIJob: Sendable {
  /// The driver's id of the request (`ClusterAction.apiDone`).
  var request: UInt64
  var ops: [(id: String, intent: Result<Intent, ProtocolError>)]
  /// When the request arrived (ms since 1970, UTC): the time its ops' records keep.
  var at: Int64
  var results: [APIOpResult] = []
  /// The append out for the next op.
  var ticket: UInt64?
  /// The next op's seq in the log, once known: its result waits until the room has applied it.
  var seq: UInt64?
  /// The next op was refused `stale`: it is made again once the room has applied this seq.
  var remakeAfter: UInt64 = 0
  /// Why the request ends without results (an op the log did not take: 503, as on one node).
  var failure: String?
}

/// The HTTP API's ops in cluster mode: each op of a request is made on this replica and appended
/// to the shared log like a member's op (as client `api`, `by: "api"`), and its result is the
/// resolved op once the room has applied the log up to its seq.
///
/// The ops of a request, and the requests of a room, run one at a time, in order: each op is made
/// on the board with every op before it applied, as on one node (an op made before the one it
/// depends on is in the log would be validated without it: a move after an item the request just
/// inserted would be `unknown_item`). A re-sent id is found in the room's op ids, or, when another
/// node took it, by the log (`known`): the same seq, applied once.
extension Room {
  /// Records the log's answer for the API op in flight under `ticket`: its seq.
  mutating func apiAnswered(ticket: UInt64, seq at: UInt64) {
    guard shared?.apiJobs.first?.ticket == ticket else { return }
    shared!.apiJobs[0].ticket = nil
    shared!.apiJobs[0].seq = at
  }

  /// The API op in flight under `ticket` was refused `stale`: it is made again from its intent once
  /// the room has applied `boundary`.
  mutating func apiStale(ticket: UInt64, after boundary: UInt64) {
    guard shared?.apiJobs.first?.ticket == ticket else { return }
    shared!.apiJobs[0].ticket = nil
    shared!.apiJobs[0].remakeAfter = boundary
  }

  /// The API op in flight under `ticket` was not appended (the log unreachable, or the board being
  /// replaced): the request ends with `error` (503), as a request whose ops were not stored does on
  /// one node; the ops before it are applied, and a re-send of the request gets their results.
  mutating func apiRefused(ticket: UInt64, _ error: ProtocolError) {
    guard shared?.apiJobs.first?.ticket == ticket else { return }
    shared!.apiJobs[0].ticket = nil
    shared!.apiJobs[0].failure = error.message
  }

  /// Runs the API's ops as far as they can go now: results of ops the room has applied, the next
  /// op made and appended, requests whose ops are all answered handed back (`.apiDone`).
  /// `nextTicket` numbers the appends (the registry's).
  mutating func advanceAPI(nextTicket: inout UInt64) -> [RoomAction] {
    var actions: [RoomAction] = []
    while var job = shared?.apiJobs.first {
      if let failure = job.failure {
        actions.append(.cluster(.apiFailed(request: job.request, reason: failure)))
        shared!.apiJobs.removeFirst()
        continue
      }
      if let at = job.seq {
        guard at <= seq else { break }
        job.results.append(.applied(id: job.ops[job.results.count].id, seq: at, op: resolvedOp(seq: at)))
        job.seq = nil
      } else if job.ticket != nil || job.remakeAfter > seq {
        break
      } else if job.results.count == job.ops.count {
        actions.append(.cluster(.apiDone(request: job.request, results: job.results)))
        shared!.apiJobs.removeFirst()
        continue
      } else {
        let (id, intent) = job.ops[job.results.count]
        let key = OpRecord.key(client: Room.apiClient, id: id)
        if let known = opIDs[key] {
          counters.opsRepeated += 1
          job.seq = known
        } else if shared!.reloading != nil {
          job.failure = Room.replacingError.message
        } else {
          do throws(ProtocolError) {
            let intent = try intent.get()
            try checkLimits(intent)
            let record = try makeRecord(intent, id: id, client: Room.apiClient, by: "api", actor: .api, at: job.at)
            let ticket = nextTicket
            nextTicket += 1
            shared!.inFlight[ticket] = SharedRoom.InFlight(
              connections: [], request: id, key: key, record: record, api: true, creates: seq == 0,
              until: shared!.boundary(after: seq))
            job.ticket = ticket
            actions.append(.cluster(.append(sharedAppend(ticket: ticket))))
          } catch {
            counters.opsRejected[error.code.rawValue, default: 0] += 1
            job.results.append(.rejected(id: id, error: error))
          }
        }
      }
      shared!.apiJobs[0] = job
    }
    return actions
  }

  /// Ends every API request of the room without results (`.apiFailed` with `reason`).
  mutating func failAPI(reason: String) -> [RoomAction] {
    guard let jobs = shared?.apiJobs, !jobs.isEmpty else { return [] }
    shared!.apiJobs = []
    return jobs.map { .cluster(.apiFailed(request: $0.request, reason: reason)) }
  }
}

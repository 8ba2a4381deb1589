/// One `POST /api/v1/boards/{room}/ops` request, as its room runs it.
///
/// Invariants: `steps.count == ops.count`; `tickets` names exactly the steps that are `.out`.
struct APIOpsJob: Sendable {
  /// Where one op of the request is.
  enum Step: Sendable, Equatable {
    /// To be made (not yet, or again after the log refused it `stale`).
    case toMake
    /// Appended under this ticket; no answer yet.
    case out(UInt64)
    /// In the log at this seq: its result waits until the room has applied it.
    case at(UInt64)
    /// The same id as the op at this index of the request: its result (as one node answers an
    /// id sent again).
    case sameAs(Int)
    /// Its result.
    case done(APIOpResult)
  }

  /// The driver's id of the request (`RoomAction.apiDone`).
  var request: UInt64
  var ops: [(id: String, intent: Result<Intent, ProtocolError>)]
  /// When the request arrived (ms since 1970, UTC): the time its ops' records keep.
  var at: Int64
  var steps: [Step]
  /// The appends out, by ticket: the index of their op.
  var tickets: [UInt64: Int] = [:]
  /// Ops were refused `stale`: they are made again once the room has applied this seq.
  var remakeAfter: UInt64 = 0
  /// Why the request ends without results (an op the log did not take: 503, as on one node).
  var failure: String?

  init(request: UInt64, ops: [(id: String, intent: Result<Intent, ProtocolError>)], at: Int64) {
    self.request = request
    self.ops = ops
    self.at = at
    steps = Array(repeating: .toMake, count: ops.count)
  }

  /// The results, once every op has one.
  var results: [APIOpResult]? {
    var results: [APIOpResult] = []
    for step in steps {
      guard case .done(let result) = step else { return nil }
      results.append(result)
    }
    return results
  }

  /// Whether an op is in the log at a seq above `seq` (the room has not applied it yet).
  func waitsBeyond(_ seq: UInt64) -> Bool {
    steps.contains { if case .at(let at) = $0 { at > seq } else { false } }
  }
}

/// The HTTP API's ops: the ops of a request are made on this replica and appended to the log
/// together, pipelined, like members' ops (as client `api`, `by: "api"`); each op's result is the
/// resolved op once the room has applied the log up to its seq and it is durable.
///
/// Each op is made on a copy of the board with the request's ops before it applied (`makeSeries`),
/// so an op that names what an earlier op of the request makes is validated as on one node (a
/// move of the item the request just inserted is made, not `unknown_item`), and every node
/// resolves it after that op, in the log's order. The requests of a room run one at a time. A
/// re-sent id is found in the room's op ids, or, when another node took it, by the log (`known`):
/// the same seq, applied once. Ops the log refuses `stale` (a compaction boundary passed) are made
/// again, in order, once the room has applied the boundary; an op the log cannot take (Redis
/// unreachable) ends the request with 503 once none of its ops is out.
extension Room {
  /// Records the log's answer for the API op in flight under `ticket`: its seq.
  mutating func apiAnswered(ticket: UInt64, seq at: UInt64) {
    guard let index = log.apiJobs.first?.tickets[ticket] else { return }
    log.apiJobs[0].tickets[ticket] = nil
    log.apiJobs[0].steps[index] = .at(at)
  }

  /// The API op in flight under `ticket` was refused `stale`: it is made again from its intent once
  /// the room has applied `boundary` (with the request's ops after it, refused alike).
  mutating func apiStale(ticket: UInt64, after boundary: UInt64) {
    guard let index = log.apiJobs.first?.tickets[ticket] else { return }
    log.apiJobs[0].tickets[ticket] = nil
    log.apiJobs[0].steps[index] = .toMake
    log.apiJobs[0].remakeAfter = max(log.apiJobs[0].remakeAfter, boundary)
  }

  /// The API op in flight under `ticket` was not appended (the log unreachable, or the board being
  /// replaced): the request ends with `error` (503), as a request whose ops were not stored does on
  /// one node; its ops the log took are applied, and a re-send of the request gets their results.
  mutating func apiRefused(ticket: UInt64, _ error: ProtocolError) {
    guard let index = log.apiJobs.first?.tickets[ticket] else { return }
    log.apiJobs[0].tickets[ticket] = nil
    log.apiJobs[0].steps[index] = .toMake
    log.apiJobs[0].failure = log.apiJobs[0].failure ?? error.message
  }

  /// Runs the API's ops as far as they can go now: results of ops the room has applied, the ops to
  /// make made and appended, requests whose ops are all answered handed back (`.apiDone`).
  /// `nextTicket` numbers the appends (the registry's).
  mutating func advanceAPI(nextTicket: inout UInt64) -> [RoomAction] {
    var actions: [RoomAction] = []
    // Ops out are answered first (this is called after every answer: while some are out, it does
    // nothing), and ops made next are made on a board with every answered one applied.
    while log.apiJobs.first?.tickets.isEmpty == true {
      var job = log.apiJobs[0]
      for (index, step) in job.steps.enumerated() {
        // Answered once durable (the shared log's entries are durable when applied).
        guard case .at(let at) = step, at <= durableSeq else { continue }
        let op = log.apiResolved[at] ?? resolvedOp(seq: at)
        job.steps[index] = .done(.applied(id: job.ops[index].id, seq: at, op: op))
      }
      for (index, step) in job.steps.enumerated() {
        guard case .sameAs(let first) = step, case .done(let result) = job.steps[first] else { continue }
        job.steps[index] = .done(result)
      }
      // Every op applied so far has its result now: the resolved ops kept for them are done with.
      if !log.apiResolved.isEmpty { log.apiResolved.removeAll() }
      log.apiJobs[0] = job
      if let failure = job.failure {
        actions.append(.apiFailed(request: job.request, reason: failure))
        log.apiJobs.removeFirst()
        continue
      }
      if let results = job.results {
        actions.append(.apiDone(request: job.request, results: results))
        log.apiJobs.removeFirst()
        continue
      }
      // Ops all made: the request waits for them to be applied and durable.
      guard job.steps.contains(.toMake), !job.waitsBeyond(seq), job.remakeAfter <= seq else { break }
      if log.reloading != nil {
        log.apiJobs[0].failure = Room.replacingError.message
        continue
      }
      // A whole-board write is out: the ops wait for its answer (the board it stores ends them).
      if log.writingBoard { break }
      if rebuilding {
        // The disk is full: the ops still to make are refused as one node refuses them then.
        for index in job.steps.indices where job.steps[index] == .toMake {
          counters.opsRejected[ErrorCode.storageFull.rawValue, default: 0] += 1
          log.apiJobs[0].steps[index] = .done(.rejected(id: job.ops[index].id, error: Room.storageFullError))
        }
        continue
      }
      actions.append(contentsOf: makeSeries(nextTicket: &nextTicket))
    }
    if log.apiJobs.isEmpty == true { log.apiResolved = [:] }
    return actions
  }

  /// Makes the first request's ops still to make, in order, on a copy of the board with each made
  /// op applied to the copy, and appends them together. An op the room already knows takes its
  /// seq (the series stops there when the room has not applied it yet: later ops may name what it
  /// made); one that fails validation is `rejected`, changing nothing for the ops after it.
  private mutating func makeSeries(nextTicket: inout UInt64) -> [RoomAction] {
    var job = log.apiJobs[0]
    var actions: [RoomAction] = []
    var copy = board
    let last = job.steps.lastIndex(of: .toMake) ?? -1
    // Ids made in this series, by the index of their op: an id sent twice is made once.
    var made: [String: Int] = [:]
    for index in job.steps.indices where job.steps[index] == .toMake {
      let (id, intent) = job.ops[index]
      let key = OpRecord.key(client: Room.apiClient, id: id)
      if let first = made[key] {
        counters.opsRepeated += 1
        job.steps[index] = .sameAs(first)
        continue
      }
      if let known = opIDs[key] {
        counters.opsRepeated += 1
        job.steps[index] = .at(known)
        if known > seq { break }
        continue
      }
      do throws(ProtocolError) {
        let intent = try intent.get()
        try checkLimits(intent, on: copy)
        let record = try makeRecord(
          intent, id: id, client: Room.apiClient, by: "api", actor: .api, at: job.at, on: &copy)
        // The copy changes only for the ops after it (the room applies the op from the log).
        if index < last { try? copy.replay(record.logged) }
        let ticket = nextTicket
        nextTicket += 1
        log.inFlight[ticket] = RoomLog.InFlight(
          connections: [], request: id, key: key, record: record, api: true, creates: seq == 0,
          until: log.boundary(after: seq))
        job.steps[index] = .out(ticket)
        job.tickets[ticket] = index
        made[key] = index
        actions.append(.log(.append(logAppend(ticket: ticket))))
      } catch {
        counters.opsRejected[error.code.rawValue, default: 0] += 1
        job.steps[index] = .done(.rejected(id: id, error: error))
      }
    }
    // Ops made here next must not take the ids of the ones made on the copy.
    var board = takeBoard()
    board.advanceClock(to: copy.clock)
    self.board = board
    log.apiJobs[0] = job
    return actions
  }

  /// Ends every API request of the room without results (`.apiFailed` with `reason`).
  mutating func failAPI(reason: String) -> [RoomAction] {
    let jobs = log.apiJobs
    guard !jobs.isEmpty else { return [] }
    log.apiJobs = []
    log.apiResolved = [:]
    return jobs.map { .apiFailed(request: $0.request, reason: reason) }
  }
}

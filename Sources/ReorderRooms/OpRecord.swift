/// What the room stores for each applied op: enough to rebuild the board, answer re-sent op ids
/// and serve `since` catch-ups after a restart.
///
/// Layout: `0x01`, a 4-byte big-endian header length, a JSON header
/// `{"id":…,"client":…,"by":…,"op":{resolved op},"epoch"?:…,"actor"?:{…},"at"?:…,"madeAt"?:…}`, then
/// the board's logged bytes (for the CRDT board, the encoded CRDT op). Records written before ops
/// carried their actor and time have neither: readers take them as unknown.
public struct OpRecord: Sendable, Equatable {
  /// The client's op id.
  public var id: String
  /// The client id from `hello`.
  public var client: String
  /// The session that sent it (`applied.by`).
  public var by: String
  /// The resolved op (`applied.op`).
  public var resolved: JSONValue
  /// The board's replayable bytes.
  public var logged: [UInt8]
  /// The room's epoch (on the first op of a room only).
  public var epoch: String?
  /// Who made it (nil in records stored before actors were kept).
  public var actor: OpActor?
  /// When the server applied it (the node that made it, for a cluster's op): milliseconds since
  /// 1970-01-01 UTC; nil in records stored before times were kept.
  public var at: Int64?
  /// Cluster mode: the seq of the replica state the op was made on. Only ops made by a compacting
  /// node carry it, and only after such an op does a replica compact at a boundary
  /// (`RoomLog.compactsAfter`); nil in records of one node, of the API's whole-board writes and
  /// in records stored before cluster rooms compacted.
  public var madeAt: UInt64?

  /// A record.
  public init(
    id: String, client: String, by: String, resolved: JSONValue, logged: [UInt8], actor: OpActor? = nil,
    at: Int64? = nil
  ) {
    self.id = id
    self.client = client
    self.by = by
    self.resolved = resolved
    self.logged = logged
    self.actor = actor
    self.at = at
  }

  /// The stored payload.
  public func encoded() -> [UInt8] {
    var members: [(key: String, value: JSONValue)] = [
      ("id", .string(id)), ("client", .string(client)), ("by", .string(by)), ("op", resolved),
    ]
    if let epoch { members.append(("epoch", .string(epoch))) }
    if let actor { members.append(("actor", actor.json)) }
    if let at { members.append(("at", .number(Double(at)))) }
    if let madeAt { members.append(("madeAt", .number(Double(madeAt)))) }
    let header = JSONValue.object(members).encoded()
    var out: [UInt8] = [1]
    out.reserveCapacity(5 + header.count + logged.count)
    let n = UInt32(header.count)
    out.append(contentsOf: [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)])
    out.append(contentsOf: header)
    out.append(contentsOf: logged)
    return out
  }

  /// Reads a stored payload.
  public init(payload: [UInt8]) throws {
    guard payload.count >= 5, payload[0] == 1 else { throw BoardDataError("op record: unknown format") }
    let n = Int(payload[1]) << 24 | Int(payload[2]) << 16 | Int(payload[3]) << 8 | Int(payload[4])
    guard 5 + n <= payload.count else { throw BoardDataError("op record: truncated header") }
    let header = try JSONValue.parse(Array(payload[5..<(5 + n)]))
    guard let id = header["id"]?.stringValue, let client = header["client"]?.stringValue,
      let by = header["by"]?.stringValue, let op = header["op"]
    else { throw BoardDataError("op record: incomplete header") }
    self.init(id: id, client: client, by: by, resolved: op, logged: Array(payload[(5 + n)...]))
    epoch = header["epoch"]?.stringValue
    actor = header["actor"].flatMap(OpActor.init(json:))
    if case .number(let ms)? = header["at"], ms.isFinite, abs(ms) < 1e15 { at = Int64(ms) }
    if case .number(let made)? = header["madeAt"], made >= 0, made < 1e15, made == made.rounded() {
      madeAt = UInt64(made)
    }
  }

  /// The idempotency key of a stored payload, read without parsing the whole header when the
  /// header starts as `encoded()` writes it (`{"id":"…","client":"…"`, no escapes in either);
  /// otherwise from the parsed record. A load reads the keys of thousands of remembered ops.
  public static func key(payload: [UInt8]) throws -> String {
    if let key = fastKey(payload) { return key }
    let record = try OpRecord(payload: payload)
    return OpRecord.key(client: record.client, id: record.id)
  }

  private static func fastKey(_ payload: [UInt8]) -> String? {
    var index = 5
    func expect(_ text: String) -> Bool {
      for byte in text.utf8 {
        guard index < payload.count, payload[index] == byte else { return false }
        index += 1
      }
      return true
    }
    func plainString() -> String? {
      let start = index
      while index < payload.count, payload[index] != UInt8(ascii: "\""), payload[index] != UInt8(ascii: "\\") {
        index += 1
      }
      guard index < payload.count, payload[index] == UInt8(ascii: "\"") else { return nil }
      defer { index += 1 }
      return String(decoding: payload[start..<index], as: UTF8.self)
    }
    guard payload.count > 5, payload[0] == 1, expect(#"{"id":""#), let id = plainString(),
      expect(#","client":""#), let client = plainString()
    else { return nil }
    return key(client: client, id: id)
  }

  /// The `applied` frame for this record at `seq`.
  public func applied(seq: UInt64) -> [UInt8] { ServerMessage.applied(seq: seq, id: id, by: by, op: resolved) }

  /// The idempotency key: client id and op id.
  public static func key(client: String, id: String) -> String { client + "\u{1F}" + id }
}

/// The binary form of ops (version 1).
///
/// Layout: one header byte `(version << 4) | kind`, varint replica, varint counter, then the
/// kind's payload. Ids (item, list, assignment) are written as the generated `counter@replica`
/// numbers when they have that form (`0` + counter when the replica is the op's, `1` + counter +
/// replica otherwise), else as `2` + UTF-8 string. Anchors are one byte (`side | parentForm << 1`,
/// parentForm 0 = root, 1 = same replica, 2 = other replica) then the parent's numbers. Field
/// values: `0` string, `1` double, `2` false, `3` true, `4` zigzag varint integer.
/// A move by a small replica id encodes in about 14 bytes.
extension Op {
  /// Current binary format version.
  public static let binaryVersion: UInt8 = 1

  private enum Tag: UInt8 {
    case insert = 0, move, delete, restore, set, assign, unassign, createList, moveList, deleteList
  }

  /// The compact binary form.
  /// - Complexity: O(size of the op).
  public func encoded() -> [UInt8] {
    var w = ByteWriter()
    write(to: &w)
    return w.bytes
  }

  func write(to w: inout ByteWriter) {
    let tag: Tag
    switch action {
    case .insert: tag = .insert
    case .move: tag = .move
    case .delete: tag = .delete
    case .restore: tag = .restore
    case .set: tag = .set
    case .assign: tag = .assign
    case .unassign: tag = .unassign
    case .createList: tag = .createList
    case .moveList: tag = .moveList
    case .deleteList: tag = .deleteList
    }
    w.byte(Op.binaryVersion << 4 | tag.rawValue)
    w.varint(id.replica.rawValue)
    w.varint(id.counter)
    let r = id.replica
    switch action {
    case .insert(let item, let list, let anchor, let fields):
      Op.writeID(item.rawValue, replica: r, &w)
      Op.writeID(list.rawValue, replica: r, &w)
      Op.writeAnchor(anchor, replica: r, &w)
      w.varint(fields.count)
      for name in fields.keys.sorted() {
        w.string(name)
        Op.writeValue(fields[name]!, &w)
      }
    case .move(let item, let list, let anchor):
      Op.writeID(item.rawValue, replica: r, &w)
      Op.writeID(list.rawValue, replica: r, &w)
      Op.writeAnchor(anchor, replica: r, &w)
    case .delete(let item), .restore(let item):
      Op.writeID(item.rawValue, replica: r, &w)
    case .set(let item, let field, let value):
      Op.writeID(item.rawValue, replica: r, &w)
      w.string(field)
      Op.writeValue(value, &w)
    case .assign(let assignment, let item, let target):
      Op.writeID(assignment.rawValue, replica: r, &w)
      Op.writeID(item.rawValue, replica: r, &w)
      Op.writeID(target.rawValue, replica: r, &w)
    case .unassign(let assignment):
      Op.writeID(assignment.rawValue, replica: r, &w)
    case .createList(let list, let title, let layout, let anchor):
      Op.writeID(list.rawValue, replica: r, &w)
      w.string(title)
      w.byte(layout == .list ? 0 : 1)
      Op.writeAnchor(anchor, replica: r, &w)
    case .moveList(let list, let anchor):
      Op.writeID(list.rawValue, replica: r, &w)
      Op.writeAnchor(anchor, replica: r, &w)
    case .deleteList(let list):
      Op.writeID(list.rawValue, replica: r, &w)
    }
  }

  /// Decodes the binary form; throws ``BoardError/malformed(_:)`` on anything unexpected
  /// (unknown version or kind, truncation, trailing bytes, invalid UTF-8, over-long values).
  /// - Complexity: O(size of the bytes).
  public init(encoded bytes: [UInt8]) throws(BoardError) {
    var r = ByteReader(bytes)
    try self.init(reading: &r)
    guard r.isAtEnd else { throw .malformed("\(bytes.count - r.offset) trailing bytes after the op") }
  }

  init(reading r: inout ByteReader) throws(BoardError) {
    let header = try r.byte()
    guard header >> 4 == Op.binaryVersion else {
      throw .malformed("unsupported op format version \(header >> 4) (expected \(Op.binaryVersion))")
    }
    guard let tag = Tag(rawValue: header & 0x0F) else { throw .malformed("unknown op kind \(header & 0x0F)") }
    let replica = ReplicaID(try r.varint())
    let counter = try r.varint()
    guard counter > 0 else { throw .malformed("op counter must be at least 1") }
    let action: Action
    switch tag {
    case .insert:
      let item = ItemID(try Op.readID(&r, replica: replica))
      let list = ListID(try Op.readID(&r, replica: replica))
      let anchor = try Op.readAnchor(&r, replica: replica)
      let n = try r.count(max: BoardLimits.maxFields)
      var fields: [String: FieldValue] = [:]
      for _ in 0..<n {
        let name = try r.string(maxBytes: BoardLimits.maxFieldNameBytes)
        fields[name] = try Op.readValue(&r)
      }
      action = .insert(item: item, list: list, anchor: anchor, fields: fields)
    case .move:
      let item = ItemID(try Op.readID(&r, replica: replica))
      let list = ListID(try Op.readID(&r, replica: replica))
      action = .move(item: item, list: list, anchor: try Op.readAnchor(&r, replica: replica))
    case .delete: action = .delete(item: ItemID(try Op.readID(&r, replica: replica)))
    case .restore: action = .restore(item: ItemID(try Op.readID(&r, replica: replica)))
    case .set:
      let item = ItemID(try Op.readID(&r, replica: replica))
      let field = try r.string(maxBytes: BoardLimits.maxFieldNameBytes)
      action = .set(item: item, field: field, value: try Op.readValue(&r))
    case .assign:
      let assignment = AssignmentID(try Op.readID(&r, replica: replica))
      let item = ItemID(try Op.readID(&r, replica: replica))
      let target = ItemID(try Op.readID(&r, replica: replica))
      action = .assign(assignment: assignment, item: item, target: target)
    case .unassign: action = .unassign(assignment: AssignmentID(try Op.readID(&r, replica: replica)))
    case .createList:
      let list = ListID(try Op.readID(&r, replica: replica))
      let title = try r.string(maxBytes: BoardLimits.maxStringBytes)
      let layoutByte = try r.byte()
      guard layoutByte <= 1 else { throw .malformed("unknown layout \(layoutByte)") }
      let anchor = try Op.readAnchor(&r, replica: replica)
      action = .createList(list: list, title: title, layout: layoutByte == 0 ? .list : .grid, anchor: anchor)
    case .moveList:
      let list = ListID(try Op.readID(&r, replica: replica))
      action = .moveList(list: list, anchor: try Op.readAnchor(&r, replica: replica))
    case .deleteList: action = .deleteList(list: ListID(try Op.readID(&r, replica: replica)))
    }
    self.init(id: OpID(replica: replica, counter: counter), action: action)
  }

  static func writeID(_ text: String, replica: ReplicaID, _ w: inout ByteWriter) {
    if let parts = GeneratedID.parse(text) {
      if parts.replica == replica.rawValue {
        w.byte(0)
        w.varint(parts.counter)
      } else {
        w.byte(1)
        w.varint(parts.counter)
        w.varint(parts.replica)
      }
    } else {
      w.byte(2)
      w.string(text)
    }
  }

  static func readID(_ r: inout ByteReader, replica: ReplicaID) throws(BoardError) -> String {
    switch try r.byte() {
    case 0: return GeneratedID.text(OpID(replica: replica, counter: try r.varint()))
    case 1:
      let counter = try r.varint()
      return GeneratedID.text(OpID(replica: ReplicaID(try r.varint()), counter: counter))
    case 2:
      let s = try r.string(maxBytes: BoardLimits.maxIDBytes)
      guard !s.isEmpty else { throw .malformed("empty id") }
      return s
    case let other: throw .malformed("unknown id form \(other)")
    }
  }

  static func writeAnchor(_ anchor: Anchor, replica: ReplicaID, _ w: inout ByteWriter) {
    let side = anchor.side.rawValue
    guard let parent = anchor.parent else {
      w.byte(side)
      return
    }
    if parent.replica == replica {
      w.byte(side | 1 << 1)
      w.varint(parent.counter)
    } else {
      w.byte(side | 2 << 1)
      w.varint(parent.counter)
      w.varint(parent.replica.rawValue)
    }
  }

  static func readAnchor(_ r: inout ByteReader, replica: ReplicaID) throws(BoardError) -> Anchor {
    let b = try r.byte()
    let side: Side = b & 1 == 0 ? .left : .right
    switch b >> 1 {
    case 0: return Anchor(parent: nil, side: side)
    case 1: return Anchor(parent: OpID(replica: replica, counter: try r.varint()), side: side)
    case 2:
      let counter = try r.varint()
      return Anchor(parent: OpID(replica: ReplicaID(try r.varint()), counter: counter), side: side)
    default: throw .malformed("unknown anchor form \(b)")
    }
  }

  static func writeValue(_ value: FieldValue, _ w: inout ByteWriter) {
    switch value {
    case .string(let s):
      w.byte(0)
      w.string(s)
    case .number(let d):
      if let n = Op.exactInteger(d) {
        w.byte(4)
        w.signed(n)
      } else {
        w.byte(1)
        w.double(d)
      }
    case .bool(let b): w.byte(b ? 3 : 2)
    }
  }

  /// The integer equal to `d` when |d| < 2^53 and `d` is not -0 (so the varint form is exact).
  static func exactInteger(_ d: Double) -> Int64? {
    guard d.magnitude < 9_007_199_254_740_992 else { return nil }
    let n = Int64(d)
    return Double(n) == d && !(d == 0 && d.sign == .minus) ? n : nil
  }

  static func readValue(_ r: inout ByteReader) throws(BoardError) -> FieldValue {
    switch try r.byte() {
    case 0: return .string(try r.string(maxBytes: BoardLimits.maxStringBytes))
    case 1:
      let d = try r.double()
      guard d.isFinite else { throw .malformed("non-finite number") }
      return .number(d)
    case 2: return .bool(false)
    case 3: return .bool(true)
    case 4: return .number(Double(try r.signed()))
    case let other: throw .malformed("unknown value form \(other)")
    }
  }
}

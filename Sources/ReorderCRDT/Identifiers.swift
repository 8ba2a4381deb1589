/// The identity of a replica (one writer: a server room, a test peer).
///
/// Replica ids must be unique among the replicas that edit one board; they break ties between
/// concurrent writes with equal Lamport clocks (the larger replica wins).
public struct ReplicaID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The raw number.
  public var rawValue: UInt64
  /// Wraps a raw replica number.
  public init(rawValue: UInt64) { self.rawValue = rawValue }
  /// Wraps a raw replica number.
  public init(_ rawValue: UInt64) { self.rawValue = rawValue }
  public static func < (a: ReplicaID, b: ReplicaID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { String(rawValue) }
}

/// The identity of one operation, and of the position that an insert or move creates.
///
/// `counter` is the Lamport clock of the op, so `(counter, replica)` is unique (a replica's clock
/// strictly increases) and also the last-writer-wins order: larger counter wins, then larger replica.
/// Its text form is `"<counter>@<replica>"`, e.g. `"12@1"`.
public struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The replica that made the op.
  public var replica: ReplicaID
  /// The op's Lamport clock (≥ 1).
  public var counter: UInt64
  /// Makes an op id.
  public init(replica: ReplicaID, counter: UInt64) {
    self.replica = replica
    self.counter = counter
  }
  /// Lamport order: counter first, then replica.
  public static func < (a: OpID, b: OpID) -> Bool {
    a.counter != b.counter ? a.counter < b.counter : a.replica < b.replica
  }
  /// `"<counter>@<replica>"`.
  public var description: String { "\(counter)@\(replica.rawValue)" }

  /// Parses the canonical text form `"<counter>@<replica>"` (decimal, no leading zeros).
  public init?(text: String) {
    guard let parts = GeneratedID.parse(text) else { return nil }
    self.init(replica: ReplicaID(parts.replica), counter: parts.counter)
  }
}

/// A position in a sequence (a node of a Fugue tree). It is the id of the op that created it.
public typealias PositionID = OpID

/// The stable identity of an item. Generated ids have the form `"<counter>@<replica>"` (the id of
/// the op that created the item); any other non-empty string up to 128 bytes may be given.
public struct ItemID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The id text (also used on the wire).
  public var rawValue: String
  /// Wraps an id.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an id.
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static func < (a: ItemID, b: ItemID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
}

/// The stable identity of a list. Same text rules as ``ItemID``.
public struct ListID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The id text (also used on the wire).
  public var rawValue: String
  /// Wraps an id.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an id.
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static func < (a: ListID, b: ListID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
}

/// The stable identity of one assignment (one drop of an item onto a target). Same text rules as
/// ``ItemID``.
public struct AssignmentID: Hashable, Comparable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The id text (also used on the wire).
  public var rawValue: String
  /// Wraps an id.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an id.
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static func < (a: AssignmentID, b: AssignmentID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
}

/// A small field value: string, number or bool.
public enum FieldValue: Hashable, Sendable {
  case string(String)
  case number(Double)
  case bool(Bool)
}

/// How a list is shown.
public enum Layout: String, Sendable, CaseIterable {
  case list
  case grid
}

/// Which side of its parent a Fugue node hangs on.
public enum Side: UInt8, Hashable, Sendable {
  case left = 0
  case right = 1
}

/// Where a new position hangs in the Fugue tree of its sequence: `parent == nil` is the sequence's
/// root (the virtual start of the list).
public struct Anchor: Hashable, Sendable {
  /// The parent position, or nil for the sequence root.
  public var parent: PositionID?
  /// The side of the parent.
  public var side: Side
  /// Makes an anchor.
  public init(parent: PositionID?, side: Side) {
    self.parent = parent
    self.side = side
  }
}

/// Parsing and printing of generated ids `"<counter>@<replica>"`.
enum GeneratedID {
  /// The text for a generated id.
  /// Formats into a stack buffer, then makes the String from the used bytes: ids up to 15 bytes
  /// become small (inline) strings, so copying one never touches the heap.
  static func text(_ id: OpID) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 41) { buffer in
      var k = 0
      func put(_ value: UInt64) {
        var digits = 1
        var v = value
        while v >= 10 {
          v /= 10
          digits += 1
        }
        v = value
        for d in stride(from: k + digits - 1, through: k, by: -1) {
          buffer[d] = UInt8(48 + v % 10)
          v /= 10
        }
        k += digits
      }
      put(id.counter)
      buffer[k] = UInt8(ascii: "@")
      k += 1
      put(id.replica.rawValue)
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<k]), as: UTF8.self)
    }
  }

  /// Parses the canonical form: decimal without leading zeros, both parts fit UInt64.
  static func parse(_ text: String) -> (counter: UInt64, replica: UInt64)? {
    var counter: UInt64 = 0
    var replica: UInt64 = 0
    var seenAt = false
    var digits = 0
    var leadingZero = false
    for byte in text.utf8 {
      if byte == UInt8(ascii: "@") {
        if seenAt || digits == 0 { return nil }
        seenAt = true
        digits = 0
        leadingZero = false
        continue
      }
      guard byte >= 48, byte <= 57 else { return nil }
      if leadingZero { return nil }
      if digits == 0 && byte == 48 { leadingZero = true }
      digits += 1
      let digit = UInt64(byte - 48)
      if seenAt {
        let (m, o1) = replica.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(digit)
        if o1 || o2 { return nil }
        replica = a
      } else {
        let (m, o1) = counter.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(digit)
        if o1 || o2 { return nil }
        counter = a
      }
    }
    guard seenAt, digits > 0 else { return nil }
    return (counter, replica)
  }
}

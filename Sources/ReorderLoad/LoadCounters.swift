/// Event counts of a run (or of one service thread of it); merged by adding.
public struct LoadCounters: Sendable, Codable, Equatable {
  /// Clients whose connection opened (and, in rooms mode, got `welcome`).
  public var connected = 0
  /// Connection attempts that failed or closed before being ready.
  public var connectFailures = 0
  /// Connections closed by the server (or lost) while the run was going.
  public var unexpectedCloses = 0
  /// Drag updates sent (start, moves, end).
  public var dragUpdatesSent = 0
  /// Frames received carrying drag updates (`drags` frames; mirror messages).
  public var dragFrames = 0
  /// Drag updates received from others (each element of `updates`; each mirror message).
  public var dragUpdatesDelivered = 0
  /// Updates a receiver saw of its own drag (the mirror echoes to the sender).
  public var ownEchoes = 0
  /// Update × receiver pairs that were due: every update sent, at each other client of its room.
  public var dragUpdatesExpected = 0
  /// … of which covered: it or a newer update of the drag reached the receiver within the window.
  public var dragUpdatesCovered = 0
  /// … of which reached (themselves or superseded) only after the window.
  public var dragUpdatesLate = 0
  /// … of which never reached the receiver in any form by the end of the drain.
  public var dragUpdatesLost = 0
  /// The same update received twice by a receiver.
  public var dragDuplicates = 0
  /// An older update received after a newer one of the same drag.
  public var dragOutOfOrder = 0
  /// Drag ends due at receivers (each drag's final `end`, at each other client of its room).
  public var dragEndsExpected = 0
  /// … of which delivered.
  public var dragEndsDelivered = 0
  /// Committed moves sent.
  public var movesSent = 0
  /// `applied` received by the sender of the op (acknowledgements).
  public var movesAcknowledged = 0
  /// `applied` of others' ops received.
  public var movesAppliedRemote = 0
  /// `applied` whose seq did not follow the previous one at that receiver (gaps).
  public var appliedGaps = 0
  /// `applied` seen twice (seq not increasing) at a receiver.
  public var appliedDuplicates = 0
  /// `rejected` frames.
  public var rejected = 0
  /// `error` frames (and frames the tool could not read).
  public var errors = 0
  /// Bytes of text received.
  public var bytesReceived = 0
  /// Roster frames received: `peer` (one join or leave) and `peers` (the joins and leaves of one
  /// presence tick, coalesced). The tool reads nothing from them; the count shows what joining costs.
  public var peerFrames = 0

  /// All zero.
  public init() {}

  /// Every count with its JSON key: `add` sums them, decoding reads each if present.
  static let fields: [(key: String, path: WritableKeyPath<LoadCounters, Int> & Sendable)] = [
    ("connected", \.connected),
    ("connectFailures", \.connectFailures),
    ("unexpectedCloses", \.unexpectedCloses),
    ("dragUpdatesSent", \.dragUpdatesSent),
    ("dragFrames", \.dragFrames),
    ("dragUpdatesDelivered", \.dragUpdatesDelivered),
    ("ownEchoes", \.ownEchoes),
    ("dragUpdatesExpected", \.dragUpdatesExpected),
    ("dragUpdatesCovered", \.dragUpdatesCovered),
    ("dragUpdatesLate", \.dragUpdatesLate),
    ("dragUpdatesLost", \.dragUpdatesLost),
    ("dragDuplicates", \.dragDuplicates),
    ("dragOutOfOrder", \.dragOutOfOrder),
    ("dragEndsExpected", \.dragEndsExpected),
    ("dragEndsDelivered", \.dragEndsDelivered),
    ("movesSent", \.movesSent),
    ("movesAcknowledged", \.movesAcknowledged),
    ("movesAppliedRemote", \.movesAppliedRemote),
    ("appliedGaps", \.appliedGaps),
    ("appliedDuplicates", \.appliedDuplicates),
    ("rejected", \.rejected),
    ("errors", \.errors),
    ("bytesReceived", \.bytesReceived),
    ("peerFrames", \.peerFrames),
  ]

  /// Adds `other` field by field.
  public mutating func add(_ other: LoadCounters) {
    for field in Self.fields { self[keyPath: field.path] += other[keyPath: field.path] }
  }

  /// Decodes a run's counts; a count missing from the file is 0, so every saved run stays readable.
  public init(from decoder: any Decoder) throws {
    let values = try [String: Int](from: decoder)
    for field in Self.fields { self[keyPath: field.path] = values[field.key] ?? 0 }
  }
}

/// Per-second counts of one run, indexed by whole seconds since the traffic started.
public struct ThroughputSeries: Sendable, Codable, Equatable {
  public var dragUpdatesSent: [Int] = []
  public var dragUpdatesDelivered: [Int] = []
  public var dragUpdatesCovered: [Int] = []
  public var dragFrames: [Int] = []
  public var movesSent: [Int] = []
  public var movesAcknowledged: [Int] = []
  public var errors: [Int] = []

  /// Empty.
  public init() {}

  @inline(__always)
  static func bump(_ array: inout [Int], _ second: Int, by amount: Int = 1) {
    guard second >= 0 && second < 3_600 else { return }
    if second >= array.count { array.append(contentsOf: repeatElement(0, count: second + 1 - array.count)) }
    array[second] += amount
  }

  /// Adds `other` second by second.
  public mutating func add(_ other: ThroughputSeries) {
    func merge(_ into: inout [Int], _ from: [Int]) {
      for (second, value) in from.enumerated() { Self.bump(&into, second, by: value) }
    }
    merge(&dragUpdatesSent, other.dragUpdatesSent)
    merge(&dragUpdatesDelivered, other.dragUpdatesDelivered)
    merge(&dragUpdatesCovered, other.dragUpdatesCovered)
    merge(&dragFrames, other.dragFrames)
    merge(&movesSent, other.movesSent)
    merge(&movesAcknowledged, other.movesAcknowledged)
    merge(&errors, other.errors)
  }

  /// Seconds covered by the longest series.
  public var seconds: Int {
    [dragUpdatesSent, dragUpdatesDelivered, dragUpdatesCovered, dragFrames, movesSent, movesAcknowledged, errors]
      .map(\.count).max() ?? 0
  }
}

/// When each update of each drag was sent: written by the sending thread, read by receivers to
/// decide coverage of the updates they never saw (coalesced away by the server).
///
/// Updates of a drag are numbered 0 (start), 1…n (moves), n+1 (end); send times never decrease
/// with the number, so "updates sent at or after a moment" is a binary search.
struct DragSentLog {
  /// Send times (µs) per drag, indexed by update number.
  private(set) var times: [[Int64]] = []
  /// Room index of each drag.
  private(set) var rooms: [Int] = []
  /// Owner client of each drag.
  private(set) var owners: [Int] = []
  /// Update number of each drag's end, once sent.
  private(set) var endSeq: [Int32?] = []
  /// Drags of each room, by room index.
  private(set) var dragsByRoom: [[Int]] = []

  /// Registers a drag; returns its index.
  mutating func addDrag(room: Int, owner: Int) -> Int {
    times.append([])
    rooms.append(room)
    owners.append(owner)
    endSeq.append(nil)
    while dragsByRoom.count <= room { dragsByRoom.append([]) }
    dragsByRoom[room].append(times.count - 1)
    return times.count - 1
  }

  /// Records that update `seq` of `drag` was sent at `time`; returns false when out of order.
  ///
  /// - Complexity: amortised O(1).
  @discardableResult
  mutating func recordSend(drag: Int, seq: Int32, time: Int64, isEnd: Bool = false) -> Bool {
    guard drag < times.count, Int(seq) == times[drag].count else { return false }
    times[drag].append(time)
    if isEnd { endSeq[drag] = seq }
    return true
  }

  /// Updates sent of `drag`.
  func sentCount(_ drag: Int) -> Int { drag < times.count ? times[drag].count : 0 }

  /// Send time of update `seq` of `drag`, if sent.
  func sentTime(drag: Int, seq: Int32) -> Int64? {
    guard drag < times.count, seq >= 0, Int(seq) < times[drag].count else { return nil }
    return times[drag][Int(seq)]
  }

  /// How many updates numbered in `after+1 … through` of `drag` were sent at or after `earliest`.
  ///
  /// Those are the updates a delivery of `through` at `earliest + window` covers.
  /// - Complexity: O(log n).
  func countSent(drag: Int, after: Int32, through: Int32, atOrAfter earliest: Int64) -> Int {
    guard drag < times.count else { return 0 }
    let sent = times[drag]
    var low = Int(after) + 1
    let high = Swift.min(Int(through), sent.count - 1)
    guard low <= high else { return 0 }
    var upper = high + 1
    // First index in low...high with sent[index] >= earliest.
    while low < upper {
      let middle = (low + upper) / 2
      if sent[middle] >= earliest { upper = middle } else { low = middle + 1 }
    }
    return high - low + 1
  }
}

/// Deadlines of connections (hello timeout, token expiring, token expired) in a binary min-heap, so
/// the next one is O(1) and each costs O(log n). An entry is dropped when it fires for a
/// connection whose `generation` has moved on (it refreshed its token, or left).
struct DeadlineQueue: Sendable {
  /// What happens at a deadline.
  enum Kind: Sendable, Equatable {
    case helloTimeout
    case tokenExpiring
    case tokenExpired
  }

  struct Entry: Sendable, Equatable {
    var time: Double
    var connection: ConnectionHandle
    var kind: Kind
    var generation: Int
  }

  private var heap: [Entry] = []
  /// Whether a deadline was added since `added` was last cleared.
  var added = false

  /// When the next deadline is, or nil.
  var next: Double? { heap.first?.time }

  /// How many are queued.
  var count: Int { heap.count }

  /// Queues a deadline.
  mutating func add(_ entry: Entry) {
    added = true
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].time < heap[parent].time else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// The earliest entry.
  var first: Entry? { heap.first }

  /// Removes the earliest entry.
  mutating func removeFirst() {
    guard !heap.isEmpty else { return }
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count && heap[left].time < heap[smallest].time { smallest = left }
      if right < heap.count && heap[right].time < heap[smallest].time { smallest = right }
      guard smallest != parent else { break }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }

  /// Removes and returns the deadlines due at `now`, earliest first.
  mutating func popDue(now: Double) -> [Entry] {
    var due: [Entry] = []
    while let first = heap.first, first.time <= now {
      due.append(first)
      removeFirst()
    }
    return due
  }
}

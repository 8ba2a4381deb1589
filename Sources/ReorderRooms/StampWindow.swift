/// Who made each op of a room's catch-up window and when, by seq (`OpStamp`): what the history
/// shows beside the window's frames, which hold only the resolved ops. Pure.
///
/// Compact, since a busy room keeps about as many stamps as frames: 16 bytes a seq in one array,
/// each distinct actor kept once (a room's ops come from few people).
///
/// Invariant: `entries[head...]` are the stamps of the seqs `first ..< first + count`, in order
/// (an entry with no actor and no time where a seq has no stamp).
struct StampWindow: Sendable {
  private struct Entry: Sendable {
    /// 0: none; n: `actors[n - 1]`.
    var actor: UInt32
    /// `Int64.min`: none.
    var at: Int64
  }

  private var entries: [Entry] = []
  /// Entries before it are dropped (kept until they are half the array, then removed at once).
  private var head = 0
  /// The seq of `entries[head]`.
  private var first: UInt64 = 0
  private var actors: [OpActor] = []
  private var actorNumbers: [OpActor: UInt32] = [:]

  /// A gap larger than this after the last stamp starts the window again rather than filling it.
  private static let longestGap = 4_096

  /// How many seqs it spans (from the first kept to the last set).
  var count: Int { entries.count - head }

  /// Whether it holds no stamp.
  var isEmpty: Bool { count == 0 }

  /// The stamp of `seq`, nil when none is kept; setting nil forgets it.
  subscript(seq: UInt64) -> OpStamp? {
    get {
      guard seq >= first, seq - first < UInt64(count) else { return nil }
      let entry = entries[head + Int(seq - first)]
      let actor = entry.actor == 0 ? nil : actors[Int(entry.actor) - 1]
      let at = entry.at == Int64.min ? nil : entry.at
      return actor == nil && at == nil ? nil : OpStamp(actor: actor, at: at)
    }
    set {
      let beyond = seq >= first && seq - first > UInt64(count) + UInt64(Self.longestGap)
      if isEmpty || beyond {
        guard newValue != nil else { return }
        restart(at: seq)
      }
      guard seq >= first else { return }  // older than the window: nothing to keep
      var actor: UInt32 = 0
      if let made = newValue?.actor { actor = number(of: made) }
      let entry = Entry(actor: actor, at: newValue?.at ?? Int64.min)
      let offset = Int(seq - first)
      if offset < count {
        entries[head + offset] = entry
        return
      }
      if offset > count {
        entries.append(contentsOf: repeatElement(Entry(actor: 0, at: Int64.min), count: offset - count))
      }
      entries.append(entry)
    }
  }

  /// Forgets the stamps of every seq below `seq` (the window moved on).
  mutating func dropBelow(_ seq: UInt64) {
    guard !isEmpty, seq > first else { return }
    let drop = seq - first
    if drop >= UInt64(count) {
      self = StampWindow()
      return
    }
    head += Int(drop)
    first = seq
    if head > entries.count / 2 {
      entries.removeFirst(head)
      head = 0
      forgetUnusedActors()
    }
  }

  private mutating func restart(at seq: UInt64) {
    entries.removeAll(keepingCapacity: true)
    head = 0
    first = seq
    forgetUnusedActors()
  }

  private mutating func number(of actor: OpActor) -> UInt32 {
    if let known = actorNumbers[actor] { return known }
    actors.append(actor)
    let number = UInt32(actors.count)
    actorNumbers[actor] = number
    return number
  }

  /// Keeps only the actors that stamp an op of the window, renumbered: the table stays as small as
  /// the window's distinct actors (checked when more than 64 are kept).
  private mutating func forgetUnusedActors() {
    guard actors.count > 64 else { return }
    var kept: [OpActor] = []
    var numbers: [OpActor: UInt32] = [:]
    var renumbered: [UInt32: UInt32] = [:]
    for index in head..<entries.count where entries[index].actor != 0 {
      let old = entries[index].actor
      if let new = renumbered[old] {
        entries[index].actor = new
        continue
      }
      let actor = actors[Int(old) - 1]
      kept.append(actor)
      let new = UInt32(kept.count)
      numbers[actor] = new
      renumbered[old] = new
      entries[index].actor = new
    }
    actors = kept
    actorNumbers = numbers
  }
}

/// The `applied` frames of a room's latest durable seqs, in seq order: what a member catching up
/// (`since`), a re-sent op id and the API's op log are answered from without reading storage.
///
/// Invariant: `frames` holds the frames of seqs `start ..< start + frames.count`; at least the
/// latest `keep` of those added are kept (up to 1,024 more, dropped in one step).
struct CatchUpWindow: Sendable {
  /// How many seqs are kept at least (`RoomLimits.maxCatchUpOps`).
  let keep: Int
  private(set) var frames: [[UInt8]] = []
  /// The seq of the first frame kept.
  private(set) var start: UInt64 = 1

  /// An empty window keeping `keep` seqs.
  init(keep: Int) { self.keep = keep }

  /// Whether no frame is kept.
  var isEmpty: Bool { frames.isEmpty }

  /// Adds the frame of `seq`, the seq after the last one added (or the first one).
  mutating func add(seq: UInt64, frame: [UInt8]) {
    if frames.isEmpty { start = seq }
    frames.append(frame)
    if frames.count > keep + 1_024 {
      let drop = frames.count - keep
      frames.removeFirst(drop)
      start += UInt64(drop)
    }
  }

  /// The frame of `seq` if it is kept.
  func frame(seq: UInt64) -> [UInt8]? {
    guard seq >= start, seq < start + UInt64(frames.count) else { return nil }
    return frames[Int(seq - start)]
  }
}

/// The notice a call of `reorder_append_ops` publishes on a room's appends channel: the log entries
/// it appended, so that a node's tail applies them without reading the stream.
///
/// Bytes, for each entry in seq order: `<seq> <epoch length> <node length> <key length> <op
/// length>\n`, then the epoch, the node id, the op key and the op's bytes, back to back (lengths
/// in bytes, decimal). A header of four numbers (no op length) is one entry whose op is the rest of
/// the notice, as a library of the previous release publishes one notice per entry.
public enum ClusterNotice {
  /// The entries a notice holds, in its order, or nil when the bytes are not a notice.
  public static func entries(_ bytes: [UInt8]) -> [ClusterLogEntry]? {
    var entries: [ClusterLogEntry] = []
    var start = 0
    repeat {
      guard let (entry, next) = entry(bytes, from: start) else { return nil }
      entries.append(entry)
      start = next
    } while start < bytes.count
    return entries
  }

  /// The entry whose header starts at `start`, and where the next one starts; nil when the bytes
  /// there are not an entry.
  private static func entry(_ bytes: [UInt8], from start: Int) -> (ClusterLogEntry, next: Int)? {
    guard let newline = bytes[start...].prefix(128).firstIndex(of: 0x0A) else { return nil }
    let numbers = bytes[start..<newline].split(separator: 0x20, omittingEmptySubsequences: false).map {
      UInt64(String(decoding: $0, as: UTF8.self))
    }
    guard numbers.count == 4 || numbers.count == 5, let seq = numbers[0], seq > 0 else { return nil }
    let epochStart = newline + 1
    var rest = UInt64(bytes.count - epochStart)
    var starts = [epochStart]
    // The epoch's, the node's, the key's and (when given) the op's lengths.
    for length in numbers.dropFirst() {
      guard let length, length <= rest else { return nil }
      rest -= length
      starts.append(starts.last! + Int(length))
    }
    if numbers.count == 4 { starts.append(bytes.count) }
    let entry = ClusterLogEntry(
      seq: seq, node: String(decoding: bytes[starts[1]..<starts[2]], as: UTF8.self),
      key: Array(bytes[starts[2]..<starts[3]]), op: Array(bytes[starts[3]..<starts[4]]),
      epoch: String(decoding: bytes[starts[0]..<starts[1]], as: UTF8.self))
    return (entry, starts[4])
  }

  /// The watermark a `reorder_replicated` notice raises a room to (`replicated <seq>`), or nil
  /// for other bytes.
  public static func watermark(_ bytes: [UInt8]) -> UInt64? {
    let prefix = Array("replicated ".utf8)
    guard bytes.count > prefix.count, bytes.count <= prefix.count + 20, bytes.starts(with: prefix) else { return nil }
    return UInt64(String(decoding: bytes[prefix.count...], as: UTF8.self))
  }

  /// Whether the bytes are the notice of a whole-board write (`changed`: the room's history was
  /// replaced or deleted; its epoch is to be read again).
  public static func isChanged(_ bytes: [UInt8]) -> Bool { bytes == Array("changed".utf8) }

  /// The bytes of a notice of `entries`, as `reorder_append_ops` writes them (an epoch "" when nil).
  public static func bytes(of entries: [ClusterLogEntry]) -> [UInt8] {
    entries.flatMap { entry -> [UInt8] in
      let epoch = Array((entry.epoch ?? "").utf8)
      let node = Array(entry.node.utf8)
      let header = "\(entry.seq) \(epoch.count) \(node.count) \(entry.key.count) \(entry.op.count)\n"
      return Array(header.utf8) + epoch + node + entry.key + entry.op
    }
  }
}

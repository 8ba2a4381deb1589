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
  /// there are not an entry. The header is read in place: a tail reads one per op.
  private static func entry(_ bytes: [UInt8], from start: Int) -> (ClusterLogEntry, next: Int)? {
    let headerEnd = min(bytes.count, start + 128)
    var index = start
    // A decimal number (at least one digit, no sign) at `index`, then the byte `separator`.
    func number(then separator: UInt8) -> UInt64? {
      var value: UInt64 = 0
      let first = index
      while index < headerEnd, (0x30...0x39).contains(bytes[index]) {
        let (times, over) = value.multipliedReportingOverflow(by: 10)
        let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[index] - 0x30))
        guard !over && !carry else { return nil }
        value = sum
        index += 1
      }
      guard index > first, index < headerEnd, bytes[index] == separator else { return nil }
      index += 1
      return value
    }
    guard let seq = number(then: 0x20), seq > 0, let epochLength = number(then: 0x20),
      let nodeLength = number(then: 0x20)
    else { return nil }
    var lengths = [epochLength, nodeLength]
    // Five numbers, or four: one entry whose op is the rest (the previous release's notice).
    let fourth = index
    let legacy = number(then: 0x0A)
    if let keyLength = legacy {
      lengths.append(keyLength)
    } else {
      index = fourth
      guard let keyLength = number(then: 0x20), let opLength = number(then: 0x0A) else { return nil }
      lengths += [keyLength, opLength]
    }
    var rest = UInt64(bytes.count - index)
    var starts = [index]
    for length in lengths {
      guard length <= rest else { return nil }
      rest -= length
      starts.append(starts.last! + Int(length))
    }
    if legacy != nil { starts.append(bytes.count) }
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

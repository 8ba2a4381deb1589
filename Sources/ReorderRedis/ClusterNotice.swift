/// The notice `reorder_append_ops` publishes on a room's appends channel for each op it logs: the log
/// entry itself, so that a node's tail applies it without reading the stream.
///
/// Bytes: `<seq> <epoch length> <node length> <key length>\n`, then the epoch, the node id, the
/// op key and the op's bytes, back to back (lengths in bytes, decimal).
public enum ClusterNotice {
  /// The entry a notice holds, or nil when the bytes are not a notice.
  public static func entry(_ bytes: [UInt8]) -> ClusterLogEntry? {
    guard let newline = bytes.prefix(80).firstIndex(of: 0x0A) else { return nil }
    let numbers = bytes[..<newline].split(separator: 0x20, omittingEmptySubsequences: false).map {
      UInt64(String(decoding: $0, as: UTF8.self))
    }
    guard numbers.count == 4, let seq = numbers[0], seq > 0, let epochLength = numbers[1], let nodeLength = numbers[2],
      let keyLength = numbers[3]
    else { return nil }
    let epochStart = newline + 1
    let available = UInt64(bytes.count - epochStart)
    guard epochLength <= available, nodeLength <= available - epochLength,
      keyLength <= available - epochLength - nodeLength
    else { return nil }
    let nodeStart = epochStart + Int(epochLength)
    let keyStart = nodeStart + Int(nodeLength)
    let opStart = keyStart + Int(keyLength)
    return ClusterLogEntry(
      seq: seq, node: String(decoding: bytes[nodeStart..<keyStart], as: UTF8.self),
      key: Array(bytes[keyStart..<opStart]),
      op: Array(bytes[opStart...]), epoch: String(decoding: bytes[epochStart..<nodeStart], as: UTF8.self))
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

  /// The bytes of a notice of `entry`, as `reorder_append_ops` writes them (its epoch "" when nil).
  public static func bytes(of entry: ClusterLogEntry) -> [UInt8] {
    let epoch = Array((entry.epoch ?? "").utf8)
    let node = Array(entry.node.utf8)
    return Array("\(entry.seq) \(epoch.count) \(node.count) \(entry.key.count)\n".utf8) + epoch + node + entry.key
      + entry.op
  }
}

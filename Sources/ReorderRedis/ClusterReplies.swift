/// Parsers of the replies the room commands get back.
public enum ClusterReplies {
  /// The entries of an `XRANGE`, `XREVRANGE` or `XREAD` stream reply.
  public static func entries(_ reply: RedisReply, command: String) throws(RedisError) -> [ClusterLogEntry] {
    guard let items = reply.elements else { throw .unexpectedReply(command: command, reply: reply.description) }
    var entries: [ClusterLogEntry] = []
    entries.reserveCapacity(items.count)
    for item in items {
      guard let parts = item.elements, parts.count == 2, let id = parts[0].text, let fields = parts[1].elements,
        let seq = UInt64(id.prefix { $0 != "-" })
      else { throw .unexpectedReply(command: command, reply: item.description) }
      var entry = ClusterLogEntry(seq: seq, node: "", key: [], op: [])
      var index = 0
      while index + 1 < fields.count {
        let value = fields[index + 1].bytes ?? []
        switch fields[index].text {
        case "node": entry.node = String(decoding: value, as: UTF8.self)
        case "key": entry.key = value
        case "op": entry.op = value
        case "epoch": entry.epoch = String(decoding: value, as: UTF8.self)
        default: break
        }
        index += 2
      }
      entries.append(entry)
    }
    return entries
  }

  /// The texts of an array reply.
  public static func texts(_ reply: RedisReply, command: String) throws(RedisError) -> [String] {
    guard let items = reply.elements else { throw .unexpectedReply(command: command, reply: reply.description) }
    var texts: [String] = []
    for item in items {
      guard let text = item.text else { throw .unexpectedReply(command: command, reply: item.description) }
      texts.append(text)
    }
    return texts
  }

  /// A summary from its `HMGET` fields, or nil when it has none.
  public static func summary(_ fields: [RedisReply]) -> ClusterSummary? {
    guard fields.count == 5, let epoch = fields[0].text, let seq = fields[1].integer else { return nil }
    return ClusterSummary(
      epoch: epoch, seq: UInt64(max(0, seq)), lists: Int(fields[2].integer ?? 0), items: Int(fields[3].integer ?? 0),
      updatedMilliseconds: fields[4].integer ?? 0)
  }
}

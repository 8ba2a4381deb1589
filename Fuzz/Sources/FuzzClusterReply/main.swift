import FuzzSupport
import RedisWire
import ReorderRedis

// Redis Cluster's replies as the client reads them: the bytes are one RESP2 reply (a
// `CLUSTER SLOTS` answer), and the same bytes as the text of an error reply (a redirection:
// `MOVED <slot> <host>:<port>` or `ASK …`). What hiredis would not read as one reply is
// skipped for the map (`RESP.reply`).
// Contract: never crashes;
// - a slot map is refused with `unexpectedReply` naming `CLUSTER SLOTS`, or it is a map whose
//   ranges lie within 0…16,383, do not overlap, and give every slot of a range that range's
//   master (and no master to a slot outside every range);
// - a map written back as Redis would send it reads as the same map;
// - a redirection states a slot within 0…16,383 and a port within 1…65,535, and the same
//   redirection written back in Redis' words reads the same; `RedisKeySlot` of any key is a slot;
// - the same bytes as an appends-channel notice (`ClusterNotice`): refused, or an entry with a
//   seq ≥ 1 whose notice written back is the same bytes.
let source = RedisClusterNode(host: "10.0.0.1", port: 7000)

/// The `CLUSTER SLOTS` reply that states `map`.
func reply(_ map: RedisSlotMap) -> RedisReply {
  func node(_ n: RedisClusterNode) -> RedisReply {
    .array([.bulk(Array(n.host.utf8)), .integer(Int64(n.port))] + (n.id.map { [.bulk(Array($0.utf8))] } ?? []))
  }
  return .array(
    map.ranges.map { range in
      .array(
        [.integer(Int64(range.first)), .integer(Int64(range.last)), node(range.master)] + range.replicas.map(node))
    })
}

runFuzzer { bytes in
  fuzzCheck((0..<RedisKeySlot.count).contains(RedisKeySlot.slot(of: bytes)), "a key's slot out of range")

  if let entries = ClusterNotice.entries(bytes) {
    fuzzCheck(!entries.isEmpty && entries.allSatisfy { $0.seq >= 1 }, "a notice of no entry, or of seq 0")
    // Written back with every length given, a notice reads as the same entries (an epoch or node
    // id that is not UTF-8 was read as other characters, which write back as themselves).
    fuzzCheck(
      ClusterNotice.entries(ClusterNotice.bytes(of: entries)) == entries, "a notice written back reads otherwise")
  }

  let text = String(decoding: bytes, as: UTF8.self)
  if let redirect = RedisRedirect(error: text, from: source) {
    fuzzCheck((0..<RedisKeySlot.count).contains(redirect.slot), "a redirection to a slot out of range")
    fuzzCheck((1...65_535).contains(redirect.target.port), "a redirection to a port out of range")
    let word = redirect.kind == .moved ? "MOVED" : "ASK"
    let again = RedisRedirect(error: "\(word) \(redirect.slot) \(redirect.target.endpoint)", from: source)
    fuzzCheck(again == redirect && again?.kind == redirect.kind, "a redirection written back reads otherwise")
  }

  guard let sent = RESP.reply(from: bytes) else { return }
  let map: RedisSlotMap
  do throws(RedisError) {
    map = try RedisSlotMap(clusterSlots: sent, source: source)
  } catch {
    guard case .unexpectedReply(let command, let shape) = error else {
      fuzzCheck(false, "refused with \(error)")
      return
    }
    fuzzCheck(command.hasPrefix("CLUSTER") && !shape.isEmpty, "a refusal without its command or shape: \(error)")
    return
  }
  var covered = 0
  var previousLast = -1
  for range in map.ranges {
    fuzzCheck(
      range.first > previousLast && range.first <= range.last && range.last < RedisKeySlot.count,
      "ranges out of bounds or overlapping")
    previousLast = range.last
    covered += range.last - range.first + 1
    for slot in [range.first, (range.first + range.last) / 2, range.last] {
      fuzzCheck(map.master(ofSlot: slot) == range.master, "slot \(slot) is not its range's master's")
    }
  }
  fuzzCheck(map.coversAllSlots == (covered == RedisKeySlot.count), "coversAllSlots disagrees with the ranges")
  guard let back = RESP.reply(from: RESP.bytes(of: reply(map))),
    let again = try? RedisSlotMap(clusterSlots: back, source: source)
  else {
    fuzzCheck(false, "the map written back is refused")
    return
  }
  fuzzCheck(again == map, "read(write(map)) != map")
}

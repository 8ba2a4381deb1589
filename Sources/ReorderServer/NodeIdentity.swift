import Foundation
import ReorderCRDT

/// Who this process is among the nodes that share boards: its id, and what follows from it — the
/// CRDT replica id of every board it edits and the prefix of the session ids it hands out — so that
/// two processes never mint the same ids.
///
/// The id is given with `--node-id`, or kept in `<data>/node-id` (made on first start from the
/// system's random source); a throwaway server (`:memory:`) makes a new one each start. Each start
/// also gets a new boot number (kept in `<data>/node-boots`, else random), which goes into session
/// ids, since a restarted node hands out sessions again from 1.
struct NodeIdentity: Equatable, Sendable {
  /// 1–16 of `a-z 0-9`.
  let id: String
  /// This start of the node (increasing in a data directory; random without one).
  let boot: UInt64

  /// The CRDT replica of this node: a 32-bit FNV-1a hash of the id (never 0, and never 1, the
  /// replica of boards made without a node id: `CRDTRoomBoard.replica`), so that its op ids stay
  /// short on the wire.
  var replica: ReplicaID {
    var hash: UInt32 = 2_166_136_261
    for byte in id.utf8 {
      hash ^= UInt32(byte)
      hash = hash &* 16_777_619
    }
    return ReplicaID(UInt64(max(hash, 2)))
  }

  /// Session ids are `<prefix><n>`: `s<id>.<boot in base 36>-`.
  var sessionPrefix: String { "s\(id).\(String(boot, radix: 36))-" }

  /// Whether `id` is a valid node id.
  static func isValid(_ id: String) -> Bool {
    (1...16).contains(id.utf8.count)
      && id.utf8.allSatisfy {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
      }
  }

  /// The identity for a server: `given` (already validated) or the one kept in `dataDirectory`
  /// (made and kept there if absent); nil directory: a new random one.
  /// - Throws: when the data directory's files cannot be read or written.
  static func resolve(given: String?, dataDirectory: String?) throws -> NodeIdentity {
    guard let dataDirectory else {
      return NodeIdentity(id: given ?? randomID(), boot: UInt64.random(in: 1...46_655))
    }
    let idFile = URL(fileURLWithPath: dataDirectory).appendingPathComponent("node-id")
    let bootsFile = URL(fileURLWithPath: dataDirectory).appendingPathComponent("node-boots")
    var id = given
    if id == nil {
      if let kept = try? String(contentsOf: idFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
        isValid(kept)
      {
        id = kept
      } else {
        let made = randomID()
        try Data((made + "\n").utf8).write(to: idFile, options: .atomic)
        id = made
      }
    }
    let previous = (try? String(contentsOf: bootsFile, encoding: .utf8)).flatMap {
      UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    let boot = (previous ?? 0) + 1
    try Data("\(boot)\n".utf8).write(to: bootsFile, options: .atomic)
    return NodeIdentity(id: id!, boot: boot)
  }

  /// 8 random characters of `a-z 0-9`.
  static func randomID() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    return String((0..<8).map { _ in alphabet.randomElement()! })
  }
}

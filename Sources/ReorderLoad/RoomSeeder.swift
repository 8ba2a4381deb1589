import Foundation

/// Makes sure a room has a list with enough items (and, for a big board, a history of moves) for
/// the run, through the room's first client: reads its `welcome` board, creates a list, inserts
/// items and makes moves as needed, keeping at most `window` ops in flight, and waits for each
/// `applied`. Runs on its client's service thread. Items are rare enough for Foundation's JSON
/// parser; a move's `applied` is recognised by its id alone (a big board has 100,000 of them).
final class RoomSeeder {
  let room: Int
  let wantedItems: Int
  let wantedMoves: Int
  let window: Int
  private(set) var list: String?
  private(set) var items: [String] = []
  private var pending: Set<String> = []
  private var nextID = 0
  private var insertsUnsent = 0
  private var movesUnsent = 0
  private var random: SplitMix64
  /// Ops sent and applied so far.
  private(set) var opsSent = 0
  private(set) var opsApplied = 0
  /// The board once ready.
  private(set) var board: RoomBoard?
  /// Why seeding failed, if it did.
  private(set) var failure: String?

  init(room: Int, wantedItems: Int, wantedMoves: Int = 0, window: Int = 256) {
    self.room = room
    self.wantedItems = wantedItems
    self.wantedMoves = wantedMoves
    self.window = max(1, window)
    random = SplitMix64(seed: 0xB0A2_D000 &+ UInt64(room))
  }

  /// Handles the seeder's `welcome`; returns the op frames to send.
  func welcome(_ text: String) -> [String] {
    guard let object = Self.object(text), let board = object["board"] as? [String: Any] else {
      failure = "welcome without a board"
      return []
    }
    let lists = (board["lists"] as? [[String: Any]]) ?? []
    let best = lists.max { ($0["items"] as? [Any])?.count ?? 0 < ($1["items"] as? [Any])?.count ?? 0 }
    if let best, let id = best["id"] as? String {
      list = id
      items = ((best["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
      return startFilling()
    }
    return [op(#"{"kind":"createList","title":"Load test","layout":"list"}"#)]
  }

  /// Handles an `applied` or `rejected` frame; returns further op frames to send.
  func received(type: String, text: String) -> [String] {
    guard failure == nil, let id = Self.topLevelID(text), pending.contains(id) else { return [] }
    pending.remove(id)
    if type == "rejected" {
      let object = Self.object(text)
      failure = "the server rejected a seeding op: \(object?["message"] as? String ?? "no message")"
      return []
    }
    opsApplied += 1
    if !Self.isMoveID(id) {
      let resolved = Self.object(text)?["op"] as? [String: Any] ?? [:]
      switch resolved["kind"] as? String {
      case "createList":
        list = resolved["list"] as? String
        guard list != nil else {
          failure = "createList applied without a list id"
          return []
        }
        return startFilling()
      case "insert":
        if let item = resolved["item"] as? String { items.append(item) }
      default:
        break
      }
    }
    return fill()
  }

  /// Counts what is missing once the list is known, then sends the first window.
  private func startFilling() -> [String] {
    insertsUnsent = max(0, wantedItems - items.count)
    movesUnsent = wantedMoves
    return fill()
  }

  /// Inserts first, then (once every insert is applied, so moves pick from every item) moves,
  /// up to `window` in flight; the board is ready when nothing is left.
  private func fill() -> [String] {
    guard let list else { return [] }
    var frames: [String] = []
    while insertsUnsent > 0 && pending.count < window {
      insertsUnsent -= 1
      frames.append(op(#"{"kind":"insert","list":"\#(list)","fields":{"title":"Load item \#(nextID + 1)"}}"#))
    }
    if insertsUnsent == 0 && pending.isEmpty && movesUnsent > 0 && items.isEmpty {
      failure = "no items to move"
      return frames
    }
    while insertsUnsent == 0 && movesUnsent > 0 && pending.count < window && !items.isEmpty {
      movesUnsent -= 1
      frames.append(move(in: list))
    }
    if insertsUnsent == 0 && movesUnsent == 0 && pending.isEmpty && board == nil {
      board = RoomBoard(list: list, items: items)
    }
    return frames
  }

  private func move(in list: String) -> String {
    let item = items[Int(random.next() % UInt64(items.count))]
    let anchorIndex = Int(random.next() % UInt64(items.count + 1))
    let anchor = anchorIndex < items.count && items[anchorIndex] != item ? items[anchorIndex] : nil
    let after = anchor.map { #","after":"\#($0)""# } ?? ""
    return op(#"{"kind":"move","item":"\#(item)","list":"\#(list)"\#(after)}"#, move: true)
  }

  private func op(_ body: String, move: Bool = false) -> String {
    nextID += 1
    let id = "seed\(room).\(move ? "m" : "")\(nextID)"
    pending.insert(id)
    opsSent += 1
    return #"{"type":"op","id":"\#(id)","op":\#(body)}"#
  }

  private static func isMoveID(_ id: String) -> Bool {
    guard let dot = id.firstIndex(of: ".") else { return false }
    return id[id.index(after: dot)...].hasPrefix("m")
  }

  /// The first `"id"` of a frame: the op id of `applied` and `rejected` (the server writes it
  /// before the op).
  private static func topLevelID(_ text: String) -> String? {
    var text = text
    return text.withUTF8 { FrameScanner(bytes: $0).string("id") }
  }

  private static func object(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
  }
}

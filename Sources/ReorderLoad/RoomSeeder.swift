import Foundation

/// Makes sure a room has a list with enough items for the run, through the room's first client:
/// reads its `welcome` board, creates a list and inserts items as needed, and waits for each
/// `applied`. Runs on its client's service thread; rare, so it may use Foundation's JSON parser.
final class RoomSeeder {
  let room: Int
  let wantedItems: Int
  private(set) var list: String?
  private(set) var items: [String] = []
  private var pending: Set<String> = []
  private var nextID = 0
  /// The board once ready.
  private(set) var board: RoomBoard?
  /// Why seeding failed, if it did.
  private(set) var failure: String?

  init(room: Int, wantedItems: Int) {
    self.room = room
    self.wantedItems = wantedItems
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
      return insertsIfNeeded()
    }
    return [op(#"{"kind":"createList","title":"Load test","layout":"list"}"#)]
  }

  /// Handles an `applied` or `rejected` frame; returns further op frames to send.
  func received(type: String, text: String) -> [String] {
    guard let object = Self.object(text), let id = object["id"] as? String, pending.contains(id) else { return [] }
    pending.remove(id)
    if type == "rejected" {
      failure = "the server rejected a seeding op: \(object["message"] as? String ?? "no message")"
      return []
    }
    let resolved = object["op"] as? [String: Any] ?? [:]
    switch resolved["kind"] as? String {
    case "createList":
      list = resolved["list"] as? String
      guard list != nil else {
        failure = "createList applied without a list id"
        return []
      }
      return insertsIfNeeded()
    case "insert":
      if let item = resolved["item"] as? String { items.append(item) }
    default:
      break
    }
    if pending.isEmpty, let list { board = RoomBoard(list: list, items: items) }
    return []
  }

  private func insertsIfNeeded() -> [String] {
    guard let list else { return [] }
    let missing = max(0, wantedItems - items.count)
    if missing == 0 {
      board = RoomBoard(list: list, items: items)
      return []
    }
    return (0..<missing).map { number in
      op(#"{"kind":"insert","list":"\#(list)","fields":{"title":"Load item \#(items.count + number + 1)"}}"#)
    }
  }

  private func op(_ body: String) -> String {
    nextID += 1
    let id = "seed\(room).\(nextID)"
    pending.insert(id)
    return #"{"type":"op","id":"\#(id)","op":\#(body)}"#
  }

  private static func object(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
  }
}

import Foundation
import ReorderRooms

/// What a webhook tells the app's backend (docs/WEBHOOKS.md): one JSON object per delivery.
struct WebhookEvent: Equatable, Sendable {
  /// The event's kind and what only that kind carries.
  enum Kind: Equatable, Sendable {
    /// Ops `fromSeq...toSeq` (both included) of epoch `epoch` became durable; `actors` made them
    /// (distinct, at most `OpActor.maxListed`).
    case changed(epoch: String, fromSeq: UInt64, toSeq: UInt64, actors: [OpActor])
    /// The board was created (or replaced: a new epoch).
    case created(epoch: String)
    /// The board was deleted.
    case deleted
  }

  var room: String
  var kind: Kind
  /// When it happened (Unix seconds): for `changed`, when `toSeq` became durable.
  var at: Double

  /// `board.changed`, `board.created` or `board.deleted`.
  var type: String {
    switch kind {
    case .changed: "board.changed"
    case .created: "board.created"
    case .deleted: "board.deleted"
    }
  }

  /// The body: `{"type","room",…,"at"}` with `at` in RFC 3339 (UTC, milliseconds).
  var body: [UInt8] {
    var fields: [(key: String, value: JSONValue)] = [("type", .string(type)), ("room", .string(room))]
    switch kind {
    case .changed(let epoch, let fromSeq, let toSeq, let actors):
      fields += [
        ("epoch", .string(epoch)), ("from_seq", .number(Double(fromSeq))), ("to_seq", .number(Double(toSeq))),
        ("actors", .array(actors.map(\.json))),
      ]
    case .created(let epoch):
      fields.append(("epoch", .string(epoch)))
    case .deleted:
      break
    }
    fields.append(("at", .string(Self.timestamp(at))))
    return JSONValue.object(fields).encoded()
  }

  /// `2026-12-01T18:04:05.123Z` for Unix seconds `seconds`.
  static func timestamp(_ seconds: Double) -> String {
    var whole = time_t(seconds.rounded(.down))
    let milliseconds = min(999, Int(((seconds - Double(whole)) * 1000).rounded(.down)))
    var parts = tm()
    gmtime_r(&whole, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
      + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
  }
}

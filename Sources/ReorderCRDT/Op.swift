/// One replicated operation on a board: a value that every replica applies to converge.
///
/// An op is made by exactly one replica (through an intent on ``Board``) and is then applied, in any
/// order and any number of times, by every other replica (``Board/apply(_:)``). Its id is
/// `(replica, Lamport clock)`; inserts and moves also use it as the id of the position they create.
///
/// Its one wire form is ``encoded()`` / ``init(encoded:)`` (compact, versioned binary);
/// ``description`` is a readable text for logs and test failures.
public struct Op: Hashable, Sendable, CustomStringConvertible {
  /// The op id; `id.counter` is its Lamport clock, and `(counter, replica)` its LWW stamp.
  public var id: OpID
  /// What the op does.
  public var action: Action

  /// Makes an op value (normally only ``Board`` intents do this).
  public init(id: OpID, action: Action) {
    self.id = id
    self.action = action
  }

  /// The op's Lamport clock.
  public var lamport: UInt64 { id.counter }

  /// The replicated actions.
  public enum Action: Hashable, Sendable {
    /// Creates an item (or, for an id that already exists, merges into it as a move + sets).
    case insert(item: ItemID, list: ListID, anchor: Anchor, fields: [String: FieldValue])
    /// Points the item's place register at a new position in `list`.
    case move(item: ItemID, list: ListID, anchor: Anchor)
    /// Sets the item's alive register to false.
    case delete(item: ItemID)
    /// Sets the item's alive register to true.
    case restore(item: ItemID)
    /// Sets one field register of the item.
    case set(item: ItemID, field: String, value: FieldValue)
    /// Adds an assignment of `item` onto `target`.
    case assign(assignment: AssignmentID, item: ItemID, target: ItemID)
    /// Removes the assignment (only this id: a concurrent new assignment of the same pair survives).
    case unassign(assignment: AssignmentID)
    /// Creates a list at a position of the board's list sequence.
    case createList(list: ListID, title: String, layout: Layout, anchor: Anchor)
    /// Points the list's place register at a new position of the list sequence.
    case moveList(list: ListID, anchor: Anchor)
    /// Sets the list's alive register to false.
    case deleteList(list: ListID)
  }

  /// The op's kind as a word (`"insert"`, `"move"`, … the case names of ``Action``).
  public var kind: String {
    switch action {
    case .insert: "insert"
    case .move: "move"
    case .delete: "delete"
    case .restore: "restore"
    case .set: "set"
    case .assign: "assign"
    case .unassign: "unassign"
    case .createList: "createList"
    case .moveList: "moveList"
    case .deleteList: "deleteList"
    }
  }

  /// The item the op is about, if any (`assign`: the assigned item).
  public var item: ItemID? {
    switch action {
    case .insert(let item, _, _, _), .move(let item, _, _), .delete(let item), .restore(let item),
      .set(let item, _, _), .assign(_, let item, _):
      item
    default: nil
    }
  }

  /// The list the op is about, if any (`insert`/`move`: the destination).
  public var list: ListID? {
    switch action {
    case .insert(_, let list, _, _), .move(_, let list, _), .createList(let list, _, _, _),
      .moveList(let list, _), .deleteList(let list):
      list
    default: nil
    }
  }

  /// True when the op creates a position (insert, move, createList, moveList).
  public var createsPosition: Bool {
    switch action {
    case .insert, .move, .createList, .moveList: true
    default: false
    }
  }

  /// `"<id> <kind>"` and the op's members as `name=value`, e.g.
  /// `7@1 move item=3@1 list=1@1 parent=5@2 side=left` (`parent=root` for the sequence root).
  public var description: String {
    var parts = [id.description, kind]
    func anchor(_ a: Anchor) {
      parts.append("parent=\(a.parent?.description ?? "root")")
      parts.append("side=\(a.side == .left ? "left" : "right")")
    }
    switch action {
    case .insert(let item, let list, let a, let fields):
      parts += ["item=\(item)", "list=\(list)"]
      anchor(a)
      parts += fields.keys.sorted().map { "\($0)=\(fields[$0]!)" }
    case .move(let item, let list, let a):
      parts += ["item=\(item)", "list=\(list)"]
      anchor(a)
    case .delete(let item), .restore(let item): parts.append("item=\(item)")
    case .set(let item, let field, let value): parts += ["item=\(item)", "\(field)=\(value)"]
    case .assign(let assignment, let item, let target):
      parts += ["assignment=\(assignment)", "item=\(item)", "target=\(target)"]
    case .unassign(let assignment): parts.append("assignment=\(assignment)")
    case .createList(let list, let title, let layout, let a):
      parts += ["list=\(list)", "title=\(title.debugDescription)", "layout=\(layout.rawValue)"]
      anchor(a)
    case .moveList(let list, let a):
      parts.append("list=\(list)")
      anchor(a)
    case .deleteList(let list): parts.append("list=\(list)")
    }
    return parts.joined(separator: " ")
  }
}

extension FieldValue: CustomStringConvertible {
  /// A string as a quoted literal, a number or a bool as written in Swift.
  public var description: String {
    switch self {
    case .string(let s): s.debugDescription
    case .number(let d): Op.exactInteger(d).map(String.init) ?? "\(d)"
    case .bool(let b): b ? "true" : "false"
    }
  }
}

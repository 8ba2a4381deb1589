/// The demo boards `reorder serve --demo` creates when absent, each as a list of intents.
public enum DemoBoards {
  /// Room name → the intents that build it, in order.
  public static let all: [(room: String, intents: [Intent])] = [
    ("food", food), ("home", home), ("numbers", numbers), ("cities", cities),
  ]

  private static func item(_ list: String, _ id: String, _ fields: [String: WireFieldValue]) -> Intent {
    .insert(list: list, after: nil, before: nil, fields: fields, item: id)
  }

  /// Seed 004: foods with a price and an emoji, dropped onto people whose totals grow.
  static let food: [Intent] = {
    var intents: [Intent] = [
      .createList(list: "people", title: "People", layout: "grid", after: nil),
      .createList(list: "foods", title: "Food", layout: "grid", after: nil),
    ]
    let foods: [(String, String, Double, String)] = [
      ("pizza", "Pizza", 20, "🍕"), ("pasta", "Pasta", 13, "🍝"), ("burger", "Burger", 10, "🍔"),
      ("sizzler", "Sizzler", 50, "🥘"),
    ]
    for (id, title, price, emoji) in foods {
      intents.append(
        item(
          "foods", id,
          ["title": .string(title), "price": .number(price), "emoji": .string(emoji), "role": .string("food")]))
    }
    for (id, title, emoji) in [("john", "John", "👨"), ("daizy", "Daizy", "👩"), ("tom", "Tom", "🧑")] {
      intents.append(item("people", id, ["title": .string(title), "emoji": .string(emoji), "role": .string("person")]))
    }
    return intents
  }()

  /// Seed 000: a home screen of 24 apps in a grid.
  static let home: [Intent] = {
    let apps: [(String, String)] = [
      ("Phone", "📞"), ("Messages", "💬"), ("Mail", "✉️"), ("Safari", "🧭"), ("Music", "🎵"), ("Photos", "🌄"),
      ("Camera", "📷"), ("Maps", "🗺️"), ("Weather", "⛅"), ("Clock", "⏰"), ("Calendar", "📅"), ("Notes", "📝"),
      ("Reminders", "✅"), ("Calculator", "🧮"), ("Settings", "⚙️"), ("App Store", "🛍️"), ("Books", "📚"),
      ("Podcasts", "🎙️"), ("TV", "📺"), ("Health", "❤️"), ("Wallet", "👛"), ("Files", "📁"), ("Contacts", "👥"),
      ("Translate", "🌐"),
    ]
    var intents: [Intent] = [.createList(list: "apps", title: "Home", layout: "grid", after: nil)]
    for (title, emoji) in apps {
      let id = title.lowercased().replacingSpaces()
      intents.append(item("apps", id, ["title": .string(title), "emoji": .string(emoji)]))
    }
    return intents
  }()

  /// Seed 003: 100 numbered tiles in a grid.
  static let numbers: [Intent] = {
    var intents: [Intent] = [.createList(list: "numbers", title: "Numbers", layout: "grid", after: nil)]
    for n in 1...100 {
      intents.append(item("numbers", "n\(n)", ["title": .string("\(n)"), "number": .number(Double(n))]))
    }
    return intents
  }()

  /// Seed 001: a list of cities, reordered like the weather app's.
  static let cities: [Intent] = {
    let cities: [(String, String)] = [
      ("Tokyo", "🗼"), ("Paris", "🥐"), ("New York", "🗽"), ("London", "💂"), ("Sydney", "🦘"), ("Cairo", "🐪"),
      ("Rio de Janeiro", "🏖️"), ("Reykjavik", "🌋"), ("Mumbai", "🛺"), ("Toronto", "🍁"), ("Istanbul", "🕌"),
      ("Cape Town", "⛰️"),
    ]
    var intents: [Intent] = [.createList(list: "cities", title: "Cities", layout: "list", after: nil)]
    for (title, emoji) in cities {
      intents.append(
        item("cities", title.lowercased().replacingSpaces(), ["title": .string(title), "emoji": .string(emoji)]))
    }
    return intents
  }()
}

extension String {
  fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}

extension Room {
  /// Applies an op made by the server itself (demo boards): client `server`, by `server`.
  public mutating func performSystem(_ intent: Intent, id: String) throws(ProtocolError) -> [RoomAction] {
    let (logged, resolved) = try board.perform(intent, ids: GeneratedIDs(seq: seq + 1))
    seq += 1
    // No actor and no time: the demo boards are the same at every start.
    let record = self.record(
      id: id, client: "server", by: "server", resolved: resolved, logged: logged, seq: seq, actor: nil, at: nil)
    durability.wait(seq: seq, frame: record.applied(seq: seq))
    remember(key: OpRecord.key(client: "server", id: id), seq: seq)
    snapshots.opApplied()
    return [.persist(room: name, ops: [LogEntry(seq: seq, payload: record.encoded())])]
  }
}

import ReorderCRDT

extension CRDTRoomBoard {
  /// `boardJSON().encoded()`, written straight from the board without building the value tree
  /// first: a board of 10,000 items is tens of thousands of small values, built and freed for one
  /// encoding at every load and at every seq that gets a join.
  public func encodedBoardJSON() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(64 + 56 * itemCount)
    var targets = Set<String>()
    out.append(contentsOf: #"{"lists":["#.utf8)
    for (listIndex, list) in board.lists.enumerated() {
      if listIndex > 0 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: #"{"id":"#.utf8)
      JSONValue.writeString(list.id.rawValue, to: &out)
      out.append(contentsOf: #","title":"#.utf8)
      JSONValue.writeString(list.title, to: &out)
      out.append(contentsOf: #","layout":"#.utf8)
      JSONValue.writeString(list.layout.rawValue, to: &out)
      out.append(contentsOf: #","items":["#.utf8)
      for (itemIndex, id) in board.items(in: list.id).enumerated() {
        if itemIndex > 0 { out.append(UInt8(ascii: ",")) }
        let fields = board.item(id)?.fields ?? [:]
        if fields["role"] == .string("person") { targets.insert(id.rawValue) }
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONValue.writeString(id.rawValue, to: &out)
        out.append(contentsOf: #","fields":{"#.utf8)
        for (fieldIndex, key) in fields.keys.sorted().enumerated() {
          if fieldIndex > 0 { out.append(UInt8(ascii: ",")) }
          JSONValue.writeString(key, to: &out)
          out.append(UInt8(ascii: ":"))
          CRDTRoomBoard.fieldJSON(fields[key]!).write(to: &out)
        }
        out.append(contentsOf: "}}".utf8)
      }
      out.append(contentsOf: "]}".utf8)
    }
    out.append(contentsOf: #"],"assignments":["#.utf8)
    let assignments = board.assignments
    for (index, a) in assignments.enumerated() {
      targets.insert(a.target.rawValue)
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: #"{"id":"#.utf8)
      JSONValue.writeString(a.id.rawValue, to: &out)
      out.append(contentsOf: #","item":"#.utf8)
      JSONValue.writeString(a.item.rawValue, to: &out)
      out.append(contentsOf: #","target":"#.utf8)
      JSONValue.writeString(a.target.rawValue, to: &out)
      out.append(UInt8(ascii: "}"))
    }
    out.append(contentsOf: #"],"totals":{"#.utf8)
    for (index, target) in targets.sorted().enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      let totals = board.totals(of: ItemID(target))
      JSONValue.writeString(target, to: &out)
      out.append(contentsOf: #":{"count":"#.utf8)
      JSONValue.writeNumber(Double(totals.count), to: &out)
      out.append(contentsOf: #","sum":"#.utf8)
      JSONValue.writeNumber(totals.sum, to: &out)
      out.append(UInt8(ascii: "}"))
    }
    out.append(contentsOf: "}}".utf8)
    return out
  }
}

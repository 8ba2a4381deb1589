/// The extra members of a resolved `delete` / `restore` when assignments disappear or reappear with
/// the item (an assignment counts only while its item and its target are both alive):
/// `"unassigned": [ids]` or `"assigned": [{id,item,target}]`, and `"totals"` of the affected targets.
enum AssignmentChanges {
  static func members(
    key: String, ids: [String], assignments: [(id: String, item: String, target: String)], targets: [String],
    totals: (String) -> JSONValue
  ) -> [(key: String, value: JSONValue)] {
    guard !ids.isEmpty || !assignments.isEmpty else { return [] }
    let list: JSONValue =
      assignments.isEmpty
      ? .array(ids.map { .string($0) })
      : .array(
        assignments.map {
          .object([("id", .string($0.id)), ("item", .string($0.item)), ("target", .string($0.target))])
        })
    return [(key, list), ("totals", .object(Set(targets).sorted().map { ($0, totals($0)) }))]
  }
}

extension StoreWriter {
  /// The WAL file is cut back to this size whenever a checkpoint lets SQLite start it over
  /// (`PRAGMA journal_size_limit`). Between checkpoints it grows to the automatic checkpoint's
  /// 1,000 pages (4 MB) plus one commit; checkpointing more often would cost more fsyncs.
  static let walSizeLimitBytes = 1 << 20

  /// Free pages kept for the inserts that follow a trim, as a fraction (1 / this) of the file:
  /// the next snapshot interval's ops reuse them, so handing them back would only make the file
  /// shrink and grow again.
  static let freePageSlackDivisor: Int64 = 4

  /// After a trim: when more than the slack of the file is free pages, hands the pages beyond half
  /// the slack back to the file system (`PRAGMA incremental_vacuum`, in the current transaction).
  /// A database made before incremental auto-vacuum was on only reuses its free pages (the pragma
  /// does nothing there).
  /// - Complexity: O(pages handed back).
  func reclaimFreePages() throws(StoreError) {
    let free = try connection.scalarInt("PRAGMA freelist_count")
    let pages = try connection.scalarInt("PRAGMA page_count")
    let slack = max(256, pages / StoreWriter.freePageSlackDivisor)
    guard free > slack else { return }
    try connection.execute("PRAGMA incremental_vacuum(\(free - slack / 2))")
  }
}

import Testing

@testable import ReorderRooms

@Suite("The stamps of a room's catch-up window")
struct StampWindowTests {
  func stamp(_ name: String?, _ at: Int64?) -> OpStamp { OpStamp(actor: name.map { OpActor(name: $0) }, at: at) }

  @Test("Stamps set in seq order read back as set; unknown seqs and ones set to nil read nil")
  func setAndGet() {
    var window = StampWindow()
    #expect(window.isEmpty)
    for seq in UInt64(5)...9 { window[seq] = stamp(seq % 2 == 0 ? "Ann" : "Bob", Int64(seq) * 1_000) }
    #expect(window.count == 5)
    for seq in UInt64(5)...9 { #expect(window[seq] == stamp(seq % 2 == 0 ? "Ann" : "Bob", Int64(seq) * 1_000)) }
    #expect(window[4] == nil)
    #expect(window[10] == nil)
    window[7] = nil
    #expect(window[7] == nil)
    #expect(window[8] == stamp("Ann", 8_000))
    window[8] = stamp(nil, 1)
    #expect(window[8] == stamp(nil, 1))
    window[3] = stamp("Cy", 3)
    #expect(window[3] == nil, "older than the window: not kept")
  }

  @Test("A short gap is left unstamped; a long one starts the window again at the new seq")
  func gaps() {
    var window = StampWindow()
    window[1] = stamp("Ann", 1)
    window[4] = stamp("Bob", 4)
    #expect(window[1] == stamp("Ann", 1))
    #expect(window[2] == nil && window[3] == nil)
    #expect(window[4] == stamp("Bob", 4))
    window[100_000] = stamp("Cy", 5)
    #expect(window[1] == nil && window[4] == nil)
    #expect(window[100_000] == stamp("Cy", 5))
    #expect(window.count == 1)
  }

  @Test("Dropping below a seq forgets the older stamps and keeps the rest; below the first, nothing")
  func dropBelow() {
    var window = StampWindow()
    for seq in UInt64(1)...1_000 { window[seq] = stamp("n\(seq % 3)", Int64(seq)) }
    window.dropBelow(1)
    #expect(window.count == 1_000)
    for cut in stride(from: UInt64(100), through: 900, by: 100) {
      window.dropBelow(cut)
      #expect(window[cut - 1] == nil)
      #expect(window[cut] == stamp("n\(cut % 3)", Int64(cut)))
      #expect(window[1_000] == stamp("n\(1_000 % 3)", 1_000))
      #expect(window.count == Int(1_001 - cut))
    }
    window.dropBelow(5_000)
    #expect(window.isEmpty)
    window[6_000] = stamp("Ann", 6)
    #expect(window[6_000] == stamp("Ann", 6))
  }

  @Test("Many passing authors: each stamp reads back its own actor while the window moves on")
  func manyActors() {
    var window = StampWindow()
    let keep: UInt64 = 200
    for seq in UInt64(1)...5_000 {
      window[seq] = stamp("author-\(seq / 3)", Int64(seq))
      if seq > keep { window.dropBelow(seq - keep + 1) }
      if seq % 97 == 0 {
        for old in (seq - min(seq, keep) + 1)...seq { #expect(window[old] == stamp("author-\(old / 3)", Int64(old))) }
      }
    }
    #expect(window.count == Int(keep))
  }
}

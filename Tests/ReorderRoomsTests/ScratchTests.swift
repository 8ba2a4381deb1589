import Testing

@testable import ReorderRooms

@Test func scratchSeedTwelve() {
  let h = RoomsHarness()
  let a = h.join(1)
  h.seed(a, ids: (0..<12).map { "i\($0)" })
  print("FRAMES", h.take(a).map { $0.jsonText }.suffix(3))
}

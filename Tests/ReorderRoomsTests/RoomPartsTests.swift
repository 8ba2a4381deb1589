import Testing

@testable import ReorderRooms

/// The parts a room keeps its durability wait and its snapshot timing in.
@Suite("A room's durability queue and snapshot schedule")
struct RoomPartsTests {
  @Test("Ops wait in seq order; releasing moves the durable seq; dropping removes the released")
  func durabilityQueue() {
    var queue = DurabilityQueue()
    queue.isDurable(at: 10)
    #expect(queue.isEmpty && queue.durableSeq == 10)
    queue.wait(seq: 11, frame: [1])
    queue.wait(seq: 12, frame: [2])
    queue.wait(seq: 13, frame: [3])
    #expect(queue.frame(seq: 12) == [2])
    #expect(queue.frame(seq: 10) == nil, "a durable op does not wait")
    queue.released(11)
    queue.released(12)
    #expect(queue.durableSeq == 12)
    queue.dropReleased(2)
    #expect(queue.frames.map(\.seq) == [13])
    #expect(queue.frame(seq: 12) == nil)
    queue.released(13)
    queue.dropReleased(1)
    #expect(queue.isEmpty && queue.durableSeq == 13)
  }

  @Test("A snapshot is due after the interval's ops, at a compaction boundary when the interval reaches it")
  func snapshotSchedule() {
    var limits = RoomLimits()
    limits.snapshotEvery = 10
    var schedule = SnapshotSchedule()
    for _ in 0..<9 { schedule.opApplied() }
    #expect(!schedule.isDue(limits, seq: 9, compactEvery: 5_000), "9 ops of 10")
    schedule.opApplied()
    // Shorter than the compaction interval: due when the interval is reached.
    #expect(schedule.isDue(limits, seq: 10, compactEvery: 5_000))
    // At least the compaction interval: due at the next boundary only.
    #expect(schedule.isDue(limits, seq: 10, compactEvery: 10))
    #expect(!schedule.isDue(limits, seq: 11, compactEvery: 5))
    #expect(schedule.isDue(limits, seq: 15, compactEvery: 5))
    schedule.taken(bytes: 100)
    #expect(schedule.opsSince == 0 && schedule.lastBytes == 100)
    #expect(!schedule.isDue(limits, seq: 20, compactEvery: 5_000))
  }

  @Test("A large board's interval grows with its snapshot's size, capped at the kept windows")
  func intervalGrowsWithSize() {
    var limits = RoomLimits()
    limits.snapshotEvery = 10
    var schedule = SnapshotSchedule()
    #expect(schedule.interval(limits) == 10)
    schedule.loaded(bytes: RoomLimits.snapshotBytesPerOp * 50)
    #expect(schedule.interval(limits) == max(10, min(50, RoomLoad.remembering(limits))))
    schedule.loaded(bytes: RoomLimits.snapshotBytesPerOp * 10_000_000)
    #expect(schedule.interval(limits) == RoomLoad.remembering(limits))
    schedule.opApplied()
    schedule.forgetOps()
    #expect(schedule.opsSince == 0, "a rebuild snapshots nothing applied before it")
  }
}

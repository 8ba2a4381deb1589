import Testing

@testable import ReorderLoad

@Suite("Measurement model")
struct MeasurementTests {
  @Test("Percentiles of a histogram fall within its precision")
  func percentiles() {
    var histogram = LatencyHistogram()
    for value in 1...1_000 { histogram.record(microseconds: Int64(value) * 1_000) }
    #expect(histogram.count == 1_000)
    let p50 = Double(histogram.percentile(0.5))
    let p99 = Double(histogram.percentile(0.99))
    #expect(abs(p50 - 500_000) / 500_000 < 0.02)
    #expect(abs(p99 - 990_000) / 990_000 < 0.02)
    #expect(histogram.max == 1_000_000)
    #expect(histogram.percentile(1) == 1_000_000)
  }

  @Test("An empty histogram reports zero and merging adds counts")
  func emptyAndMerge() {
    var first = LatencyHistogram()
    #expect(first.percentile(0.99) == 0)
    var second = LatencyHistogram()
    second.record(microseconds: 10)
    second.record(microseconds: -5)
    first.merge(second)
    #expect(first.count == 2)
    #expect(first.min == 0)
    #expect(first.max == 10)
  }

  @Test("Bucket bounds are monotonic and every value lands in its own bucket")
  func buckets() {
    for value: UInt64 in [0, 1, 63, 64, 65, 127, 128, 1_000, 123_456, 1 << 40] {
      let bucket = LatencyHistogram.bucket(of: value)
      #expect(LatencyHistogram.lowerBound(of: bucket) <= value)
      #expect(LatencyHistogram.lowerBound(of: bucket + 1) > value)
    }
  }

  /// A drag sent every 10 ms: updates 0…11 at 0, 10, …, 110 ms.
  func log() -> DragSentLog {
    var log = DragSentLog()
    let drag = log.addDrag(room: 0, owner: 7)
    for seq in 0..<12 { log.recordSend(drag: drag, seq: Int32(seq), time: Int64(seq) * 10_000, isEnd: seq == 11) }
    return log
  }

  @Test("A newer update arriving in time covers the skipped ones; a late one does not")
  func coverage() {
    let log = log()
    var measurements = Measurements()
    measurements.window = 100_000
    var state = ReceiverState()
    // Update 5 (sent at 50 ms) arrives at 60 ms: 0…5 all sent within 100 ms of that arrival.
    measurements.receive(
      DragStamp(drag: 0, seq: 5, sent: 50_000), receiver: 1, state: &state, arrival: 60_000, log: log)
    #expect(measurements.counters.dragUpdatesCovered == 6)
    // Update 9 (sent at 90 ms) arrives at 250 ms: 6…9 were sent at 60…90 ms, more than 100 ms before.
    measurements.receive(
      DragStamp(drag: 0, seq: 9, sent: 90_000), receiver: 1, state: &state, arrival: 250_000, log: log)
    #expect(measurements.counters.dragUpdatesCovered == 6)
    #expect(measurements.counters.dragUpdatesLate == 4)
    // The same update again is a duplicate; an older one is out of order.
    measurements.receive(
      DragStamp(drag: 0, seq: 9, sent: 90_000), receiver: 1, state: &state, arrival: 260_000, log: log)
    measurements.receive(
      DragStamp(drag: 0, seq: 3, sent: 30_000), receiver: 1, state: &state, arrival: 260_000, log: log)
    #expect(measurements.counters.dragDuplicates == 1)
    #expect(measurements.counters.dragOutOfOrder == 1)
    // 10 and 11 (the end) never arrive: lost, and the end is missing.
    measurements.finish(receiver: 1, room: 0, state: state, log: log)
    #expect(measurements.counters.dragUpdatesExpected == 12)
    #expect(measurements.counters.dragUpdatesLost == 2)
    #expect(measurements.counters.dragEndsExpected == 1)
    #expect(measurements.counters.dragEndsDelivered == 0)
    let counters = measurements.counters
    #expect(counters.dragUpdatesCovered + counters.dragUpdatesLate + counters.dragUpdatesLost == 12)
  }

  @Test("The sender's own echo is not counted as a delivery")
  func ownEcho() {
    let log = log()
    var measurements = Measurements()
    var state = ReceiverState()
    measurements.receive(
      DragStamp(drag: 0, seq: 1, sent: 10_000), receiver: 7, state: &state, arrival: 11_000, log: log)
    #expect(measurements.counters.ownEchoes == 1)
    #expect(measurements.counters.dragUpdatesDelivered == 0)
  }

  @Test("Staleness is the age of the freshest known position, or of the start when none arrived")
  func staleness() {
    var log = DragSentLog()
    let drag = log.addDrag(room: 0, owner: 0)
    log.recordSend(drag: drag, seq: 0, time: 0)
    log.recordSend(drag: drag, seq: 1, time: 40_000)
    var measurements = Measurements()
    measurements.sampleStaleness(receiver: 1, room: 0, state: ReceiverState(), now: 50_000, log: log)
    var state = ReceiverState()
    measurements.receive(
      DragStamp(drag: drag, seq: 1, sent: 40_000), receiver: 1, state: &state, arrival: 45_000, log: log)
    measurements.sampleStaleness(receiver: 1, room: 0, state: state, now: 50_000, log: log)
    #expect(measurements.staleness.count == 2)
    #expect(measurements.staleness.max == 50_000)
    #expect(measurements.staleness.min == 10_000)
  }

  @Test("Applied frames: own ids are acknowledgements, seq gaps and repeats are counted")
  func applied() {
    var measurements = Measurements()
    var state = ReceiverState()
    state.lastAppliedSeq = 4
    let own = MoveStamp(client: 3, number: 1, sent: 1_000).text
    let other = MoveStamp(client: 5, number: 1, sent: 2_000).text
    measurements.applied(id: own, seq: 5, receiver: 3, state: &state, arrival: 3_000)
    measurements.applied(id: other, seq: 7, receiver: 3, state: &state, arrival: 4_000)
    measurements.applied(id: other, seq: 7, receiver: 3, state: &state, arrival: 4_000)
    #expect(measurements.counters.movesAcknowledged == 1)
    #expect(measurements.counters.movesAppliedRemote == 2)
    #expect(measurements.counters.appliedGaps == 1)
    #expect(measurements.counters.appliedDuplicates == 1)
    #expect(measurements.ackLatency.max == 2_000)
  }
}

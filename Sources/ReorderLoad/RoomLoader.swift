import Glibc
import ReorderBasics

/// One extra client that joins a room and leaves it again once a period, during the traffic: on
/// a server that unloads a room as soon as its last member leaves (`--room-idle-seconds 0`), every
/// join loads the room again. With a big board in that room, the other rooms' figures show
/// whether loading it holds them up.
///
/// A join is `hello` until `welcome`, then a close. A turn that comes while the previous join is
/// still waiting (its `welcome` or its close) is skipped and counted, so a slow load lowers the
/// rate instead of stacking joins. Runs on its own context (service thread), so waiting for a big
/// `welcome` never delays the measured clients' events.
final class RoomLoader: @unchecked Sendable {
  enum State { case idle, joining, leaving }

  let context: any LoadSocketContext
  let url: String
  let room: String
  let clientID: String
  /// Service thread only.
  private var state = State.idle
  private var connection: (any LoadSocket)?
  private var joinStarted: Int64 = 0
  private var summary: LoaderSummary
  private var welcomeLatency = LatencyHistogram()
  private var stopped = false
  /// What the driver reads once the loader stopped.
  let result = Locked<LoaderSummary?>(nil)

  init(context: any LoadSocketContext, url: String, room: String, clientID: String, intervalMilliseconds: Double) {
    self.context = context
    self.url = url
    self.room = room
    self.clientID = clientID
    summary = LoaderSummary(room: room, intervalMilliseconds: intervalMilliseconds)
    context.post { RoomLoader.runOnlyOnIdleCPU() }
  }

  /// Puts the calling thread (the loader's service thread) in the idle scheduling class: reading a
  /// 500 KB `welcome` (lws parses frames byte by byte) is the load tool's work, not the server's,
  /// and on a machine with two cores it would otherwise take a core from the measured clients or
  /// the server for milliseconds at every join. The loader's join → `welcome` latency then
  /// includes any wait for an idle CPU.
  static func runOnlyOnIdleCPU() {
    #if os(Linux)
      var parameters = sched_param()
      _ = sched_setscheduler(0, 5 /* SCHED_IDLE */, &parameters)
    #endif
  }

  /// Service thread: one turn; joins unless the previous join is still under way.
  func turn() {
    guard !stopped else { return }
    guard state == .idle else {
      summary.skipped += 1
      return
    }
    state = .joining
    summary.joins += 1
    joinStarted = MonotonicClock.microseconds()
    connection = context.connect(url: url, subprotocol: nil) { [unowned self] event in self.handle(event) }
  }

  private func handle(_ event: LoadSocketEvent) {
    switch event {
    case .opened:
      connection?.send(
        ##"{"type":"hello","v":1,"room":"\##(room)","client":"\##(clientID)","name":"loader","color":"#000000"}"##)
    case .text(let text):
      guard state == .joining, Self.isWelcome(text) else { return }
      summary.welcomed += 1
      summary.largestWelcomeBytes = max(summary.largestWelcomeBytes, text.utf8.count)
      welcomeLatency.record(microseconds: MonotonicClock.microseconds() - joinStarted)
      state = .leaving
      connection?.close(code: 1000, reason: "loader leaves")
    case .binary:
      break
    case .closed:
      if state == .joining { summary.failed += 1 }
      state = .idle
      connection = nil
      if stopped { publish() }
    }
  }

  /// Service thread: no more turns; publishes the summary (at once, or when a join under way ends).
  func stop() {
    stopped = true
    if let connection, state != .idle {
      connection.close(code: 1000, reason: "load run done")
    } else {
      publish()
    }
  }

  private func publish() {
    var final = summary
    final.welcomeLatency = LatencySummary(welcomeLatency)
    result.withLock { $0 = final }
  }

  private static func isWelcome(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      let scanner = FrameScanner(bytes: bytes)
      guard let position = scanner.valueStart(of: "type"), let range = scanner.stringRange(at: position) else {
        return false
      }
      return UnsafeBufferPointer(rebasing: bytes[range]).elementsEqual("welcome".utf8)
    }
  }
}

/// What the loader did during a run.
public struct LoaderSummary: Sendable, Codable, Equatable {
  /// The room it joined and left.
  public var room: String
  /// Its period (ms).
  public var intervalMilliseconds: Double
  /// Joins started, answered with `welcome`, and closed before their `welcome`.
  public var joins = 0
  public var welcomed = 0
  public var failed = 0
  /// Turns skipped because the previous join was still under way (a slow load).
  public var skipped = 0
  /// Join → `welcome` (ms): how long loading the room took, as the joiner sees it.
  public var welcomeLatency = LatencySummary(LatencyHistogram())
  /// Size of the largest `welcome` (bytes): the board that was loaded.
  public var largestWelcomeBytes = 0

  /// Nothing done yet.
  public init(room: String, intervalMilliseconds: Double) {
    self.room = room
    self.intervalMilliseconds = intervalMilliseconds
  }
}

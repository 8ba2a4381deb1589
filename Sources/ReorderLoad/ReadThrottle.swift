/// Holds one slow client's reading to a byte rate (`--slow-read-bytes-per-second`).
///
/// Pure arithmetic, so tests can check it without sockets: the shard feeds it each message read
/// and stops reading from the socket when the client is ahead of its budget, until
/// `resumeTime`. The budget starts with the traffic (`start`); before that the client reads at
/// full speed, so joining is not what is measured.
struct ReadThrottle: Sendable, Equatable {
  /// Bytes the client may read per second.
  let bytesPerSecond: Double
  /// When the budget started (µs); nil before the traffic: no limit.
  var start: Int64?
  /// Bytes read since `start`.
  var consumed = 0
  /// Whether reading is stopped, waiting for `resumeTime`.
  var paused = false

  /// Bytes a websocket frame of a server message adds to its payload (2-byte header, 4 with a
  /// 16-bit length): counted so that the rate is that of the socket, not of the payloads.
  static func frameBytes(payload: Int) -> Int { payload + (payload < 126 ? 2 : payload < 65_536 ? 4 : 10) }

  init(bytesPerSecond: Double) { self.bytesPerSecond = max(1, bytesPerSecond) }

  /// When the bytes read so far are within the budget again (µs); nil before `start`.
  var resumeTime: Int64? {
    start.map { $0 + Int64((Double(consumed) * 1e6 / bytesPerSecond).rounded(.up)) }
  }

  /// Accounts a message of `payload` bytes read at `now`; returns true when the client is now
  /// ahead of its budget and must stop reading (it becomes `paused`).
  mutating func read(payload: Int, at now: Int64) -> Bool {
    guard start != nil else { return false }
    consumed += Self.frameBytes(payload: payload)
    guard !paused, let resume = resumeTime, resume > now else { return false }
    paused = true
    return true
  }

  /// Whether a paused client may read again at `now` (if so, `paused` is false afterwards).
  mutating func resume(at now: Int64) -> Bool {
    guard paused, let resume = resumeTime, resume <= now else { return false }
    paused = false
    return true
  }
}

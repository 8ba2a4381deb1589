/// What the kernel holds for one TCP socket that its reader has not read yet, as `TCP_INFO`
/// reports it (`SocketBacklog.read`). Plain numbers, so the rule below is pure.
struct SocketBacklog: Equatable, Sendable {
  /// Bytes written to the socket that TCP has not sent yet (`tcpi_notsent_bytes`).
  var unsentBytes: Int
  /// Bytes sent and not yet acknowledged (`tcpi_bytes_sent` − `tcpi_bytes_retrans` −
  /// `tcpi_bytes_acked`; on kernels before 4.19, `tcpi_unacked` segments × `tcpi_snd_mss`): on the
  /// wire, or in a queue of the path (a slow link's bytes are here).
  var inFlightBytes: Int
  /// The receive window the peer advertised last (`tcpi_snd_wnd`, bytes); nil on kernels before
  /// 5.4, which do not report it.
  var peerWindowBytes: Int?
}

/// The two bounds on a reader that does not keep up (`--slow-reader-bytes`,
/// `--slow-reader-seconds`; docs/PROTOCOL.md, "Slow readers").
public struct SlowReaderLimits: Sendable, Equatable {
  /// Presence is held back from a watched connection while more than this many bytes sent to it
  /// are in its server's kernel (`SlowReaderWatch.unsent`); 0 turns the gate off.
  public var gateBytes: Int = 16_384
  /// A connection whose backlog stays above `closeBytes` without halving for this long is closed
  /// with 4008; 0 never closes.
  public var closeSeconds: Double = 10

  /// The backlog (unread plus queued in the server) that starts the close clock: four gates, at
  /// least 64 KiB, so a client behind a slow link, which the gate keeps near its bound, is not
  /// closed for it.
  public var closeBytes: Int { max(4 * gateBytes, 65_536) }

  /// The defaults above.
  public init() {}

  /// Whether either bound is on (otherwise nothing is watched).
  var isOn: Bool { gateBytes > 0 || closeSeconds > 0 }
  /// Bytes queued to a connection between two looks at its kernel backlog while it is not watched.
  var checkEveryBytes: Int { gateBytes > 0 ? gateBytes : closeBytes / 4 }
}

/// One connection's slow-reader state: whether it is watched, how much of what it was sent it has
/// not read, and since when its backlog stays high. Pure: the transport feeds it kernel samples
/// (`SocketBacklog`) and the time, and acts on what it answers (`WriteScheduler+SlowReaders`).
///
/// *Unread* is what was written to the socket and has not reached the reader's application:
/// unsent + in flight + what the peer's kernel holds for it once its buffer is more than half
/// full, estimated as the largest receive window the peer ever advertised minus the one it
/// advertises now (`unread(_:)`). *Unsent* is the first two alone (`unsent(_:)`), exact. A
/// reader that reads everything at once has neither; one that reads slowly, or sits behind a slow
/// link, has unread bytes that only grow older. Rules:
/// - A connection is looked at once per `checkEveryBytes` queued to it; found with more than
///   that unread it becomes *watched*.
/// - A watched connection is busy for presence (`ServerConnection.isBusy`) while more than
///   `gateBytes` are unsent, looked up afresh at each question: the drags it gets wait behind at
///   most `gateBytes` in the server's kernel (fewer, fresher frames over a slow link), and the
///   server's and the kernel's buffers do not fill with stale drags.
/// - Watched connections are swept periodically: one whose backlog (unread + queued in the
///   server) has stayed above `closeBytes` for `closeSeconds` without falling to half of what it
///   was when the clock started is closed (4008). A backlog that halves (a large welcome draining
///   over a slow link) restarts the clock; one under `closeBytes` stops it.
/// - A watched connection found with at most `gateBytes / 2` unread and nothing queued at
///   `cleanSweeps` sweeps in a row is not watched any more.
struct SlowReaderWatch: Equatable, Sendable {
  /// Consecutive clean sweeps after which a connection is not watched any more.
  static let cleanSweeps = 5

  /// What a sweep decided.
  enum Verdict: Equatable {
    /// Still watched.
    case watch
    /// Not watched any more (it kept up for `cleanSweeps` sweeps).
    case release
    /// Close it with 4008: its backlog (`bytes`) did not halve for `seconds`.
    case close(bytes: Int, seconds: Double)
  }

  private(set) var isWatched = false
  /// The largest receive window the peer advertised (its buffer's free space when empty).
  private(set) var largestWindow = 0
  /// Bytes queued since the last look at the kernel (not watched).
  private(set) var bytesSinceCheck = 0
  /// When the backlog went above `closeBytes`, and how large it was then.
  private(set) var backlogSince: Double?
  private(set) var backlogAtStart = 0
  private(set) var clean = 0

  /// Bytes sent to the socket and not read by the peer's application, from a kernel sample (the
  /// backlog that watches a connection and closes it); it also remembers the sample's window if
  /// it is the largest so far.
  ///
  /// What the peer's buffer holds (largest window − window now) counts once its window is at most
  /// half open. Above that the window is noise: it is buffer space, not bytes (a small frame takes
  /// several times its size there), Linux ACKs data before the application reads it, and it
  /// announces the space a read frees only once its window has fallen to half or less, so
  /// readers that keep up show windows far below their largest (measured: 23–275 KB across the
  /// fast readers of one run). At most half open, it is a reader whose buffer fills, and what it
  /// reads frees space it announces.
  mutating func unread(_ sample: SocketBacklog) -> Int {
    var unread = Self.unsent(sample)
    if let window = sample.peerWindowBytes {
      largestWindow = max(largestWindow, window)
      if window * 2 <= largestWindow { unread += largestWindow - window }
    }
    return unread
  }

  /// What the gate looks at: the bytes the server's kernel still holds (unsent and in flight),
  /// exact, unlike the peer's window (`unread(_:)`): gating on that noise held drags back from
  /// readers that kept up (a third fewer frames and coverage 73 → 41 % for 300 clients in one
  /// room on the loaded machine).
  static func unsent(_ sample: SocketBacklog) -> Int { sample.unsentBytes + sample.inFlightBytes }

  /// Remembers the window a new connection's peer advertises (its buffer is empty then).
  mutating func opened(_ sample: SocketBacklog) { _ = unread(sample) }

  /// `bytes` were queued to the connection: true when it is time to look at its kernel backlog
  /// (then `checked(unread:limits:)`).
  mutating func queued(bytes: Int, limits: SlowReaderLimits) -> Bool {
    guard !isWatched, limits.isOn else { return false }
    bytesSinceCheck += bytes
    guard bytesSinceCheck >= limits.checkEveryBytes else { return false }
    bytesSinceCheck = 0
    return true
  }

  /// The result of the look `queued` asked for: true when the connection is watched from now on.
  mutating func checked(unread: Int, limits: SlowReaderLimits) -> Bool {
    guard !isWatched, unread > limits.checkEveryBytes else { return false }
    isWatched = true
    clean = 0
    return true
  }

  /// Whether a watched connection with `unsent` bytes in its server's kernel gets no presence now.
  func gates(unsent: Int, limits: SlowReaderLimits) -> Bool {
    isWatched && limits.gateBytes > 0 && unsent > limits.gateBytes
  }

  /// A periodic look at a watched connection: `unread` from the kernel, `queued` bytes waiting in
  /// the server, at `now` (seconds, any monotonic clock).
  mutating func sweep(unread: Int, queued: Int, now: Double, limits: SlowReaderLimits) -> Verdict {
    let backlog = unread + queued
    if backlog <= limits.closeBytes {
      backlogSince = nil
    } else if backlogSince == nil || backlog * 2 <= backlogAtStart {
      backlogSince = now
      backlogAtStart = backlog
    }
    if let since = backlogSince, limits.closeSeconds > 0, now - since >= limits.closeSeconds {
      return .close(bytes: backlog, seconds: now - since)
    }
    clean = queued == 0 && unread * 2 <= limits.gateBytes ? clean + 1 : 0
    guard clean >= Self.cleanSweeps else { return .watch }
    isWatched = false
    bytesSinceCheck = 0
    backlogSince = nil
    clean = 0
    return .release
  }
}

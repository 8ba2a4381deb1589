/// What one `reorder load` run does. Every run is bounded in time and in connection count.
///
/// The CLI (`Sources/reorder/LoadCommand.swift`) maps flags onto this; tests build it directly.
public struct LoadConfiguration: Sendable {
  /// What the clients speak.
  public enum Mode: String, Sendable, Codable {
    /// The Reorder rooms protocol (`/ws/<room>`, hello → welcome, `drag`, `op`).
    case reorder
    /// libwebsockets-test-server's `lws-mirror-protocol`: every message is relayed to every client.
    case mirror
  }

  /// Which websocket client the clients run on.
  public enum ClientIO: String, Sendable, Codable, CaseIterable {
    /// The tool's own epoll client (`EpollSocketContext`) for `ws://`, lws' for `wss://`.
    case auto
    /// The tool's own epoll client (`ws://` only).
    case epoll
    /// libwebsockets' client (`WebSocketClientContext` of ReorderTransport).
    case lws
  }

  /// A room token every client sends in its `hello` (a server that checks tokens); nil: none.
  public var token: String?
  /// Server URL, `ws://HOST:PORT` (a path is ignored; rooms are `/ws/<room>`), or a comma list
  /// of the nodes of a cluster, which the clients are spread over (`RoomPlan.nodeOfClient`).
  public var url = "ws://127.0.0.1:8080"
  /// Allow a target that is not a loopback address (`--allow-remote`).
  public var allowRemote = false
  /// The IPv4 address the clients connect from (`--source-address`, epoll clients only), or nil
  /// for the kernel's choice.
  public var sourceAddress: String?
  /// Every client of a room on one node of `url` (room i on node i mod nodes), as behind a load
  /// balancer that hashes the room path (`--affinity`); else a room's clients go round-robin.
  public var affinity = false
  /// A file whose appearance starts the traffic, once the clients joined and settled
  /// (`--start-gate`): the processes of one run start together. Nil: at once.
  public var startGate: String?
  /// Protocol spoken by the clients (`--mirror`).
  public var mode = Mode.reorder
  /// A short name for this run in tables and reports (`--label`).
  public var label = "load"
  /// One line describing the scenario (`--title`).
  public var title = ""
  /// Total clients, spread evenly over the rooms (`--clients`).
  public var clients = 100
  /// Rooms (`--rooms`); room names are `<roomPrefix><index>`.
  public var rooms = 1
  /// Prefix of room names (`--room-prefix`).
  public var roomPrefix = "load"
  /// Clients that drag (`--draggers`), spread evenly over the rooms; -1 means every client.
  public var draggers = 10
  /// Drag updates per second per dragger (`--drag-rate`).
  public var dragRate = 30.0
  /// Committed moves per second, in total over all clients (`--move-rate`); 0 = none.
  public var moveRate = 0.0
  /// Seconds of traffic after every client is connected (`--duration`).
  public var durationSeconds = 10.0
  /// Seconds allowed for connecting every client (`--connect-timeout`).
  public var connectTimeoutSeconds = 30.0
  /// Seconds to wait after the traffic for in-flight deliveries (`--drain`).
  public var drainSeconds = 2.0
  /// At most this long, after every client is ready, for the join traffic to stop (`--settle-timeout`).
  public var settleTimeoutSeconds = 20.0
  /// Connection attempts in flight at once (`--connect-concurrency`).
  public var connectConcurrency = 100
  /// Connection attempts started per second at most (`--connect-rate`); 0: only
  /// `connectConcurrency` bounds them.
  public var connectRate = 0.0
  /// Carry on with the clients that connected when some did not within `connectTimeoutSeconds`
  /// (`--partial`), instead of failing the run; the result says how many connected.
  public var partialConnect = false
  /// Connect, wait for the join traffic to settle, and stop (`--join-only`): no room is prepared
  /// and nothing is sent beyond `hello`, so the run measures what joining costs.
  public var joinOnly = false
  /// Prepare the rooms (`seedItems` items, then `seedMoves` moves, by each room's first client) and
  /// stop (`--seed-only`): fills a data directory for later runs.
  public var seedOnly = false
  /// Committed moves the first client of each room makes after the items exist (`--seed-moves`).
  public var seedMoves = 0
  /// Ops a seeding client keeps in flight (sent, not yet applied) (`--seed-window`).
  public var seedWindow = 256
  /// A room that one extra client joins and leaves during the traffic (`--loader-room`): each
  /// join makes a server that unloads idle rooms load it again.
  public var loaderRoom: String?
  /// How often the loader joins (`--loader-interval-ms`); a join still waiting for its `welcome`
  /// makes it skip a turn.
  public var loaderIntervalMilliseconds = 100.0
  /// Receivers that account drag updates one by one (`--measure-receivers`; 0: every client).
  /// With N, every (clients ÷ N)-th client does, spread evenly over the rooms and the join order;
  /// the others only count frames, so that a room of 10,000 does not make the tool the limit.
  /// Coverage, latency, staleness and silence are then those of the measured receivers.
  public var measureReceivers = 0
  /// Fraction of the clients that read slowly (`--slow-readers`, 0…1): never a dragger nor the
  /// first client of a room (`RoomPlan.slowReaders`). Their figures are reported apart
  /// (`LoadResult.slowReaders`); latency, coverage and staleness are the other clients'.
  public var slowReaders = 0.0
  /// Bytes per second a slow reader takes from its socket at most during the traffic
  /// (`--slow-read-bytes-per-second`): it stops reading (lws rx flow control) when ahead.
  public var slowReadBytesPerSecond = 10_240
  /// The websocket client (`--client-io`).
  public var clientIO = ClientIO.auto
  /// Client service threads (`--threads`): each is one client context (one epoll set, or one lws
  /// context) with its share of the connections.
  public var threads = 1
  /// Window within which an update must be covered (`--coverage-window-ms`).
  public var coverageWindowMilliseconds = 100.0
  /// How often staleness is sampled at every receiver (`--staleness-interval-ms`).
  public var stalenessIntervalMilliseconds = 100.0
  /// Ramp: add draggers until delivered updates/s stop rising (`--ramp`).
  public var ramp = false
  /// Ramp: draggers added per step (`--ramp-step`).
  public var rampStep = 10
  /// Ramp: seconds per step (`--ramp-step-seconds`).
  public var rampStepSeconds = 2.0
  /// Ramp (moves): multiply the move rate by this each step (`--ramp-factor`).
  public var rampFactor = 1.5
  /// Items the first client of a room makes sure exist, creating a list if needed (`--seed-items`).
  public var seedItems = 20
  /// Bytes of a mirror message (padding so it is about as large as a drag update) (`--mirror-bytes`).
  public var mirrorMessageBytes = 160
  /// Server process to sample CPU and RSS from, via /proc (`--server-pid`).
  public var serverPID: Int32?
  /// Write the result as JSON here (`--json`).
  public var jsonPath: String?
  /// Write a self-contained HTML report here (`--html`).
  public var htmlPath: String?
  /// Print a live progress line on stderr once a second (`--progress`).
  public var progress = true

  /// The defaults (a small run against a local server on 8080).
  public init() {}

  /// Every how many clients one accounts drag updates (1: all).
  public var measureStride: Int {
    measureReceivers <= 0 || measureReceivers >= clients ? 1 : clients / measureReceivers
  }

  /// Draggers actually used: `draggers`, or every client when negative; never more than `clients`.
  public var effectiveDraggers: Int {
    draggers < 0 ? clients : min(draggers, clients)
  }

  /// Checks the values fit together; returns a message per problem (empty: valid).
  public func problems() -> [String] {
    var result: [String] = []
    if clients < 1 { result.append("--clients must be at least 1") }
    if rooms < 1 { result.append("--rooms must be at least 1") }
    if rooms > clients { result.append("--rooms (\(rooms)) cannot exceed --clients (\(clients))") }
    if dragRate <= 0 && effectiveDraggers > 0 { result.append("--drag-rate must be positive") }
    if durationSeconds <= 0 { result.append("--duration must be positive") }
    if threads < 1 { result.append("--threads must be at least 1") }
    if clientIO == .epoll && url.contains("wss://") {
      result.append("--client-io epoll speaks ws:// only: use --client-io lws (or auto) for wss://")
    }
    if mode == .mirror && moveRate > 0 { result.append("--mirror relays drag messages only; drop --move-rate") }
    if measureReceivers < 0 { result.append("--measure-receivers cannot be negative") }
    if let sourceAddress {
      if EpollSocketContext.ipv4(sourceAddress) == nil {
        result.append("--source-address takes an IPv4 address (127.0.0.2, say), not '\(sourceAddress)'")
      }
      if clientIO == .lws { result.append("--source-address binds the epoll client's sockets: drop --client-io lws") }
    }
    if connectRate < 0 { result.append("--connect-rate cannot be negative") }
    if joinOnly && (effectiveDraggers > 0 || moveRate > 0 || ramp) {
      result.append("--join-only sends no traffic: use --draggers 0 and no --move-rate or --ramp")
    }
    if joinOnly && seedOnly { result.append("--join-only and --seed-only exclude each other") }
    if mode == .mirror && (seedOnly || joinOnly || loaderRoom != nil || seedMoves > 0) {
      result.append(
        "--mirror has no rooms to prepare, join or load: drop --seed-only, --join-only, --loader-room, --seed-moves")
    }
    if !(0...1).contains(slowReaders) { result.append("--slow-readers is a fraction of the clients, 0 to 1") }
    if slowReadBytesPerSecond < 1 { result.append("--slow-read-bytes-per-second must be at least 1") }
    if slowReaders > 0 && mode == .mirror { result.append("--slow-readers needs the rooms protocol; drop --mirror") }
    if seedMoves < 0 { result.append("--seed-moves cannot be negative") }
    if seedWindow < 1 { result.append("--seed-window must be at least 1") }
    if loaderIntervalMilliseconds <= 0 { result.append("--loader-interval-ms must be positive") }
    if ramp && effectiveDraggers == 0 && moveRate == 0 {
      result.append("--ramp needs draggers or a move rate to ramp")
    }
    return result
  }
}

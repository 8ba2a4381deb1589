import Foundation
import ReorderAuth
import ReorderLoad

/// `reorder load`: simulated clients against a running server (or libwebsockets-test-server's
/// mirror), with a table, `--json` and `--html` reports; `--summarize DIR` combines saved runs.
enum LoadCommand {
  static let subcommand = Subcommand(
    name: "load",
    summary: "Load-test a server: clients in rooms dragging and moving; latency, coverage, throughput.",
    options: [
      OptionSpec(
        name: "url", kind: .string, defaultValue: "ws://127.0.0.1:8080",
        help:
          "Server to load (ws://HOST:PORT), or a comma list of cluster nodes (ws://A:P1,ws://B:P2): clients go "
          + "round-robin by position in their room (see --affinity); only loopback unless --allow-remote."),
      OptionSpec(
        name: "affinity", kind: .flag, defaultValue: nil,
        help: "With several --url nodes, put every client of a room on one node (room i on node i mod nodes), as a "
          + "load balancer hashing the room path does, instead of round-robin."),
      OptionSpec(
        name: "start-gate", kind: .string, defaultValue: nil,
        help: "Once joined, wait until this file exists before the traffic (at most --connect-timeout), so that "
          + "the load processes of one run start together."),
      OptionSpec(
        name: "allow-remote", kind: .flag, defaultValue: nil, help: "Allow a target that is not a loopback address."),
      OptionSpec(
        name: "source-address", kind: .string, defaultValue: nil,
        help: "Connect from this IPv4 address (127.0.0.2, say): processes of one run each take their own, "
          + "so that ephemeral ports do not run out (epoll clients)."),
      OptionSpec(
        name: "mirror", kind: .flag, defaultValue: nil,
        help: "Speak lws-mirror-protocol to libwebsockets-test-server (the C baseline) instead of rooms."),
      OptionSpec(name: "label", kind: .string, defaultValue: "load", help: "Name of this run in tables and reports."),
      OptionSpec(name: "title", kind: .string, defaultValue: nil, help: "One line describing the scenario."),
      OptionSpec(name: "clients", kind: .integer(1...100_000), defaultValue: "100", help: "Clients in total."),
      OptionSpec(
        name: "rooms", kind: .integer(1...100_000), defaultValue: "1", help: "Rooms the clients are spread over."),
      OptionSpec(name: "room-prefix", kind: .string, defaultValue: "load", help: "Room names are this plus an index."),
      OptionSpec(
        name: "draggers", kind: .integer(-1...100_000), defaultValue: "10",
        help: "Clients that drag (-1: every client)."),
      OptionSpec(
        name: "drag-rate", kind: .decimal(0.1...1_000), defaultValue: "30", help: "Drag updates per second per dragger."
      ),
      OptionSpec(
        name: "move-rate", kind: .decimal(0...1_000_000), defaultValue: "0",
        help: "Committed moves per second in total, spread over every client."),
      OptionSpec(
        name: "duration", kind: .decimal(0.1...3_600), defaultValue: "10", help: "Seconds of traffic (the bound)."),
      OptionSpec(
        name: "connect-timeout", kind: .decimal(0.1...600), defaultValue: "30",
        help: "Seconds allowed to connect every client."),
      OptionSpec(
        name: "settle-timeout", kind: .decimal(0...600), defaultValue: "20",
        help: "At most this long after connecting, wait until the clients receive nothing for 0.5 s."),
      OptionSpec(
        name: "drain", kind: .decimal(0...60), defaultValue: "2", help: "Seconds to wait for in-flight deliveries."),
      OptionSpec(
        name: "connect-concurrency", kind: .integer(1...10_000), defaultValue: "100",
        help: "Handshakes in flight at once."),
      OptionSpec(
        name: "measure-receivers", kind: .integer(0...100_000), defaultValue: "0",
        help:
          "Account drag updates at about this many receivers, spread evenly (0: every client); the rest count frames."),
      OptionSpec(
        name: "slow-readers", kind: .decimal(0...1), defaultValue: "0",
        help:
          "This fraction of the clients (never a dragger nor a room's first) reads its socket at most at "
          + "--slow-read-bytes-per-second during the traffic; their figures are reported apart."),
      OptionSpec(
        name: "slow-read-bytes-per-second", kind: .integer(1...1_000_000_000), defaultValue: "10240",
        help: "Bytes per second a slow reader takes from its socket at most."),
      OptionSpec(
        name: "connect-rate", kind: .decimal(0...1_000_000), defaultValue: "0",
        help: "Connection attempts started per second at most (0: only --connect-concurrency bounds them)."),
      OptionSpec(
        name: "partial", kind: .flag, defaultValue: nil,
        help: "Carry on with the clients that connected when not all did within --connect-timeout."),
      OptionSpec(
        name: "join-only", kind: .flag, defaultValue: nil,
        help: "Only join: connect every client (no room preparation), wait for the join traffic, stop."),
      OptionSpec(
        name: "seed-only", kind: .flag, defaultValue: nil,
        help: "Only prepare the rooms (--seed-items, --seed-moves) through their first client, then stop."),
      OptionSpec(
        name: "seed-moves", kind: .integer(0...10_000_000), defaultValue: "0",
        help: "Committed moves each room's first client makes after the items exist (a board with history)."),
      OptionSpec(
        name: "seed-window", kind: .integer(1...100_000), defaultValue: "256",
        help: "Seeding ops in flight at once per room."),
      OptionSpec(
        name: "loader-room", kind: .string, defaultValue: nil,
        help: "During the traffic, one extra client joins this room and leaves it again every --loader-interval-ms."),
      OptionSpec(
        name: "loader-interval-ms", kind: .decimal(1...60_000), defaultValue: "100",
        help: "Period of the loader's joins (a join still waiting for its welcome skips a turn)."),
      OptionSpec(
        name: "threads", kind: .integer(1...64), defaultValue: "1",
        help: "Client service threads, each with its share of the clients."),
      OptionSpec(
        name: "client-io", kind: .choice(LoadConfiguration.ClientIO.allCases.map(\.rawValue)), defaultValue: "auto",
        help: "Websocket client: epoll (the tool's own, ws:// only), lws (libwebsockets'), auto (epoll unless wss://)."),
      OptionSpec(
        name: "coverage-window-ms", kind: .decimal(1...60_000), defaultValue: "100",
        help: "An update is covered if it or a newer one arrives within this."),
      OptionSpec(
        name: "staleness-interval-ms", kind: .decimal(10...10_000), defaultValue: "100",
        help: "How often staleness is sampled at the receivers."),
      OptionSpec(
        name: "ramp", kind: .flag, defaultValue: nil,
        help: "Add draggers (or raise the move rate) each step until throughput stops rising."),
      OptionSpec(name: "ramp-step", kind: .integer(1...10_000), defaultValue: "10", help: "Draggers added per step."),
      OptionSpec(
        name: "ramp-step-seconds", kind: .decimal(1...600), defaultValue: "2", help: "Seconds per ramp step."),
      OptionSpec(
        name: "ramp-factor", kind: .decimal(1.01...10), defaultValue: "1.5", help: "Move-rate multiplier per step."),
      OptionSpec(
        name: "seed-items", kind: .integer(1...10_000), defaultValue: "20",
        help: "Items each room gets (created if missing) to drag and move."),
      OptionSpec(
        name: "mirror-bytes", kind: .integer(16...65_536), defaultValue: "160",
        help: "Size of a mirror message (about that of a drag update)."),
      OptionSpec(
        name: "server-pid", kind: .integer(1...Int(Int32.max)), defaultValue: nil,
        help: "Sample this process's CPU and RSS from /proc."),
      OptionSpec(
        name: "auth-secret-file", kind: .string, defaultValue: nil,
        help: "HS256 secret of a server that checks tokens: every client sends an editor token for every room."),
      OptionSpec(name: "json", kind: .string, defaultValue: nil, help: "Write the result as JSON to this file."),
      OptionSpec(
        name: "html", kind: .string, defaultValue: nil, help: "Write a self-contained HTML report to this file."),
      OptionSpec(name: "quiet", kind: .flag, defaultValue: nil, help: "No live progress line on stderr."),
      OptionSpec(
        name: "summarize", kind: .string, defaultValue: nil,
        help: "Instead of a run: combine the *.json results in this directory (runs X and X-mirror side by side)."),
    ],
    run: run
  )

  /// Maps parsed flags onto a `LoadConfiguration` (unset flags keep its defaults).
  static func configuration(from options: ParsedOptions) throws -> LoadConfiguration {
    var configuration = LoadConfiguration()
    if let value = options.string("url") { configuration.url = value }
    configuration.allowRemote = options.flag("allow-remote")
    configuration.sourceAddress = options.string("source-address")
    configuration.affinity = options.flag("affinity")
    configuration.startGate = options.string("start-gate")
    configuration.mode = options.flag("mirror") ? .mirror : .reorder
    if let value = options.string("label") { configuration.label = value }
    if let value = options.string("title") { configuration.title = value }
    if let value = options.integer("clients") { configuration.clients = value }
    if let value = options.integer("rooms") { configuration.rooms = value }
    if let value = options.string("room-prefix") {
      guard isRoomWord(value) else {
        throw UsageError(description: "--room-prefix takes letters, digits, - and _ only, not '\(value)'")
      }
      configuration.roomPrefix = value
    }
    if let value = options.string("loader-room") {
      guard isRoomWord(value) else {
        throw UsageError(description: "--loader-room takes letters, digits, - and _ only, not '\(value)'")
      }
      configuration.loaderRoom = value
    }
    if let value = options.decimal("loader-interval-ms") { configuration.loaderIntervalMilliseconds = value }
    if let value = options.integer("measure-receivers") { configuration.measureReceivers = value }
    if let value = options.decimal("connect-rate") { configuration.connectRate = value }
    if let value = options.decimal("slow-readers") { configuration.slowReaders = value }
    if let value = options.integer("slow-read-bytes-per-second") { configuration.slowReadBytesPerSecond = value }
    configuration.partialConnect = options.flag("partial")
    configuration.joinOnly = options.flag("join-only")
    configuration.seedOnly = options.flag("seed-only")
    if let value = options.integer("seed-moves") { configuration.seedMoves = value }
    if let value = options.integer("seed-window") { configuration.seedWindow = value }
    if let value = options.integer("draggers") { configuration.draggers = value }
    if let value = options.decimal("drag-rate") { configuration.dragRate = value }
    if let value = options.decimal("move-rate") { configuration.moveRate = value }
    if let value = options.decimal("duration") { configuration.durationSeconds = value }
    if let value = options.decimal("connect-timeout") { configuration.connectTimeoutSeconds = value }
    if let value = options.decimal("drain") { configuration.drainSeconds = value }
    if let value = options.decimal("settle-timeout") { configuration.settleTimeoutSeconds = value }
    if let value = options.integer("connect-concurrency") { configuration.connectConcurrency = value }
    if let value = options.integer("threads") { configuration.threads = value }
    if let value = options.string("client-io") {
      configuration.clientIO = LoadConfiguration.ClientIO(rawValue: value) ?? .auto
    }
    if let value = options.decimal("coverage-window-ms") { configuration.coverageWindowMilliseconds = value }
    if let value = options.decimal("staleness-interval-ms") { configuration.stalenessIntervalMilliseconds = value }
    configuration.ramp = options.flag("ramp")
    if let value = options.integer("ramp-step") { configuration.rampStep = value }
    if let value = options.decimal("ramp-step-seconds") { configuration.rampStepSeconds = value }
    if let value = options.decimal("ramp-factor") { configuration.rampFactor = value }
    if let value = options.integer("seed-items") { configuration.seedItems = value }
    if let value = options.integer("mirror-bytes") { configuration.mirrorMessageBytes = value }
    configuration.serverPID = options.integer("server-pid").map { Int32($0) }
    configuration.jsonPath = options.string("json")
    configuration.htmlPath = options.string("html")
    configuration.progress = !options.flag("quiet")
    if let file = options.string("auth-secret-file") {
      let key: TokenKey
      do {
        key = try TokenKey.secret(file: file)
      } catch {
        throw UsageError(description: "--auth-secret-file: \(error)")
      }
      let now = Int64(Date().timeIntervalSince1970)
      configuration.token = TokenMinter(key: key).mint(
        TokenClaims(subject: "load", room: .any, role: .editor, expiresAt: now + 3_600, issuedAt: now))
    }
    let problems = configuration.problems()
    if !problems.isEmpty { throw UsageError(description: problems.joined(separator: "; ")) }
    return configuration
  }

  static func isRoomWord(_ value: String) -> Bool {
    !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
  }

  static func run(_ options: ParsedOptions) throws -> Int32 {
    if let directory = options.string("summarize") {
      return try summarize(directory: directory, json: options.string("json"), html: options.string("html"))
    }
    let configuration = try configuration(from: options)
    let runner: LoadRunner
    do {
      runner = try LoadRunner(configuration: configuration, makeContext: LoadRunner.contextFactory(for: configuration))
    } catch let error as LoadError {
      throw UsageError(description: error.description)
    }
    var result = try runner.run()
    result.clientIO = LoadRunner.effectiveClientIO(for: configuration).rawValue
    print(result.textReport)
    if let path = configuration.jsonPath { try write(result.jsonData(), to: path) }
    if let path = configuration.htmlPath { try write(Data(LoadReport(runs: [result]).html.utf8), to: path) }
    return 0
  }

  static func summarize(directory: String, json: String?, html: String?) throws -> Int32 {
    let report = LoadReport(runs: try LoadReport.load(directory: directory))
    guard !report.runs.isEmpty else {
      throw UsageError(description: "--summarize found no *.json results in '\(directory)'")
    }
    print(report.markdown)
    if let json { try write(report.jsonData(), to: json) }
    if let html { try write(Data(report.html.utf8), to: html) }
    return 0
  }

  static func write(_ data: Data, to path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: data) else {
      throw LoadError.io("cannot write '\(path)'")
    }
  }
}

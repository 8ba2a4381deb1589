import ReorderServer

/// `reorder serve`: runs the service until SIGINT or SIGTERM.
enum ServeCommand {
  static let subcommand = Subcommand(
    name: "serve",
    summary: "Serve boards over websocket and the web client over HTTP(S).",
    options: [
      OptionSpec(name: "host", kind: .string, defaultValue: "127.0.0.1", help: "Interface to listen on."),
      OptionSpec(name: "port", kind: .integer(0...65_535), defaultValue: "8080", help: "TCP port; 0 picks a free one."),
      OptionSpec(name: "web", kind: .string, defaultValue: "web", help: "Directory of the static web client."),
      OptionSpec(
        name: "data", kind: .string, defaultValue: "./data", help: "Data directory, or :memory: for a throwaway server."
      ),
      OptionSpec(
        name: "demo", kind: .flag, defaultValue: nil,
        help: "Create the demo boards (food, home, numbers, cities) if absent."),
      OptionSpec(
        name: "max-message-bytes", kind: .integer(1_024...(16 << 20)), defaultValue: "65536",
        help: "Largest websocket message accepted; larger ones close the connection with 1009."),
      OptionSpec(
        name: "max-queue-bytes", kind: .integer(16_384...(1 << 30)), defaultValue: "4194304",
        help: "Outgoing bytes queued per connection before it is closed (1008)."),
      OptionSpec(
        name: "tls-cert", kind: .string, defaultValue: nil,
        help: "PEM certificate: serve https and wss (needs --tls-key)."),
      OptionSpec(name: "tls-key", kind: .string, defaultValue: nil, help: "PEM private key for --tls-cert."),
      OptionSpec(
        name: "ping-interval", kind: .integer(1...3_600), defaultValue: "30",
        help: "Seconds of silence before a connection is pinged."),
      OptionSpec(
        name: "idle-timeout", kind: .integer(2...7_200), defaultValue: "60",
        help: "Seconds without a valid pong before a connection is dropped."),
      OptionSpec(
        name: "presence-hz", kind: .integer(1...120), defaultValue: "30",
        help: "Drag presence frames per second per connection under load."),
      OptionSpec(
        name: "presence-max-hz", kind: .integer(1...1_000), defaultValue: "30",
        help: "Drag presence frames per second per connection on a light server (<= --presence-hz: fixed rate)."),
      OptionSpec(
        name: "presence-budget", kind: .integer(1...10_000_000), defaultValue: "40000",
        help: "Drag presence frames per second, server-wide, before presence slows towards --presence-hz."),
      OptionSpec(
        name: "max-ops-per-second", kind: .integer(1...1_000_000), defaultValue: "200",
        help: "Ops per second per connection (token bucket; bursts up to twice this)."),
      OptionSpec(
        name: "max-items-per-room", kind: .integer(1...10_000_000), defaultValue: "10000",
        help: "Items per room (deleted ones count)."),
      OptionSpec(name: "max-lists-per-room", kind: .integer(1...100_000), defaultValue: "100", help: "Lists per room."),
      OptionSpec(name: "max-rooms", kind: .integer(1...1_000_000), defaultValue: "1000", help: "Rooms loaded at once."),
      OptionSpec(
        name: "max-connections-per-room", kind: .integer(1...1_000_000), defaultValue: "2000",
        help: "Connections per room."),
      OptionSpec(
        name: "room-idle-seconds", kind: .integer(0...86_400), defaultValue: "30",
        help: "Seconds a room stays loaded after its last connection left."),
      OptionSpec(
        name: "snapshot-every", kind: .integer(1...10_000_000), defaultValue: "1000",
        help: "Write a room snapshot every this many ops."),
      OptionSpec(
        name: "log-level", kind: .choice(["error", "warn", "info", "debug"]), defaultValue: "info",
        help: "Least severe log level printed."),
      OptionSpec(
        name: "log-format", kind: .choice(["text", "json"]), defaultValue: "text",
        help: "Log lines as text or as JSON objects."),
    ],
    run: run
  )

  /// Maps parsed flags onto a `ServerConfiguration` (unset flags keep the embedded defaults).
  static func configuration(from options: ParsedOptions) throws -> ServerConfiguration {
    var configuration = ServerConfiguration()
    if let value = options.string("host") { configuration.host = value }
    if let value = options.integer("port") { configuration.port = value }
    if let value = options.string("web") { configuration.webRoot = value }
    if let value = options.string("data") { configuration.dataPath = value }
    configuration.demo = options.flag("demo")
    if let value = options.integer("max-message-bytes") { configuration.maxMessageBytes = value }
    if let value = options.integer("max-queue-bytes") { configuration.maxQueueBytes = value }
    configuration.tlsCertificatePath = options.string("tls-cert")
    configuration.tlsPrivateKeyPath = options.string("tls-key")
    if (configuration.tlsCertificatePath == nil) != (configuration.tlsPrivateKeyPath == nil) {
      throw UsageError(description: "--tls-cert and --tls-key go together: give both or neither")
    }
    if let value = options.integer("ping-interval") { configuration.pingIntervalSeconds = value }
    if let value = options.integer("idle-timeout") { configuration.idleTimeoutSeconds = value }
    if configuration.idleTimeoutSeconds <= configuration.pingIntervalSeconds {
      throw UsageError(description: "--idle-timeout must be larger than --ping-interval")
    }
    if let value = options.integer("presence-hz") { configuration.presenceHz = value }
    if let value = options.integer("presence-max-hz") { configuration.presenceMaxHz = value }
    if let value = options.integer("presence-budget") { configuration.presenceBudget = value }
    if let value = options.integer("max-ops-per-second") { configuration.maxOpsPerSecond = value }
    if let value = options.integer("max-items-per-room") { configuration.maxItemsPerRoom = value }
    if let value = options.integer("max-lists-per-room") { configuration.maxListsPerRoom = value }
    if let value = options.integer("max-rooms") { configuration.maxRooms = value }
    if let value = options.integer("max-connections-per-room") { configuration.maxConnectionsPerRoom = value }
    if let value = options.integer("room-idle-seconds") { configuration.roomIdleSeconds = value }
    if let value = options.integer("snapshot-every") { configuration.snapshotEvery = value }
    if let value = options.string("log-level") { configuration.logLevel = value }
    if let value = options.string("log-format") { configuration.logFormat = value }
    return configuration
  }

  static func run(_ options: ParsedOptions) throws -> Int32 {
    let configuration = try configuration(from: options)
    return try ServeCommand.serve(configuration)
  }
}

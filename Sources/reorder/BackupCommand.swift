import ReorderServer

/// `reorder backup`: a consistent copy of a data directory's database while the server runs, or
/// with `--redis` every room of cluster mode's Redis, into a new SQLite file of the same schema.
enum BackupCommand {
  static let subcommand = Subcommand(
    name: "backup",
    summary: "Copy a data directory's database (or, with --redis, every room in Redis) to a new SQLite file.",
    options: [
      OptionSpec(name: "data", kind: .string, defaultValue: "./data", help: "The data directory to back up."),
      OptionSpec(
        name: "redis", kind: .string, defaultValue: nil,
        help: "Back up cluster mode's rooms from this Redis (redis://HOST:PORT[/DB]) instead of a data directory."),
      OptionSpec(name: "out", kind: .string, defaultValue: nil, help: "The file to write (must not exist). Required."),
    ] + RestoreCommand.redisOptions,
    run: run
  )

  static func run(_ options: ParsedOptions) throws -> Int32 {
    guard let out = options.string("out"), !out.isEmpty else { throw UsageError(description: "--out is required") }
    if options.string("redis") != nil || options.string("redis-cluster") != nil {
      if options.string("data") != nil {
        throw UsageError(description: "give --data (one node) or --redis / --redis-cluster (cluster mode), not both")
      }
      let target = try ClusterBackup.target(
        redis: options.string("redis"), cluster: options.string("redis-cluster"), user: options.string("redis-user"),
        passwordFile: options.string("redis-password-file"))
      let report = try ClusterBackup.backup(redis: target, to: out)
      print("backed up \(report) from \(target) to \(out)")
      return 0
    }
    if options.string("redis-password-file") != nil || options.string("redis-user") != nil {
      throw UsageError(description: "--redis-password-file and --redis-user need --redis or --redis-cluster")
    }
    let data = options.string("data") ?? "./data"
    try DataDirectory.backup(data, to: out)
    print("backed up \(data) to \(out)")
    return 0
  }
}

/// `reorder restore --redis`: the rooms of a backup file loaded into cluster mode's Redis.
enum RestoreCommand {
  /// The Redis flags besides `--redis` that backup and restore share.
  static let redisOptions = [
    OptionSpec(
      name: "redis-cluster", kind: .string, defaultValue: nil,
      help: "Or a Redis Cluster: its seed nodes, redis://HOST:PORT[,redis://HOST:PORT...]."),
    OptionSpec(
      name: "redis-user", kind: .string, defaultValue: nil,
      help: "The Redis ACL user (AUTH user password; needs --redis-password-file)."),
    OptionSpec(
      name: "redis-password-file", kind: .string, defaultValue: nil,
      help: "The Redis password, in a file of its own (needs --redis or --redis-cluster)."),
  ]

  static let subcommand = Subcommand(
    name: "restore",
    summary: "Load the rooms of a backup file (reorder backup) into cluster mode's Redis.",
    options: [
      OptionSpec(
        name: "redis", kind: .string, defaultValue: nil,
        help: "The Redis to load the rooms into (redis://HOST:PORT[/DB]); this or --redis-cluster is required."),
      OptionSpec(
        name: "from", kind: .string, defaultValue: nil,
        help: "The SQLite file to load (reorder backup's, or a node's reorder.sqlite3). Required."),
      OptionSpec(
        name: "replace", kind: .flag, defaultValue: nil,
        help: "Overwrite rooms Redis already has (without it a restore that meets one writes nothing)."),
    ] + redisOptions,
    run: run
  )

  static func run(_ options: ParsedOptions) throws -> Int32 {
    guard let file = options.string("from"), !file.isEmpty else { throw UsageError(description: "--from is required") }
    let replace = options.flag("replace")
    let target = try ClusterBackup.target(
      redis: options.string("redis"), cluster: options.string("redis-cluster"), user: options.string("redis-user"),
      passwordFile: options.string("redis-password-file"))
    let report = try ClusterBackup.restore(redis: target, from: file, replace: replace)
    print("restored \(report) from \(file) into \(target)\(replace ? " (rooms it had were replaced)" : "")")
    return 0
  }
}

/// `reorder export`: one board as JSON, read from a data directory.
enum ExportCommand {
  static let subcommand = Subcommand(
    name: "export",
    summary: "Print one board as JSON ({room, seq, epoch, board}), read from a data directory.",
    options: [
      OptionSpec(name: "data", kind: .string, defaultValue: "./data", help: "The data directory to read.")
    ],
    arguments: ["ROOM"],
    run: run
  )

  static func run(_ options: ParsedOptions) throws -> Int32 {
    print(try BoardExport.json(dataDirectory: options.string("data") ?? "./data", room: options.positionals[0]))
    return 0
  }
}

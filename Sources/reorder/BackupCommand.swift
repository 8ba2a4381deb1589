import ReorderServer

/// `reorder backup`: a consistent copy of a data directory's database while the server runs.
enum BackupCommand {
  static let subcommand = Subcommand(
    name: "backup",
    summary: "Copy a data directory's database to a file, consistently, while the server runs.",
    options: [
      OptionSpec(name: "data", kind: .string, defaultValue: "./data", help: "The data directory to back up."),
      OptionSpec(name: "out", kind: .string, defaultValue: nil, help: "The file to write (must not exist). Required."),
    ],
    run: run
  )

  static func run(_ options: ParsedOptions) throws -> Int32 {
    guard let out = options.string("out"), !out.isEmpty else { throw UsageError(description: "--out is required") }
    let data = options.string("data") ?? "./data"
    try DataDirectory.backup(data, to: out)
    print("backed up \(data) to \(out)")
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

import Foundation
import ReorderServer

/// Entry point of `reorder`: dispatches to a subcommand and maps errors to exit statuses
/// (0 success, 1 runtime failure, 2 usage error).
let subcommands: [Subcommand] = [
  ServeCommand.subcommand, LoadCommand.subcommand, TokenCommand.subcommand, BackupCommand.subcommand,
  RestoreCommand.subcommand, ExportCommand.subcommand,
]

func topLevelHelp() -> String {
  var lines = [
    "Usage: reorder <subcommand> [flags]", "",
    "Reorder: a self-hosted, real-time collaborative reorder service.", "", "Subcommands:",
  ]
  for command in subcommands {
    lines.append("  \(command.name.padding(toLength: 8, withPad: " ", startingAt: 0))  \(command.summary)")
  }
  lines.append("")
  lines.append("Run 'reorder <subcommand> --help' for its flags, 'reorder --version' for the version.")
  return lines.joined(separator: "\n")
}

func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first else {
  printError(topLevelHelp())
  exit(2)
}
if first == "--version" {
  print("reorder \(BuildInfo.version)")
  exit(0)
}
if first == "--help" || first == "-h" || first == "help" {
  print(topLevelHelp())
  exit(0)
}
guard let command = subcommands.first(where: { $0.name == first }) else {
  printError("reorder: unknown subcommand '\(first)'\n\n" + topLevelHelp())
  exit(2)
}
do {
  let options = try ParsedOptions(
    arguments: Array(arguments.dropFirst()), specs: command.options,
    environment: ProcessInfo.processInfo.environment, positionals: command.arguments.count)
  if options.wantsHelp {
    print(command.helpText)
    exit(0)
  }
  if options.positionals.count < command.arguments.count {
    throw UsageError(description: "missing \(command.arguments[options.positionals.count])")
  }
  exit(try command.run(options))
} catch let error as UsageError {
  printError("reorder \(command.name): \(error.description)\nRun 'reorder \(command.name) --help' for usage.")
  exit(2)
} catch {
  printError("reorder \(command.name): \(error)")
  exit(1)
}

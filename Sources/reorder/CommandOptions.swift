import Foundation

/// One command-line flag of a subcommand.
///
/// Every flag can also be set through an environment variable derived from its name:
/// `--max-message-bytes` ↔ `REORDER_MAX_MESSAGE_BYTES`. The command line wins over the environment.
struct OptionSpec: Sendable {
  /// Kind of value a flag takes.
  enum Kind: Sendable {
    /// A boolean switch (`--demo`); in the environment `1`, `true`, `yes` or `on`.
    case flag
    /// A string value.
    case string
    /// A whole number, optionally limited to a range.
    case integer(ClosedRange<Int>)
    /// A decimal number, optionally limited to a range.
    case decimal(ClosedRange<Double>)
    /// One of a fixed set of words.
    case choice([String])
  }

  /// The flag's name, without the leading dashes (`max-message-bytes`).
  let name: String
  /// What kind of value it takes.
  let kind: Kind
  /// The default shown in `--help` (nil: none).
  let defaultValue: String?
  /// One line for `--help`.
  let help: String
  /// False for another name of a flag (`reorder token --secret-file`): it has no variable of its
  /// own, so only the flag's own name reads the environment.
  var readsEnvironment = true

  /// `REORDER_` followed by the upper-cased name with dashes as underscores.
  var environmentName: String {
    "REORDER_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
  }
}

/// A usage error: printed with the subcommand's usage line, then the process exits with status 2.
struct UsageError: Error, CustomStringConvertible {
  let description: String
}

/// The values a subcommand was given, after validation against its `OptionSpec`s.
struct ParsedOptions {
  private(set) var values: [String: String] = [:]
  /// True when `--help` or `-h` was given.
  private(set) var wantsHelp = false
  /// Arguments that are not flags, in order (only for subcommands that take them).
  private(set) var positionals: [String] = []

  /// Parses `arguments` (without the program and subcommand names) and the environment.
  ///
  /// - Throws: `UsageError` naming the offending flag or value.
  init(arguments: [String], specs: [OptionSpec], environment: [String: String], positionals allowed: Int = 0) throws {
    let byName = Dictionary(uniqueKeysWithValues: specs.map { ($0.name, $0) })
    for spec in specs where spec.readsEnvironment {
      if let value = environment[spec.environmentName] {
        values[spec.name] = try Self.validate(value, for: spec, source: spec.environmentName)
      }
    }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--help" || argument == "-h" {
        wantsHelp = true
        continue
      }
      guard argument.hasPrefix("--") else {
        guard positionals.count < allowed else {
          throw UsageError(description: "unexpected argument '\(argument)' (flags start with --)")
        }
        positionals.append(argument)
        continue
      }
      var name = String(argument.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard let spec = byName[name] else {
        throw UsageError(description: "unknown flag '--\(name)'")
      }
      if case .flag = spec.kind {
        values[name] = try Self.validate(inlineValue ?? "true", for: spec, source: "--\(name)")
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard index < arguments.count else {
          throw UsageError(description: "flag '--\(name)' needs a value")
        }
        value = arguments[index]
        index += 1
      }
      values[name] = try Self.validate(value, for: spec, source: "--\(name)")
    }
  }

  private static func validate(_ value: String, for spec: OptionSpec, source: String) throws -> String {
    switch spec.kind {
    case .flag:
      switch value.lowercased() {
      case "1", "true", "yes", "on": return "true"
      case "0", "false", "no", "off", "": return "false"
      default: throw UsageError(description: "\(source) takes true or false, not '\(value)'")
      }
    case .string:
      return value
    case .integer(let range):
      guard let number = Int(value), range.contains(number) else {
        throw UsageError(
          description: "\(source) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
      }
      return value
    case .decimal(let range):
      guard let number = Double(value), range.contains(number) else {
        throw UsageError(
          description: "\(source) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
      }
      return value
    case .choice(let words):
      guard words.contains(value) else {
        throw UsageError(description: "\(source) takes one of \(words.joined(separator: ", ")), not '\(value)'")
      }
      return value
    }
  }

  /// The string value of a flag, if given.
  func string(_ name: String) -> String? { values[name] }
  /// The integer value of a flag, if given (already validated).
  func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
  /// The decimal value of a flag, if given (already validated).
  func decimal(_ name: String) -> Double? { values[name].flatMap { Double($0) } }
  /// Whether a boolean flag is on.
  func flag(_ name: String) -> Bool { values[name] == "true" }
}

/// A subcommand of `reorder`.
struct Subcommand: Sendable {
  /// The word after `reorder` (`serve`).
  let name: String
  /// One line for the top-level help.
  let summary: String
  /// Its flags.
  let options: [OptionSpec]
  /// Names of the arguments it takes after its flags (`ROOM`), all required.
  var arguments: [String] = []
  /// Runs it; returns the process exit status.
  let run: @Sendable (ParsedOptions) throws -> Int32

  /// The `--help` text: usage, then one line per flag with its default and environment variable.
  var helpText: String {
    let usage = (["Usage: reorder \(name) [flags]"] + arguments).joined(separator: " ")
    var lines = [usage, "", summary, "", "Flags:"]
    let width = options.map { $0.name.count }.max() ?? 0
    for option in options {
      let padded = option.name.padding(toLength: width, withPad: " ", startingAt: 0)
      var line = "  --\(padded)  \(option.help)"
      if let value = option.defaultValue { line += " (default: \(value))" }
      if option.readsEnvironment { line += " [$\(option.environmentName)]" }
      lines.append(line)
    }
    lines.append("  --\("help".padding(toLength: width, withPad: " ", startingAt: 0))  Show this help.")
    return lines.joined(separator: "\n")
  }
}

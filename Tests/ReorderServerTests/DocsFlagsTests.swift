import Foundation
import ReorderBasics
import TestSupport
import Testing

@testable import ReorderServer

/// The repository root (README.md, docs/).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

@Suite("Configuration: one source for flags, environment, help and README")
struct ConfigurationSettingsTests {
  /// The README's configuration table: flag name → default column.
  func readmeTable() throws -> [String: String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "### Configuration (`reorder serve`)").dropFirst().first)
    var table: [String: String] = [:]
    for line in section.components(separatedBy: "\n") where line.hasPrefix("| `--") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      for flag in cells[1].components(separatedBy: ", ") {
        table[flag.trimmingCharacters(in: CharacterSet(charactersIn: "`-"))] = cells[2]
      }
    }
    return table
  }

  @Test("every setting has a README row with its default, and every row is a setting")
  func readmeFollowsTheSettings() throws {
    let table = try readmeTable()
    let names = ServerConfiguration.settings.map(\.name)
    #expect(Set(table.keys) == Set(names))
    for setting in ServerConfiguration.settings {
      let shown: String
      switch (setting.kind, setting.defaultValue) {
      case (.flag, _): shown = "off"
      case (_, nil), (_, ""?): shown = "none"
      case (_, let value?): shown = "`\(value)`"
      }
      if setting.name == "web" {
        #expect(table["web"]?.contains("beside the executable") == true)
      } else {
        #expect(table[setting.name] == shown, "--\(setting.name)")
      }
    }
  }

  @Test("settings apply onto the configuration and read back")
  func applyAndRead() throws {
    var configuration = ServerConfiguration()
    for (name, value) in [("port", "9001"), ("demo", "true"), ("tls-cert", "c.pem"), ("log-format", "json")] {
      let setting = try #require(ServerConfiguration.settings.first { $0.name == name })
      setting.apply(value, to: &configuration)
      #expect(setting.value(in: configuration) == value)
    }
    #expect(configuration.port == 9001 && configuration.demo && configuration.logFormat == "json")
  }

  @Test("combinations are checked once, with the flags to fix")
  func validation() {
    var tls = ServerConfiguration()
    tls.tlsCertificatePath = "c.pem"
    #expect(throws: ConfigurationError.self) { try tls.validate() }
    var keepalive = ServerConfiguration()
    keepalive.idleTimeoutSeconds = keepalive.pingIntervalSeconds
    #expect(throws: ConfigurationError.self) { try keepalive.validate() }
    var node = ServerConfiguration()
    node.nodeID = "Bad!"
    #expect(throws: ConfigurationError.self) { try node.validate() }
    #expect(throws: Never.self) { try ServerConfiguration().validate() }
  }
}

/// Every `--flag` the README and docs/*.md name is one the code has. The flags of each `reorder`
/// subcommand are read from the built binary's `reorder --help` and `reorder <subcommand> --help`
/// (the CLI's `OptionSpec`s and `ServerConfiguration.settings`), so a flag or subcommand added in
/// the code is known here without a list to update; only other programs' flags are listed.
@Suite("Docs: every flag they name exists in the code")
struct DocsFlagsTests {
  /// Flags of other programs the docs show (`redis-server …`, `swift test --filter`, …).
  static let otherPrograms: [String: Set<String>] = [
    "redis-server": [
      "bind", "port", "dir", "appendonly", "appendfsync", "maxmemory", "maxmemory-policy", "save", "cluster-enabled",
      "cluster-config-file", "cluster-require-full-coverage",
    ],
    "redis-cli": ["cluster", "cluster-replicas", "cluster-yes"],
    "swift build / swift test": ["build-tests", "skip-build", "filter", "product"],
    "reorder-bench": ["ops", "batch", "connections", "redis", "json", "only"],
    "scripts/soak.py": ["mode", "cycles", "lose-data", "keep", "nodes", "traffic-min", "traffic-max"],
    "scripts/bench-loro.py": ["run-swift"],
    "valgrind": ["tool"],
    "systemctl": ["now"],
    "chromium": ["user-data-dir"],
    // tsc's camelCase flags are read up to their first capital: --allowJs, --emitDeclarationOnly.
    "tsc": ["declaration", "allow", "emit", "strict"],
  ]

  /// Subcommand → its flags (without dashes), from the binary's help.
  static func subcommandFlags() throws -> [String: Set<String>] {
    let binary = try #require(ChildProcess.builtProduct("reorder"), "build the reorder product first (swift build)")
    func help(_ arguments: [String]) throws -> [String] {
      let child = try ChildProcess(executable: binary, arguments: arguments)
      #expect(child.waitForExit(timeout: 20) == 0, "reorder \(arguments.joined(separator: " "))")
      return child.output
    }
    let top = try help(["--help"])
    let start = try #require(top.firstIndex { $0.hasPrefix("Subcommands:") })
    let names = top[(start + 1)...].prefix { $0.hasPrefix("  ") }.compactMap {
      $0.split(separator: " ").first.map(String.init)
    }
    #expect(names.contains("serve") && names.contains("token") && names.contains("backup"))
    var flags: [String: Set<String>] = [:]
    for name in names {
      flags[name] = Set(
        try help([name, "--help"]).compactMap { line -> String? in
          guard line.hasPrefix("  --") else { return nil }
          return line.dropFirst(4).split(separator: " ").first.map(String.init)
        })
    }
    return flags
  }

  /// README.md and docs/*.md: file name → text, with shell line continuations joined.
  static func pages() throws -> [(String, String)] {
    let docs = repositoryRoot.appendingPathComponent("docs")
    let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
    let files = [repositoryRoot.appendingPathComponent("README.md")] + names.map { docs.appendingPathComponent($0) }
    return try files.map { url in
      (url.lastPathComponent, try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\\\n", with: " "))
    }
  }

  static let flagPattern = try! NSRegularExpression(pattern: "(?<![A-Za-z0-9_-])--([a-z][a-z0-9-]*)")

  static func flags(in text: some StringProtocol) -> [String] {
    let text = String(text)
    return flagPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
      Range($0.range(at: 1), in: text).map { String(text[$0]) }
    }
  }

  @Test("a flag after `reorder <subcommand>` in a command is one of that subcommand's")
  func commandsUseTheirSubcommandsFlags() throws {
    let known = try Self.subcommandFlags()
    let alternation = known.keys.sorted().joined(separator: "|")
    let command = try NSRegularExpression(pattern: "(?<![A-Za-z0-9_/.-])reorder (\(alternation))\\b([^`|&;#)\\n]*)")
    var checked = 0
    for (page, text) in try Self.pages() {
      for match in command.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        guard let sub = Range(match.range(at: 1), in: text).map({ String(text[$0]) }),
          let rest = Range(match.range(at: 2), in: text).map({ text[$0] })
        else { continue }
        for flag in Self.flags(in: rest) {
          checked += 1
          #expect(known[sub]?.contains(flag) == true, "\(page): `reorder \(sub) --\(flag)`: no such flag")
        }
      }
    }
    #expect(checked > 50, "the pages' commands were found (\(checked) flags checked)")
  }

  @Test("every --flag the pages name is a flag of reorder or of a program they show")
  func everyFlagExists() throws {
    let ours = try Self.subcommandFlags().values.reduce(into: Set<String>()) { $0.formUnion($1) }
    let theirs = Self.otherPrograms.values.reduce(into: Set<String>()) { $0.formUnion($1) }
    for (page, text) in try Self.pages() {
      for flag in Set(Self.flags(in: text)) where !ours.contains(flag) && !theirs.contains(flag) {
        Issue.record("\(page) names --\(flag), which no reorder subcommand has (reorder <subcommand> --help)")
      }
    }
  }
}

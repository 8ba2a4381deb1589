import Foundation
import ReorderCRDT
import TestSupport
import Testing

@testable import ReorderServer

@Suite("Node identity")
struct NodeIdentityTests {
  @Test("an id is made on first start and kept in the data directory; every start is a new boot")
  func keptInDataDirectory() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    let second = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    #expect(NodeIdentity.isValid(first.id))
    #expect(second.id == first.id)
    #expect(second.boot == first.boot + 1)
    #expect(second.replica == first.replica)
    #expect(second.sessionPrefix != first.sessionPrefix, "a restarted node never hands out an old session id")
    let kept = try String(contentsOfFile: directory.path + "/node-id", encoding: .utf8)
    #expect(kept == first.id + "\n")
  }

  @Test("--node-id wins over the kept id; a throwaway server makes a new id each start")
  func givenAndThrowaway() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    _ = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    #expect(try NodeIdentity.resolve(given: "edge7", dataDirectory: directory.path).id == "edge7")
    let a = try NodeIdentity.resolve(given: nil, dataDirectory: nil)
    let b = try NodeIdentity.resolve(given: nil, dataDirectory: nil)
    #expect(a.id != b.id)
  }

  @Test("replica ids follow from the id: stable, distinct per node, never 0 or 1")
  func replicas() {
    let ids = (0..<2_000).map { "node\($0)" }
    let replicas = ids.map { NodeIdentity(id: $0, boot: 1).replica }
    #expect(Set(replicas).count == ids.count)
    #expect(replicas.allSatisfy { $0.rawValue >= 2 && $0.rawValue <= UInt64(UInt32.max) })
    #expect(NodeIdentity(id: "node7", boot: 1).replica == NodeIdentity(id: "node7", boot: 9).replica)
  }

  @Test("session ids name the node and the boot", arguments: [("a1", 1, "sa1.1-"), ("edge", 36, "sedge.10-")])
  func sessionPrefix(id: String, boot: UInt64, prefix: String) {
    #expect(NodeIdentity(id: id, boot: boot).sessionPrefix == prefix)
  }

  @Test("node ids are 1-16 of a-z 0-9", arguments: ["", "A", "a_b", "a-b", String(repeating: "a", count: 17), "é"])
  func invalid(id: String) {
    #expect(!NodeIdentity.isValid(id))
  }

  @Test("two servers on one board mint different sessions and ops as different replicas")
  func serversDiffer() throws {
    let a = try TestServer { $0.nodeID = "alpha" }
    let b = try TestServer { $0.nodeID = "beta" }
    let ca = try RoomClient.join(port: a.port, client: "x")
    let cb = try RoomClient.join(port: b.port, client: "y")
    #expect(ca.session.hasPrefix("salpha."))
    #expect(cb.session.hasPrefix("sbeta."))
    #expect(a.server.identity.replica != b.server.identity.replica)
    ca.close()
    cb.close()
  }
}

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

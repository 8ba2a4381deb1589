import Foundation
import ReorderServer
import TestSupport
import Testing

/// deploy/: the single unit `reorder.service`, the template `reorder@.service` (one instance per
/// node) and their drop-ins are units systemd accepts, with the hardening, credentials and
/// per-node settings docs/DEPLOY.md describes.
@Suite("deploy/ systemd units")
struct DeployUnitTests {
  static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy")

  static func read(_ name: String) throws -> String {
    try String(contentsOfFile: deploy.appendingPathComponent(name).path, encoding: .utf8)
  }

  /// Writes `unit` (as `file`, its ExecStart pointing at the built binary) and `dropIns` (file
  /// name in deploy/ → name in `<file>.d/`) into a temporary directory and runs
  /// `systemd-analyze verify` on `instance` there: its exit status and output.
  static func verify(unit file: String, instance: String, dropIns: [String: String]) throws -> (Int32?, [String]) {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(file, try read(file).replacingOccurrences(of: "/usr/local/bin/reorder", with: binary))
    try FileManager.default.createDirectory(atPath: directory.path + "/\(file).d", withIntermediateDirectories: true)
    for (source, target) in dropIns { try directory.write("\(file).d/\(target)", try read(source)) }
    let analyze = try #require(
      ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile),
      "systemd-analyze is installed by scripts/install-deps.sh test")
    let child = try ChildProcess(executable: analyze, arguments: ["verify", directory.path + "/" + instance])
    return (child.waitForExit(timeout: 30), child.output)
  }

  static let dropIns = ["credentials.conf": "credentials.conf", "reorder-bind-443.conf": "bind-443.conf"]

  @Test("systemd-analyze verify accepts reorder.service with its drop-ins (ExecStart pointing at the built binary)")
  func verifies() throws {
    let (status, output) = try Self.verify(unit: "reorder.service", instance: "reorder.service", dropIns: Self.dropIns)
    #expect(status == 0, "\(output)")
    #expect(!output.contains { $0.contains("Unknown") || $0.contains("Failed") || $0.contains("Invalid") }, "\(output)")
  }

  @Test("systemd-analyze verify accepts an instance of reorder@.service with the same drop-ins")
  func templateVerifies() throws {
    let (status, output) = try Self.verify(
      unit: "reorder@.service", instance: "reorder@a.service", dropIns: Self.dropIns)
    #expect(status == 0, "\(output)")
    #expect(!output.contains { $0.contains("Unknown") || $0.contains("Failed") || $0.contains("Invalid") }, "\(output)")
  }

  @Test("systemd-analyze verify accepts both units with reloadable-keys.conf, and both reload with SIGHUP")
  func reloadableKeysVerify() throws {
    for (unit, instance) in [("reorder.service", "reorder.service"), ("reorder@.service", "reorder@b.service")] {
      let (status, output) = try Self.verify(
        unit: unit, instance: instance, dropIns: ["reloadable-keys.conf": "reloadable-keys.conf"])
      #expect(status == 0, "\(unit): \(output)")
      #expect(
        !output.contains { $0.contains("Unknown") || $0.contains("Failed") || $0.contains("Invalid") }, "\(output)")
      #expect(try Self.read(unit).contains("\nExecReload=/bin/kill -HUP $MAINPID\n"), "\(unit)")
    }
  }

  @Test("the hardening options are there")
  func hardening() throws {
    let unit = try Self.read("reorder.service")
    for option in [
      "DynamicUser=yes", "StateDirectory=reorder", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
      "PrivateTmp=yes", "RestrictAddressFamilies=", "SystemCallFilter=@system-service",
    ] {
      #expect(unit.contains(option), "\(option)")
    }
  }

  /// The lines of a unit's `[Service]` section from `DynamicUser=` on: its hardening.
  static func hardeningLines(_ unit: String) -> [String] {
    let lines = unit.split(separator: "\n").map(String.init)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("DynamicUser=") }) else { return [] }
    return Array(lines[start...].prefix { !$0.hasPrefix("[") }).filter { !$0.isEmpty }
  }

  @Test("an instance of the template is the node named by the instance, with its own directory and env file")
  func templateIsOneNodePerInstance() throws {
    let template = try Self.read("reorder@.service")
    #expect(template.contains("ExecStart=/usr/local/bin/reorder serve --data ${STATE_DIRECTORY} --node-id %i\n"))
    #expect(template.contains("\nStateDirectory=reorder/%i\n"))
    #expect(template.contains("\nEnvironmentFile=/etc/reorder/%i.env\n"), "required: no leading -")
    let single = Self.hardeningLines(try Self.read("reorder.service"))
    let instance = Self.hardeningLines(template).map {
      $0 == "StateDirectory=reorder/%i" ? "StateDirectory=reorder" : $0
    }
    #expect(!single.isEmpty)
    #expect(instance == single, "reorder@.service keeps reorder.service's hardening")
  }

  @Test("the drop-in hands every secret file flag a credential, the TLS key and the Redis password included")
  func credentials() throws {
    let dropIn = try Self.read("credentials.conf")
    for (credential, variable) in [
      ("auth-secret", "REORDER_AUTH_SECRET_FILE"), ("api-keys", "REORDER_API_KEY_FILE"),
      ("webhook-secret", "REORDER_WEBHOOK_SECRET_FILE"), ("tls-key", "REORDER_TLS_KEY"),
      ("redis-password", "REORDER_REDIS_PASSWORD_FILE"),
    ] {
      #expect(dropIn.contains("LoadCredential=\(credential):/etc/reorder/"), "\(credential)")
      #expect(dropIn.contains("Environment=\(variable)=%d/\(credential)\n"), "\(variable)")
    }
  }

  @Test("every REORDER_ variable in deploy/ is the environment name of a serve flag")
  func variablesAreFlags() throws {
    let known = Set(
      ServerConfiguration.settings.map { "REORDER_" + $0.name.uppercased().replacingOccurrences(of: "-", with: "_") })
    for file in ["reorder.service", "reorder@.service", "credentials.conf", "reorder-bind-443.conf"] {
      let text = try Self.read(file)
      for line in text.split(separator: "\n") where line.hasPrefix("Environment=REORDER_") {
        let name = String(line.dropFirst("Environment=".count).prefix { $0 != "=" })
        #expect(known.contains(name), "\(file): \(name)")
      }
    }
  }

  @Test("the bind-443 drop-in gives back CAP_NET_BIND_SERVICE and nothing else")
  func bind443() throws {
    let dropIn = try Self.read("reorder-bind-443.conf")
    let settings = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }
    #expect(
      Set(settings) == ["CapabilityBoundingSet=CAP_NET_BIND_SERVICE", "AmbientCapabilities=CAP_NET_BIND_SERVICE"])
  }
}

import Foundation
import TestSupport
import Testing

/// deploy/reorder.service is a unit systemd accepts, with the hardening docs/DEPLOY.md describes.
@Suite("deploy/reorder.service")
struct DeployUnitTests {
  static let unitPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/reorder.service").path

  static let dropInPath = URL(fileURLWithPath: unitPath).deletingLastPathComponent()
    .appendingPathComponent("credentials.conf").path

  @Test("systemd-analyze verify accepts it with its credentials drop-in (ExecStart pointing at the built binary)")
  func verifies() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("reorder.service", unit.replacingOccurrences(of: "/usr/local/bin/reorder", with: binary))
    try FileManager.default.createDirectory(
      atPath: directory.path + "/reorder.service.d", withIntermediateDirectories: true)
    try directory.write(
      "reorder.service.d/credentials.conf", try String(contentsOfFile: Self.dropInPath, encoding: .utf8))
    let analyze = try #require(
      ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile),
      "systemd-analyze is installed by scripts/install-deps.sh test")
    let child = try ChildProcess(executable: analyze, arguments: ["verify", directory.path + "/reorder.service"])
    #expect(child.waitForExit(timeout: 30) == 0, "\(child.output)")
    #expect(!child.output.contains { $0.contains("Unknown") || $0.contains("Failed") || $0.contains("Invalid") })
  }

  @Test("the hardening options are there")
  func hardening() throws {
    let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
    for option in [
      "DynamicUser=yes", "StateDirectory=reorder", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
      "PrivateTmp=yes", "RestrictAddressFamilies=", "SystemCallFilter=@system-service",
    ] {
      #expect(unit.contains(option), "\(option)")
    }
  }

  @Test("the drop-in hands every secret file flag a credential")
  func credentials() throws {
    let dropIn = try String(contentsOfFile: Self.dropInPath, encoding: .utf8)
    for (credential, variable) in [
      ("auth-secret", "REORDER_AUTH_SECRET_FILE"), ("api-keys", "REORDER_API_KEY_FILE"),
      ("webhook-secret", "REORDER_WEBHOOK_SECRET_FILE"),
    ] {
      #expect(dropIn.contains("LoadCredential=\(credential):/etc/reorder/"), "\(credential)")
      #expect(dropIn.contains("Environment=\(variable)=%d/\(credential)"), "\(variable)")
    }
  }
}

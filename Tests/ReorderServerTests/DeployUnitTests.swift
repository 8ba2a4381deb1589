import Foundation
import TestSupport
import Testing

/// deploy/reorder.service is a unit systemd accepts, with the hardening docs/DEPLOY.md describes.
@Suite("deploy/reorder.service")
struct DeployUnitTests {
  static let unitPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/reorder.service").path

  @Test("systemd-analyze verify accepts it (with ExecStart pointing at the built binary)")
  func verifies() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("reorder.service", unit.replacingOccurrences(of: "/usr/local/bin/reorder", with: binary))
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
}

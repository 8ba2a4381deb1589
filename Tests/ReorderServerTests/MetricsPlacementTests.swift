import Foundation
import ReorderBasics
import TestSupport
import Testing

@testable import ReorderServer

/// `--metrics-listen` (its own port; the main one answers 404) and `--metrics-auth` (the API key).
@Suite("/metrics placement and access")
struct MetricsPlacementTests {
  static let key = "metrics-test-key-0123456789abcdefghijklmnop"

  @Test("--metrics-listen serves /metrics on its own port only; prometheus_client parses it there")
  func separatePort() throws {
    let server = try TestServer { $0.metricsListen = "127.0.0.1:0" }
    let metricsPort = server.server.metricsPort
    #expect(metricsPort > 0 && metricsPort != server.port)
    #expect(try httpGet(port: server.port, rawPath: "/metrics").status == 404)
    #expect(try httpGet(port: server.port, rawPath: "/healthz").status == 200, "the main port's other routes stay")
    let a = try RoomClient.join(port: server.port, client: "a")
    a.op("a:1", Ops.createList("l"))
    _ = try a.applied(id: "a:1")
    let reply = try httpGet(port: metricsPort, rawPath: "/metrics")
    #expect(reply.status == 200)
    let samples = try MetricsTests().parsed(reply.text)
    #expect(MetricsTests().value(samples, "reorder_connections{}") == 1)
    #expect(MetricsTests().value(samples, "reorder_ops_applied_total{}") == 1)
    #expect(MetricsTests().value(samples, "reorder_webhook_deliveries_total{result=delivered}") == 0)
    #expect(try httpGet(port: metricsPort, rawPath: "/").status == 404)
    #expect(try httpGet(port: metricsPort, rawPath: "/healthz").status == 404)
    let post = try httpRequest(port: metricsPort, method: "POST", rawPath: "/metrics", body: [])
    #expect(post.status == 405, "\(post.status) \(post.text)")
    a.close()
  }

  @Test("--metrics-auth: 401 without the API key, 200 with it, on the main port and on --metrics-listen's")
  func behindTheKey() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", Self.key + "\n")
    for separate in [false, true] {
      let server = try TestServer { configuration in
        configuration.apiKeyFile = directory.path + "/keys"
        configuration.metricsAuth = true
        if separate { configuration.metricsListen = "127.0.0.1:0" }
      }
      let port = separate ? server.server.metricsPort : server.port
      let refused = try httpGet(port: port, rawPath: "/metrics")
      #expect(refused.status == 401)
      #expect(refused.headers["www-authenticate"] == "Bearer")
      #expect(
        try httpGet(port: port, rawPath: "/metrics", headers: ["Authorization": "Bearer not-the-key-0123456789abcdef"])
          .status == 401)
      let reply = try httpGet(port: port, rawPath: "/metrics", headers: ["Authorization": "Bearer \(Self.key)"])
      #expect(reply.status == 200)
      let samples = try MetricsTests().parsed(reply.text)
      #expect(MetricsTests().value(samples, "process_open_fds{}") ?? 0 > 0)
      server.server.shutdown()
    }
  }

  @Test("--metrics-auth without --api-key-file, and a bad --metrics-listen, are refused at start")
  func configurationChecks() {
    var configuration = ServerConfiguration()
    configuration.metricsAuth = true
    #expect(throws: ConfigurationError.self) { try configuration.validate() }
    configuration = ServerConfiguration()
    configuration.metricsListen = "9090"
    #expect(throws: ConfigurationError.self) { try configuration.validate() }
    configuration.metricsListen = "[::1]:9090"
    #expect(throws: Never.self) { try configuration.validate() }
    configuration = ServerConfiguration()
    configuration.webhookURL = "ftp://example.com/"
    configuration.webhookSecretFile = "/nonexistent"
    #expect(throws: ConfigurationError.self) { try configuration.validate() }
    configuration.webhookSecretFile = nil
    configuration.webhookURL = "http://127.0.0.1:9/hooks"
    #expect(throws: ConfigurationError.self, "a URL without a secret") { try configuration.validate() }
  }
}

import Foundation
import TestSupport
import Testing

@testable import ReorderServer

/// `reorder_http_requests_total{route,status}` and `reorder_http_request_duration_seconds{route}`:
/// every API request counted once under its method and path template, whichever thread answers it.
@Suite("/metrics: HTTP API requests")
struct APIRequestMetricsTests {
  static let key = "api-metrics-test-key-0123456789abcdefghijk"

  @Test("each route is listed at 0 from the start; requests count by route template and status, timed")
  func countedByRoute() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("keys", Self.key + "\n")
    let server = try InProcessServer { $0.apiKeyFile = directory.path + "/keys" }
    defer { server.server.shutdown() }
    let auth = ["Authorization": "Bearer \(Self.key)"]
    func scrape() throws -> PrometheusParse {
      let parsed = try PrometheusParse(try server.get("/metrics").text)
      #expect(parsed.problems() == [])
      return parsed
    }
    let start = try scrape()
    #expect(start.family("reorder_http_requests")?.type == "counter")
    #expect(start.family("reorder_http_request_duration_seconds")?.type == "histogram")
    for (route, status) in [
      ("GET /api/v1/boards", "200"), ("PUT /api/v1/boards/{room}", "201"), ("DELETE /api/v1/boards/{room}", "204"),
      ("POST /api/v1/boards/{room}/ops", "200"), ("POST /api/v1/admin/drain", "202"),
    ] {
      #expect(start.value("reorder_http_requests_total", ["route": route, "status": status]) == 0, "\(route)")
      #expect(start.value("reorder_http_request_duration_seconds_count", ["route": route]) == 0, "\(route)")
    }

    let board = #"{"lists":[{"id":"l","title":"L","layout":"list","items":[{"id":"i","fields":{"title":"I"}}]}]}"#
    #expect(
      try server.http("PUT", "/api/v1/boards/food", headers: auth, body: Array(board.utf8)).status == 201)
    #expect(try server.get("/api/v1/boards/food", headers: auth).status == 200)
    #expect(try server.get("/api/v1/boards/drinks", headers: auth).status == 404)
    #expect(try server.get("/api/v1/boards/food").status == 401)
    #expect(try server.get("/api/v1/nothing", headers: auth).status == 404)

    let after = try scrape()
    let board1 = "GET /api/v1/boards/{room}"
    #expect(after.value("reorder_http_requests_total", ["route": "PUT /api/v1/boards/{room}", "status": "201"]) == 1)
    #expect(after.value("reorder_http_requests_total", ["route": board1, "status": "200"]) == 1)
    #expect(after.value("reorder_http_requests_total", ["route": board1, "status": "404"]) == 1)
    #expect(after.value("reorder_http_requests_total", ["route": board1, "status": "401"]) == 1)
    #expect(after.value("reorder_http_requests_total", ["route": "other", "status": "404"]) == 1)
    #expect(after.value("reorder_http_request_duration_seconds_count", ["route": board1]) == 3)
    let sum = try #require(after.value("reorder_http_request_duration_seconds_sum", ["route": board1]))
    #expect(sum > 0 && sum < 10)
    let names = after.family("reorder_http_requests")?.samples.compactMap { $0.labels["route"] } ?? []
    #expect(!names.contains { $0.contains("food") || $0.contains("drinks") }, "room names are not label values")
  }
}

import Foundation
import ReorderAPI
import ReorderRooms
import TestSupport
import Testing

@testable import ReorderServer

/// `--api-requests-per-second`: a token bucket per key; over it, 429 with `Retry-After`.
@Suite("HTTP API rate limit")
struct APIRateLimitTests {
  @Test("a key over its rate gets 429 problem+json with Retry-After; another key is not held up")
  func overTheRate() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let other = "k-fedcba9876543210fedcba9876543210"
    try directory.write("keys", APITests.key + "\n" + other + "\n")
    let server = try InProcessServer { configuration in
      configuration.apiKeyFile = directory.path + "/keys"
      configuration.apiRequestsPerSecond = 1
    }
    // A burst of twice the rate goes through; the rest of a quick run of requests is refused.
    let statuses = try (0..<6).map { _ in try APITests().call(server, "GET", "/api/v1/boards").status }
    #expect(statuses.prefix(2).allSatisfy { $0 == 200 })
    #expect(statuses.contains(429))
    let refused = try APITests().call(server, "GET", "/api/v1/boards")
    #expect(refused.status == 429)
    #expect(refused.headers["content-type"] == "application/problem+json")
    #expect(refused.json?["status"] == .number(429))
    #expect(Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1)
    #expect(try APITests().call(server, "GET", "/api/v1/boards", key: other).status == 200)
    // A wrong key is 401 before any rate is counted.
    #expect(try APITests().call(server, "GET", "/api/v1/boards", key: "wrong").status == 401)
    server.server.shutdown()
  }

  @Test("the bucket refills at the rate: a wait of Retry-After seconds lets the next request through")
  func refills() {
    var limit = APIRateLimit(rate: 2)
    #expect((0..<4).allSatisfy { _ in limit.take(key: 0, now: 10) == nil })
    let wait = limit.take(key: 0, now: 10)
    #expect(wait == 1)
    #expect(limit.take(key: 1, now: 10) == nil, "keys have buckets of their own")
    #expect(limit.take(key: 0, now: 10 + Double(wait ?? 0)) == nil)
  }
}

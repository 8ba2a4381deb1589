import Foundation
import ReorderAPI
import ReorderLocal
import ReorderRooms
import ReorderTransport
import Testing

@testable import ReorderServer

/// A store that keeps no board directory (`InMemoryRoomStore` here, the cluster's Redis storage in
/// service) cannot list boards: `GET /api/v1/boards` answers 503 `storage unavailable` as a
/// problem, whatever the query (docs/CLUSTER.md). FuzzAPIBody's seed `GET /api/v1/boards` stopped
/// `make fuzz` on this 503, since its contract allowed no 5xx; the server was right.
@Suite("The API over a store without a board directory")
struct APIWithoutDirectoryTests {
  func answer(_ method: String, _ path: String, query: String? = nil) throws -> HTTPResponse? {
    let keyFile = NSTemporaryDirectory() + "reorder-api-no-directory-\(getpid())"
    let key = "api-key-api-key-api-key-0123456789"
    FileManager.default.createFile(atPath: keyFile, contents: Data(key.utf8))
    defer { try? FileManager.default.removeItem(atPath: keyFile) }
    let admission = AdmissionControl(
      limits: .init(
        origins: try OriginPolicy(list: "", secure: false), maxConnectionsPerAddress: 10, handshakesPerSecond: 100,
        trustedProxies: []))
    let registry = RoomRegistry(limits: RoomLimits(), boards: CRDTRoomBoard.factory)
    let storage = InMemoryRoomStore()
    let driver = RoomsDriver(
      registry: registry, storage: storage, log: LocalLog(store: storage),
      presence: LocalPresenceChannel(node: registry.roomNode.node), admission: admission)
    driver.api.apiKeys = try APIKeys(file: keyFile)
    let head = HTTPRequestHead(
      method: method, path: path, query: query,
      headers: ["authorization": "Bearer " + key, "content-type": "application/json"])
    nonisolated(unsafe) var answer: HTTPResponse?
    driver.handle(HTTPRequest(head: head, body: []), responder: HTTPResponder { answer = $0 })
    return answer
  }

  @Test(
    "GET /api/v1/boards answers 503 storage unavailable as a problem, with or without a query",
    arguments: [nil, "limit=5", "limit=0", "cursor=x"])
  func listingIsUnavailable(query: String?) throws {
    let answer = try #require(try answer("GET", "/api/v1/boards", query: query))
    #expect(answer.status == 503)
    #expect(answer.headers.first { $0.name == "content-type" }?.value == "application/problem+json")
    let problem = try JSONValue.parse(answer.body)
    #expect(problem["title"]?.stringValue == "storage unavailable")
    #expect(problem["status"]?.numberValue == 503)
    #expect(problem["detail"]?.stringValue == "this storage cannot list boards")
  }
}

import Foundation
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

@Suite("Admission and HTTP routes (no sockets)")
struct AdmissionAndRoutesTests {
  private let control = AdmissionControl(
    limits: .init(
      origins: try! OriginPolicy(list: "", secure: false), maxConnectionsPerAddress: 10, handshakesPerSecond: 100,
      trustedProxies: []))

  @Test("a /ws/<room> upgrade is accepted with the room and the peer as its context")
  func roomUpgrade() {
    guard
      case .accept(let context) = control.decide(
        UpgradeRequest(path: "/ws/food", peerAddress: "10.0.0.7"), now: 0, port: 8080)
    else {
      Issue.record("refused")
      return
    }
    #expect(context as? Admission == Admission(target: .room("food"), address: "10.0.0.7"))
  }

  @Test("a bad room name is accepted only to be closed with its reason", arguments: ["/ws/", "/ws/a b", "/x/food"])
  func badRoomName(path: String) {
    guard case .accept(let context) = control.decide(UpgradeRequest(path: path), now: 0, port: 8080),
      case .invalid(let reason)? = (context as? Admission)?.target
    else {
      Issue.record("\(path) was not marked invalid")
      return
    }
    #expect(reason.hasPrefix("invalid room name: "))
  }

  @Test("/healthz is the server's for GET and HEAD, 405 otherwise; other paths go to the static files")
  func routing() {
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "GET", path: "/healthz")) == .health)
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "HEAD", path: "/healthz")) == .health)
    #expect(
      HTTPRoutes.match(HTTPRequestHead(method: "POST", path: "/healthz")) == .methodNotAllowed(allow: "GET, HEAD"))
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "GET", path: "/metrics")) == .metrics)
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "PUT", path: "/metrics")) == .methodNotAllowed(allow: "GET, HEAD"))
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "GET", path: "/")) == nil)
    #expect(HTTPRoutes.match(HTTPRequestHead(method: "GET", path: "/healthz/x")) == nil)
  }

  @Test("the health response is uncached JSON with status, connections, rooms and uptime")
  func healthBody() throws {
    let response = HTTPRoutes.health(.init(uptimeSeconds: 12, connections: 3, rooms: 2))
    #expect(response.status == 200)
    #expect(response.header("content-type") == "application/json")
    #expect(response.header("cache-control") == "no-store")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    #expect(json["status"] as? String == "ok")
    #expect(json["connections"] as? Int == 3)
    #expect(json["rooms"] as? Int == 2)
    #expect(json["uptime_s"] as? Int == 12)
  }
}

@Suite("Admission and HTTP routes over sockets", .serialized)
struct AdmissionOverSocketsTests {
  @Test("bad room names are closed with 1008 and their reason; the rooms never hear of them")
  func badRoomNames() throws {
    let server = try TestServer()
    let tooLong = String(repeating: "r", count: 65)
    for path in ["/ws/a%20b", "/ws/", "/ws/\(tooLong)", "/ws/%2541", "/ws/a%2Fb", "/ws/%C3%A9t%C3%A9", "/ws/a!b"] {
      let socket = try WebSocket.connect("ws://127.0.0.1:\(server.port)\(path)")
      var close: (UInt16?, String)?
      while close == nil {
        if case .closed(let code, let reason) = try socket.receive(timeout: 5) { close = (code, reason) }
      }
      #expect(close?.0 == 1008, "\(path)")
      #expect(close?.1.hasPrefix("invalid room name:") == true, "\(path): \(close?.1 ?? "")")
    }
    let health = try httpGet(port: server.port, rawPath: "/healthz")
    #expect(health.text.contains("\"rooms\":0"), "\(health.text)")
  }

  @Test("/healthz reports connections and loaded rooms; POST is 405")
  func health() throws {
    let server = try TestServer()
    let a = try RoomClient.join(port: server.port, client: "a")
    let health = try httpGet(port: server.port, rawPath: "/healthz")
    #expect(health.status == 200)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
    #expect(json["connections"] as? Int == 1)
    #expect(json["rooms"] as? Int == 1)
    #expect(json["uptime_s"] as? Int != nil)
    let post = try httpRequest(port: server.port, method: "POST", rawPath: "/healthz", body: [])
    #expect(post.status == 405)
    #expect(post.headers["allow"] == "GET, HEAD")
    let statistics = try #require(server.server.statistics())
    #expect(statistics.transport.open == 1)
    #expect(statistics.transport.opened == 1)
    #expect(statistics.transport.messagesReceived >= 1, "the hello")
    #expect(statistics.transport.framesSent >= 1, "the welcome")
    #expect(statistics.transport.httpRequests == 2, "GET and POST /healthz")
    a.close()
  }
}

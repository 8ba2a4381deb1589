import Foundation
import ReorderRooms
import ReorderTransport
import TestSupport
import TestTokens
import Testing

@testable import ReorderServer

@Suite("HTTP API /api/v1 (in-process; request framing over sockets)", .serialized)
struct APITests {
  static let key = "k-0123456789abcdef0123456789abcdef"

  /// A server with the demo boards, an API key and HS256 tokens; in-process unless `sockets`
  /// (for what the transport decides: request framing, status lines, the URL parser).
  final class APIServer: RoomServer {
    let directory: TemporaryDirectory
    let server: any RoomServer
    init(api: Bool = true, sockets: Bool = false) throws {
      directory = try TemporaryDirectory()
      try directory.write("keys", "\n" + APITests.key + "\n")
      try directory.write("secret", String(decoding: AuthOverSocketsTests.secret, as: UTF8.self))
      let path = directory.path
      let configure = { (configuration: inout ServerConfiguration) in
        configuration.demo = true
        if api { configuration.apiKeyFile = path + "/keys" }
        configuration.authSecretFile = path + "/secret"
        configuration.authAudience = AuthOverSocketsTests.audience
        configuration.authIssuer = AuthOverSocketsTests.issuer
      }
      server = sockets ? try TestServer(configure: configure) : try InProcessServer(configure: configure)
    }
    deinit { directory.remove() }
    /// The bound port (a server made with `sockets` only).
    var port: Int {
      guard let sockets = server as? TestServer else { preconditionFailure("an in-process APIServer has no port") }
      return sockets.port
    }
    func connect(room: String) throws -> RoomClient { try server.connect(room: room) }
    func http(_ method: String, _ rawPath: String, headers: [String: String], body: [UInt8]?) throws -> HTTPReply {
      try server.http(method, rawPath, headers: headers, body: body)
    }
    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool { server.waitUntil(timeout: timeout, condition) }
  }

  func call(_ port: Int, _ method: String, _ path: String, key: String? = APITests.key, body: String? = nil) throws
    -> (status: Int, json: JSONValue?, headers: [String: String])
  {
    try call(PortServer(port: port), method, path, key: key, body: body)
  }

  /// The same request to `server` (sockets or in-process).
  func call(
    _ server: some RoomServer, _ method: String, _ path: String, key: String? = APITests.key, body: String? = nil
  ) throws -> (status: Int, json: JSONValue?, headers: [String: String]) {
    var headers: [String: String] = [:]
    if let key { headers["Authorization"] = "Bearer \(key)" }
    let reply = try server.http(
      method, path, headers: headers, body: body.map { Array($0.utf8) } ?? (method == "POST" ? [] : nil))
    return (reply.status, try? JSONValue.parse(reply.body), reply.headers)
  }

  @Test("without --api-key-file the API is off (404, problem+json)")
  func off() throws {
    let server = try APIServer(api: false)
    let reply = try call(server, "GET", "/api/v1/boards")
    #expect(reply.status == 404)
    #expect(reply.headers["content-type"] == "application/problem+json")
    #expect(reply.json?["status"] == .number(404))
  }

  @Test("a missing or wrong key is 401 with WWW-Authenticate; routes and methods are checked")
  func authAndRoutes() throws {
    let server = try APIServer()
    for key in [nil, "wrong", APITests.key + "x"] {
      let reply = try call(server, "GET", "/api/v1/boards", key: key)
      #expect(reply.status == 401, "\(String(describing: key))")
      #expect(reply.headers["www-authenticate"] == "Bearer")
      #expect(reply.json?["title"] == .string("unauthorized"))
    }
    #expect(try call(server, "GET", "/api/v1/nope").status == 404)
    #expect(try call(server, "GET", "/api/v1/boards/a%20b").status == 404)
    let patch = try call(server, "PATCH", "/api/v1/boards/food", body: "{}")
    #expect(patch.status == 405)
    #expect(patch.headers["allow"] == "GET, PUT, DELETE")
    #expect(try call(server, "GET", "/api/v1/boards/never-was").status == 404)
  }

  @Test("GET boards lists the stored boards; GET a board reads it from memory or from storage")
  func readBoards() throws {
    let server = try APIServer()
    let list = try call(server, "GET", "/api/v1/boards")
    #expect(list.status == 200)
    guard case .array(let boards)? = list.json?["boards"] else {
      Issue.record("no boards")
      return
    }
    #expect(Set(boards.compactMap { $0["room"]?.stringValue }) == ["food", "home", "numbers", "cities"])
    let stored = try call(server, "GET", "/api/v1/boards/cities")
    #expect(stored.status == 200)
    #expect(stored.json?["room"] == .string("cities"))
    let editor = try server.connect(room: "cities")
    try editor.hello(
      room: "cities", client: "e", token: AuthOverSocketsTests.token(AuthOverSocketsTests.claims(["room": "cities"])))
    editor.op("e:1", Ops.move("paris", list: "cities"))
    _ = try editor.applied(id: "e:1")
    let loaded = try call(server, "GET", "/api/v1/boards/cities")
    #expect(loaded.status == 200)
    #expect(loaded.json?["seq"] == .number((stored.json?["seq"]?.numberValue ?? 0) + 1))
    #expect(loaded.json?["epoch"] == stored.json?["epoch"])
    guard case .array(let lists)? = loaded.json?["board"]?["lists"], case .array(let items)? = lists.first?["items"]
    else {
      Issue.record("no cities list")
      return
    }
    #expect(items.last?["id"] == .string("paris"))
    let online = try call(server, "GET", "/api/v1/boards")
    guard case .array(let now)? = online.json?["boards"] else { return }
    #expect(now.first { $0["room"] == .string("cities") }?["online"] == .number(1))
    editor.close()
  }

  @Test("POST disconnect closes a sub's connections with 4100 access changed, or everyone's")
  func disconnect() throws {
    let server = try APIServer()
    func join(_ sub: String) throws -> RoomClient {
      let c = try server.connect(room: "food")
      try c.hello(
        room: "food", client: sub,
        token: AuthOverSocketsTests.token(AuthOverSocketsTests.claims(["room": "food", "sub": sub])))
      return c
    }
    let (u1, u2, u3) = (try join("u1"), try join("u2"), try join("u3"))
    let one = try call(server, "POST", "/api/v1/boards/food/disconnect", body: #"{"sub":"u1"}"#)
    #expect(one.status == 200)
    #expect(one.json?["disconnected"] == .number(1))
    let closed = u1.waitForClose(timeout: 10)
    #expect(closed?.code == 4100)
    #expect(closed?.reason == "access changed")
    #expect(try call(server, "POST", "/api/v1/boards/food/disconnect", body: #"{"sub":5}"#).status == 422)
    #expect(try call(server, "POST", "/api/v1/boards/food/disconnect", body: "nope").status == 400)
    let rest = try call(server, "POST", "/api/v1/boards/food/disconnect")
    #expect(rest.json?["disconnected"] == .number(2))
    #expect(u2.waitForClose(timeout: 10)?.code == 4100)
    #expect(u3.waitForClose(timeout: 10)?.code == 4100)
  }

  @Test("GET ops since returns the applied messages after a seq; GET presence lists the peers with their sub")
  func opsAndPresence() throws {
    let server = try APIServer()
    let editor = try server.connect(room: "numbers")
    try editor.hello(
      room: "numbers", client: "e",
      token: AuthOverSocketsTests.token(AuthOverSocketsTests.claims(["room": "numbers", "sub": "ed", "name": "Ed"])))
    let base = UInt64(editor.welcome["seq"]?.numberValue ?? 0)
    editor.op("e:1", Ops.move("n1", list: "numbers", after: "n2"))
    editor.op("e:2", Ops.move("n3", list: "numbers", after: "n4"))
    _ = try editor.applied(id: "e:2")
    let ops = try call(server, "GET", "/api/v1/boards/numbers/ops?since=\(base)&limit=10")
    #expect(ops.status == 200)
    guard case .array(let applied)? = ops.json?["ops"] else {
      Issue.record("no ops: \(String(describing: ops.json))")
      return
    }
    #expect(applied.map { $0["id"] } == [.string("e:1"), .string("e:2")])
    #expect(applied.map { $0["seq"] } == [.number(Double(base + 1)), .number(Double(base + 2))])
    #expect(try call(server, "GET", "/api/v1/boards/numbers/ops?since=x").status == 400)
    #expect(try call(server, "GET", "/api/v1/boards/numbers/ops?since=0&limit=5000").status == 400)
    #expect(try call(server, "GET", "/api/v1/boards/never/ops?since=0").status == 404)
    editor.send(#"{"type":"drag","phase":"start","item":"n5","list":"numbers"}"#)
    var peers: [JSONValue] = []
    #expect(
      server.waitUntil(timeout: 10) {
        guard let reply = try? call(server, "GET", "/api/v1/boards/numbers/presence"),
          case .array(let list)? = reply.json?["peers"]
        else { return false }
        peers = list
        return list.first?["drag"] != nil
      })
    #expect(peers.count == 1)
    #expect(peers.first?["sub"] == .string("ed"))
    #expect(peers.first?["name"] == .string("Ed"))
    #expect(peers.first?["drag"]?["item"] == .string("n5"))
    editor.close()
  }

  /// A request without a body and without Content-Length, as `curl -X POST` sends it.
  func bodyless(_ port: Int, _ method: String, _ path: String) throws -> HTTPReply {
    let socket = try RawSocket(port: port)
    defer { socket.close() }
    try socket.write(
      "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(APITests.key)\r\n\r\n")
    return try parseHTTPResponse(try socket.readToEnd())
  }

  @Test("a POST, PUT or PATCH without a body or Content-Length is an empty body: disconnect answers, PATCH is 405")
  func bodylessRequests() throws {
    let server = try APIServer(sockets: true)
    let disconnect = try bodyless(server.port, "POST", "/api/v1/boards/food/disconnect")
    #expect(disconnect.status == 200)
    #expect(try JSONValue.parse(disconnect.body)["disconnected"] == .number(0))
    let patch = try bodyless(server.port, "PATCH", "/api/v1/boards/food")
    #expect(patch.status == 405)
    #expect(patch.headers["content-type"] == "application/problem+json")
    #expect(patch.headers["allow"] == "GET, PUT, DELETE")
    let put = try bodyless(server.port, "PUT", "/api/v1/boards/food")
    #expect(put.status == 400)
    #expect(put.headers["content-type"] == "application/problem+json")
  }

  @Test("every status line carries its reason phrase; a 204 has no content-type")
  func statusLines() throws {
    let server = try APIServer(sockets: true)
    func line(_ method: String, _ path: String, body: String? = nil) throws -> String {
      var headers = ["Authorization": "Bearer \(APITests.key)"]
      if body != nil { headers["Content-Type"] = "application/json" }
      return try httpRequest(
        port: server.port, method: method, rawPath: path, headers: headers, body: body.map { Array($0.utf8) }
      ).statusLine
    }
    let board = #"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#
    #expect(try line("GET", "/api/v1/boards") == "HTTP/1.1 200 OK")
    #expect(try line("PUT", "/api/v1/boards/made", body: board) == "HTTP/1.1 201 Created")
    #expect(try line("PUT", "/api/v1/boards/made", body: board) == "HTTP/1.1 409 Conflict")
    #expect(try line("PUT", "/api/v1/boards/made", body: "[]") == "HTTP/1.1 400 Bad Request")
    #expect(try line("PUT", "/api/v1/boards/made", body: "{}") == "HTTP/1.1 422 Unprocessable Content")
    #expect(try line("GET", "/api/v1/boards/never-was") == "HTTP/1.1 404 Not Found")
    #expect(try line("PATCH", "/api/v1/boards/made", body: "{}") == "HTTP/1.1 405 Method Not Allowed")
    #expect(try line("GET", "/api/v1/boards/made/ops?since=0&limit=1") == "HTTP/1.1 200 OK")
    let deleted = try httpRequest(
      port: server.port, method: "DELETE", rawPath: "/api/v1/boards/made",
      headers: ["Authorization": "Bearer \(APITests.key)"])
    #expect(deleted.statusLine == "HTTP/1.1 204 No Content")
    #expect(deleted.headers["content-type"] == nil)
    #expect(try httpGet(port: server.port, rawPath: "/healthz").statusLine == "HTTP/1.1 200 OK")
    #expect(try httpGet(port: server.port, rawPath: "/api/v1/boards").statusLine == "HTTP/1.1 401 Unauthorized")
  }

  static let specPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("docs/openapi.json").path

  @Test("docs/openapi.json is a valid OpenAPI 3.1 document (openapi-spec-validator)")
  func specIsValid() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      "import json, sys; from openapi_spec_validator import validate; validate(json.load(open(sys.argv[1])))",
      Self.specPath,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "openapi-spec-validator refused docs/openapi.json")
  }

  /// For each operation of the spec: a good request and its status, then a bad one (besides the
  /// missing key) and its status. Run in this order, on one server: the bad PUT is the same PUT
  /// again (409), the bad DELETE the same DELETE again (404).
  /// A good and a bad request per route (the drain route has no parameter or body to get wrong,
  /// and is checked last: its good request stops the server).
  static let specCases:
    [String: (good: (path: String, body: String?, status: Int), bad: (path: String, body: String?, status: Int)?)] = [
      "get /api/v1/boards": (("/api/v1/boards?limit=2", nil, 200), ("/api/v1/boards?limit=0", nil, 400)),
      "get /api/v1/boards/{room}": (("/api/v1/boards/cities", nil, 200), ("/api/v1/boards/never-was", nil, 404)),
      "put /api/v1/boards/{room}": (
        ("/api/v1/boards/made", #"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#, 201),
        ("/api/v1/boards/made", #"{"lists":[{"id":"l","title":"L","layout":"list"}]}"#, 409)
      ),
      "delete /api/v1/boards/{room}": (("/api/v1/boards/food", nil, 204), ("/api/v1/boards/food", nil, 404)),
      "get /api/v1/boards/{room}/ops": (
        ("/api/v1/boards/cities/ops?since=0", nil, 200), ("/api/v1/boards/cities/ops?since=x", nil, 400)
      ),
      "post /api/v1/boards/{room}/ops": (
        ("/api/v1/boards/cities/ops", #"{"ops":[{"id":"s1","op":{"kind":"delete","item":"paris"}}]}"#, 200),
        ("/api/v1/boards/cities/ops", #"{"ops":[{"op":{}}]}"#, 422)
      ),
      "get /api/v1/boards/{room}/history": (
        ("/api/v1/boards/cities/history?limit=3", nil, 200), ("/api/v1/boards/cities/history?before=0", nil, 400)
      ),
      "get /api/v1/boards/{room}/presence": (
        ("/api/v1/boards/cities/presence", nil, 200), ("/api/v1/boards/a%20b/presence", nil, 404)
      ),
      "post /api/v1/boards/{room}/disconnect": (
        ("/api/v1/boards/cities/disconnect", nil, 200), ("/api/v1/boards/cities/disconnect", "nope", 400)
      ),
      "post /api/v1/admin/drain": (("/api/v1/admin/drain", nil, 202), nil),
    ]

  @Test("a bad percent-escape is refused by the parser with the 403 API.md names; the server answers on")
  func badPercentEscape() throws {
    let server = try APIServer(sockets: true)
    let refused = try httpGet(
      port: server.port, rawPath: "/api/v1/boards?cursor=%%%", headers: ["Authorization": "Bearer \(Self.key)"])
    #expect(refused.status == 403)
    #expect(refused.headers["content-type"] == "text/html")
    #expect(try call(server.port, "GET", "/api/v1/boards?limit=1").status == 200)
  }

  /// `reply` is an RFC 9457 problem: its content type, the four members, `status` its own; a 422
  /// also says `code` and `at`.
  static func expectProblem(_ reply: (status: Int, json: JSONValue?, headers: [String: String]), _ name: String) {
    #expect(reply.headers["content-type"] == "application/problem+json", "\(name): \(reply.status)")
    let problem = reply.json ?? .null
    for member in ["type", "title", "detail"] {
      guard case .string? = problem[member] else {
        Issue.record("\(name): \(member) missing in \(problem)")
        continue
      }
    }
    #expect(problem["status"] == .number(Double(reply.status)), "\(name): \(problem)")
    if reply.status == 422 {
      guard case .string? = problem["code"], case .string? = problem["at"] else {
        Issue.record("\(name): a 422 without code and at: \(problem)")
        return
      }
    }
  }

  @Test("every route of docs/openapi.json exists and answers its documented status, for a good and a bad request")
  func specHoldsAgainstTheServer() throws {
    let server = try APIServer()
    let data = try #require(FileManager.default.contents(atPath: Self.specPath))
    let spec = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let paths = try #require(spec["paths"] as? [String: [String: Any]])
    var checked: Set<String> = []
    let drainLast = paths.sorted {
      ($0.key.hasPrefix("/api/v1/admin/") ? 1 : 0, $0.key) < ($1.key.hasPrefix("/api/v1/admin/") ? 1 : 0, $1.key)
    }
    for (template, item) in drainLast {
      for method in ["get", "post", "put", "delete"] {
        guard let operation = item[method] as? [String: Any], let responses = operation["responses"] as? [String: Any]
        else { continue }
        let name = "\(method) \(template)"
        guard let (good, bad) = Self.specCases[name] else {
          Issue.record("\(name) has no case in specCases")
          continue
        }
        let verb = method.uppercased()
        let anonymous = try call(server, verb, good.path, key: nil, body: good.body)
        #expect(anonymous.status == 401 && responses["401"] != nil, "\(name) without a key")
        let goodReply = try call(server, verb, good.path, body: good.body)
        #expect(goodReply.status == good.status, "\(name): \(goodReply.status)")
        #expect(responses["\(good.status)"] != nil, "\(name): \(good.status) is not documented")
        if let bad {
          let badReply = try call(server, verb, bad.path, body: bad.body)
          #expect(badReply.status == bad.status, "\(name) (bad): \(badReply.status)")
          #expect(responses["\(bad.status)"] != nil, "\(name): \(bad.status) is not documented")
          if bad.status != 204 { Self.expectProblem(badReply, name) }
        }
        Self.expectProblem(anonymous, name)
        checked.insert(name)
      }
      let methods = ["get", "post", "put", "delete"].filter { item[$0] != nil }
      let path = try #require(Self.specCases["\(methods[0]) \(template)"]?.good.path)
      let other = try call(server, "PATCH", path, body: "{}")
      #expect(other.status == 405, "PATCH \(template)")
      #expect(
        methods.allSatisfy {
          (item[$0] as? [String: Any])?["responses"].map { ($0 as? [String: Any])?["405"] != nil } == true
        })
      let allow = (other.headers["allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      #expect(Set(allow) == Set(methods.map { $0.uppercased() }), "PATCH \(template): Allow \(allow)")
      Self.expectProblem(other, "PATCH \(template)")
    }
    #expect(checked == Set(Self.specCases.keys))
  }
}

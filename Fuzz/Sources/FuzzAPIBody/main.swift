import Foundation
import FuzzSupport
import ReorderAPI
import ReorderBasics
import ReorderLocal
import ReorderRooms
import ReorderTransport

@testable import ReorderServer

// The HTTP API request bodies (and paths and queries), through the server's own handler
// (`RoomsDriver.handle`, as the transport calls it once a body is read), over an in-memory store
// with the room `food` loaded and one connection in it. The input is `METHOD PATH[?QUERY]\n`
// then the body; every route that reads a body is reached through its seeds in
// `corpus/APIBody/` and the dictionary, so a route added to the API is fuzzed with no change
// here (add a seed with its body).
// Contract: never crashes; an answer made now (routes that read storage answer later, through the
// transport this target has not) is JSON with a 2xx or a 4xx status: a problem+json
// `{type,title,status,detail}` whose `status` is the response's, never a 5xx for a bad request
// (but the 503 of a store without a board directory, below).
Log.configure(level: .error, format: .text)  // the rooms' info lines would fill the fuzzer's log
let keyFile = NSTemporaryDirectory() + "reorder-fuzz-api-key-\(getpid())"
let key = "fuzz-api-key-fuzz-api-key-0123456789"
FileManager.default.createFile(atPath: keyFile, contents: Data(key.utf8))
let keys = try! APIKeys(file: keyFile)
try? FileManager.default.removeItem(atPath: keyFile)
let admission = AdmissionControl(
  limits: .init(
    origins: try! OriginPolicy(list: "", secure: false), maxConnectionsPerAddress: 10, handshakesPerSecond: 100,
    trustedProxies: []))

runFuzzer { bytes in
  let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
  let line = String(decoding: bytes[..<newline], as: UTF8.self)
  let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
  let words = line.split(separator: " ", maxSplits: 1).map(String.init)
  guard words.count == 2 else { return }
  let target = words[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
  guard target[0].hasPrefix("/api/v1/") else { return }
  let head = HTTPRequestHead(
    method: words[0], path: target[0], query: target.count > 1 ? target[1] : nil,
    headers: ["authorization": "Bearer " + key, "content-type": "application/json"])

  let rooms = FuzzRooms()
  rooms.open(ConnectionHandle(1), room: "food")
  rooms.receive(
    ConnectionHandle(1), Array(##"{"type":"hello","room":"food","client":"c","name":"N","color":"#fff"}"##.utf8))
  let driver = RoomsDriver(
    registry: rooms.registry, storage: rooms.storage, log: LocalLog(store: rooms.storage),
    presence: LocalPresenceChannel(node: rooms.registry.roomNode.node), admission: admission)
  driver.api.apiKeys = keys
  guard case .handle(let maxBody, _) = driver.route(head) else { return }
  guard body.count <= maxBody else { return }

  nonisolated(unsafe) var answer: HTTPResponse?
  driver.handle(HTTPRequest(head: head, body: body), responder: HTTPResponder { answer = $0 })
  guard let answer else { return }
  let contentType = answer.headers.first { $0.name == "content-type" }?.value ?? ""
  guard let json = try? JSONValue.parse(answer.body) else {
    fuzzCheck(false, "the answer (\(answer.status), \(contentType)) is not JSON")
    return
  }
  // The one 5xx: this target's store (`InMemoryRoomStore`, like the cluster's Redis storage) keeps
  // no board directory, so listing boards and writing whole ones answer 503 `storage unavailable`
  // (docs/CLUSTER.md), whatever the request.
  let noDirectory =
    answer.status == 503 && driver.api.boardList == nil && json["title"]?.stringValue == "storage unavailable"
  fuzzCheck(
    (200..<300).contains(answer.status) || (400..<500).contains(answer.status) || noDirectory,
    "status \(answer.status)")
  if answer.status >= 400 {
    fuzzCheck(contentType == "application/problem+json", "a \(answer.status) that is not problem+json")
    fuzzCheck(json["status"]?.numberValue == Double(answer.status), "the problem's status differs")
    for member in ["type", "title", "detail"] {
      fuzzCheck(json[member]?.stringValue != nil, "the problem has no \(member)")
    }
  } else {
    fuzzCheck(contentType == "application/json", "a \(answer.status) that is not JSON")
  }
}

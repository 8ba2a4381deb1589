import Foundation
import ReorderCRDT
import TestSupport
import Testing

@testable import ReorderServer

@Suite("Node identity")
struct NodeIdentityTests {
  @Test("an id is made on first start and kept in the data directory; every start is a new boot")
  func keptInDataDirectory() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    let second = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    #expect(NodeIdentity.isValid(first.id))
    #expect(second.id == first.id)
    #expect(second.boot == first.boot + 1)
    #expect(second.replica == first.replica)
    #expect(second.sessionPrefix != first.sessionPrefix, "a restarted node never hands out an old session id")
    let kept = try String(contentsOfFile: directory.path + "/node-id", encoding: .utf8)
    #expect(kept == first.id + "\n")
  }

  @Test("--node-id wins over the kept id; a throwaway server makes a new id each start")
  func givenAndThrowaway() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    _ = try NodeIdentity.resolve(given: nil, dataDirectory: directory.path)
    #expect(try NodeIdentity.resolve(given: "edge7", dataDirectory: directory.path).id == "edge7")
    let a = try NodeIdentity.resolve(given: nil, dataDirectory: nil)
    let b = try NodeIdentity.resolve(given: nil, dataDirectory: nil)
    #expect(a.id != b.id)
  }

  @Test("replica ids follow from the id: stable, distinct per node, never 0 or 1")
  func replicas() {
    let ids = (0..<2_000).map { "node\($0)" }
    let replicas = ids.map { NodeIdentity(id: $0, boot: 1).replica }
    #expect(Set(replicas).count == ids.count)
    #expect(replicas.allSatisfy { $0.rawValue >= 2 && $0.rawValue <= UInt64(UInt32.max) })
    #expect(NodeIdentity(id: "node7", boot: 1).replica == NodeIdentity(id: "node7", boot: 9).replica)
  }

  @Test("session ids name the node and the boot", arguments: [("a1", 1, "sa1.1-"), ("edge", 36, "sedge.10-")])
  func sessionPrefix(id: String, boot: UInt64, prefix: String) {
    #expect(NodeIdentity(id: id, boot: boot).sessionPrefix == prefix)
  }

  @Test("node ids are 1-16 of a-z 0-9", arguments: ["", "A", "a_b", "a-b", String(repeating: "a", count: 17), "é"])
  func invalid(id: String) {
    #expect(!NodeIdentity.isValid(id))
  }

  @Test("two servers on one board mint different sessions and ops as different replicas")
  func serversDiffer() throws {
    let a = try InProcessServer { $0.nodeID = "alpha" }
    let b = try InProcessServer { $0.nodeID = "beta" }
    let ca = try a.join(client: "x")
    let cb = try b.join(client: "y")
    #expect(ca.session.hasPrefix("salpha."))
    #expect(cb.session.hasPrefix("sbeta."))
    #expect(a.server.identity.replica != b.server.identity.replica)
    ca.close()
    cb.close()
  }
}

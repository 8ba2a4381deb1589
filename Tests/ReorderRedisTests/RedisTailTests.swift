import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis tail: XREAD BLOCK over several rooms")
struct RedisTailTests {
  @Test("A blocked tail of two rooms returns what other connections append to each, per room")
  func tailsTwoRooms() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "a", 1...2)  // already read by the tail
    let tail = try redis.connect()
    let tailID = try tail.clientID()
    let seen = SharedValue<[String: [ClusterLogEntry]]>([:])
    let failure = SharedValue<RedisError?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      var positions: [String: UInt64] = ["a": 2, "b": 0]
      let deadline = Date(timeIntervalSinceNow: 10)
      while Date() < deadline, positions["a"]! < 4 || positions["b"]! < 1 {
        do {
          for (room, entries) in try tail.tail(positions, blockMilliseconds: 5_000) {
            seen.update { $0[room, default: []] += entries }
            positions[room] = entries.last!.seq
          }
        } catch {
          failure.set(error as? RedisError)
          break
        }
      }
      done.signal()
    }.start()
    // Append only once the tail waits in Redis, so the entries reach it through the block.
    #expect(waitUntil(timeout: 5) { Self.isBlocked(tailID, on: redis.connection) })
    _ = try redis.connection.appendSample(room: "a", 3...4, node: "n2")
    _ = try redis.connection.append(room: "b", epoch: "e1", key: [0], node: "n3", payload: [0, 1, 0])
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(failure.value == nil)
    #expect(seen.value["a"]?.map(\.seq) == [3, 4])
    #expect(seen.value["a"]?.map(\.node) == ["n2", "n2"])
    #expect(seen.value["b"] == [ClusterLogEntry(seq: 1, node: "n3", key: [0], op: [0, 1, 0], epoch: "e1")])
  }

  @Test("A tail with nothing new returns empty when its block ends, and at once when unblocked")
  func emptyTailAndUnblock() throws {
    let redis = try RedisFixture()
    _ = try redis.connection.appendSample(room: "a", 1...3)
    let tail = try redis.connect()
    #expect(try tail.tail(["a": 3], blockMilliseconds: 20).isEmpty)
    #expect(try tail.tail([:], blockMilliseconds: 20).isEmpty)
    #expect(try tail.tail(["a": 1], blockMilliseconds: 20)["a"]?.map(\.seq) == [2, 3])
    let tailID = try tail.clientID()
    let result = SharedValue<[String: [ClusterLogEntry]]?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      result.set(try? tail.tail(["a": 3], blockMilliseconds: 60_000))
      done.signal()
    }.start()
    #expect(waitUntil(timeout: 5) { (try? redis.connection.unblock(client: tailID)) == true })
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(result.value == [:])
    #expect(!tail.isBroken)
  }

  /// Whether client `id` is blocked in a command (CLIENT LIST's `flags` holds `b`).
  static func isBlocked(_ id: Int64, on connection: RedisConnection) -> Bool {
    guard let list = try? connection.command("CLIENT", "LIST", "ID", id).text else { return false }
    return list.split(separator: " ").contains { $0.hasPrefix("flags=") && $0.dropFirst(6).contains("b") }
  }
}

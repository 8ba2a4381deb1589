import Dispatch
import Foundation
import ReorderRooms
import ReorderStore
import ReorderTransport

/// The server's statistics: one value composed of the transport's, the rooms', the store's and
/// the driver's own.
public struct ServerStatistics: Sendable, Equatable {
  /// Connections, frames and bytes in and out, presence dropped, queued bytes (`WebSocketServer.statistics`).
  public var transport: TransportStatistics
  /// Rooms, connections, ops, presence, messages (`RoomRegistry.statistics`).
  public var rooms: RoomStatistics
  /// Commits, batches, append → commit latency (`Store.statistics`).
  public var store: StoreStatistics
  /// Received → durable per append, as the service thread sees it (`RoomsDriver.durableLatency`).
  public var durableLatency: LatencyBuckets
}

/// A statistics snapshot handed from the service thread to a waiting caller.
final class StatisticsAnswer: @unchecked Sendable {
  private let lock = NSLock()
  private let done = DispatchSemaphore(value: 0)
  private var value: ServerStatistics?

  func set(_ statistics: ServerStatistics) {
    lock.withLock { value = statistics }
    done.signal()
  }

  func wait(timeoutSeconds: Double) -> ServerStatistics? {
    guard done.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
    return lock.withLock { value }
  }
}

import Dispatch
import Foundation
import ReorderAPI
import ReorderBasics
import ReorderCluster
import ReorderRooms
import ReorderStore
import ReorderTransport
import ReorderWebhooks

/// The server's statistics: one value composed of the transport's, the rooms', the store's and
/// the driver's own.
public struct ServerStatistics: Sendable, Equatable {
  /// Connections, frames and bytes in and out, presence dropped, queued bytes (`WebSocketServer.statistics`).
  public var transport: TransportStatistics
  /// Rooms, connections, ops, presence, messages (`RoomRegistry.statistics`).
  public var rooms: RoomStatistics
  /// Commits, batches, append → commit latency (`Store.statistics`).
  public var store: StoreStatistics?
  /// Received → durable per append, as the service thread sees it (`RoomsDriver.durableLatency`).
  public var durableLatency: LatencyBuckets
  /// Webhook deliveries by result (`Webhooks.statistics`; zeros without `--webhook-url`).
  public var webhooks = WebhookStatistics()
  /// Cluster mode's Redis figures (nil on one node).
  public var cluster: ClusterStatistics?
  /// Reloads of the keys, secrets and certificate (`ReorderService.reload()`).
  public var reloads = ReloadStatistics()
  /// API requests by route and status, with their durations (`RoomsDriver.apiRequests`).
  public var apiRequests = APIRequestStatistics()
}

/// Reloads by result (`reorder_reloads_total{result}`).
public struct ReloadStatistics: Sendable, Equatable {
  /// Reloads that put all the new material in use.
  public var succeeded = 0
  /// Reloads that changed nothing (a file unreadable or invalid).
  public var failed = 0
}

/// A value handed from another thread to a caller that waits for it (a statistics snapshot from the
/// service thread, a board read by the store's reader).
final class Answer<Value: Sendable>: Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let value = Locked<Value?>(nil)

  func set(_ value: Value) {
    self.value.withLock { $0 = value }
    done.signal()
  }

  /// The value, or nil when it did not come within `timeoutSeconds`.
  func wait(timeoutSeconds: Double) -> Value? {
    guard done.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
    return value.snapshot
  }
}

import ReorderBasics
import ReorderMetrics
import ReorderTransport

/// API requests by route and status, and their durations by route
/// (`reorder_http_requests_total{route,status}`, `reorder_http_request_duration_seconds{route}`).
/// A route is its method and path template (`GET /api/v1/boards/{room}`), so room names never
/// become label values; a request that matches no route counts under `other`.
public struct APIRequestStatistics: Sendable, Equatable {
  /// The buckets' upper bounds in seconds (1 ms … 10 s: an answer from memory takes well under the
  /// first, a 1,000-op write waits for its commit).
  public static let bounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

  /// Requests answered, by route and then status.
  public private(set) var counts: [String: [Int: Int]] = [:]
  /// Durations by route, from the request reaching the API to its response being handed to the
  /// transport.
  public private(set) var durations: [String: LatencyBuckets] = [:]

  /// Nothing counted yet.
  public init() {}

  /// Counts one request of `route` answered with `status` after `seconds`.
  mutating func record(route: String, status: Int, seconds: Double) {
    counts[route, default: [:]][status, default: 0] += 1
    durations[route, default: LatencyBuckets(bounds: Self.bounds)].record(seconds: seconds)
  }

  /// These statistics with every route's success status and its histogram listed at 0 until
  /// their first request (`APIRoutes.Route.knownLabels`).
  public func withKnownLabels() -> APIRequestStatistics {
    var s = self
    for (route, status) in APIRoutes.Route.knownLabels {
      s.counts[route, default: [:]][status, default: 0] += 0
      if s.durations[route] == nil { s.durations[route] = LatencyBuckets(bounds: Self.bounds) }
    }
    return s
  }
}

/// `APIRequestStatistics` shared by the service thread, where requests arrive, and the threads
/// that answer them (the store's reader, a commit).
public final class APIRequestMeter: Sendable {
  private let counted = Locked(APIRequestStatistics())

  /// A meter with nothing counted.
  public init() {}

  /// What has been counted so far.
  public var statistics: APIRequestStatistics { counted.withLock { $0 } }

  /// A responder that counts its response under `route`, timed from `start`, then hands it to
  /// `responder`.
  public func counting(_ responder: HTTPResponder, route: String, start: Double) -> HTTPResponder {
    HTTPResponder { [self] response in
      let seconds = MonotonicClock.now() - start
      self.counted.withLock { $0.record(route: route, status: response.status, seconds: seconds) }
      responder.respond(response)
    }
  }
}

extension MetricsText {
  /// `reorder_http_requests_total{route,status}` and `reorder_http_request_duration_seconds{route}`.
  public mutating func apiRequests(_ s: APIRequestStatistics) {
    family(
      "reorder_http_requests_total", "counter",
      "HTTP API requests answered, by route (method and path template; other: no route) and status.",
      s.counts.sorted { $0.key < $1.key }.flatMap { route, statuses in
        statuses.sorted { $0.key < $1.key }.map { ([("route", route), ("status", String($0.key))], Double($0.value)) }
      })
    histogram(
      "reorder_http_request_duration_seconds",
      "HTTP API requests, from reaching the API to the response handed to the transport, by route.",
      series: s.durations.sorted { $0.key < $1.key }.map { ([("route", $0.key)], $0.value) })
  }
}

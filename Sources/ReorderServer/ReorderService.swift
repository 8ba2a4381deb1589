import Dispatch
import Foundation
import ReorderAPI
import ReorderBasics
import ReorderCluster
import ReorderLocal
import ReorderRedis
import ReorderRooms
import ReorderStore
import ReorderTransport
import ReorderWebhooks

/// The Reorder service: websocket rooms over libwebsockets, durable in SQLite.
///
/// The rooms run on the lws service thread (as the transport's handler); storage goes through the
/// rooms' `RoomStore` port (`StoreRoomStorage`): the store's writer thread commits op groups and a
/// reader queue loads rooms, and both post back, so that `applied` goes out only once durable and
/// the service thread never waits for the disk.
///
/// ```swift
/// let server = try ReorderService(configuration: configuration)
/// let port = try server.start()
/// // … on SIGTERM:
/// server.shutdown()
/// ```
public final class ReorderService: @unchecked Sendable {
  /// What it was started with.
  public let configuration: ServerConfiguration
  /// This node's id and what follows from it (replica, session ids).
  let identity: NodeIdentity
  /// One node's SQLite store; nil in cluster mode, where the rooms live in Redis and no database is
  /// opened.
  let store: Store?
  let registry: RoomRegistry
  let driver: RoomsDriver
  /// The transport port: `WebSocketServer` unless the maker given to `init` says otherwise.
  let transport: any ServerTransport
  /// Cluster mode's Redis side, when `--redis` is given.
  let cluster: ClusterAdapter?
  /// Signed webhooks, when `--webhook-url` is given.
  let webhooks: Webhooks?
  /// `--metrics-listen`'s own server, when given.
  let metricsServer: WebSocketServer?
  /// What answers `/metrics` (its `--metrics-auth` keys are swapped by `reload()`).
  let metricsEndpoint: MetricsEndpoint
  private var boundPort = 0
  private var boundMetricsPort = 0
  private var stopped = false

  /// Makes the transport a service runs on from the transport part of its configuration and the
  /// handler the transport is to call (the service's rooms); the transport owns the handler.
  public typealias TransportMaker =
    @Sendable (TransportConfiguration, any WebSocketServerHandler) throws -> any ServerTransport

  /// The real transport: lws on a service thread of its own (`WebSocketServer`).
  public static let socketTransport: TransportMaker = { configuration, handler in
    try WebSocketServer(configuration: configuration, handler: handler)
  }

  /// Opens the store and prepares the transport; nothing is bound until `start()`.
  ///
  /// `transport` makes the transport of the main port: sockets by default; a test may run the same
  /// service on an in-process one (`EmbeddedTransport`). `--metrics-listen`'s server is always a
  /// `WebSocketServer`.
  /// - Throws: `ConfigurationError` for settings that do not go together, `StoreError` when the
  ///   data directory cannot be used (or its node id kept), `TransportError` for a bad transport
  ///   configuration (e.g. a missing web root).
  public init(configuration: ServerConfiguration, transport makeTransport: TransportMaker = socketTransport) throws {
    self.configuration = configuration
    Log.configure(
      level: Log.Level(name: configuration.logLevel) ?? .info,
      format: Log.Format(rawValue: configuration.logFormat) ?? .text)
    try configuration.validate()
    let verifier = try configuration.tokenVerifier
    let admissionLimits = try configuration.admissionLimits
    let apiKeys = try configuration.apiKeys
    let redisTarget = try configuration.redisTarget
    let dataDirectory = configuration.dataPath == ":memory:" ? nil : configuration.dataPath
    if let dataDirectory { try Store.prepareDirectory(dataDirectory) }
    identity = try NodeIdentity.resolve(given: configuration.nodeID, dataDirectory: dataDirectory)
    let storage: any RoomStore
    let boardWrites: any BoardWrites
    var localLog: LocalLog?
    let log: any LogPort
    let presence: any PresencePort
    let boardList: any BoardList
    let boardFactory = ServerBoards.factory(replica: identity.replica)
    // The node is its id and this start of it: the ids it generates and its presence messages
    // must differ from an earlier start's (a node ignores its own messages).
    let name = "\(identity.id)-\(String(identity.boot, radix: 36))"
    let node: RoomNode
    if let redisTarget {
      // Cluster mode: the rooms live in Redis.
      node = RoomNode(node: name, compactEvery: configuration.compactEvery, storedBy: RedisRoomStorage.self)
      let adapter = ClusterAdapter(
        target: redisTarget, node: node, retainedOps: configuration.retainedOps,
        replicas: configuration.redisWaitReplicas > 0 ? ReplicaWait(count: configuration.redisWaitReplicas) : nil)
      cluster = adapter
      store = nil
      storage = adapter.storage
      boardWrites = adapter.storage
      (log, presence, boardList) = (adapter, adapter, ClusterBoardList(adapter.summaries))
    } else {
      // One node: the rooms live in its SQLite store (a cluster node opens none: it keeps only its
      // id in its data directory).
      node = RoomNode(node: name, compactEvery: configuration.compactEvery, storedBy: StoreRoomStorage.self)
      let opened = try Store(path: configuration.dataPath, retainedOps: configuration.retainedOps)
      store = opened
      cluster = nil
      let local = StoreRoomStorage(store: opened)
      let records = LocalLog(listing: local)
      localLog = records
      (storage, boardWrites) = (local, local)
      (log, presence, boardList) = (
        records, LocalPresenceChannel(node: node.node), StoreBoardList(local, boards: boardFactory)
      )
    }
    registry = RoomRegistry(
      limits: configuration.roomLimits, boards: boardFactory, sessionPrefix: identity.sessionPrefix, node: node)
    registry.presencePacing = configuration.presencePacing
    registry.accessVerifier = verifier.map { TokenAccess(verifier: $0) }
    driver = RoomsDriver(
      registry: registry, storage: storage, log: log, presence: presence,
      admission: AdmissionControl(limits: admissionLimits))
    driver.redisHealth = cluster?.health
    driver.api.boardWrites = boardWrites
    driver.api.boardList = boardList
    do {
      transport = try makeTransport(configuration.transportConfiguration, driver)
    } catch {
      store?.close()
      throw error
    }
    driver.transport = transport
    driver.api.apiKeys = apiKeys
    driver.api.drainSeconds = configuration.drainSeconds
    driver.api.apiRateLimit = APIRateLimit(rate: configuration.apiRequestsPerSecond)
    driver.api.boardFactory = boardFactory
    let directory = configuration.dataPath
    let endpoint = MetricsEndpoint(
      keys: configuration.metricsAuth ? apiKeys : nil,
      storeBytes: { [hasStore = store != nil] in
        guard hasStore else { return nil }
        guard directory != ":memory:" else { return 0 }
        return ["", "-wal", "-shm"].reduce(0) { total, suffix in
          var status = stat()
          return total + (stat(directory + "/reorder.sqlite3" + suffix, &status) == 0 ? Int(status.st_size) : 0)
        }
      },
      // The driver holds the endpoint: unowned and weak here, or neither would ever be freed.
      current: { [unowned driver, store, cluster] in ReorderService.statistics(driver, store, cluster) },
      snapshot: { [weak transport, weak driver, store, cluster] completion in
        guard let driver else { return }
        transport?.post { completion(ReorderService.statistics(driver, store, cluster)) }
      })
    metricsEndpoint = endpoint
    do {
      if let address = try configuration.metricsAddress {
        var metricsTransport = TransportConfiguration()
        metricsTransport.host = address.host
        metricsTransport.port = address.port
        metricsTransport.webRoot = nil
        metricsServer = try WebSocketServer(
          configuration: metricsTransport, handler: MetricsListener(endpoint: endpoint))
      } else {
        metricsServer = nil
        driver.metrics = endpoint
      }
      if let target = try configuration.webhookTarget {
        webhooks = Webhooks(
          url: target.url, secret: target.secret, timing: configuration.webhookTiming,
          client: try HTTPClient(supportsTLS: target.url.hasPrefix("https://")))
      } else {
        webhooks = nil
      }
    } catch {
      store?.close()
      throw error
    }
    driver.webhooks = webhooks
    // `board.changed` comes from the log: one node's durable writes, or in cluster mode the lease
    // holder's applied log (docs/CLUSTER.md).
    localLog?.webhooks = webhooks
    cluster?.summaries.webhooks = webhooks
  }

  /// The statistics of every part; on the service thread.
  private static func statistics(_ driver: RoomsDriver, _ store: Store?, _ cluster: ClusterAdapter?) -> ServerStatistics
  {
    ServerStatistics(
      transport: driver.transport?.statistics ?? TransportStatistics(), rooms: driver.registry.statistics,
      store: store?.statistics, durableLatency: driver.durableLatency,
      webhooks: driver.webhooks?.statistics ?? WebhookStatistics(),
      cluster: cluster.map { cluster in
        var lag: [String: UInt64] = [:]
        for (room, logSeq) in cluster.health.logSequences {
          guard let seq = driver.registry.room(room)?.seq else { continue }
          lag[room] = logSeq > seq ? logSeq - seq : 0
        }
        return ClusterStatistics(redis: cluster.metrics.snapshot, streamLag: lag)
      }, reloads: driver.reloads, apiRequests: driver.api.apiRequests.statistics)
  }

  /// Creates the demo rooms (with `demo`), binds and starts serving. Returns the bound port.
  public func start() throws -> Int {
    driver.api.requestDrain = { [weak self] in self?.startDrain() }
    if configuration.demo {
      if let boardWrites = driver.api.boardWrites { try createDemoRooms(boardWrites) }
    }
    cluster?.start()
    boundPort = try transport.start()
    if let metricsServer {
      do {
        boundMetricsPort = try metricsServer.start()
      } catch {
        shutdown()
        throw error
      }
    }
    if !AddressRange.isLoopback(configuration.host) && !configuration.authEnabled {
      Log.log(
        .warn, "serving without access control: anyone who can reach this address may edit every board",
        [("host", configuration.host)])
    }
    Log.log(
      .info, "server started",
      [
        ("port", "\(boundPort)"), ("data", configuration.dataPath), ("demo", "\(configuration.demo)"),
        ("node", identity.id),
      ]
        + (cluster.map {
          [("redis", (try? configuration.redisTarget)?.description ?? ""), ("cluster_node", $0.node.node)]
        } ?? [])
        + (metricsServer == nil ? [] : [("metrics_port", "\(boundMetricsPort)")]))
    if configuration.transportConfiguration.webRoot == nil && configuration.webRoot == nil {
      Log.log(.warn, "no web client found beside the executable: pass --web DIR to serve one", [])
    }
    return boundPort
  }

  /// A snapshot of the transport's, the rooms', the store's and the driver's statistics, taken on
  /// the service thread; `completion` runs there (keep it short). Any thread.
  public func statistics(_ completion: @escaping @Sendable (ServerStatistics) -> Void) {
    transport.post { [driver, store, cluster] in completion(ReorderService.statistics(driver, store, cluster)) }
  }

  /// The same, waited for (at most `timeoutSeconds`; nil when the service thread does not answer).
  /// Not on the service thread.
  public func statistics(timeoutSeconds: Double = 2) -> ServerStatistics? {
    let answer = Locked<ServerStatistics?>(nil)
    transport.postAndWait(timeoutSeconds: timeoutSeconds) { [driver, store, cluster] in
      answer.withLock { $0 = ReorderService.statistics(driver, store, cluster) }
    }
    return answer.withLock { $0 }
  }

  /// The bound port (0 before `start()`).
  public var port: Int { boundPort }

  /// The port `--metrics-listen` bound (0 without it, or before `start()`).
  public var metricsPort: Int { boundMetricsPort }

  /// What runs once a drain requested through the API has stopped the service (the CLI exits 0).
  /// Set before `start()`.
  public var afterRequestedDrain: (@Sendable () -> Void)?

  /// `POST /api/v1/admin/drain`: the drain runs on a thread of its own, then `afterRequestedDrain`.
  /// Called on the service thread, so the drain has begun (healthz 503) before the 202 is sent.
  private func startDrain() {
    let drained = beginDrain()
    Thread.detachNewThread { [self] in
      finishDrain(drained)
      afterRequestedDrain?()
    }
  }

  /// Drain, then stop (SIGTERM, `POST /api/v1/admin/drain`): `/healthz` answers 503 `draining`
  /// and new upgrades 503 at once, the open websockets are closed with 1012 spread over
  /// `--drain-seconds` so that their clients reconnect elsewhere in a trickle, then `shutdown()`
  /// flushes and stops. Returns when stopped. Any thread except the service thread.
  public func drainAndShutdown() {
    finishDrain(beginDrain())
  }

  /// Starts the transport's drain; the semaphore is signalled once its last websocket is closed.
  private func beginDrain() -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    if !stopped && transport.isRunning {
      transport.drain(overSeconds: Double(configuration.drainSeconds), reason: "server draining: reconnect") {
        done.signal()
      }
    } else {
      done.signal()
    }
    return done
  }

  /// Waits (bounded: `--drain-seconds` + 5 s) for the drain `beginDrain` started, then stops.
  private func finishDrain(_ drained: DispatchSemaphore) {
    _ = drained.wait(timeout: .now() + Double(configuration.drainSeconds) + 5)
    shutdown()
  }

  /// Graceful stop: snapshots of the loaded rooms, stop accepting, close every websocket with 1001,
  /// then flush and close the store. Idempotent; call from any thread except the service thread.
  public func shutdown() {
    guard !stopped else { return }
    stopped = true
    if transport.isRunning {
      transport.postAndWait(timeoutSeconds: 2) { [driver] in driver.perform(driver.registry.shutdown()) }
      transport.shutdown(timeoutSeconds: 1.5)
    }
    metricsServer?.shutdown()
    cluster?.stop()
    webhooks?.shutdown()
    store?.close()
    Log.log(.info, "server stopped", [])
  }
}

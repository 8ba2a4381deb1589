// swift-tools-version:6.0
import PackageDescription

/// Reorder: a self-hosted, real-time collaborative reorder service.
///
/// Layering: which module may import which. The `dependencies` below say it for SwiftPM;
/// `scripts/check-imports.sh` (part of `make test`) enforces every row (its `allowed` list is this
/// table) and the lines marked *checked*. Each
/// module's contract is the `///` comments on its public symbols. The toolchain's own modules aside
/// (Foundation, Glibc, Dispatch, Synchronization; none in `ReorderCRDT`), a module imports only what its row names.
///
/// | module | may import | role |
/// |---|---|---|
/// | `ReorderCRDT` | nothing, not even Foundation (*checked*) | the pure replicated board: values and bytes in, values and bytes out |
/// | `ReorderBasics` | Foundation | what every module shares: the logger (`Log`), websocket close codes, `ConfigurationError`, `Locked`, `MonotonicClock`, the background loops' `WorkerThread` and `JobQueue` |
/// | `ReorderTransport` | `CLibWebSockets` (the ONLY importer, *checked*), Basics | lws server and client; no routes and no rooms in its code (*checked*); everything touching `struct lws *` on the service thread, other threads `post` |
/// | `ReorderStore` | `CSQLite`, Basics | SQLite op log, snapshots, group commit; bytes only |
/// | `ReorderRooms` | CRDT, Basics; never `ReorderStore` nor `CSQLite` (*checked*) | wire protocol, room state machines, presence, limits; storage is its `RoomStore` port, answered through actions; time injected |
/// | `ReorderAuth` | `CJWT` (the ONLY importer, *checked*) | room tokens: verify (HS256, ES256, RS256) and mint |
/// | `ReorderRedis` | `CHiredis` (the ONLY importer, *checked*), Basics | cluster mode's Redis side: bytes and strings, no rooms' types |
/// | `ReorderWebhooks` | Rooms, Transport, Auth, Metrics, Basics | signed webhooks: the pure `WebhookQueue` (debounce, order, retries), the thread that delivers it through the transport's HTTP client, and their `/metrics` series |
/// | `ReorderMetrics` | Basics | the Prometheus text format (`MetricsText`) and the process collector (`ProcessFigures`) |
/// | `ReorderCluster` | Rooms, Redis, Webhooks, API, Metrics, Basics | the rooms' ports over Redis: the log and presence ports (`ClusterAdapter`, its threads), `RoomStore` and `BoardWrites` (`RedisRoomStorage`), the board list (`ClusterBoardList` over the summaries); answers go back through `PortAnswers`; its `/metrics` series |
/// | `ReorderLocal` | Rooms, Store, Webhooks, API, Basics | the rooms' ports on one node: the log (`LocalLog`: ordering, the records' group commit, their summaries and `board.changed`), presence (`LocalPresenceChannel`), `RoomLogStore`, `BoardWrites` and `BoardDirectory` over SQLite (`StoreRoomStorage`), the board list (`StoreBoardList`) |
/// | `ReorderAPI` | Rooms, Transport, Metrics, Basics | the HTTP API: its handlers (`APIHandlers`, reaching the rooms through their host, `APIHost`), routes, request bodies, keys, rate limits, problem answers, waiting requests and request metrics |
/// | `ReorderServer` | Transport, Rooms, Store, CRDT, Basics, Auth, Redis, Webhooks, Metrics, Cluster, Local, API | composes them from one configuration: the driver runs the rooms on the service thread through the ports (`LogPort`, `PresencePort`, `RoomStore`, `BoardWrites`), implemented by Local or Cluster; the API's host, configuration, metrics |
/// | `ReorderLoad` | Transport, Basics, `CEpoll` (the ONLY importer, *checked*) | the load tool (its own epoll websocket client, or lws' from Transport) |
/// | `reorder` | Server, Load, Auth, Basics | the executable: the CLI (`serve`, `load`, `token`, `backup`, `export`) |
/// | `reorder-bench` | CRDT, Store, Redis | benchmarks |
/// | `TestSupport`, `TestRandom`, `TestTokens` | Transport; nothing; nothing | test helpers: child processes and sockets; the seeded generator; HS256 without the code under test |
/// | `EmbeddedTransport` | Transport, Basics; never `CLibWebSockets` (*checked*); no `Sources/` module imports it (*checked*) | the in-process `ServerTransport` for tests and fuzzing: a handler run with no sockets |
let package = Package(
  name: "Reorder",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "reorder", targets: ["reorder"]),
    .executable(name: "reorder-bench", targets: ["reorder-bench"]),
    .library(name: "ReorderCRDT", targets: ["ReorderCRDT"]),
    // For the libFuzzer package in Fuzz/ only (docs/RELIABILITY.md): the decoders it fuzzes and the
    // hand-made token signer; nothing in this package depends on it.
    .library(
      name: "ReorderFuzzable",
      targets: [
        "ReorderRooms", "ReorderCRDT", "ReorderAuth", "ReorderServer", "ReorderTransport", "ReorderBasics",
        "ReorderRedis", "ReorderCluster", "ReorderLocal", "ReorderAPI", "TestTokens", "EmbeddedTransport",
      ]),
  ],
  targets: [
    .systemLibrary(
      name: "CLibWebSockets",
      pkgConfig: "libwebsockets",
      providers: [.apt(["libwebsockets-dev", "libwebsockets-evlib-ev", "libev-dev", "libssl-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .systemLibrary(
      name: "CJWT",
      pkgConfig: "libjwt",
      providers: [.apt(["libjwt-dev", "libssl-dev", "pkg-config"])]
    ),
    .systemLibrary(
      name: "CHiredis",
      pkgConfig: "hiredis",
      providers: [.apt(["libhiredis-dev", "pkg-config"])]
    ),
    .systemLibrary(name: "CEpoll"),
    .target(name: "ReorderCRDT"),
    .target(name: "ReorderBasics"),
    .target(name: "ReorderTransport", dependencies: ["CLibWebSockets", "ReorderBasics"]),
    .target(name: "ReorderStore", dependencies: ["CSQLite", "ReorderBasics"]),
    .target(name: "ReorderRooms", dependencies: ["ReorderCRDT", "ReorderBasics"]),
    .target(
      name: "ReorderServer",
      dependencies: [
        "ReorderTransport", "ReorderRooms", "ReorderStore", "ReorderCRDT", "ReorderBasics", "ReorderAuth",
        "ReorderRedis", "ReorderWebhooks", "ReorderMetrics", "ReorderCluster", "ReorderLocal", "ReorderAPI",
      ]
    ),
    .target(name: "ReorderAPI", dependencies: ["ReorderRooms", "ReorderTransport", "ReorderMetrics", "ReorderBasics"]),
    .target(
      name: "ReorderCluster",
      dependencies: [
        "ReorderRooms", "ReorderRedis", "ReorderWebhooks", "ReorderAPI", "ReorderMetrics", "ReorderBasics",
      ]),
    .target(
      name: "ReorderLocal",
      dependencies: ["ReorderRooms", "ReorderStore", "ReorderWebhooks", "ReorderAPI", "ReorderBasics"]),
    .target(
      name: "ReorderWebhooks",
      dependencies: ["ReorderRooms", "ReorderTransport", "ReorderAuth", "ReorderMetrics", "ReorderBasics"]),
    .target(name: "ReorderMetrics", dependencies: ["ReorderBasics"]),
    .target(name: "ReorderLoad", dependencies: ["ReorderTransport", "ReorderBasics", "CEpoll"]),
    .target(name: "ReorderAuth", dependencies: ["CJWT"]),
    .target(name: "ReorderRedis", dependencies: ["CHiredis", "ReorderBasics"]),
    .executableTarget(
      name: "reorder",
      dependencies: ["ReorderServer", "ReorderLoad", "ReorderAuth"]
    ),
    .executableTarget(name: "reorder-bench", dependencies: ["ReorderCRDT", "ReorderStore", "ReorderRedis"]),
    .target(
      name: "TestSupport",
      dependencies: ["ReorderTransport"],
      path: "Tests/TestSupport"
    ),
    .target(name: "TestRandom", path: "Tests/TestRandom"),
    .target(
      name: "EmbeddedTransport", dependencies: ["ReorderTransport", "ReorderBasics"], path: "Tests/EmbeddedTransport"),
    .testTarget(name: "ReorderCRDTTests", dependencies: ["ReorderCRDT", "TestRandom"]),
    .testTarget(name: "ReorderTransportTests", dependencies: ["ReorderTransport", "ReorderBasics", "TestSupport"]),
    .testTarget(name: "ReorderStoreTests", dependencies: ["ReorderStore", "ReorderBasics"]),
    .testTarget(name: "ReorderBasicsTests", dependencies: ["ReorderBasics"]),
    .testTarget(
      name: "ReorderLoadTests", dependencies: ["ReorderLoad", "ReorderTransport", "ReorderBasics", "TestSupport"]),
    .testTarget(name: "ReorderRedisTests", dependencies: ["ReorderRedis", "TestSupport"]),
    .target(name: "TestTokens", path: "Tests/TestTokens"),
    .testTarget(name: "ReorderAuthTests", dependencies: ["ReorderAuth", "TestSupport", "TestTokens"]),
    .testTarget(
      name: "ReorderRoomsTests", dependencies: ["ReorderRooms", "ReorderCRDT", "TestRandom"]),
    .testTarget(
      name: "ReorderServerTests",
      dependencies: [
        "ReorderServer", "ReorderTransport", "ReorderRooms", "ReorderStore", "ReorderRedis", "ReorderBasics",
        "ReorderWebhooks", "ReorderMetrics", "ReorderCluster", "ReorderLocal", "ReorderAPI", "TestSupport",
        "TestRandom", "TestTokens", "EmbeddedTransport",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

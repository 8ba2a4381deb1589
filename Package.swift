// swift-tools-version:6.0
import PackageDescription

/// Reorder: a self-hosted, real-time collaborative reorder service.
///
/// Layering (enforced by `scripts/check-imports.sh`):
/// - `ReorderCRDT` imports nothing (not even Foundation): the pure replicated board.
/// - `ReorderBasics` is the vocabulary every other module shares: the logger, close codes.
/// - `ReorderTransport` is the ONLY module that imports `CLibWebSockets`.
/// - `ReorderStore` wraps SQLite (`CSQLite`) and sees bytes only.
/// - `ReorderRooms` is the protocol and room state machines (CRDT only: no sockets, no store; storage
///   is its `RoomStore` port, answered through actions).
/// - `ReorderServer` wires Transport ↔ Rooms ↔ Store (`StoreRoomStorage` adapts the store to the port).
/// - `ReorderLoad` is the load tool (its own epoll websocket client, or lws' from Transport); the ONLY
///   module that imports `CEpoll` (glibc's epoll and eventfd headers, which Glibc leaves out).
/// - `ReorderAuth` verifies and mints room tokens; the ONLY module that imports `CJWT` (libjwt).
/// - `ReorderRedis` is cluster mode's Redis side (bytes and strings, no rooms' types); the ONLY
///   module that imports `CHiredis` (hiredis 0.14).
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
        "ReorderRedis", "TestTokens",
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
        "ReorderRedis",
      ]
    ),
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
    .testTarget(name: "ReorderCRDTTests", dependencies: ["ReorderCRDT", "TestRandom"]),
    .testTarget(name: "ReorderTransportTests", dependencies: ["ReorderTransport", "ReorderBasics", "TestSupport"]),
    .testTarget(name: "ReorderStoreTests", dependencies: ["ReorderStore", "ReorderBasics"]),
    .testTarget(name: "ReorderLoadTests", dependencies: ["ReorderLoad", "ReorderTransport", "TestSupport"]),
    .testTarget(name: "ReorderRedisTests", dependencies: ["ReorderRedis", "TestSupport"]),
    .target(name: "TestTokens", path: "Tests/TestTokens"),
    .testTarget(name: "ReorderAuthTests", dependencies: ["ReorderAuth", "TestSupport", "TestTokens"]),
    .testTarget(
      name: "ReorderRoomsTests", dependencies: ["ReorderRooms", "ReorderCRDT", "TestRandom"]),
    .testTarget(
      name: "ReorderServerTests",
      dependencies: [
        "ReorderServer", "ReorderTransport", "ReorderRooms", "ReorderStore", "ReorderRedis", "TestSupport",
        "TestRandom", "TestTokens",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

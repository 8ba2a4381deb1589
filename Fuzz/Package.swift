// swift-tools-version:6.0
import Foundation
import PackageDescription

/// libFuzzer targets for Reorder's decoders (docs/RELIABILITY.md), kept out of the root package so
/// that `swift build` and `swift test` at the root never build them. Built and run by `make fuzz`
/// (`run.sh`: `swift build -c release -Xswiftc -sanitize=fuzzer,address`); built without running
/// by `make fuzz-build`, part of `make test` (`build.sh`: a debug build).
///
/// Every directory `Sources/Fuzz<Name>/` is one fuzz target: an executable whose one file,
/// `main.swift`, calls `runFuzzer { bytes in … }` (libFuzzer's `LLVMFuzzerRunDriver`, declared by
/// `CFuzzer`). The targets are found here by listing the directory, so adding one is adding that
/// one file (and, optionally, seeds in `corpus/<Name>/`). `FuzzSupport` holds the shared checks.
let sources = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("Sources").path
let fuzzTargets = ((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? [])
  .filter { $0.hasPrefix("Fuzz") && $0 != "FuzzSupport" }
  .sorted()

let package = Package(
  name: "ReorderFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Reorder", path: "..")],
  targets: [
    .target(name: "CFuzzer"),
    // RESP2, the wire form of Redis replies: the Redis target's input and seeds.
    .target(name: "RedisWire", dependencies: [.product(name: "ReorderFuzzable", package: "Reorder")]),
    // Writes the binary seeds of corpus/Op, corpus/Snapshot and corpus/RedisEntry (not a fuzz target).
    .executableTarget(
      name: "SeedCorpus", dependencies: ["RedisWire", .product(name: "ReorderFuzzable", package: "Reorder")],
      linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
    .target(name: "FuzzSupport", dependencies: ["CFuzzer", .product(name: "ReorderFuzzable", package: "Reorder")]),
  ]
    + fuzzTargets.map { name in
      .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", "RedisWire", .product(name: "ReorderFuzzable", package: "Reorder")],
        // gold stops with an internal error on these sanitized binaries; the toolchain's lld links them.
        linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
      )
    },
  swiftLanguageModes: [.v6]
)

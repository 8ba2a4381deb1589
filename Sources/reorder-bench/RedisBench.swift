import Foundation
import ReorderRedis

/// `reorder-bench redis [--ops N] [--batch B] [--connections C] [--payload BYTES] [--redis URL]`
///
/// Measures cluster mode's Redis cost per op (docs/CLUSTER.md, "Measured cost"): `reorder_append_ops`
/// one op per round trip (latency p50 / p99 / max, ops/s) while a second connection follows the
/// room's appends channel as every node's tail does (append → delivery latency; `XRANGE` reads
/// counted, which a tail makes only to fill what the channel lost), then pipelined batches of B,
/// then C connections at once, each one op per round trip (how Redis shares one fsync between
/// clients).
/// Redis' own counters (`INFO commandstats`, `INFO cpu`) give commands and Redis CPU per op.
/// Without `--redis` it starts its own `redis-server` on a free 127.0.0.1 port in a temporary
/// directory, once per `appendfsync` mode (always, everysec, and no AOF), and stops it by PID.
/// Prints a table and one JSON line.
func runRedisBenchmark(arguments: [String]) -> Never {
  var options = RedisBenchOptions()
  var index = 0
  while index < arguments.count {
    let flag = arguments[index]
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch (flag, value.flatMap { Int($0) }) {
    case ("--ops", let n?) where n > 0: options.ops = n
    case ("--batch", let n?) where n > 0: options.batch = n
    case ("--connections", let n?) where n > 0: options.connections = n
    case ("--payload", let n?) where n >= 0: options.payloadBytes = n
    case ("--redis", _) where value != nil:
      do {
        options.url = try RedisURL(parsing: value!)
      } catch {
        FileHandle.standardError.write(Data("reorder-bench redis: \(error)\n".utf8))
        exit(2)
      }
    default:
      FileHandle.standardError.write(
        Data(
          "usage: reorder-bench redis [--ops N] [--batch B] [--connections C] [--payload BYTES] [--redis redis://HOST:PORT[/DB]]\n"
            .utf8))
      exit(2)
    }
    index += 2
  }
  var results: [RedisBenchResult] = []
  do {
    if let url = options.url {
      results.append(try measureRedis(url: url, mode: "given", options: options))
    } else {
      for mode in ["always", "everysec", "no-aof"] {
        let server = try BenchRedisServer(mode: mode)
        defer { server.stop() }
        results.append(try measureRedis(url: server.url, mode: mode, options: options))
      }
    }
  } catch {
    FileHandle.standardError.write(Data("reorder-bench redis: \(error)\n".utf8))
    exit(1)
  }
  print(
    "redis benchmark: \(options.ops) ops of \(options.payloadBytes) bytes into one room, pipelined batches of \(options.batch)"
  )
  print(RedisBenchResult.header)
  for result in results { print(result.row) }
  print("{\"bench\":\"redis\",\"results\":[" + results.map(\.json).joined(separator: ",") + "]}")
  exit(0)
}

struct RedisBenchOptions {
  var ops = 5_000
  var batch = 50
  var connections = 8
  var payloadBytes = 64
  var url: RedisURL?
}

struct RedisBenchResult {
  var mode: String
  var appendP50, appendP99, appendMax: Double  // seconds, one op per round trip
  var sequentialOpsPerSecond: Double
  var deliveryP50, deliveryP99: Double  // append sent → entry read by the tailing connection
  var pipelinedOpsPerSecond: Double
  var concurrentOpsPerSecond: Double  // C connections, one op per round trip each
  var concurrentP99: Double
  var fcallsPerOp: Double  // commands this node sends per op (FCALL reorder_append_ops)
  var commandsPerOp: Double  // every command Redis ran during the sequential phase (the function's own calls too)
  var rangeReadsPerOp: Double  // XRANGE calls: 0 unless the channel lost notices
  var redisCPUMicrosecondsPerOp: Double
  var memoryBytesPerOp: Double  // MEMORY USAGE of the room's log and ids hash, per op kept

  static let header =
    "mode       append p50  p99       max       seq ops/s  deliver p50  p99       pipelined ops/s  concurrent ops/s  p99       fcall/op  cmds/op  xrange/op redis cpu/op  bytes/op"

  var row: String {
    func ms(_ s: Double) -> String { String(format: "%.3f ms", s * 1000).padding(10) }
    return mode.padding(11) + ms(appendP50) + ms(appendP99) + ms(appendMax)
      + String(Int(sequentialOpsPerSecond)).padding(11) + ms(deliveryP50).padding(13) + ms(deliveryP99)
      + String(Int(pipelinedOpsPerSecond)).padding(17) + String(Int(concurrentOpsPerSecond)).padding(18)
      + ms(concurrentP99) + String(format: "%.2f", fcallsPerOp).padding(10)
      + String(format: "%.2f", commandsPerOp).padding(9)
      + String(format: "%.2f", rangeReadsPerOp).padding(10)
      + String(format: "%.1f µs", redisCPUMicrosecondsPerOp).padding(14)
      + String(Int(memoryBytesPerOp))
  }

  var json: String {
    "{\"mode\":\"\(mode)\",\"append_p50_ms\":\(f(appendP50 * 1000)),\"append_p99_ms\":\(f(appendP99 * 1000)),"
      + "\"append_max_ms\":\(f(appendMax * 1000)),\"sequential_ops_per_s\":\(Int(sequentialOpsPerSecond)),"
      + "\"delivery_p50_ms\":\(f(deliveryP50 * 1000)),\"delivery_p99_ms\":\(f(deliveryP99 * 1000)),"
      + "\"pipelined_ops_per_s\":\(Int(pipelinedOpsPerSecond)),\"concurrent_ops_per_s\":\(Int(concurrentOpsPerSecond)),"
      + "\"concurrent_p99_ms\":\(f(concurrentP99 * 1000)),"
      + "\"fcalls_per_op\":\(f(fcallsPerOp)),\"commands_per_op\":\(f(commandsPerOp)),"
      + "\"xranges_per_op\":\(f(rangeReadsPerOp)),\"redis_cpu_us_per_op\":\(f(redisCPUMicrosecondsPerOp)),"
      + "\"memory_bytes_per_op\":\(Int(memoryBytesPerOp))}"
  }

  private func f(_ value: Double) -> String { String(format: "%.4f", value) }
}

private func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

private func measureRedis(url: RedisURL, mode: String, options: RedisBenchOptions) throws -> RedisBenchResult {
  let connection = try RedisConnection(url: url)
  try connection.loadFunctions()
  let room = "bench-\(UInt32.random(in: 0...UInt32.max))"
  defer { _ = try? connection.deleteRoom(room) }
  let payload = (0..<options.payloadBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }

  // The tail: another connection on the room's appends channel, as another node follows the room.
  let delivery = DeliveryLog(ops: options.ops)
  let tail = ShardedSubscriber(target: .single(url))
  tail.subscribe([ClusterKeys(room: room).appends])
  while try !tail.receive(waitSeconds: 1).contains(.subscribed(channel: ClusterKeys(room: room).appends)) {}
  let tailDone = DispatchSemaphore(value: 0)
  let ops = options.ops
  Thread {
    var last: UInt64 = 0
    while last < UInt64(ops), let events = try? tail.receive(waitSeconds: 1), !events.isEmpty {
      let now = monotonicSeconds()
      for case .message(_, let payload) in events {
        for entry in ClusterNotice.entries(payload) ?? [] {
          delivery.delivered(seq: Int(entry.seq), at: now)
          last = entry.seq
        }
      }
    }
    tailDone.signal()
  }.start()

  let before = try RedisCounters(connection)
  var latencies: [Double] = []
  latencies.reserveCapacity(options.ops)
  let sequentialStart = monotonicSeconds()
  for i in 1...options.ops {
    let started = monotonicSeconds()
    delivery.sent(seq: i, at: started)
    let outcome = try connection.append(
      room: room, epoch: "bench", key: Array("k\(i)".utf8), node: "n1", payload: payload)
    latencies.append(monotonicSeconds() - started)
    guard outcome == .applied(seq: UInt64(i)) else {
      throw RedisError.unexpectedReply(command: "bench", reply: "\(outcome)")
    }
  }
  let sequentialSeconds = monotonicSeconds() - sequentialStart
  _ = tailDone.wait(timeout: .now() + 10)
  let after = try RedisCounters(connection)
  let keys = ClusterKeys(room: room)
  var memory = 0
  for key in [keys.log, keys.ids] {
    memory += Int(try connection.command("MEMORY", "USAGE", key, "SAMPLES", "0").integer ?? 0)
  }

  let pipelinedRoom = room + "-p"
  defer { _ = try? connection.deleteRoom(pipelinedRoom) }
  let pipelinedStart = monotonicSeconds()
  var next = 1
  while next <= options.ops {
    let last = min(options.ops, next + options.batch - 1)
    let batch = (next...last).map {
      ClusterAppend(room: pipelinedRoom, epoch: "bench", key: Array("k\($0)".utf8), node: "n1", payload: payload)
    }
    _ = try connection.append(batch)
    next = last + 1
  }
  let pipelinedSeconds = monotonicSeconds() - pipelinedStart

  let concurrentRoom = room + "-c"
  defer { _ = try? connection.deleteRoom(concurrentRoom) }
  let clients = try (0..<options.connections).map { _ in try RedisConnection(url: url) }
  let perClient = max(1, options.ops / options.connections)
  let concurrent = DeliveryLog(ops: 0)
  let concurrentStart = monotonicSeconds()
  // One thread per connection (concurrentPerform would run only as many as there are cores).
  let finished = DispatchGroup()
  for (client, redis) in clients.enumerated() {
    finished.enter()
    Thread {
      defer { finished.leave() }
      for i in 0..<perClient {
        let started = monotonicSeconds()
        let key = Array("c\(client)-\(i)".utf8)
        guard (try? redis.append(room: concurrentRoom, epoch: "bench", key: key, node: "n", payload: payload)) != nil
        else { return }
        concurrent.record(monotonicSeconds() - started)
      }
    }.start()
  }
  finished.wait()
  let concurrentSeconds = monotonicSeconds() - concurrentStart
  let concurrentLatencies = concurrent.sorted()

  latencies.sort()
  let delivered = delivery.sorted()
  let n = Double(options.ops)
  return RedisBenchResult(
    mode: mode, appendP50: percentile(latencies, 0.5), appendP99: percentile(latencies, 0.99),
    appendMax: latencies.last ?? 0, sequentialOpsPerSecond: n / sequentialSeconds,
    deliveryP50: percentile(delivered, 0.5), deliveryP99: percentile(delivered, 0.99),
    pipelinedOpsPerSecond: n / pipelinedSeconds,
    concurrentOpsPerSecond: Double(concurrentLatencies.count) / concurrentSeconds,
    concurrentP99: percentile(concurrentLatencies, 0.99),
    // The counters' own INFO call is one of the commands counted.
    fcallsPerOp: Double(after.fcalls - before.fcalls) / n,
    commandsPerOp: Double(after.commands - before.commands - 1) / n,
    rangeReadsPerOp: Double(after.ranges - before.ranges) / n,
    redisCPUMicrosecondsPerOp: (after.cpuSeconds - before.cpuSeconds) * 1e6 / n,
    memoryBytesPerOp: Double(memory) / n)
}

private func percentile(_ sorted: [Double], _ q: Double) -> Double {
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1)]
}

/// When each seq was sent (the appending thread) and how long until the tail read it; or, with
/// `record`, latencies measured by several threads.
private final class DeliveryLog: @unchecked Sendable {
  private let lock = NSLock()
  private var sentAt: [Double]
  private var values: [Double] = []

  init(ops: Int) {
    sentAt = [Double](repeating: 0, count: ops + 1)
    values.reserveCapacity(ops)
  }

  func sent(seq: Int, at time: Double) {
    lock.lock()
    sentAt[seq] = time
    lock.unlock()
  }

  func record(_ latency: Double) {
    lock.lock()
    values.append(latency)
    lock.unlock()
  }

  func delivered(seq: Int, at time: Double) {
    lock.lock()
    values.append(time - sentAt[seq])
    lock.unlock()
  }

  func sorted() -> [Double] {
    lock.lock()
    defer { lock.unlock() }
    return values.sorted()
  }
}

/// Redis' own counters: commands processed, FCALL and XRANGE calls, CPU seconds (user + system).
private struct RedisCounters {
  var commands = 0
  var fcalls = 0
  var ranges = 0
  var cpuSeconds = 0.0

  init(_ connection: RedisConnection) throws {
    let info = try connection.command("INFO", "everything").text ?? ""
    for line in info.split(whereSeparator: \.isNewline) {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let value = parts[1]
      switch parts[0] {
      case "total_commands_processed": commands = Int(value) ?? 0
      case "used_cpu_sys", "used_cpu_user": cpuSeconds += Double(value) ?? 0
      case "cmdstat_xrange": ranges = Self.calls(value)
      case "cmdstat_fcall": fcalls = Self.calls(value)
      default: break
      }
    }
  }

  /// `calls=N` of a `cmdstat_…` line.
  private static func calls(_ stats: Substring) -> Int {
    let calls = stats.split(separator: ",").first { $0.hasPrefix("calls=") }
    return calls.flatMap { Int($0.dropFirst("calls=".count)) } ?? 0
  }
}

/// The bench's own redis-server: a free 127.0.0.1 port, a temporary directory, AOF per `mode`;
/// stopped by its PID.
private final class BenchRedisServer {
  let process = Process()
  let directory: String
  let url: RedisURL

  init(mode: String) throws {
    let port = Self.freePort()
    directory = NSTemporaryDirectory() + "reorder-bench-redis-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    url = RedisURL(host: "127.0.0.1", port: port)
    let aof = mode == "no-aof" ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", mode]
    process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
    process.arguments =
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", directory, "--save", "", "--daemonize", "no"] + aof
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date(timeIntervalSinceNow: 10)
    while (try? RedisConnection(url: url).command("PING")) == nil {
      guard Date() < deadline, process.isRunning else {
        stop()
        throw RedisError.cannotConnect(endpoint: url.description, reason: "the bench's redis-server did not start")
      }
      usleep(10_000)
    }
  }

  func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// A free port: bind port 0 on 127.0.0.1, read it back, close.
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

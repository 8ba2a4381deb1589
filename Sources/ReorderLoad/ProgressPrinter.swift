import Foundation
import ReorderBasics

/// The live progress line on stderr: rewritten in place on a terminal, one line per second
/// otherwise (so logs stay readable).
final class ProgressPrinter {
  let label: String
  let enabled: Bool
  let log: @Sendable (String) -> Void
  let isTerminal = isatty(STDERR_FILENO) == 1
  private var lastConnectPrint: Int64 = 0
  private var onLine = false

  init(label: String, enabled: Bool, log: @escaping @Sendable (String) -> Void) {
    self.label = label
    self.enabled = enabled
    self.log = log
  }

  private func emit(_ text: String, final: Bool = false) {
    guard enabled else { return }
    if isTerminal {
      FileHandle.standardError.write(Data(("\r\u{1B}[K" + text + (final ? "\n" : "")).utf8))
      onLine = !final
    } else {
      log(text)
    }
  }

  /// Connect phase (at most twice a second off a terminal).
  func connecting(ready: Int, failed: Int, wanted: Int, final: Bool = false) {
    let now = MonotonicClock.microseconds()
    guard final || now - lastConnectPrint > (isTerminal ? 100_000 : 1_000_000) else { return }
    lastConnectPrint = now
    emit("[\(label)] connecting \(ready)/\(wanted) ready, \(failed) failed", final: final)
  }

  /// One traffic second.
  func traffic(
    state: ShardProgress, previous: LoadCounters, seconds: Double, elapsed: Double, total: Double,
    receiversPerUpdate: Double, draggers: Int, server: ArraySlice<ProcessSample>
  ) {
    let counters = state.counters
    let span = max(0.001, seconds)
    let sent = Double(counters.dragUpdatesSent - previous.dragUpdatesSent) / span
    let delivered = Double(counters.dragUpdatesDelivered - previous.dragUpdatesDelivered) / span
    let covered = Double(counters.dragUpdatesCovered - previous.dragUpdatesCovered) / span
    let offered = sent * receiversPerUpdate
    var parts = [String(format: "[%@] %4.1f/%.0fs", label, elapsed, total)]
    if draggers > 0 || counters.dragUpdatesSent > 0 {
      parts.append(
        "drags \(draggers)×: sent \(Self.rate(sent))/s delivered \(Self.rate(delivered))/s covered \(Self.rate(covered))/s"
          + (offered > 0 ? String(format: " (%.1f%%)", 100 * covered / offered) : "")
          + String(format: " p99 %.0f ms", Double(state.lastSecondDragLatency.percentile(0.99)) / 1000))
    }
    if counters.movesSent > 0 {
      let moves = Double(counters.movesSent - previous.movesSent) / span
      let acks = Double(counters.movesAcknowledged - previous.movesAcknowledged) / span
      parts.append(
        "moves \(Self.rate(moves))/s acked \(Self.rate(acks))/s"
          + String(format: " p99 %.1f ms", Double(state.lastSecondAckLatency.percentile(0.99)) / 1000))
    }
    parts.append("errors \(counters.errors + counters.rejected + counters.unexpectedCloses)")
    if server.count == 2, let first = server.first, let last = server.last, last.time > first.time {
      let cpu = 100 * (last.cpuSeconds - first.cpuSeconds) / (Double(last.time - first.time) / 1e6)
      parts.append(String(format: "server %.0f%% %.0f MB", cpu, Double(last.rssBytes) / 1_048_576))
    }
    emit(parts.joined(separator: " | "))
  }

  /// Seeding phase of a big board (same pace as `connecting`).
  func seeding(opsApplied: Int, rooms: Int) {
    let now = MonotonicClock.microseconds()
    guard now - lastConnectPrint > (isTerminal ? 100_000 : 1_000_000) else { return }
    lastConnectPrint = now
    emit("[\(label)] seeding \(rooms) room\(rooms == 1 ? "" : "s"): \(opsApplied) ops applied")
  }

  /// Ends an in-place line.
  func finishLine() {
    if enabled && isTerminal && onLine {
      FileHandle.standardError.write(Data("\n".utf8))
      onLine = false
    }
  }

  /// 1234 → "1.2k", 1234567 → "1.23M".
  static func rate(_ value: Double) -> String {
    switch value {
    case 1_000_000...: return String(format: "%.2fM", value / 1_000_000)
    case 10_000...: return String(format: "%.0fk", value / 1_000)
    case 1_000...: return String(format: "%.1fk", value / 1_000)
    default: return String(format: "%.0f", value)
    }
  }
}

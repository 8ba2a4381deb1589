import Foundation

/// The self-contained HTML report: tables, then per run a latency histogram and throughput over
/// time as inline SVG. No scripts, no external stylesheets, fonts or images.
extension LoadReport {
  static let style = """
    body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
    h1{font-size:20px}h2{font-size:17px;margin-top:32px;border-top:1px solid #ddd;padding-top:16px}
    table{border-collapse:collapse;font-size:12px;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 6px}
    td.n{text-align:right}pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}
    .charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{width:520px;height:auto;border:1px solid #eee}
    .tick{font-size:10px;fill:#555}.axis,.legend{font-size:11px;fill:#333}.frame{stroke:#999}
    .empty{color:#888;font-style:italic}
    """

  /// The whole report as one HTML document.
  public var html: String {
    var body = "<h1>Reorder load report</h1><p>Generated \(SVGChart.escape(generatedAt)).</p>"
    let table = markdown
    if !table.isEmpty { body += Self.htmlTables(fromMarkdown: table) }
    for run in runs { body += Self.section(run) }
    return """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"><title>Reorder load report</title>
      <meta name="viewport" content="width=device-width,initial-scale=1">
      <style>\(Self.style)</style></head><body>\(body)</body></html>

      """
  }

  static func section(_ run: LoadResult) -> String {
    var html = "<h2 id=\"\(SVGChart.escape(run.label))\">\(SVGChart.escape(run.label))"
    if !run.title.isEmpty { html += " — \(SVGChart.escape(run.title))" }
    html += "</h2><pre>\(SVGChart.escape(run.textReport))</pre><div class=\"charts\">"
    let labels = run.dragLatencyEdgesMs.map { LoadResult.milliseconds($0) } + ["more"]
    if run.counters.dragUpdatesSent > 0 {
      html += SVGChart.bars(
        counts: run.dragLatencyCounts, labels: labels, color: "#4363d8", caption: "drag latency histogram")
      let receivers = run.clients / max(1, run.rooms) - 1
      html += SVGChart.lines(
        [
          .init(
            name: "offered/s", color: "#bbb", values: run.series.dragUpdatesSent.map { Double($0 * receivers) }),
          .init(name: "delivered/s", color: "#f58231", values: run.series.dragUpdatesDelivered.map(Double.init)),
          .init(name: "covered/s", color: "#3cb44b", values: run.series.dragUpdatesCovered.map(Double.init)),
        ], caption: "drag throughput over time", unit: "updates per second")
      html += SVGChart.lines(
        [.init(name: "drag p99 ms", color: "#e6194b", values: run.dragP99PerSecond)], caption: "drag p99 over time",
        unit: "milliseconds")
    }
    if run.counters.movesSent > 0 {
      html += SVGChart.bars(
        counts: run.ackLatencyCounts, labels: labels, color: "#911eb4", caption: "ack latency histogram")
      html += SVGChart.lines(
        [
          .init(name: "moves sent/s", color: "#bbb", values: run.series.movesSent.map(Double.init)),
          .init(name: "acked/s", color: "#3cb44b", values: run.series.movesAcknowledged.map(Double.init)),
        ], caption: "moves over time", unit: "moves per second")
      html += SVGChart.lines(
        [.init(name: "ack p99 ms", color: "#e6194b", values: run.ackP99PerSecond)], caption: "ack p99 over time",
        unit: "milliseconds")
    }
    if let server = run.server, !server.cpuPercentPerSecond.isEmpty {
      html += SVGChart.lines(
        [
          .init(name: "server CPU %", color: "#469990", values: server.cpuPercentPerSecond),
          .init(name: "load tool CPU %", color: "#f032e6", values: run.loadClient?.cpuPercentPerSecond ?? []),
        ], caption: "CPU over time", unit: "% of one core")
    }
    return html + "</div>"
  }

  /// Renders the pipe tables of `markdown` as HTML tables (other lines as paragraphs).
  static func htmlTables(fromMarkdown markdown: String) -> String {
    var html = ""
    var inTable = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("|") {
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
          .map { $0.trimmingCharacters(in: .whitespaces) }
        if cells.allSatisfy({ $0.allSatisfy { $0 == "-" || $0 == ":" } }) { continue }
        if !inTable {
          html += "<table><tr>" + cells.map { "<th>\(SVGChart.escape($0))</th>" }.joined() + "</tr>"
          inTable = true
        } else {
          html +=
            "<tr>"
            + cells.map { cell in
              let numeric = cell.first.map { $0.isNumber || $0 == "–" } ?? false
              return "<td\(numeric ? " class=\"n\"" : "")>\(SVGChart.escape(cell))</td>"
            }.joined() + "</tr>"
        }
      } else {
        if inTable {
          html += "</table>"
          inTable = false
        }
        if !line.isEmpty { html += "<p>\(SVGChart.escape(String(line)))</p>" }
      }
    }
    if inTable { html += "</table>" }
    return html
  }
}

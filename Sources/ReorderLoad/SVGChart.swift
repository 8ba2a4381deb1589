import Foundation

/// Inline SVG charts for the HTML report: no scripts, no external assets.
enum SVGChart {
  static let width = 640.0
  static let height = 240.0
  static let left = 56.0
  static let right = 12.0
  static let top = 14.0
  static let bottom = 36.0

  /// A named line of a line chart.
  struct Line {
    var name: String
    var color: String
    var values: [Double]
  }

  /// A bar chart of `counts` with one label per bar (shown every few bars).
  static func bars(counts: [UInt64], labels: [String], color: String, caption: String) -> String {
    guard let most = counts.max(), most > 0 else { return "<p class=\"empty\">\(escape(caption)): no samples</p>" }
    // Trim empty bins at both ends so the interesting part fills the chart.
    let first = counts.firstIndex { $0 > 0 } ?? 0
    let last = counts.lastIndex { $0 > 0 } ?? counts.count - 1
    let shown = Array(counts[first...last])
    let shownLabels = Array(labels[first...last])
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let barWidth = plotWidth / Double(shown.count)
    var svg = header(caption)
    svg += axes(maxY: Double(most), format: { String(Int($0)) })
    let every = max(1, shown.count / 8)
    for (index, count) in shown.enumerated() {
      let barHeight = plotHeight * Double(count) / Double(most)
      let x = left + Double(index) * barWidth
      svg += String(
        format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\"><title>%@: %llu</title></rect>",
        x + 0.5, top + plotHeight - barHeight, max(1, barWidth - 1), barHeight, color, escape(shownLabels[index]), count
      )
      if index % every == 0 {
        svg += String(
          format: "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%@</text>", x + barWidth / 2,
          height - bottom + 14, escape(shownLabels[index]))
      }
    }
    svg += String(
      format: "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">latency (ms, bin upper edge)</text>",
      left + plotWidth / 2, height - 4)
    return svg + "</svg>"
  }

  /// A line chart over seconds, with a legend.
  static func lines(_ lines: [Line], caption: String, unit: String) -> String {
    let count = lines.map(\.values.count).max() ?? 0
    let most = lines.flatMap(\.values).max() ?? 0
    guard count > 0, most > 0 else { return "<p class=\"empty\">\(escape(caption)): no samples</p>" }
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let step = count > 1 ? plotWidth / Double(count - 1) : 0
    var svg = header(caption)
    svg += axes(maxY: most, format: { ProgressPrinter.rate($0) })
    for line in lines where !line.values.isEmpty {
      let points = line.values.enumerated().map { index, value in
        String(format: "%.1f,%.1f", left + Double(index) * step, top + plotHeight - plotHeight * value / most)
      }
      svg +=
        "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\">"
      svg += "<title>\(escape(line.name))</title></polyline>"
    }
    let every = max(1, count / 10)
    for second in stride(from: 0, to: count, by: every) {
      svg += String(
        format: "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%d</text>",
        left + Double(second) * step, height - bottom + 14, second)
    }
    svg += String(
      format: "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">seconds (%@)</text>",
      left + plotWidth / 2, height - 4, escape(unit))
    for (index, line) in lines.enumerated() {
      let x = left + 8 + Double(index) * 150
      svg += String(
        format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%@\"/>"
          + "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">%@</text>", x, top, line.color, x + 14, top + 9,
        escape(line.name))
    }
    return svg + "</svg>"
  }

  private static func header(_ caption: String) -> String {
    String(
      format: "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%@\">"
        + "<title>%@</title>", width, height, escape(caption), escape(caption))
  }

  private static func axes(maxY: Double, format: (Double) -> String) -> String {
    let plotHeight = height - top - bottom
    var svg = String(
      format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"frame\"/>", left, top, left,
      top + plotHeight)
    svg += String(
      format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"frame\"/>", left, top + plotHeight,
      width - right, top + plotHeight)
    for fraction in [0.0, 0.5, 1.0] {
      let y = top + plotHeight * (1 - fraction)
      svg += String(
        format: "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%@</text>", left - 4, y + 4,
        escape(format(maxY * fraction)))
    }
    return svg
  }

  /// Escapes text for HTML and SVG.
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.append(character)
      }
    }
    return result
  }
}

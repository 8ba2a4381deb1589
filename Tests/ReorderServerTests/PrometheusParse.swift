import Foundation
import Testing

/// A `/metrics` exposition as the official Python client's parser
/// (`prometheus_client.parser.text_string_to_metric_families`) reads it, plus the checks that
/// parser leaves out: a family's type and help, cumulative histogram buckets that end in `+Inf`.
struct PrometheusParse {
  /// One sample: its full name (`_bucket`, `_total`, … included), labels and value.
  struct Sample {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  /// One family: the parser's name (a counter's without `_total`), type and help text.
  struct Family {
    let name: String
    let type: String
    let help: String
    let samples: [Sample]
  }

  let families: [Family]

  static let script = """
    import json, sys
    from prometheus_client.parser import text_string_to_metric_families
    out = []
    for f in text_string_to_metric_families(sys.stdin.read()):
        out.append({"name": f.name, "type": f.type, "help": f.documentation,
                    "samples": [[s.name, s.labels, s.value] for s in f.samples]})
    print(json.dumps(out))
    """

  /// Runs `python3 -c script` with `input` on its standard input: its exit status and output.
  static func python(_ script: String, input text: String) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
  }

  /// Parses `text` with python3 and prometheus_client; throws when the parser refuses it.
  init(_ text: String) throws {
    let (status, data) = try Self.python(Self.script, input: text)
    guard status == 0, let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { throw ParseError.refused(text) }
    families = list.map { family in
      let samples = (family["samples"] as? [[Any]] ?? []).map { sample in
        Sample(
          name: sample[0] as? String ?? "", labels: sample[1] as? [String: String] ?? [:],
          value: (sample[2] as? NSNumber)?.doubleValue ?? .nan)
      }
      return Family(
        name: family["name"] as? String ?? "", type: family["type"] as? String ?? "",
        help: family["help"] as? String ?? "", samples: samples)
    }
  }

  enum ParseError: Error { case refused(String) }

  /// The family named `name` (a counter by its name without `_total`).
  func family(_ name: String) -> Family? { families.first { $0.name == name } }

  /// The value of the sample `name` with exactly `labels`.
  func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
    families.lazy.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
  }

  /// What is wrong with the exposition beyond what the parser checks (empty when nothing): a
  /// family without a type or help (a sample line the parser found under no `# TYPE`), or a
  /// histogram series whose buckets are not ascending and cumulative, do not end in `+Inf`, or
  /// whose `+Inf` bucket is not its `_count`.
  func problems() -> [String] {
    var problems: [String] = []
    for family in families {
      if family.type == "unknown" || family.help.isEmpty { problems.append("\(family.name): no TYPE or HELP") }
      guard family.type == "histogram" else { continue }
      var series: [[String: String]: [(le: Double, count: Double)]] = [:]
      var counts: [[String: String]: Double] = [:]
      for sample in family.samples {
        var labels = sample.labels
        if sample.name == family.name + "_bucket", let le = labels.removeValue(forKey: "le") {
          series[labels, default: []].append((le == "+Inf" ? .infinity : Double(le) ?? .nan, sample.value))
        } else if sample.name == family.name + "_count" {
          counts[labels] = sample.value
        }
      }
      if series.isEmpty { problems.append("\(family.name): no buckets") }
      for (labels, buckets) in series {
        let bounds = buckets.map(\.le)
        let values = buckets.map(\.count)
        if bounds != bounds.sorted() || values != values.sorted() {
          problems.append("\(family.name)\(labels): buckets not ascending and cumulative")
        }
        if bounds.last != .infinity { problems.append("\(family.name)\(labels): the last bucket is not +Inf") }
        if values.last != counts[labels] { problems.append("\(family.name)\(labels): +Inf is not _count") }
      }
    }
    return problems
  }
}

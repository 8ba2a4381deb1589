import Foundation
import Testing

/// docs/API.md documents every route of docs/openapi.json with a curl example.
@Suite("docs/API.md")
struct APIDocsTests {
  @Test("every operation of docs/openapi.json has a section in docs/API.md with a curl example of its method")
  func curlPerRoute() throws {
    let docs = URL(fileURLWithPath: APITests.specPath).deletingLastPathComponent()
    let text = try String(contentsOf: docs.appendingPathComponent("API.md"), encoding: .utf8)
    let data = try #require(FileManager.default.contents(atPath: APITests.specPath))
    let spec = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let paths = try #require(spec["paths"] as? [String: [String: Any]])
    let sections = text.components(separatedBy: "\n### ").dropFirst()
    var checked = 0
    for (template, item) in paths {
      for method in ["get", "post", "put", "delete"] where item[method] != nil {
        let verb = method.uppercased()
        let section = sections.first { $0.hasPrefix("`\(verb) \(template)") }
        #expect(section != nil, "no section for \(verb) \(template)")
        guard let section else { continue }
        let curl = section.components(separatedBy: "\n").filter { $0.hasPrefix("curl ") }
        #expect(
          curl.contains { verb == "GET" ? !$0.contains(" -X ") : $0.contains("-X \(verb)") },
          "no curl example for \(verb) \(template)")
        checked += 1
      }
    }
    #expect(checked == 10)
  }
}

import Foundation
import Testing

@testable import ReorderRooms

@Suite("docs/PROTOCOL.md")
struct ProtocolDocTests {
  /// The JSON lines of the document's code blocks (one-line examples).
  func exampleLines() throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    var inBlock = false
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inBlock.toggle()
        continue
      }
      if inBlock, line.hasPrefix("{"), line.hasSuffix("}"), !line.contains("…") { lines.append(String(line)) }
    }
    return lines
  }

  @Test("Every client example in the protocol document decodes")
  func clientExamplesDecode() throws {
    let lines = try exampleLines()
    let client = lines.filter {
      $0.hasPrefix(#"{"type":"hello""#) || $0.hasPrefix(#"{"type":"op""#) || $0.hasPrefix(#"{"type":"drag""#)
    }
    #expect(client.count >= 12)
    for line in client {
      #expect(throws: Never.self, "\(line)") { _ = try ClientMessage.decode(Array(line.utf8)) }
    }
  }

  @Test("Every one-line example in the protocol document is valid JSON")
  func examplesAreJSON() throws {
    let lines = try exampleLines()
    #expect(lines.count >= 25)
    for line in lines { #expect(throws: Never.self, "\(line)") { _ = try JSONValue.parse(line) } }
  }

  @Test("Every error code is documented")
  func everyCodeDocumented() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    for code in ErrorCode.allCases {
      #expect(text.contains("`\(code.rawValue)`"), "\(code.rawValue) is not in docs/PROTOCOL.md")
    }
  }
}

import Foundation
import Testing

@testable import ReorderRooms

@Suite("Rejection codes")
struct RejectionCodesDocTests {
  @Test("ErrorCode.rejectionCodes are the codes docs/PROTOCOL.md's table sends in a rejected frame")
  func rejectionCodesAreTheDocumentedOnes() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    // Rows such as "| `read_only` | rejected | …": the code, then the frames that carry it.
    let documented = text.split(separator: "\n").compactMap { line -> String? in
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 3, cells[0].hasPrefix("`"), cells[0].hasSuffix("`"), cells[1].contains("rejected")
      else { return nil }
      return String(cells[0].dropFirst().dropLast())
    }
    #expect(documented.count >= 15)
    #expect(Set(ErrorCode.rejectionCodes.map(\.rawValue)) == Set(documented))
    #expect(ErrorCode.rejectionCodes.count == Set(ErrorCode.rejectionCodes).count)
  }
}

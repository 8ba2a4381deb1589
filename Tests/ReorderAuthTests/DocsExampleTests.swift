import Foundation
import ReorderAuth
import TestSupport
import Testing

/// The minting examples of docs/AUTH.md, run as they stand there, against the verifier.
@Suite("docs/AUTH.md: the PyJWT and jose examples mint tokens the verifier accepts", .serialized)
struct DocsExampleTests {
  /// A Python 3 that can `import jwt` (PyJWT), if any.
  static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { path in
    FileManager.default.isExecutableFile(atPath: path) && exitStatus(path, ["-c", "import jwt"]) == 0
  }

  /// Node and the directory of the `jose` package, if both are installed.
  static let node: (node: String, jose: String)? = {
    guard let node = ["/usr/bin/node", "/usr/local/bin/node"].first(where: FileManager.default.isExecutableFile)
    else { return nil }
    let jose = ["/usr/share/nodejs/jose", "/usr/lib/node_modules/jose", "/usr/local/lib/node_modules/jose"]
      .first { FileManager.default.fileExists(atPath: $0 + "/package.json") }
    return jose.map { (node, $0) }
  }()

  private static func exitStatus(_ executable: String, _ arguments: [String]) -> Int32? {
    guard let child = try? ChildProcess(executable: executable, arguments: arguments) else { return nil }
    defer { child.terminate() }
    return child.waitForExit(timeout: 20)
  }

  /// The fenced code block of `language` that follows `heading` in docs/AUTH.md.
  private func example(after heading: String, language: String) throws -> String {
    let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/AUTH.md")
    let text = try String(contentsOf: docs, encoding: .utf8)
    let section = try #require(text.range(of: heading), "docs/AUTH.md has no '\(heading)'")
    let rest = text[section.upperBound...]
    let start = try #require(rest.range(of: "```\(language)\n"))
    let end = try #require(rest[start.upperBound...].range(of: "\n```"))
    return String(rest[start.upperBound..<end.lowerBound]) + "\n"
  }

  /// Runs a minting example and checks what it printed with the verifier.
  private func check(executable: String, script: String) throws {
    let keys = TestKeys.shared
    let child = try ChildProcess(
      executable: executable, arguments: [script], environment: ["REORDER_AUTH_SECRET_FILE": keys.secretFile])
    defer { child.terminate() }
    #expect(child.waitForExit(timeout: 30) == 0, "\(child.output)")
    let token = try #require(child.output.first { $0.hasPrefix("eyJ") }, "\(child.output)")
    let result = TokenVerifier(key: .secret(keys.secret)).verify(token: token, forRoom: "team-a-roadmap")
    let claims = try result.get()
    #expect(claims.subject == "user-42" && claims.role == .editor && claims.room == .exact("team-a-roadmap"))
    #expect(claims.name == "Ann" && claims.color == "#e4572e" && claims.presence)
    #expect(claims.expiresAt - (claims.issuedAt ?? 0) == 3_600)
  }

  private func scratchDirectory(_ name: String) throws -> String {
    let directory = TestKeys.shared.directory + "/" + name
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test("the Python (PyJWT) example", .enabled(if: python != nil, "PyJWT is not installed (install-deps.sh test)"))
  func pythonExample() throws {
    let directory = try scratchDirectory("python-example")
    let script = directory + "/mint.py"
    try example(after: "Python (PyJWT)", language: "python").write(toFile: script, atomically: true, encoding: .utf8)
    try check(executable: try #require(Self.python), script: script)
  }

  @Test(
    "the JavaScript (jose) example", .enabled(if: node != nil, "node or jose is not installed (install-deps.sh test)"))
  func javaScriptExample() throws {
    let (node, jose) = try #require(Self.node)
    let directory = try scratchDirectory("js-example")
    // As `npm install jose` would lay it out: node_modules/jose next to the script.
    try FileManager.default.createDirectory(atPath: directory + "/node_modules", withIntermediateDirectories: true)
    try? FileManager.default.removeItem(atPath: directory + "/node_modules/jose")
    try FileManager.default.createSymbolicLink(atPath: directory + "/node_modules/jose", withDestinationPath: jose)
    let script = directory + "/mint.mjs"
    try example(after: "JavaScript (`jose`)", language: "js").write(toFile: script, atomically: true, encoding: .utf8)
    try check(executable: node, script: script)
  }
}

import ReorderBasics
import TestSupport
import XCTest

@testable import ReorderTransport

final class StaticFilesTests: XCTestCase {
  func testMimeTypesForTheWebClient() {
    XCTAssertEqual(StaticFiles.contentType("html"), "text/html; charset=utf-8")
    XCTAssertEqual(StaticFiles.contentType("js"), "text/javascript; charset=utf-8")
    XCTAssertEqual(StaticFiles.contentType("mjs"), "text/javascript; charset=utf-8")
    XCTAssertEqual(StaticFiles.contentType("css"), "text/css; charset=utf-8")
    XCTAssertEqual(StaticFiles.contentType("svg"), "image/svg+xml")
    XCTAssertEqual(StaticFiles.contentType("png"), "image/png")
    XCTAssertEqual(StaticFiles.contentType("json"), "application/json")
    XCTAssertEqual(StaticFiles.contentType("ico"), "image/x-icon")
    XCTAssertEqual(StaticFiles.contentType("webmanifest"), "application/manifest+json")
    XCTAssertEqual(StaticFiles.contentType("exe"), "application/octet-stream")
    XCTAssertEqual(StaticFiles.cacheControl("js"), "no-cache")
    XCTAssertEqual(StaticFiles.cacheControl("png"), "public, max-age=86400")
  }

  func testResolvesInsideTheRootAndRefusesEverythingElse() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("web/index.html", "index")
    try directory.write("web/js/app.js", "app")
    try directory.write("web/.hidden", "hidden")
    try directory.write("secret.txt", "secret")
    try FileManager.default.createSymbolicLink(
      atPath: directory.path + "/web/escape.txt", withDestinationPath: directory.path + "/secret.txt")
    let files = try XCTUnwrap(StaticFiles(root: directory.path + "/web"))
    guard case .file(let index, _, _, _) = files.resolve("/") else { return XCTFail("no index for /") }
    XCTAssertTrue(index.hasSuffix("/web/index.html"))
    guard case .file(let app, let type, _, _) = files.resolve("/js/app.js") else { return XCTFail("no app.js") }
    XCTAssertTrue(app.hasSuffix("/web/js/app.js"))
    XCTAssertEqual(type, "text/javascript; charset=utf-8")
    for path in [
      "/../secret.txt", "/js/../../secret.txt", "/..", "/.hidden", "/escape.txt", "/%2e%2e/secret.txt",
      "/..\\secret.txt", "/js\\..\\..\\secret.txt", "/missing.html", "relative.html", "/index.html\u{0}.js",
    ] {
      XCTAssertEqual(files.resolve(path), .notFound, path)
    }
  }

  func testAMissingRootIsRefused() {
    XCTAssertNil(StaticFiles(root: "/nonexistent/reorder/web"))
  }
}

final class LogTests: XCTestCase {
  func testTextAndJSONLinesCarrySortedFields() {
    let date = Date(timeIntervalSince1970: 0)
    XCTAssertEqual(
      Log.render(
        level: .info, message: "listening", fields: ["port": "1", "host": "h"], format: .text, date: date),
      "1970-01-01T00:00:00Z info listening host=h port=1")
    XCTAssertEqual(
      Log.render(level: .error, message: "closed", fields: ["reason": "a b"], format: .text, date: date),
      #"1970-01-01T00:00:00Z error closed reason="a b""#)
    XCTAssertEqual(
      Log.render(level: .warn, message: "a \"b\"\n", fields: ["k": "v"], format: .json, date: date),
      #"{"ts":"1970-01-01T00:00:00Z","level":"warn","msg":"a \"b\"\n","k":"v"}"#)
    XCTAssertEqual(Log.Level(name: "WARNING"), .warn)
    XCTAssertNil(Log.Level(name: "verbose"))
  }
}

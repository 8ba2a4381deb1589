import Foundation
import ReorderRedis
import TestSupport
import Testing

@Suite("Redis URLs")
struct RedisURLTests {
  @Test("redis://HOST:PORT[/DB] gives host, port and database")
  func parsesTheForms() throws {
    #expect(try RedisURL(parsing: "redis://127.0.0.1:6379") == RedisURL(host: "127.0.0.1", port: 6379))
    #expect(
      try RedisURL(parsing: "redis://cache.internal:7000/3")
        == RedisURL(host: "cache.internal", port: 7000, database: 3))
    #expect(try RedisURL(parsing: "redis://[::1]:6380/1") == RedisURL(host: "::1", port: 6380, database: 1))
    #expect(try RedisURL(parsing: "redis://h:1/") == RedisURL(host: "h", port: 1))
    #expect(RedisURL(host: "::1", port: 6380, database: 1, password: "secret").description == "redis://[::1]:6380/1")
  }

  @Test(
    "Malformed URLs are refused with the reason",
    arguments: [
      ("http://h:1", "redis://"), ("redis://h", "port"), ("redis://h:0", "port"), ("redis://h:x", "port"),
      ("redis://:1", "host"), ("redis://h:1/x", "database"), ("redis://user:pw@h:1", "password-file"),
      ("redis://[::1:1", "IPv6"),
    ])
  func refusesMalformed(text: String, reason: String) {
    #expect {
      try RedisURL(parsing: text)
    } throws: { error in
      guard case .invalidURL(let given, let why) = error as? RedisError else { return false }
      return (given == text || given == "redis://…@h:1") && why.contains(reason) && !"\(error)".contains("pw")
    }
  }

  @Test("The password comes from its file, one line break removed; an empty or missing file is an error")
  func readsThePasswordFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("pw", "s3cret\n")
    try directory.write("empty", "\n")
    let url = try RedisURL(parsing: "redis://h:1", passwordFile: directory.path + "/pw")
    #expect(url.password == "s3cret")
    #expect(!url.description.contains("s3cret"))
    #expect(throws: RedisError.passwordFile(directory.path + "/empty", reason: "it is empty")) {
      try RedisURL(parsing: "redis://h:1", passwordFile: directory.path + "/empty")
    }
    #expect {
      try RedisURL(parsing: "redis://h:1", passwordFile: directory.path + "/none")
    } throws: { error in
      guard case .passwordFile(_, let reason) = error as? RedisError else { return false }
      return reason.contains("cannot be read")
    }
  }
}

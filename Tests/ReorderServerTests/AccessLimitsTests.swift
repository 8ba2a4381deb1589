import Foundation
import ReorderBasics
import ReorderTransport
import TestSupport
import Testing

@testable import ReorderServer

@Suite("Origins, client addresses and per-address limits (no sockets)")
struct AccessLimitsTests {
  @Test("by default only the server's own origin and its loopback ones may connect")
  func defaultOrigins() throws {
    let policy = try OriginPolicy(list: "", secure: false)
    #expect(policy.allows(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080", port: 8080))
    #expect(policy.allows(origin: "http://localhost:8080", host: "localhost:8080", port: 8080))
    #expect(policy.allows(origin: "http://board.lan:9000", host: "board.lan:9000", port: 8080), "the Host it names")
    #expect(!policy.allows(origin: "https://evil.example", host: "127.0.0.1:8080", port: 8080))
    #expect(!policy.allows(origin: "http://127.0.0.1:9999", host: "127.0.0.1:8080", port: 8080))
    #expect(!policy.allows(origin: "null", host: "127.0.0.1:8080", port: 8080))
    #expect(policy.allows(origin: nil, host: "127.0.0.1:8080", port: 8080), "not a browser")
    let tls = try OriginPolicy(list: "", secure: true)
    #expect(tls.allows(origin: "https://board.example.com", host: "board.example.com", port: 443))
    #expect(!tls.allows(origin: "http://board.example.com", host: "board.example.com", port: 443))
  }

  @Test("behind a trusted proxy the own origin is the one the browser used with the proxy")
  func originsBehindAProxy() throws {
    let policy = try OriginPolicy(list: "", secure: false)
    let tlsProxy = ProxyForwarding(forwarded: nil, forwardedProto: "https", forwardedHost: nil)
    #expect(policy.allows(origin: "https://localhost", host: "localhost", port: 8080, forwarding: tlsProxy))
    #expect(!policy.allows(origin: "https://localhost", host: "localhost", port: 8080), "not from a proxy")
    #expect(!policy.allows(origin: "https://evil.example", host: "localhost", port: 8080, forwarding: tlsProxy))
    let renamed = ProxyForwarding(forwarded: nil, forwardedProto: "https", forwardedHost: "Boards.Example.com")
    #expect(
      policy.allows(origin: "https://boards.example.com", host: "127.0.0.1:8080", port: 8080, forwarding: renamed))
    #expect(
      !policy.allows(origin: "http://boards.example.com", host: "127.0.0.1:8080", port: 8080, forwarding: renamed))
    let silent = ProxyForwarding(forwarded: nil, forwardedProto: nil, forwardedHost: nil)
    #expect(
      policy.allows(origin: "https://boards.example.com", host: "boards.example.com", port: 8080, forwarding: silent))
    #expect(
      policy.allows(origin: "http://boards.example.com", host: "boards.example.com", port: 8080, forwarding: silent))
    let rfc7239 = ProxyForwarding(
      forwarded: #"for=203.0.113.9;proto=https;host="boards.example.com", for="[2001:db8::1]:4711""#,
      forwardedProto: "http", forwardedHost: "other.example")
    #expect(rfc7239.proto == "https" && rfc7239.host == "boards.example.com", "Forwarded wins")
    #expect(rfc7239.forwardedFor == ["203.0.113.9", "2001:db8::1"])
    #expect(
      policy.allows(origin: "https://boards.example.com", host: "127.0.0.1:8080", port: 8080, forwarding: rfc7239))
    let configured = try OriginPolicy(list: "https://app.example.com", secure: false)
    #expect(
      !configured.allows(origin: "https://localhost", host: "localhost", port: 8080, forwarding: tlsProxy),
      "a list replaces the defaults behind a proxy too")
  }

  @Test("upgrades through a trusted proxy count the client it names, from Forwarded too")
  func admissionBehindAProxy() throws {
    let control = AdmissionControl(
      limits: .init(
        origins: try OriginPolicy(list: "", secure: false), maxConnectionsPerAddress: 1, handshakesPerSecond: 100,
        trustedProxies: [try #require(AddressRange("127.0.0.1"))]))
    func upgrade(_ headers: (String?, String?, String?), peer: String = "127.0.0.1") -> UpgradeDecision {
      control.decide(
        UpgradeRequest(
          path: "/ws/food", origin: "https://localhost", host: "localhost", forwardedFor: headers.0,
          forwardedProto: headers.1, forwarded: headers.2, peerAddress: peer), now: 0, port: 8080)
    }
    guard case .accept(let first as Admission) = upgrade(("203.0.113.9", "https", nil)) else {
      Issue.record("the page's own origin through the proxy was refused")
      return
    }
    #expect(first.address == "203.0.113.9")
    control.opened(first)
    guard case .accept(let second as Admission) = upgrade((nil, nil, "for=198.51.100.4;proto=https")) else {
      Issue.record("a second client behind the same proxy was refused")
      return
    }
    #expect(second.address == "198.51.100.4")
    guard case .refuse(let status, _) = upgrade(("203.0.113.9", "https", nil)) else {
      Issue.record("the first client's second connection passed its limit of 1")
      return
    }
    #expect(status == 429)
    guard case .refuse(let forbidden, _) = upgrade(("192.0.2.1", "https", nil), peer: "192.0.2.50") else {
      Issue.record("forwarding headers from an untrusted peer were believed")
      return
    }
    #expect(forbidden == 403)
  }

  @Test("exact origins and *. patterns; null never")
  func configuredOrigins() throws {
    let policy = try OriginPolicy(
      list: "https://board.example.com, https://*.example.org,http://*.dev.test:3000", secure: true)
    #expect(policy.allows(origin: "https://board.example.com", host: nil, port: 1))
    #expect(policy.allows(origin: "HTTPS://Board.Example.com", host: nil, port: 1))
    #expect(!policy.allows(origin: "https://board.example.com:8443", host: nil, port: 1))
    #expect(policy.allows(origin: "https://a.example.org", host: nil, port: 1))
    #expect(policy.allows(origin: "https://a.b.example.org", host: nil, port: 1))
    #expect(!policy.allows(origin: "https://example.org", host: nil, port: 1))
    #expect(!policy.allows(origin: "https://evilexample.org", host: nil, port: 1))
    #expect(!policy.allows(origin: "http://a.example.org", host: nil, port: 1))
    #expect(policy.allows(origin: "http://x.dev.test:3000", host: nil, port: 1))
    #expect(!policy.allows(origin: "http://x.dev.test", host: nil, port: 1))
    #expect(!policy.allows(origin: "null", host: nil, port: 1))
    #expect(!policy.allows(origin: "http://127.0.0.1:1", host: "127.0.0.1:1", port: 1), "a list replaces the defaults")
  }

  @Test(
    "bad --allowed-origins entries are refused",
    arguments: ["example.com", "https://a/b/", "null", "https://*", "https://a.*.com"])
  func badOrigins(entry: String) {
    #expect(throws: ConfigurationError.self) { try OriginPolicy(list: entry, secure: false) }
  }

  @Test("X-Forwarded-For counts only behind a trusted proxy, read from the right")
  func forwardedFor() throws {
    let proxies = [try #require(AddressRange("10.0.0.0/8")), try #require(AddressRange("::1"))]
    #expect(clientAddress(peer: "10.1.2.3", forwardedFor: "203.0.113.9", trusted: proxies) == "203.0.113.9")
    #expect(
      clientAddress(peer: "10.1.2.3", forwardedFor: "1.1.1.1, 203.0.113.9, 10.9.9.9", trusted: proxies) == "203.0.113.9"
    )
    #expect(clientAddress(peer: "198.51.100.7", forwardedFor: "203.0.113.9", trusted: proxies) == "198.51.100.7")
    #expect(clientAddress(peer: "::1", forwardedFor: "2001:db8::5", trusted: proxies) == "2001:db8::5")
    #expect(clientAddress(peer: "10.1.2.3", forwardedFor: "garbage", trusted: proxies) == "10.1.2.3")
    #expect(AddressRange("10.0.0.0/33") == nil)
    #expect(AddressRange("not-an-address") == nil)
    #expect(try #require(AddressRange("192.168.0.0/16")).contains("::ffff:192.168.4.4"))
  }

  @Test(
    "loopback hosts",
    arguments: [
      ("127.0.0.1", true), ("127.8.0.1", true), ("localhost", true), ("::1", true), ("0.0.0.0", false), ("::", false),
      ("192.168.1.5", false),
    ])
  func loopback(host: String, expected: Bool) {
    #expect(AddressRange.isLoopback(host) == expected)
  }

  private func control(maxPerAddress: Int = 2, handshakes: Double = 1) throws -> AdmissionControl {
    AdmissionControl(
      limits: .init(
        origins: try OriginPolicy(list: "", secure: false), maxConnectionsPerAddress: maxPerAddress,
        handshakesPerSecond: handshakes, trustedProxies: []))
  }

  private func status(_ decision: UpgradeDecision) -> Int? {
    if case .refuse(let status, _) = decision { return status }
    return nil
  }

  @Test("connections per address: the next one is 429 until one closes")
  func perAddress() throws {
    let control = try control(maxPerAddress: 2, handshakes: 100)
    var admitted: [Admission] = []
    for _ in 0..<2 {
      guard
        case .accept(let context) = control.decide(
          UpgradeRequest(path: "/ws/r", peerAddress: "1.2.3.4"), now: 0, port: 8080),
        let admission = context as? Admission
      else {
        Issue.record("refused")
        return
      }
      control.opened(admission)
      admitted.append(admission)
    }
    #expect(status(control.decide(UpgradeRequest(path: "/ws/r", peerAddress: "1.2.3.4"), now: 0, port: 8080)) == 429)
    #expect(
      status(control.decide(UpgradeRequest(path: "/ws/r", peerAddress: "5.6.7.8"), now: 0, port: 8080)) == nil, "others"
    )
    control.closed(admitted[0])
    #expect(status(control.decide(UpgradeRequest(path: "/ws/r", peerAddress: "1.2.3.4"), now: 0, port: 8080)) == nil)
  }

  @Test("handshakes per address: a bucket of rate x 4, refilled over time")
  func handshakes() throws {
    let control = try control(maxPerAddress: 1_000, handshakes: 2)
    let request = UpgradeRequest(path: "/ws/r", peerAddress: "1.2.3.4")
    let outcomes = (0..<9).map { _ in status(control.decide(request, now: 10, port: 8080)) }
    #expect(outcomes.filter { $0 == nil }.count == 8)
    #expect(outcomes.last == 429)
    #expect(status(control.decide(request, now: 10.6, port: 8080)) == nil, "one more token after half a second")
  }

  @Test("an origin that is not allowed is 403; a bad room is accepted to be closed with its reason")
  func originAndPath() throws {
    let control = try control()
    let evil = UpgradeRequest(path: "/ws/r", origin: "https://evil.example", host: "127.0.0.1:8080")
    #expect(status(control.decide(evil, now: 0, port: 8080)) == 403)
    guard case .accept(let context) = control.decide(UpgradeRequest(path: "/ws/a b"), now: 0, port: 8080),
      case .invalid(let reason)? = (context as? Admission)?.target
    else {
      Issue.record("not marked invalid")
      return
    }
    #expect(reason.hasPrefix("invalid room name: "))
  }
}

@Suite("Origins and per-address limits over sockets", .serialized)
struct AccessLimitsOverSocketsTests {
  @Test("a page on another site is refused with 403 before the upgrade; the own origin and no origin connect")
  func origins() throws {
    let server = try TestServer()
    let evil = try RawSocket(port: server.port)
    let status = try evil.websocketHandshake(path: "/ws/food", headers: [("Origin", "https://evil.example")])
    #expect(status == "HTTP/1.1 403 Forbidden", "strict clients parse only HTTP/1.1: \(status)")
    for origin in ["http://127.0.0.1:\(server.port)", "http://localhost:\(server.port)", nil] {
      let raw = try RawSocket(port: server.port)
      let headers = origin.map { [("Origin", $0)] } ?? []
      #expect(try raw.websocketHandshake(path: "/ws/food", headers: headers).contains("101"), "\(origin ?? "none")")
    }
    let null = try RawSocket(port: server.port)
    #expect(try null.websocketHandshake(path: "/ws/food", headers: [("Origin", "null")]).contains(" 403 "))
  }

  @Test("through a trusted TLS proxy the page's https origin connects; the proxy's clients count apart")
  func behindAProxy() throws {
    let server = try TestServer {
      $0.trustProxy = "127.0.0.1"
      $0.maxConnectionsPerIP = 1
    }
    func upgrade(client: String, origin: String = "https://boards.example.com") throws -> String {
      try RawSocket(port: server.port).websocketHandshake(
        path: "/ws/food",
        headers: [
          ("Origin", origin), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "boards.example.com"),
          ("X-Forwarded-For", client),
        ])
    }
    var sockets: [RawSocket] = []
    for client in ["203.0.113.1", "203.0.113.2"] {
      let raw = try RawSocket(port: server.port)
      let status = try raw.websocketHandshake(
        path: "/ws/food",
        headers: [
          ("Origin", "https://boards.example.com"), ("X-Forwarded-Proto", "https"),
          ("X-Forwarded-Host", "boards.example.com"), ("X-Forwarded-For", client),
        ])
      #expect(status.contains(" 101 "), "\(client): \(status)")
      sockets.append(raw)
    }
    #expect(try upgrade(client: "203.0.113.1") == "HTTP/1.1 429 Too Many Requests", "its limit is the client's")
    #expect(try upgrade(client: "203.0.113.3", origin: "https://evil.example") == "HTTP/1.1 403 Forbidden")
    _ = sockets
  }

  @Test("more connections from one address than --max-connections-per-ip get 429; closing one lets the next in")
  func perAddress() throws {
    let server = try TestServer { $0.maxConnectionsPerIP = 3 }
    let open = try (0..<3).map { _ in try RoomClient.join(port: server.port, client: "c\(UUID().uuidString.prefix(4))")
    }
    let refused = try RawSocket(port: server.port)
    let head = try refused.websocketHandshakeHead(path: "/ws/t").lowercased()
    #expect(head.hasPrefix("http/1.1 429 too many requests\r\n"), "\(head)")
    #expect(head.contains("\r\nretry-after: 1\r\n"), "\(head)")
    open[0].close()
    var admitted = false
    for _ in 0..<200 where !admitted {
      let raw = try RawSocket(port: server.port)
      admitted = try raw.websocketHandshake(path: "/ws/t").contains("101")
      if !admitted { usleep(10_000) }
    }
    #expect(admitted)
  }

  @Test("serve refuses a non-loopback address without --allow-anonymous, and warns with it")
  func nonLoopback() throws {
    let binary = try #require(ChildProcess.builtProduct("reorder"))
    let refused = try ChildProcess(
      executable: binary, arguments: ["serve", "--host", "0.0.0.0", "--port", "0", "--data", ":memory:"])
    #expect(refused.waitForExit(timeout: 10) == 2)
    #expect(refused.output.contains { $0.contains("--allow-anonymous") })
    let allowed = try ChildProcess(
      executable: binary,
      arguments: ["serve", "--host", "0.0.0.0", "--port", "0", "--data", ":memory:", "--allow-anonymous"])
    defer { allowed.terminate() }
    #expect(allowed.waitForLine(timeout: 20) { $0.hasPrefix("Reorder is listening on ") } != nil)
    #expect(allowed.output.contains { $0.contains("without access control") })
  }

  @Test("a path that lws cannot parse (%00, %zz) harms nobody: %zz gets 403, %00 is closed, the server serves on")
  func unparsablePaths() throws {
    let server = try TestServer()
    let hex = try RawSocket(port: server.port)
    #expect(try hex.websocketHandshake(path: "/ws/a%zz").contains(" 403 "))
    let nul = try RawSocket(port: server.port)
    let answer = try nul.websocketHandshake(path: "/ws/nul%00")
    #expect(answer.isEmpty, "lws 4.1.6 drops it before any callback (docs/PROTOCOL.md): \(answer)")
    let after = try RoomClient.join(port: server.port, client: "after")
    #expect(after.welcome["type"] == .string("welcome"))
    after.close()
  }
}

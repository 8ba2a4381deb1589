/// Everything the websocket/HTTP server needs to know; the server glue fills it from the CLI.
public struct TransportConfiguration: Sendable {
  /// How the service thread waits for events.
  public enum EventLoop: String, Sendable, CaseIterable {
    /// lws' built-in loop: `poll()` over every descriptor at each wake-up (its cost grows with the
    /// connections, idle ones included).
    case poll
    /// lws' libev event library on a loop the transport owns: epoll on Linux. Falls back to poll
    /// (with a warning) when lws cannot load its libev plugin.
    case libev
  }

  /// Interface address to bind (an IP address, e.g. `127.0.0.1` or `0.0.0.0`).
  public var host: String = "127.0.0.1"
  /// TCP port; 0 picks a free one (`start()` returns the real port).
  public var port: Int = 8080
  /// Directory of static files served at `/` (`index.html` for `/`); nil serves no files.
  public var webRoot: String? = "web"
  /// Largest accepted websocket message; a larger one closes the connection with 1009.
  public var maxMessageBytes: Int = 65_536
  /// Largest outgoing queue per connection, in bytes; overflow closes the connection with 1008.
  public var maxQueueBytes: Int = 4 << 20
  /// PEM certificate; with `tlsPrivateKeyPath` the server speaks https and wss only.
  public var tlsCertificatePath: String? = nil
  /// PEM private key of `tlsCertificatePath`.
  public var tlsPrivateKeyPath: String? = nil
  /// Keepalive (`KeepaliveSweep`): ping a websocket silent this long.
  public var pingIntervalSeconds: Int = 30
  /// Keepalive (`KeepaliveSweep`): drop a websocket silent this long.
  public var idleTimeoutSeconds: Int = 60
  /// Most bytes one write to a connection carries when several whole messages are queued for it:
  /// they are framed back to back and sent at once (`FrameCork`). 0 writes one message per write.
  public var corkBytes: Int = 32 * 1024
  /// Split a large fan-out (a frame to many connections at once) between the service thread and a
  /// second thread (`ParallelSender`). Plain websockets only (not with TLS).
  public var parallelFanout: Bool = true
  /// Bounds on a reader that does not keep up: presence held back, then the close 4008
  /// (`SlowReaderWatch`).
  public var slowReaders = SlowReaderLimits()
  /// Seconds between two looks at the connections watched as slow readers.
  public var slowReaderSweepSeconds: Double = 0.5
  /// When set, `SO_SNDBUF` of each accepted websocket (bytes). Tests shrink it to make a
  /// non-reading client hit its queue limit quickly; nil keeps the kernel's autotuning.
  public var socketSendBufferBytes: Int? = nil

  /// How the service thread waits (`--event-loop`).
  public var eventLoop = EventLoop.libev

  /// The defaults above.
  public init() {}

  /// Checks the combination; throws `TransportError.invalidConfiguration` with what to fix.
  func validate() throws {
    if (tlsCertificatePath == nil) != (tlsPrivateKeyPath == nil) {
      throw TransportError.invalidConfiguration("give both a TLS certificate and a private key, or neither")
    }
    guard (0...65_535).contains(port) else {
      throw TransportError.invalidConfiguration("port \(port) is out of range 0…65535")
    }
    guard corkBytes >= 0 else {
      throw TransportError.invalidConfiguration("corkBytes must not be negative")
    }
    guard maxMessageBytes > 0, maxQueueBytes > 0 else {
      throw TransportError.invalidConfiguration("maxMessageBytes and maxQueueBytes must be positive")
    }
    guard slowReaders.gateBytes >= 0, slowReaders.closeSeconds >= 0, slowReaderSweepSeconds > 0 else {
      throw TransportError.invalidConfiguration(
        "slow reader bounds must not be negative, and slowReaderSweepSeconds must be positive")
    }
    guard pingIntervalSeconds > 0, idleTimeoutSeconds > pingIntervalSeconds, idleTimeoutSeconds <= 65_535 else {
      throw TransportError.invalidConfiguration(
        "keepalive needs 0 < pingIntervalSeconds < idleTimeoutSeconds ≤ 65535")
    }
  }
}

/// Errors of the transport: what went wrong and what to do about it.
public enum TransportError: Error, Equatable, CustomStringConvertible {
  /// lws could not create its context (port in use, bad TLS files, bad interface…).
  case contextCreationFailed(String)
  /// The configuration is inconsistent (e.g. only one of the TLS files given).
  case invalidConfiguration(String)
  /// `start()` was called twice, or after `shutdown()`.
  case alreadyStarted
  /// A websocket URL could not be parsed.
  case invalidURL(String)
  /// The connection could not be opened, or closed before it opened.
  case connectFailed(String)
  /// Nothing arrived before the timeout.
  case timeout

  public var description: String {
    switch self {
    case .contextCreationFailed(let why):
      why
    case .invalidConfiguration(let why):
      "invalid transport configuration: \(why)"
    case .alreadyStarted:
      "the server was already started (a server starts once)"
    case .invalidURL(let url):
      "invalid websocket URL '\(url)': expected ws://host[:port]/path or wss://host[:port]/path"
    case .connectFailed(let why):
      "websocket connection failed: \(why)"
    case .timeout:
      "timed out waiting for the websocket"
    }
  }
}

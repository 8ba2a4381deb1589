/// Why a load run could not start or finish.
public enum LoadError: Error, CustomStringConvertible, Equatable {
  /// The URL is not `ws://host:port` (or `wss://`).
  case invalidURL(String)
  /// The target is not a loopback address and `--allow-remote` was not given.
  case remoteTargetRefused(String)
  /// The configuration is inconsistent.
  case invalidConfiguration([String])
  /// Not every client connected within the connect timeout.
  case connectFailed(connected: Int, wanted: Int, reason: String)
  /// A room could not be prepared (no list or items to drag).
  case seedingFailed(String)
  /// A report file could not be written or read.
  case io(String)

  public var description: String {
    switch self {
    case .invalidURL(let url):
      return "'\(url)' is not a websocket URL: use ws://HOST:PORT (or wss://), or a comma list of them"
    case .remoteTargetRefused(let host):
      return "refusing to load '\(host)': it is not a loopback address; pass --allow-remote if you own that server"
    case .invalidConfiguration(let problems):
      return problems.joined(separator: "; ")
    case .connectFailed(let connected, let wanted, let reason):
      return "only \(connected) of \(wanted) clients connected: \(reason)"
    case .seedingFailed(let reason):
      return "could not prepare the room: \(reason)"
    case .io(let reason):
      return reason
    }
  }
}

/// Everything that can go wrong talking to Redis, each with a message saying what failed and what
/// to do. Messages name the command (its first word), never its arguments: those are user data.
public enum RedisError: Error, Equatable, Sendable, CustomStringConvertible {
  /// `--redis` is not `redis://HOST:PORT[/DB]`.
  case invalidURL(String, reason: String)
  /// `--redis-password-file` cannot be used.
  case passwordFile(String, reason: String)
  /// The Redis flags do not go together (the sentence says how).
  case flags(String)
  /// No connection could be made (refused, unreachable, timed out, or AUTH / SELECT refused).
  case cannotConnect(endpoint: String, reason: String)
  /// The connection failed during `command` (reset, closed by Redis, or no answer in time); it
  /// cannot be used any more: make a new one (`RedisLink` does).
  case connectionLost(command: String, reason: String)
  /// Redis answered `command` with an error reply.
  case server(command: String, message: String)
  /// Redis answered `command` with a reply of a shape this module does not expect.
  case unexpectedReply(command: String, reply: String)
  /// `RedisLink` is waiting before its next connection attempt (backoff after failures).
  case unavailable(retryInSeconds: Double, lastError: String)
  /// The connection was closed by its owner.
  case closed

  /// Whether the failure is about reaching Redis (retry later on a new connection), as opposed to
  /// a reply Redis gave.
  public var isConnectionFailure: Bool {
    switch self {
    case .cannotConnect, .connectionLost, .unavailable, .closed: true
    case .invalidURL, .passwordFile, .flags, .server, .unexpectedReply: false
    }
  }

  /// A sentence saying what went wrong and what to do about it.
  public var description: String {
    switch self {
    case .invalidURL(let text, let reason):
      "invalid --redis URL \(text.debugDescription): \(reason); write redis://HOST:PORT[/DB]"
    case .passwordFile(let path, let reason):
      "cannot use the Redis password file \(path): \(reason)"
    case .flags(let sentence):
      sentence
    case .cannotConnect(let endpoint, let reason):
      "cannot connect to Redis at \(endpoint): \(reason); is redis-server running there?"
    case .connectionLost(let command, let reason):
      "the Redis connection failed during \(command): \(reason); reconnecting"
    case .server(let command, let message):
      "Redis refused \(command): \(message)"
    case .unexpectedReply(let command, let reply):
      "Redis answered \(command) with an unexpected reply (\(reply)); is it Redis 7?"
    case .unavailable(let seconds, let lastError):
      "Redis is unavailable (\(lastError)); next attempt in \(Int((seconds * 1000).rounded(.up))) ms"
    case .closed:
      "the Redis connection is closed"
    }
  }
}

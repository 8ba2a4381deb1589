/// The websocket close codes Reorder sends (RFC 6455 section 7.4; 4000–4999 are the application's).
/// One table for every module, so that the transport, the rooms and the docs agree.
public enum CloseCode {
  /// A normal close.
  public static let normal: UInt16 = 1000
  /// The server is shutting down.
  public static let goingAway: UInt16 = 1001
  /// Abusive or refused client: flooding, too many bad frames, an outgoing queue overflow, a
  /// websocket refused after it was established.
  public static let policyViolation: UInt16 = 1008
  /// Frame larger than `--max-message-bytes`.
  public static let messageTooBig: UInt16 = 1009
  /// The server failed (a room that could not be loaded, a failed write).
  public static let internalError: UInt16 = 1011
  /// The server is being drained (SIGTERM, `POST /api/v1/admin/drain`): reconnect, after a short
  /// random delay, to another node or to this one once it is back.
  public static let serviceRestart: UInt16 = 1012
  /// Room or server full: try again later.
  public static let tryAgainLater: UInt16 = 1013
  /// The app revoked the connection's access (`POST /api/v1/boards/{room}/disconnect`).
  public static let accessChanged: UInt16 = 4100
  /// A `hello` in a protocol version this server does not speak (after `error unsupported_version`).
  public static let unsupportedVersion: UInt16 = 4400
  /// A missing, bad or expired token (after `error unauthorized`).
  public static let unauthorized: UInt16 = 4401
  /// A valid token for another room (after `error forbidden`).
  public static let forbidden: UInt16 = 4403
  /// The board was deleted through the HTTP API (`DELETE /api/v1/boards/{room}`).
  public static let boardDeleted: UInt16 = 4404
  /// A reader that has not read what it was sent for `--slow-reader-seconds` (docs/PROTOCOL.md,
  /// "Slow readers"): reconnect, and the welcome brings the current board.
  public static let slowReader: UInt16 = 4008
  /// No hello within 10 s of the upgrade.
  public static let helloTimeout: UInt16 = 4408
}

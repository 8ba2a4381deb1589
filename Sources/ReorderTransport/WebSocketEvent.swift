/// What happens on a client websocket, in order: `opened`, messages, then one `closed`.
public enum WebSocketEvent: Sendable, Equatable {
  /// The handshake completed.
  case opened
  /// One whole text message.
  case text(String)
  /// One whole binary message.
  case binary([UInt8])
  /// A close frame was received (`code` set), or the connection was lost or failed (`code` nil,
  /// `reason` says why). Always the last event of a connection.
  case closed(code: UInt16?, reason: String)
}

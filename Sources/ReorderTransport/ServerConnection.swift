import CLibWebSockets

/// The server's state for one websocket. Service thread only.
final class ServerConnection {
  /// What happens once the queue is flushed.
  struct PendingClose {
    let code: UInt16
    let reason: String
  }

  let id: ConnectionID
  let wsi: OpaquePointer
  /// The TCP socket, and whether this websocket has it to itself (not a stream of an HTTP/2
  /// connection): only then may frames be framed here (`FrameCork`) or sent directly
  /// (`ParallelSender`). Both fixed when the websocket opens.
  let socket: Int32
  let ownsSocket: Bool
  var incoming: MessageAssembler
  var outgoing: OutgoingQueue
  /// Set by `close(_:code:reason:)`, overflow, refusal or shutdown: no more sends are accepted.
  var pendingClose: PendingClose?
  /// True once `handler.connectionOpened` ran (so `connectionClosed` must run too).
  var announced = false
  /// True while reading from this connection is paused because its outgoing queue is above the
  /// high-water mark (see `WebSocketServer.pauseReadingIfBacklogged`).
  var readingPaused = false
  /// True while the connection is in `WebSocketServer.unflushed`: it was sent something during the
  /// current pass of the service loop and is written to when the pass ends.
  var awaitingFlush = false
  /// True while frames are queued that a write has already been attempted for (the socket did not
  /// take them yet, or lws is finishing an earlier write): what "busy" means to the rooms.
  var backlogged = false
  /// True once lws closed the connection (it may still sit in `unflushed`).
  var isClosed = false

  init(id: ConnectionID, wsi: OpaquePointer, maxMessageBytes: Int, maxQueueBytes: Int) {
    self.id = id
    self.wsi = wsi
    socket = lws_get_socket_fd(wsi)
    ownsSocket = lws_get_network_wsi(wsi) == wsi
    incoming = MessageAssembler(maxBytes: maxMessageBytes)
    outgoing = OutgoingQueue(limitBytes: maxQueueBytes, headroom: Int(reorder_lws_pre()))
  }
}

import CLibWebSockets
import ReorderBasics

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
  /// True while the connection is in `WriteScheduler.unflushed`: it was sent something during the
  /// current pass of the service loop and is written to when the pass ends.
  var awaitingFlush = false
  /// True while frames are queued that a write has already been attempted for (the socket did not
  /// take them yet, or lws is finishing an earlier write): what "busy" means to the rooms.
  var backlogged = false
  /// The close code the peer sent, if it closed first.
  var peerCloseCode: UInt16?
  /// True once the close handshake was handed to lws (the close frame is on its way).
  var closeStarted = false
  /// True once lws closed the connection (it may still sit in `unflushed`).
  var isClosed = false
  /// Something was received since the last keepalive sweep (`sweepKeepalive`).
  var heard = false
  /// When the keepalive sweep last found it heard (`MonotonicClock` seconds).
  var lastHeard = MonotonicClock.now()
  /// Pinged since it was last heard; `pingDue`: the ping waits for the writeable callback.
  var pinged = false
  var pingDue = false
  /// Whether its reader keeps up with what the kernel took (`SlowReaderWatch`), and the bounds.
  var slowReader = SlowReaderWatch()
  let slowReaderLimits: SlowReaderLimits

  /// Whether presence skips this connection: the one place "too busy for presence" is decided
  /// (`BusyRule`, and for a connection watched as a slow reader, what its kernel holds unsent,
  /// looked up now). Presence sent to it is dropped, and the rooms hold its drags back.
  var isBusy: Bool {
    if BusyRule.isBusy(
      backlogged: backlogged, frames: outgoing.count, bytes: outgoing.bytes, limitBytes: outgoing.limitBytes)
    {
      return true
    }
    guard slowReader.isWatched, let sample = SocketBacklog.read(socket: socket) else { return false }
    return slowReader.gates(unsent: SlowReaderWatch.unsent(sample), limits: slowReaderLimits)
  }

  init(
    id: ConnectionID, wsi: OpaquePointer, socket: Int32, ownsSocket: Bool, maxMessageBytes: Int, maxQueueBytes: Int,
    slowReaderLimits: SlowReaderLimits = SlowReaderLimits()
  ) {
    self.slowReaderLimits = slowReaderLimits
    self.id = id
    self.wsi = wsi
    self.socket = socket
    self.ownsSocket = ownsSocket
    incoming = MessageAssembler(maxBytes: maxMessageBytes)
    outgoing = OutgoingQueue(limitBytes: maxQueueBytes, headroom: Int(reorder_lws_pre()))
  }
}

/// When a connection is too busy for presence: it waits for its socket (a write was attempted and
/// did not take everything) with more than `frames` frames queued, or more than half its queue
/// limit is queued. A drag that could not leave now would only queue behind what is waiting and
/// arrive stale; the latest state goes out once the connection drains.
enum BusyRule {
  /// Frames a backlogged connection may hold and still get presence.
  static let frames = 2

  /// Whether a connection in this state is busy.
  static func isBusy(backlogged: Bool, frames: Int, bytes: Int, limitBytes: Int) -> Bool {
    (backlogged && frames > Self.frames) || bytes * 2 > limitBytes
  }
}

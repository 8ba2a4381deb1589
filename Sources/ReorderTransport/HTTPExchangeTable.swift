/// The HTTP requests a server is handling, by socket (service thread only): routed requests being
/// read or answered, found by exchange id once handed to the handler; responses waiting for the
/// writeable callback; and refused requests whose body is read to its end before the connection
/// closes.
///
/// Invariants: `sockets` maps each dispatched exchange's id to its socket, and only those; ids
/// are never reused.
struct HTTPExchangeTable {
  /// Routed requests being read or answered, by socket.
  private var exchanges: [OpaquePointer: HTTPExchange] = [:]
  /// The sockets of the exchanges handed to the handler, by exchange id.
  private var sockets: [UInt64: OpaquePointer] = [:]
  private var lastID: UInt64 = 0
  /// Responses waiting for the writeable callback, by socket.
  var responses: [OpaquePointer: PendingHTTPResponse] = [:]
  /// Refused requests whose body is read to its end and dropped, by socket: true once one of the
  /// two (the body's end, the response sent) happened.
  var discarding: [OpaquePointer: Bool] = [:]

  /// The routed request on `wsi`, if any.
  subscript(wsi: OpaquePointer) -> HTTPExchange? { exchanges[wsi] }

  /// A routed request starts on `wsi`.
  mutating func open(_ exchange: HTTPExchange, on wsi: OpaquePointer) { exchanges[wsi] = exchange }

  /// The request on `wsi` is refused before it was dispatched: its body is discarded.
  mutating func refuse(_ wsi: OpaquePointer) {
    exchanges[wsi] = nil
    discarding[wsi] = false
  }

  /// The request on `wsi` goes to the handler: it gets the next id, by which its answer finds
  /// the socket. Nil when there is none.
  mutating func dispatch(_ wsi: OpaquePointer) -> HTTPExchange? {
    guard let exchange = exchanges[wsi] else { return nil }
    lastID += 1
    exchange.id = lastID
    sockets[lastID] = wsi
    return exchange
  }

  /// The answer of exchange `id` came: its socket, and whether to close it after the answer; nil
  /// when the client went away meanwhile.
  mutating func answered(_ id: UInt64) -> (wsi: OpaquePointer, close: Bool)? {
    guard let wsi = sockets.removeValue(forKey: id) else { return nil }
    return (wsi, exchanges.removeValue(forKey: wsi)?.closeAfterResponse ?? false)
  }

  /// Drops everything kept for `wsi` (its connection closed).
  mutating func forget(_ wsi: OpaquePointer) {
    responses[wsi] = nil
    discarding[wsi] = nil
    if let exchange = exchanges.removeValue(forKey: wsi), exchange.id != 0 { sockets[exchange.id] = nil }
  }
}

/// A routed HTTP request on its way: its head, the body read so far, its id once dispatched.
final class HTTPExchange {
  let head: HTTPRequestHead
  let maxBodyBytes: Int
  /// The handler's 413, if it gave one.
  let tooLarge: HTTPResponse?
  var body: [UInt8] = []
  /// 0 until the request is handed to the handler.
  var id: UInt64 = 0
  /// The connection is closed once the answer is sent (a body-less request lws still expects a
  /// body for).
  var closeAfterResponse = false

  init(head: HTTPRequestHead, maxBodyBytes: Int, tooLarge: HTTPResponse?) {
    self.head = head
    self.maxBodyBytes = maxBodyBytes
    self.tooLarge = tooLarge
  }
}

/// A response waiting for the writeable callback.
final class PendingHTTPResponse {
  let response: HTTPResponse
  let sendBody: Bool
  let close: Bool
  var headersSent = false

  init(response: HTTPResponse, sendBody: Bool, close: Bool) {
    self.response = response
    self.sendBody = sendBody
    self.close = close
  }
}

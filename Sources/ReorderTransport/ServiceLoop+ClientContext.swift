import CLibWebSockets

/// The C signature of an lws protocol callback.
typealias LWSCallback =
  @convention(c) (
    OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int
  ) -> Int32

extension ServiceLoop {
  /// Creates a client-only context (no listening port) with one protocol, `protocolName` served by
  /// `callback`, and `owner` as the context's user pointer (the callback finds its Swift object
  /// through it). The protocol table lives in `arena`, which must outlive the context.
  /// - Parameter supportsTLS: set up TLS so `wss://` and `https://` work (lws 4.1.6 leaks its
  ///   client TLS state when a TLS-capable client context is destroyed: make few of them).
  /// - Throws: `TransportError.contextCreationFailed(failure)` when lws refuses the context.
  func createClientContext(
    protocolName: String, callback: @escaping LWSCallback, owner: AnyObject, supportsTLS: Bool,
    arena: CArena, failure: String
  ) throws {
    LibWebSocketsLog.install()
    var info = lws_context_creation_info()
    info.port = CONTEXT_PORT_NO_LISTEN
    info.user = Unmanaged.passUnretained(owner).toOpaque()
    if supportsTLS { info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
    let protocols = arena.allocate(lws_protocols.self, count: 2)
    protocols[0].name = arena.string(protocolName)
    protocols[0].callback = callback
    info.protocols = UnsafePointer(protocols)
    try createContext(&info, failure: failure)
  }

  /// The owner object of the context of client connection `wsi`, as `createClientContext` set it.
  static func clientOwner<Owner: AnyObject>(_: Owner.Type, of wsi: OpaquePointer?) -> Owner? {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return nil }
    return Unmanaged<Owner>.fromOpaque(owner).takeUnretainedValue()
  }
}

import CLibWebSockets

extension WebSocketServer {
  /// Builds the lws creation info; every pointer in it lives in `arena` until the server is gone.
  func makeContextInfo() -> lws_context_creation_info {
    var info = lws_context_creation_info()
    info.port = Int32(configuration.port)
    // lws wants an interface name or a numeric address; "localhost" means the IPv4 loopback.
    info.iface = arena.string(configuration.host == "localhost" ? "127.0.0.1" : configuration.host)
    info.vhost_name = arena.string("default")
    info.server_string = arena.string("reorder")
    info.user = Unmanaged.passUnretained(self).toOpaque()
    info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
    if !configuration.host.contains(":") {
      info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)  // an IPv4 address: bind IPv4 only
    }

    // One protocol for HTTP and websockets alike: protocols[0] is the default for upgrades that
    // name no subprotocol (browsers' `new WebSocket(url)`), and the "/" mount routes HTTP to it.
    let protocols = arena.allocate(lws_protocols.self, count: 2)
    protocols[0].name = arena.string(protocolName)
    protocols[0].callback = serverCallback
    protocols[0].per_session_data_size = 0
    protocols[0].rx_buffer_size = 0
    // One send() may carry a whole corked write (lws' default is its 4 KiB service buffer; the
    // rest of a larger write would be copied aside and sent on later passes, 4 KiB at a time).
    protocols[0].tx_packet_size = WriteScheduler.maxSendBytes
    info.protocols = UnsafePointer(protocols)

    let mount = arena.allocate(lws_http_mount.self)
    mount.pointee.mountpoint = arena.string("/")
    mount.pointee.mountpoint_len = 1
    mount.pointee.origin = arena.string(protocolName)
    mount.pointee.origin_protocol = UInt8(LWSMPRO_CALLBACK.rawValue)
    info.mounts = UnsafePointer(mount)

    // lws' keepalive off (a policy without a hangup time sets no validity timers): the server
    // keeps its websockets alive itself (`KeepaliveSweep`).
    let retry = arena.allocate(lws_retry_bo_t.self)
    retry.pointee.secs_since_valid_ping = 0
    retry.pointee.secs_since_valid_hangup = 0
    info.retry_and_idle_policy = UnsafePointer(retry)

    if let cert = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
      info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
      info.ssl_cert_filepath = arena.string(cert)
      info.ssl_private_key_filepath = arena.string(key)
    }
    return info
  }
}

/// The one C callback of the server: finds its `WebSocketServer` through the context user pointer.
private let serverCallback:
  @convention(c) (
    OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int
  ) -> Int32 = { wsi, reason, user, input, length in
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
      return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue()
    return server.handleCallback(wsi: wsi, reason: reason, user: user, input: input, length: length)
  }

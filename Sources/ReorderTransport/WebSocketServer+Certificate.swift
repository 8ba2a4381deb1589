import CLibWebSockets
import Foundation

extension WebSocketServer {
  /// Any thread but the service thread: reads the TLS certificate and private key again from the
  /// paths the server was started with, for every handshake from now on; connections already
  /// open keep the certificate they were made with. The pair is first loaded into a scratch TLS
  /// context of its own, so that a missing, unreadable or mismatched file leaves the server on
  /// the certificate it had (lws would otherwise swap the certificate in before it finds the key
  /// unusable).
  /// - Throws: `TransportError.invalidConfiguration` without TLS, `.contextCreationFailed` with
  ///   why the pair could not be loaded (the old one stays in use).
  public func reloadCertificate() throws(TransportError) {
    guard let certificate = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath else {
      throw .invalidConfiguration("the server was started without TLS: there is no certificate to reload")
    }
    try Self.checkCertificate(certificate, key: key)
    let done = DispatchSemaphore(value: 0)
    let posted = loop.post { [loop] in
      if let context = loop.context {
        _ = lws_tls_cert_updated(context, certificate, key, nil, 0, nil, 0)
      }
      done.signal()
    }
    guard posted, done.wait(timeout: .now() + 5) == .success else {
      throw .contextCreationFailed("the server has stopped")
    }
  }

  /// Loads `certificate` and `key` as a TLS server would, in a context that listens nowhere and
  /// is destroyed at once. - Throws: `TransportError.contextCreationFailed` when lws refuses them.
  static func checkCertificate(_ certificate: String, key: String) throws(TransportError) {
    for path in [certificate, key] where !FileManager.default.isReadableFile(atPath: path) {
      throw .contextCreationFailed("cannot read \(path)")
    }
    LibWebSocketsLog.install()
    var info = lws_context_creation_info()
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER
    info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
    let checked: OpaquePointer? = certificate.withCString { certificatePath in
      key.withCString { keyPath in
        info.ssl_cert_filepath = certificatePath
        info.ssl_private_key_filepath = keyPath
        return lws_create_context(&info)
      }
    }
    guard let checked else {
      throw .contextCreationFailed("the TLS certificate \(certificate) and key \(key) cannot be used together")
    }
    lws_context_destroy(checked)
  }
}

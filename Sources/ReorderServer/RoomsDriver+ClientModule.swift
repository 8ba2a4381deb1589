import ReorderTransport

extension RoomsDriver {
  /// Where other apps import the embeddable client from: `/client/v1/<file>` serves
  /// `<web root>/js/reorder-client/<file>` (`index.js`, its parts and their `.d.ts` declarations).
  /// `v1` changes only with an incompatible change of the client's public API.
  static let clientModulePrefix = "/client/v1/"

  /// Static files: `/client/v1/…` is the client module, with CORS for the origins that may open
  /// websockets here (`--allowed-origins`), so that a page of another origin can import it
  /// (module scripts are fetched in CORS mode). Every other path is its own file.
  func staticFile(for head: HTTPRequestHead) -> StaticFileRoute {
    guard head.path.hasPrefix(Self.clientModulePrefix) else { return StaticFileRoute(path: head.path) }
    let file = "/js/reorder-client/" + head.path.dropFirst(Self.clientModulePrefix.count)
    var headers = [HTTPHeader("vary", "Origin")]
    if let origin = head.headers["origin"],
      admission.limits.origins.allows(origin: origin, host: head.headers["host"], port: transport?.listenPort ?? 0)
    {
      headers.append(HTTPHeader("access-control-allow-origin", origin))
    }
    return StaticFileRoute(path: file, headers: headers)
  }
}

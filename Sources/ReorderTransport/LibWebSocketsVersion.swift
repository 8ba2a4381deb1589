import CLibWebSockets

/// The version of the libwebsockets library linked at run time (`lws_get_library_version`): the
/// library is a system package, so it can differ from the headers built against.
public enum LibWebSocketsVersion {
  /// The library's version, such as `4.1.6`: its own string (`<version>-<git tag>`) without the
  /// `-` that is left when the build had no git tag, as Debian's has not.
  public static var current: String {
    var text = String(cString: lws_get_library_version())
    while text.hasSuffix("-") || text.hasSuffix(" ") { text.removeLast() }
    return text
  }
}

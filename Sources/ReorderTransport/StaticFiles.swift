import Foundation

/// Maps request paths to files under the web root, refusing every way out of it.
///
/// The path from lws is decoded once by lws; here it is split on `/` and refused when a segment is
/// `.`/`..`, starts with a dot, or holds `\`, `%` (a leftover of double encoding), NUL or a control
/// character. The candidate is then resolved with `realpath` (symlinks included) and must still lie
/// inside the resolved root, and be a regular file.
struct StaticFiles: Sendable {
  /// What to send for a path.
  enum Resolution: Equatable {
    /// `etag` is derived from size and modification time (a strong validator for this server).
    case file(path: String, contentType: String, cacheControl: String, etag: String)
    case notFound
  }

  /// The root, resolved with `realpath`.
  let root: String

  /// Nil when `root` does not exist or is not a directory.
  init?(root: String) {
    guard let resolved = Self.realPath(root), Self.isDirectory(resolved) else { return nil }
    self.root = resolved
  }

  /// Resolves a request path (no query string) to a file, `index.html` for a directory.
  func resolve(_ requestPath: String) -> Resolution {
    guard requestPath.hasPrefix("/") else { return .notFound }
    var segments: [Substring] = []
    for segment in requestPath.split(separator: "/", omittingEmptySubsequences: true) {
      guard Self.isAcceptable(segment) else { return .notFound }
      segments.append(segment)
    }
    var candidate = root + (segments.isEmpty ? "" : "/" + segments.joined(separator: "/"))
    if Self.isDirectory(candidate) { candidate += "/index.html" }
    guard let resolved = Self.realPath(candidate), resolved.hasPrefix(root + "/"), let etag = Self.etag(resolved)
    else { return .notFound }
    let ext = (resolved as NSString).pathExtension.lowercased()
    return .file(path: resolved, contentType: Self.contentType(ext), cacheControl: Self.cacheControl(ext), etag: etag)
  }

  private static func isAcceptable(_ segment: Substring) -> Bool {
    if segment.first == "." { return false }  // ".", "..", hidden files
    for scalar in segment.unicodeScalars {
      if scalar == "\\" || scalar == "%" || scalar.value < 0x20 || scalar.value == 0x7F { return false }
    }
    return true
  }

  /// The `Content-Type` for a lowercase file extension.
  static func contentType(_ ext: String) -> String {
    switch ext {
    case "html", "htm": "text/html; charset=utf-8"
    case "js", "mjs": "text/javascript; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "json", "map": "application/json"
    case "webmanifest": "application/manifest+json"
    case "svg": "image/svg+xml"
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "gif": "image/gif"
    case "webp": "image/webp"
    case "avif": "image/avif"
    case "ico": "image/x-icon"
    case "txt": "text/plain; charset=utf-8"
    case "ts": "text/plain; charset=utf-8"  // TypeScript declarations (`.d.ts`), read by tools
    case "woff2": "font/woff2"
    case "woff": "font/woff"
    case "wasm": "application/wasm"
    default: "application/octet-stream"
    }
  }

  /// Pages, code and data are revalidated on every use (no content hashes in file names);
  /// images and fonts may be reused for a day.
  static func cacheControl(_ ext: String) -> String {
    switch ext {
    case "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "svg", "woff", "woff2":
      "public, max-age=86400"
    default:
      "no-cache"
    }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// `"<size>-<mtime seconds>-<mtime nanoseconds>"` in hex for a regular file; nil otherwise.
  private static func etag(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    let parts = [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    return "\"" + parts.map { String($0, radix: 16) }.joined(separator: "-") + "\""
  }
}

import Foundation

/// C memory that must outlive an lws context (strings, protocol and mount tables, retry policies).
///
/// Owned by the server or client object; everything is freed in one place, `deinit`, which runs only
/// after the service thread has destroyed the context.
final class CArena {
  private var blocks: [UnsafeMutableRawPointer] = []

  /// A NUL-terminated copy of `text`.
  func string(_ text: String) -> UnsafePointer<CChar> {
    let copy = strdup(text)!
    blocks.append(UnsafeMutableRawPointer(copy))
    return UnsafePointer(copy)
  }

  /// Zeroed storage for `count` values of `T` (C structs whose all-zero state is their default).
  func allocate<T>(_: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
    let raw = calloc(count, MemoryLayout<T>.stride)!
    blocks.append(raw)
    return raw.bindMemory(to: T.self, capacity: count)
  }

  deinit {
    for block in blocks { free(block) }
  }
}

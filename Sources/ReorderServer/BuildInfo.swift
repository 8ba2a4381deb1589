import ReorderStore
import ReorderTransport

/// What this build of Reorder is: its version (`reorder --version`), the Swift compiler it was
/// built with, and the versions of the system libraries it runs on. `/metrics` exports it as
/// `reorder_build_info`, a gauge of 1 whose labels carry the values.
public enum BuildInfo {
  /// Reorder's version: the one place it is written.
  public static let version = "0.1.0"

  /// The major and minor version of the Swift compiler that built this binary (`6.1`).
  public static let swift: String = {
    #if compiler(>=7.0)
      "7.0+"
    #elseif compiler(>=6.3)
      "6.3"
    #elseif compiler(>=6.2)
      "6.2"
    #elseif compiler(>=6.1)
      "6.1"
    #else
      "6.0"
    #endif
  }()

  /// `reorder_build_info`'s labels, in the order it lists them.
  static var labels: [(String, String)] {
    [
      ("version", version), ("swift", swift), ("libwebsockets", LibWebSocketsVersion.current),
      ("sqlite", SQLiteVersion.current),
    ]
  }
}

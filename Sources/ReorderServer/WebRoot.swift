import Foundation

/// Where the web client is when `--web` is not given: beside the executable, so that
/// `reorder serve` works from any working directory.
enum WebRoot {
  /// The first of these that holds an `index.html`: `<dir>/web` and `<dir>/../share/reorder/web`
  /// for the executable's directory `<dir>` (an installed copy), then a `web/` folder in the
  /// executable's directory or any directory above it (a SwiftPM build inside the checkout:
  /// `.build/<triple>/release/reorder`), then `./web`. Nil when there is none.
  static func installed(executable: String = CommandLine.arguments.first ?? "") -> String? {
    var candidates: [URL] = []
    let resolved = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
    var directory = resolved.deletingLastPathComponent()
    candidates.append(directory.appendingPathComponent("../share/reorder/web"))
    while directory.path != "/" && !directory.path.isEmpty {
      candidates.append(directory.appendingPathComponent("web"))
      directory = directory.deletingLastPathComponent()
    }
    candidates.append(URL(fileURLWithPath: "web"))
    let found = candidates.first {
      FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path)
    }
    return found?.standardizedFileURL.path
  }
}

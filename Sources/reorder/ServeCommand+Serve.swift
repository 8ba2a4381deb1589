import ReorderServer

extension ServeCommand {
  /// Placeholder until ReorderServer lands: reports that serving is not available yet.
  static func serve(_ configuration: ServerConfiguration) throws -> Int32 {
    printError("reorder serve: the server module has not landed yet")
    return 1
  }
}

import ReorderServer

/// `reorder serve`: runs the service until SIGINT or SIGTERM. Its flags are
/// `ServerConfiguration.settings`.
enum ServeCommand {
  static let subcommand = Subcommand(
    name: "serve",
    summary: "Serve boards over websocket and the web client over HTTP(S).",
    options: ServerConfiguration.settings.map(OptionSpec.init(setting:)),
    run: run
  )

  /// Maps parsed flags onto a `ServerConfiguration` (unset flags keep the embedded defaults), then
  /// checks the combination once.
  static func configuration(from options: ParsedOptions) throws -> ServerConfiguration {
    var configuration = ServerConfiguration()
    for setting in ServerConfiguration.settings {
      if let value = options.string(setting.name) { setting.apply(value, to: &configuration) }
    }
    do {
      try configuration.validate()
    } catch {
      throw UsageError(description: error.description)
    }
    return configuration
  }

  static func run(_ options: ParsedOptions) throws -> Int32 {
    let configuration = try configuration(from: options)
    return try ServeCommand.serve(configuration)
  }
}

extension OptionSpec {
  /// The flag of a server setting.
  init(setting: ServerSetting) {
    let kind: Kind
    switch setting.kind {
    case .flag: kind = .flag
    case .string: kind = .string
    case .integer(let range): kind = .integer(range)
    case .choice(let words): kind = .choice(words)
    }
    let shownDefault = setting.kind == .flag ? nil : setting.defaultValue
    self.init(name: setting.name, kind: kind, defaultValue: shownDefault, help: setting.help)
  }
}

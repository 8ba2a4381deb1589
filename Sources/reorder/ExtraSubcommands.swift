/// Subcommands beyond `serve`; `load` adds itself here (see LoadCommand.swift).
let extraSubcommands: [Subcommand] = [LoadCommand.subcommand]

import ArgumentParser

/// The `spotter` root command (server branch: only `serve` is registered here; the lead merges
/// `Serve` into the real root command).
@main
struct SpotterRoot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotter",
        abstract: "An offline-first terminal fitness logger.",
        subcommands: [Serve.self])
}

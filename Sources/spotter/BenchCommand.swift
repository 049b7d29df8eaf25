import ArgumentParser
import Foundation
import SpotterBench
import SpotterCore

/// `spotter bench`: the performance suite, on temporary files and an
/// in-process server on loopback.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure write, frame, drain (and its limit), pull, start-up and server speed.")

    @Flag(help: "One JSON document on stdout.") var json = false
    @Flag(help: "Run every part small, only to prove it works.") var quick = false
    @Option(
        help: "Comma-separated parts to run (write, frame, drain, limit, pull, startup, server, import); default all.")
    var only: String?
    @Option(
        name: .customLong("database-url"),
        help: "Run the server part on this PostgreSQL (postgres://USER@HOST:PORT/DB) instead of SQLite.")
    var databaseURL: String?

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = BenchOptions(directory: directory)
        options.quick = quick
        options.frameProbe = UIFrameProbe()
        options.serverDatabaseURL = databaseURL
        if let only {
            options.parts = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            let known: Set<String> = ["write", "frame", "drain", "limit", "pull", "startup", "server", "import"]
            if let unknown = options.parts.subtracting(known).first {
                throw CLIError(
                    "unknown bench part '\(unknown)'; choose from \(known.sorted().joined(separator: ", "))", code: 2)
            }
        }
        let result: JSONValue
        do {
            result = try await BenchmarkSuite.run(options) { line in
                FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
            }
        } catch {
            throw CLIError("bench failed: \(error)")
        }
        if json {
            print(result.canonicalString)
        } else {
            printSummary(result)
        }
    }

    private func printSummary(_ result: JSONValue) {
        for (part, value) in (result.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            print(part)
            for (name, figure) in (value.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let nested = figure.objectValue {
                    let text = nested.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.canonicalString)" }
                    print("  \(name): \(text.joined(separator: ", "))")
                } else {
                    print("  \(name): \(figure.stringValue ?? figure.canonicalString)")
                }
            }
        }
    }
}

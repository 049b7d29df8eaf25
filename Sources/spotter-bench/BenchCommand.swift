import ArgumentParser
import Foundation
import SpotterBench
import SpotterCore

/// `spotter-bench`: the performance suite, on temporary files and an in-process server on
/// loopback. A binary of its own, so `spotter` links none of it.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotter-bench",
        abstract: "Measure write, frame, drain (and its limit), pull, start-up and server speed.",
        discussion: """
            The start-up part launches the `spotter` binary built beside this one (`swift build` builds both).
            """)

    @Flag(help: "One JSON document on stdout.") var json = false
    @Flag(help: "Run every part small, only to prove it works.") var quick = false
    @Option(
        help:
            "Comma-separated parts to run (write, frame, drain, limit, pull, startup, server, scale, import, propagation, waiting, json); default all."
    )
    var only: String?
    @Option(
        name: .customLong("database-url"),
        help:
            "Run the server part on this PostgreSQL (postgres://USER@HOST:PORT/DB) instead of SQLite; propagation and scale also measure two instances on it."
    )
    var databaseURL: String?
    @Option(name: .customLong("hold-waits"), help: .hidden) var holdWaits: String?

    func run() async throws {
        if let holdWaits {
            // The waiting part's child: the devices' side of the connections, in a process of its own.
            do { try BenchmarkSuite.holdWaits(holdWaits) } catch { throw BenchFailure("\(error)") }
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = BenchOptions(directory: directory)
        options.quick = quick
        options.frameProbe = UIFrameProbe()
        options.serverDatabaseURL = databaseURL
        if let only {
            options.parts = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            let known: Set<String> = [
                "write", "frame", "drain", "limit", "pull", "startup", "server", "scale", "import", "propagation",
                "waiting", "json",
            ]
            if let unknown = options.parts.subtracting(known).first {
                throw BenchFailure(
                    "unknown bench part '\(unknown)'; choose from \(known.sorted().joined(separator: ", "))", code: 2)
            }
        }
        let result: JSONValue
        do {
            result = try await BenchmarkSuite.run(options) { line in
                FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
            }
        } catch {
            throw BenchFailure("bench failed: \(error)")
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

/// A failure of the bench told to the user, with its exit code.
struct BenchFailure: Error {
    let message: String
    let code: Int32
    init(_ message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }
}

/// The entry point: as `spotter`'s, every error is one line on stderr and an exit code (2 for
/// usage, 1 for everything else), never a stack trace.
@main
enum Main {
    static func main() async {
        do {
            var command = try BenchCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as BenchFailure {
            printError("spotter-bench: \(failure.message)")
            Foundation.exit(failure.code)
        } catch {
            let code = BenchCommand.exitCode(for: error)
            if code == .success {
                print(BenchCommand.fullMessage(for: error))
                Foundation.exit(0)
            }
            let message =
                BenchCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            let usage = code == .validationFailure ? " (see `spotter-bench --help`)" : ""
            printError("spotter-bench: \(message)\(usage)")
            Foundation.exit(code == .validationFailure ? 2 : 1)
        }
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

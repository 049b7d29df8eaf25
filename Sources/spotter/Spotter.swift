import ArgumentParser
import Foundation
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTUI

/// The `spotter` command: the UI without a subcommand, the scriptable CLI with one.
struct Spotter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotter",
        abstract: "An offline-first workout logger for the terminal.",
        discussion: """
            Without a subcommand, opens the full-screen UI. --db, --server and --token go before or after \
            the subcommand.
            """,
        version: Spotter.version,
        subcommands: [
            Interactive.self, Log.self, Edit.self, Delete.self, SetsCommand.self, WorkoutsCommand.self, Status.self,
            OutboxCommand.self, Airplane.self, Retry.self, Discard.self, Sync.self, Login.self, Logout.self,
            Whoami.self, Serve.self, Import.self, Export.self, Stats.self, WorkoutCommand.self, Star.self,
            Unstar.self, Stars.self, Exercises.self, Config.self, RoutineCommand.self, Conflicts.self, Undo.self,
            WarmupCommand.self, BodyWeightCommand.self, ChartCommand.self, RecordsCommand.self, CalendarCommand.self,
            VolumeCommand.self,
        ],
        defaultSubcommand: Interactive.self
    )

    static let version = "0.9.0"

    /// "-5", "-2.5", "-.5", "-5lb": what the parser takes for an option but the user meant as a value.
    static func isNegativeNumber(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), let next = argument.dropFirst().first else { return false }
        return next == "." || (next.isASCII && next.isNumber)
    }

    /// Moves global options written before the subcommand (`spotter --db X import F`) to just
    /// after it, where every subcommand's option group reads them — the order git, kubectl and
    /// docker users type.
    static func arrangingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard GlobalOptions.optionNames.contains(name) else { break }
            if argument.contains("=") {
                leading.append(argument)
                index += 1
            } else {
                leading += arguments[index..<min(index + 2, arguments.count)]
                index += 2
            }
        }
        guard !leading.isEmpty else { return arguments }
        let rest = Array(arguments[min(index, arguments.count)...])
        // After the deepest subcommand named (`config rest`, `exercises merge`): a group such as
        // `config` has no options of its own, its subcommands do.
        var path: [String] = []
        var commands = configuration.subcommands
        while let next = rest.dropFirst(path.count).first,
            let command = commands.first(where: { $0._commandName == next })
        {
            path.append(next)
            commands = command.configuration.subcommands
        }
        return path + leading + rest.dropFirst(path.count)
    }
}

/// `spotter` with no subcommand: the full-screen UI. (A default subcommand rather than
/// options on the root, so `spotter serve --token u=s` keeps its own `--token`.)
struct Interactive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui", abstract: "The full-screen terminal UI (the default).")

    @OptionGroup var global: GlobalOptions
    /// The bench's start-up child (`spotter --db DB --startup-probe`): the first frame into a buffer, then a report.
    @Flag(name: .customLong("startup-probe"), help: .hidden) var startupProbe = false

    func run() async throws {
        if startupProbe {
            let launchedAt = monotonicNanoseconds()
            print(try StartupProbe.run(global: global, launchedAt: launchedAt).canonicalString)
            return
        }
        // A database that may not be written is still shown, read-only: no sync runs (nothing it
        // sends or receives could be recorded), the header says so and every save is refused.
        var store: SpotterStore
        var readOnly: String?
        do {
            store = try global.openStore()
        } catch StoreError.readOnly(_, let why) {
            store = try global.openStore(readOnly: true)
            readOnly = why
        }
        let events = SyncEventChannel()
        let logFile =
            URL(fileURLWithPath: global.databasePath).deletingLastPathComponent().appendingPathComponent("spotter.log")
            .path
        // stderr belongs to the screen: an unreadable row is told as a notice and written to the log.
        store.onUnreadable = { [events] row in
            events.post(.notice("Skipped an \(row)"))
            if let log = FileHandle(forWritingAtPath: logFile) {
                log.seekToEndOfFile()
                log.write(Data("skipped an \(row)\n".utf8))
                try? log.close()
            }
        }
        // The UI keeps a wait on the change feed open: another device's set is on screen as soon
        // as the server has it, not on the next periodic pull.
        var session: SyncSession?
        if readOnly == nil {
            var configuration = SyncConfiguration()
            configuration.watchChanges = true
            session = try await SyncSession.start(
                global: global, store: store, events: events, configuration: configuration, accountCheckTimeout: 2,
                logger: commandLogger("spotter.sync"))
        }
        let shown = session?.store ?? store
        var options = TerminalUIOptions(store: shown, sync: nil, events: events)
        options.logFile = logFile
        options.accountLabel = shortAccountLabel(shown.owner)
        options.readOnly = readOnly
        if let session {
            options.strandedHint = try session.store.accounts.strandedQueues().first.map { resolveHint(for: $0.owner) }
            session.engine.start()
            options.sync = session.engine
        }
        // The UI blocks its thread in poll(); give it a thread of its own, not one of the executor's.
        let uiOptions = options
        let code: Int32 = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: runTerminalUI(uiOptions)) }.start()
        }
        await session?.shutdown()
        if code != 0 { throw ExitCode(code) }
    }
}

/// The entry point: runs the command and turns every error into one line on stderr and an exit code
/// (2 for usage, 1 for everything else), never a stack trace.
@main
enum Main {
    static func main() async {
        // The server's log (an access line a request) is written off the request path, by a
        // thread of its own; every way out waits until it is all written.
        var serverLog: BufferedLogSink?
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments == ["--version"] {
                print("spotter \(Spotter.version)")
                return
            }
            var command: any ParsableCommand
            do {
                command = try Spotter.parseAsRoot(Spotter.arrangingGlobalOptions(arguments))
            } catch {
                // "-5" reads as an option to the parser, which then says an argument is missing or
                // an option unknown: say what happened, and how to give such a value on purpose
                // (a note "-5"); a weight, reps or a port below 0 is then refused for what it is.
                if Spotter.exitCode(for: error) == .validationFailure,
                    let dashed = arguments.first(where: Spotter.isNegativeNumber)
                {
                    throw CLIError(
                        "'\(dashed)' was read as an option: a value that starts with '-' goes after '=' (--option=\(dashed))"
                            + " or after '--'", code: 2)
                }
                throw error
            }
            if command is Serve { serverLog = BufferedLogSink.bootstrapStandardError() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            serverLog?.flush()
        } catch let exit as ExitCode {
            serverLog?.flush()
            Foundation.exit(exit.rawValue)
        } catch let error as CLIError {
            serverLog?.flush()
            printError("spotter: \(error.message)")
            Foundation.exit(error.code)
        } catch let error as StoreError {
            serverLog?.flush()
            printError("spotter: \(error.description)")
            Foundation.exit(1)
        } catch let error where StoreError.isDatabaseError(error) {
            // SQLite's own text carries the statement; the user gets what it means in one line.
            serverLog?.flush()
            printError("spotter: \(StoreError.oneLine(error))")
            Foundation.exit(1)
        } catch {
            serverLog?.flush()
            let code = Spotter.exitCode(for: error)
            if code == .success {
                print(Spotter.fullMessage(for: error))
                Foundation.exit(0)
            }
            let message = Spotter.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            // One line, also for a usage error: the pointer to the help goes on it.
            let usage = code == .validationFailure ? " (see `spotter --help`)" : ""
            printError("spotter: \(message)\(usage)")
            Foundation.exit(code == .validationFailure ? 2 : 1)
        }
    }
}

/// A user-facing failure of a command, with its exit code.
struct CLIError: Error {
    let message: String
    let code: Int32
    init(_ message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }
}

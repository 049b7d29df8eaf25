import ArgumentParser
import Foundation
import Logging
import SpotterServer

import enum SpotterCore.DisplayText

/// `spotter serve`: the sync server, on a SQLite file or a PostgreSQL database shared by
/// several instances, with optional fault injection.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server.",
        discussion: """
            Prints 'listening on http://HOST:PORT' on stdout once bound (port 0 picks a free port), \
            logs requests to stderr, and shuts down gracefully on SIGINT or SIGTERM. \
            `spotter serve users` adds, lists, revokes and rotates the accounts kept in its database.
            """,
        subcommands: [ServeUsers.self])

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port = 8080

    @OptionGroup var database: ServerDatabaseOptions

    @Option(
        name: .customLong("database-pool-size"),
        help: "PostgreSQL connections of this instance (also how many of its transactions run at once).")
    var databasePoolSize = 8

    @Option(
        name: .customLong("token"),
        help:
            "A user and their bearer token, as user=secret; repeat for more users. For quick local use: the token shows in `ps`; use --tokens-file or SPOTTER_TOKENS otherwise."
    )
    var tokens: [String] = []

    @Option(
        name: .customLong("tokens-file"),
        help: "A file (mode 0600) of user=secret lines, blank lines and # comments allowed.")
    var tokensFile: String?

    @Option(name: .customLong("chaos-fail"), help: "Probability (0-1) of answering 503 before handling.")
    var chaosFail = 0.0

    @Option(
        name: .customLong("chaos-drop"),
        help: "Probability (0-1) of committing, then closing the connection unanswered.")
    var chaosDrop = 0.0

    @Option(name: .customLong("chaos-429"), help: "Probability (0-1) of answering 429 with Retry-After: 2.")
    var chaos429 = 0.0

    @Option(name: .customLong("chaos-latency"), help: "Milliseconds added before handling each write.")
    var chaosLatency = 0

    @Option(name: .customLong("chaos-seed"), help: "Seed for reproducible fault injection.")
    var chaosSeed: UInt64?

    @Option(name: .customLong("idempotency-ttl-days"), help: "Days an idempotency record is kept.")
    var idempotencyTTLDays = 8.0

    @Option(
        name: .customLong("read-timeout"),
        help: "Seconds a request may take to arrive completely (headers and body) before a 408.")
    var readTimeout = 30.0

    @Option(name: .customLong("idle-timeout"), help: "Seconds an idle connection is kept open.")
    var idleTimeout = 75.0

    @Option(
        name: .customLong("max-connections"), help: "Most connections open at once; one more is answered 503.")
    var maxConnections = 512

    @Option(
        name: .customLong("max-waiting"),
        help:
            "Most requests waiting on a change feed at once (GET /v1/changes?wait=); one more is answered 503. They do not count against --max-connections while they wait."
    )
    var maxWaiting = 10_000

    @Option(
        name: .customLong("max-user-concurrency"),
        help:
            "Most requests of one account worked on at once (waits on the change feed not counted); one more is answered 429 with Retry-After."
    )
    var maxUserConcurrency = 8

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        for rate in [chaosFail, chaosDrop, chaos429] where !(0...1).contains(rate) {
            throw ValidationError("chaos probabilities must be between 0 and 1")
        }
        guard chaosLatency >= 0 else { throw ValidationError("--chaos-latency must be 0 or more") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard readTimeout > 0, readTimeout <= 3600 else {
            throw ValidationError("--read-timeout must be more than 0 and at most 3600 seconds")
        }
        guard idleTimeout > 0, idleTimeout <= 86400 else {
            throw ValidationError("--idle-timeout must be more than 0 and at most 86400 seconds")
        }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be 1 or more") }
        guard maxWaiting >= 0 else { throw ValidationError("--max-waiting must be 0 or more") }
        guard maxUserConcurrency >= 1 else { throw ValidationError("--max-user-concurrency must be 1 or more") }
        guard idempotencyTTLDays > 0 else { throw ValidationError("--idempotency-ttl-days must be more than 0") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (1...1000).contains(databasePoolSize) else {
            throw ValidationError("--database-pool-size must be from 1 to 1000")
        }
        _ = try parsedTokens()
    }

    func run() async throws {
        let databaseURL = try database.resolvedDatabaseURL()
        var configuration = ServerConfiguration(
            databasePath: databaseURL == nil ? try database.resolvedDatabasePath() : "", tokens: try parsedTokens())
        if databaseURL == nil { try Self.serveAlone(configuration.databasePath) }
        configuration.databaseURL = databaseURL
        configuration.databasePassword = try databaseURL.flatMap(database.databasePassword(for:))
        configuration.databasePoolSize = databasePoolSize
        configuration.host = host
        configuration.port = port
        configuration.idempotencyTTL = idempotencyTTLDays * 24 * 3600
        configuration.chaos.failRate = chaosFail
        configuration.chaos.dropRate = chaosDrop
        configuration.chaos.rate429 = chaos429
        configuration.chaos.latencyMS = chaosLatency
        configuration.chaos.seed = chaosSeed
        configuration.connections.readTimeout = .milliseconds(Int64(readTimeout * 1000))
        configuration.connections.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.connections.maxConnections = maxConnections
        configuration.maxWaiting = maxWaiting
        configuration.maxUserConcurrency = maxUserConcurrency

        var logger = Logger(label: "spotter.server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let shownHost = host
        do {
            try await runServerUntilSignalled(configuration, logger: logger) { boundPort in
                FileHandle.standardOutput.write(Data("listening on http://\(shownHost):\(boundPort)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("spotter serve: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// One `spotter serve` a SQLite file. A wait on the change feed is woken by the writes of its
    /// own process: a second instance on the same file would answer its waits only when they run
    /// out (25 s), so it is refused, pointing at PostgreSQL, which carries changes between
    /// instances. The lock is on the database file itself (`flock`, which SQLite's own `fcntl`
    /// locks do not meet; the descriptor stays open for the process's life, so closing it can
    /// never drop them), so another path to the same file (a symlink, a hard link) meets it too.
    /// `FILE.serve-lock` only names the running one's pid. `serve users` and devices take no lock.
    static func serveAlone(_ path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CLIError(
                "cannot open \(path) to serve it: \(String(cString: strerror(errno)))", code: 1)
        }
        let pidPath = path + ".serve-lock"
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            let pid = ((try? String(contentsOfFile: pidPath, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let shown = pid.isEmpty || pid.count > 12 || !pid.allSatisfy(\.isNumber) ? "" : " (pid \(pid))"
            throw CLIError(
                "another `spotter serve` serves \(path) already\(shown): one instance a SQLite file; to run"
                    + " several, serve one PostgreSQL database (--database-url)", code: 1)
        }
        // Best effort: the lock holds without it, the message is only less precise.
        try? "\(getpid())\n".write(toFile: pidPath, atomically: true, encoding: .utf8)
    }

    /// Every `user=secret` of `--token`, `--tokens-file` and `SPOTTER_TOKENS` (entries separated
    /// by white space), as secret → user. A mistake names where it is, never the secret.
    private func parsedTokens() throws -> [String: String] {
        var entries: [(entry: String, source: String)] = tokens.map { ($0, "--token") }
        if let tokensFile {
            for (number, line) in try ServerDatabaseOptions.privateFile(tokensFile, "--tokens-file").split(
                omittingEmptySubsequences: false, whereSeparator: \.isNewline
            ).enumerated() {
                let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if entry.isEmpty || entry.hasPrefix("#") { continue }
                entries.append((entry, "\(tokensFile) line \(number + 1)"))
            }
        }
        if let environment = ProcessInfo.processInfo.environment["SPOTTER_TOKENS"] {
            for entry in environment.split(whereSeparator: \.isWhitespace) {
                entries.append((String(entry), "SPOTTER_TOKENS"))
            }
        }
        // None at all: the accounts in the database are the only way in (the server checks there is one).
        var byToken: [String: String] = [:]
        var sourceOfName: [String: String] = [:]
        for (entry, source) in entries {
            var parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("\(source): a token must look like user=secret")
            }
            // The rules of `serve users add`: one spelling of a name, nothing invisible.
            do { parts[0] = try ServeUsers.checkedName(parts[0]) } catch let error as ArgumentParser.ValidationError {
                throw ValidationError("\(source): \(error.message)")
            }
            // A name twice would let either secret in, and one of them is a mistake.
            if let earlier = sourceOfName[parts[0]] {
                throw ValidationError(
                    "\(source): \(DisplayText.replacingControls(parts[0])) has a token already (\(earlier)): one token a user"
                )
            }
            sourceOfName[parts[0]] = source
            // The secret travels in an HTTP header, as a bearer token: visible ASCII only.
            guard parts[1].unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw ValidationError(
                    "\(source): a secret must be visible ASCII (letters, digits, punctuation), no spaces or other characters"
                )
            }
            guard byToken[parts[1]] == nil else { throw ValidationError("\(source): two users share the same token") }
            byToken[parts[1]] = parts[0]
        }
        return byToken
    }
}

/// Where the server keeps its data: `--db FILE` (SQLite), or `--database-url` / `--database-url-file`
/// (PostgreSQL, several instances), with the password from the environment or a passfile.
struct ServerDatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "SQLite file of the server store.")
    var databasePath: String?

    @Option(
        name: .customLong("database-url"),
        help:
            "PostgreSQL shared by several instances: postgres://USER@HOST[:PORT]/DATABASE. The password comes from PGPASSWORD or a passfile (PGPASSFILE, ~/.pgpass), not the command line."
    )
    var databaseURL: String?

    @Option(
        name: .customLong("database-url-file"),
        help: "A file (mode 0600) holding the --database-url, so nothing of it shows in `ps`.")
    var databaseURLFile: String?

    func validate() throws {
        guard databaseURL == nil || databaseURLFile == nil else {
            throw ValidationError("--database-url and --database-url-file both name the database; give one")
        }
        if let databaseURL = try resolvedDatabaseURL() {
            guard databasePath == nil else {
                throw ValidationError("--db and --database-url name two stores; give one")
            }
            do { _ = try PostgresLocation(url: databaseURL) } catch { throw ValidationError(error.description) }
            _ = try databasePassword(for: databaseURL)
        }
    }

    /// The store these options name, opened (and migrated) for a command that is not the server.
    func openAccounts(logger: Logger) async throws -> any ServerStore & ServerAccounts {
        if let url = try resolvedDatabaseURL() {
            let location = try PostgresLocation(url: url, password: try databasePassword(for: url))
            return try await PostgresServerStore.open(location, poolSize: 1, logger: logger)
        }
        return try SQLiteServerStore(path: try resolvedDatabasePath())
    }

    /// `--database-url`, or the first line of `--database-url-file`.
    func resolvedDatabaseURL() throws -> String? {
        guard let databaseURLFile else { return databaseURL }
        let text = try Self.privateFile(databaseURLFile, "--database-url-file")
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { !$0.allSatisfy(\.isWhitespace) })
        else { throw ValidationError("--database-url-file \(databaseURLFile) holds no URL") }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// The password for a URL without one: `PGPASSWORD`, else the passfile (`PGPASSFILE` or
    /// `~/.pgpass`), as libpq looks for it.
    func databasePassword(for url: String) throws -> String? {
        let location: PostgresLocation
        do { location = try PostgresLocation(url: url) } catch { throw ValidationError(error.description) }
        guard location.password == nil else { return nil }
        let environment = ProcessInfo.processInfo.environment
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let passfile =
            environment["PGPASSFILE"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".pgpass")
        do { return try location.password(fromPassfile: passfile) } catch { throw ValidationError(error.description) }
    }

    /// The text of a file that holds secrets, refused when others may read it.
    static func privateFile(_ path: String, _ option: String) throws -> String {
        do { return try OwnerOnlyFile.read(path, as: option) } catch { throw ValidationError(error.description) }
    }

    func resolvedDatabasePath() throws -> String {
        if let databasePath { return databasePath }
        let directory = Paths.dataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory as NSString).appendingPathComponent("server.db")
    }
}

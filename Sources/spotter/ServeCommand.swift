import ArgumentParser
import Foundation
import Logging
import SpotterServer

/// `spotter serve`: the sync server, on a SQLite file or a PostgreSQL database shared by
/// several instances, with optional fault injection.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server.",
        discussion: """
            Prints 'listening on http://HOST:PORT' on stdout once bound (port 0 picks a free port), \
            logs requests to stderr, and shuts down gracefully on SIGINT or SIGTERM.
            """)

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("db"), help: "SQLite file of the server store.")
    var databasePath: String?

    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL shared by several instances: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var databaseURL: String?

    @Option(
        name: .customLong("database-pool-size"),
        help: "PostgreSQL connections of this instance (also how many of its transactions run at once).")
    var databasePoolSize = 8

    @Option(name: .customLong("token"), help: "A user and their bearer token, as user=secret; repeat for more users.")
    var tokens: [String] = []

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
        if let databaseURL {
            guard databasePath == nil else {
                throw ValidationError("--db and --database-url name two stores; give one")
            }
            do { _ = try PostgresLocation(url: databaseURL) } catch { throw ValidationError(error.description) }
        }
        guard (1...1000).contains(databasePoolSize) else {
            throw ValidationError("--database-pool-size must be from 1 to 1000")
        }
        _ = try parsedTokens()
    }

    func run() async throws {
        var configuration = ServerConfiguration(
            databasePath: databaseURL == nil ? try resolvedDatabasePath() : "", tokens: try parsedTokens())
        configuration.databaseURL = databaseURL
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

    /// `user=secret` pairs → secret → user.
    private func parsedTokens() throws -> [String: String] {
        guard !tokens.isEmpty else { throw ValidationError("at least one --token user=secret is required") }
        var byToken: [String: String] = [:]
        for pair in tokens {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--token must look like user=secret (got '\(pair)')")
            }
            guard byToken[parts[1]] == nil else { throw ValidationError("two users share the same token") }
            byToken[parts[1]] = parts[0]
        }
        return byToken
    }

    private func resolvedDatabasePath() throws -> String {
        if let databasePath { return databasePath }
        let directory = Paths.dataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory as NSString).appendingPathComponent("server.db")
    }
}

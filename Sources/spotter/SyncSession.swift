import Foundation
import Logging
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync

/// The engine wired to its server: the one named by `--server`, or — by default — a sync
/// server started in this process on 127.0.0.1 with its own database beside the client's,
/// so a new user has a working sync loop with no set-up.
final class SyncSession: Sendable {
    let engine: SyncEngine
    let embeddedServer: BackgroundServer?
    /// The store acting for the account the server named (the one passed in, when it did not say).
    var store: SpotterStore { engine.store }

    private init(engine: SyncEngine, embeddedServer: BackgroundServer?) {
        self.engine = engine
        self.embeddedServer = embeddedServer
    }

    /// - Parameter accountCheckTimeout: how long to wait for the server to name the account of a
    ///   token not yet verified (`GET /v1/me`); without an answer the run syncs nothing new and the
    ///   queue waits, owned by the token's fingerprint.
    static func start(
        global: GlobalOptions, store: SpotterStore, events: SyncEventChannel = SyncEventChannel(),
        configuration: SyncConfiguration = SyncConfiguration(), accountCheckTimeout: TimeInterval = 5,
        logger: Logger
    ) async throws -> SyncSession {
        var configuration = configuration
        // How long a claim holds an operation before another process may take it over
        // (crash recovery); tests shorten it to see recovery without waiting a minute.
        let environment = ProcessInfo.processInfo.environment
        if let lease = environment["SPOTTER_LEASE_SECONDS"].flatMap(Double.init), lease > 0 {
            configuration.lease = lease
        }
        // The retry schedule and the safety valve, shortened by tests and demos that need to see
        // an operation give up without waiting a quarter of an hour.
        if let base = environment["SPOTTER_RETRY_BASE_SECONDS"].flatMap(Double.init), base > 0 {
            configuration.retryPolicy.base = base
            configuration.retryPolicy.cap = max(base, min(configuration.retryPolicy.cap, base * 60))
        }
        if let attempts = environment["SPOTTER_MAX_ATTEMPTS"].flatMap(Int.init), attempts > 0 {
            configuration.retryPolicy.maxAttempts = attempts
        }
        // The periodic pull, lengthened by tests that must see a change arrive through the wait
        // on the feed alone.
        if let seconds = environment["SPOTTER_PULL_INTERVAL_SECONDS"].flatMap(Double.init), seconds > 0 {
            configuration.periodicInterval = seconds
        }
        let target = try global.target()
        if let url = target.server {
            let transport = HTTPSyncTransport(baseURL: url, token: target.token)
            let fingerprint = target.tokenFingerprint ?? QueueOwner.fingerprint(token: "")
            var store = store
            switch store.owner {
            case .unverified:
                if !store.preferences.airplaneIsOn() {
                    let check = await AccountCheck.ask(transport, timeout: accountCheckTimeout)
                    store = try AccountCheck.settle(
                        store, server: url, tokenFingerprint: fingerprint, check: check,
                        legacyOwners: global.legacyOwners(of: target))
                }
            case .account:
                try AccountCheck.adoptAliases(
                    store, server: url, tokenFingerprint: fingerprint, legacyOwners: global.legacyOwners(of: target))
            case .device, .legacy:
                break
            }
            let engine = SyncEngine(
                store: store, transport: transport, events: events, configuration: configuration, logger: logger)
            return SyncSession(engine: engine, embeddedServer: nil)
        }
        let token = UUID().uuidString.lowercased()
        // Each database its own embedded server, so two databases in one folder never sync with
        // each other (one that already used the folder's shared file keeps it).
        // The real file's folder and name: a database opened through a link finds the same server.
        let database = URL(fileURLWithPath: global.databasePath).resolvingSymlinksInPath()
        let folder = database.deletingLastPathComponent()
        let serverPath = folder.appendingPathComponent(
            try store.preferences.embeddedServerFileName(databaseFileName: database.lastPathComponent, folder: folder)
        ).path
        var serverLogger = logger
        serverLogger.logLevel = .warning
        let server: BackgroundServer
        do {
            server = try await BackgroundServer.start(
                ServerConfiguration(databasePath: serverPath, tokens: [token: store.userID]), logger: serverLogger)
        } catch {
            throw CLIError("could not start the embedded sync server (\(serverPath)): \(error)")
        }
        let transport = HTTPSyncTransport(baseURL: server.baseURL, token: token)
        let engine = SyncEngine(
            store: store, transport: transport, events: events, configuration: configuration, logger: logger)
        return SyncSession(engine: engine, embeddedServer: server)
    }

    func shutdown() async {
        engine.stop()
        await embeddedServer?.stop()
    }
}

/// A logger for commands: warnings and worse to stderr, never mixed into stdout.
func commandLogger(_ label: String) -> Logger {
    var logger = Logger(label: label) { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = .warning
    return logger
}

import Foundation
import Logging
import SpotterServer
import SpotterStore
import SpotterSync

/// The engine wired to its server: the one named by `--server`, or — by default — a sync
/// server started in this process on 127.0.0.1 with its own database beside the client's,
/// so a new user has a working sync loop with no set-up.
final class SyncSession: Sendable {
    let engine: SyncEngine
    let embeddedServer: BackgroundServer?
    let serverDescription: String

    private init(engine: SyncEngine, embeddedServer: BackgroundServer?, serverDescription: String) {
        self.engine = engine
        self.embeddedServer = embeddedServer
        self.serverDescription = serverDescription
    }

    static func start(
        global: GlobalOptions, store: SpotterStore, events: SyncEventChannel = SyncEventChannel(),
        configuration: SyncConfiguration = SyncConfiguration(), logger: Logger
    ) async throws -> SyncSession {
        var configuration = configuration
        // How long a claim holds an operation before another process may take it over
        // (crash recovery); tests shorten it to see recovery without waiting a minute.
        if let lease = ProcessInfo.processInfo.environment["SPOTTER_LEASE_SECONDS"].flatMap(Double.init), lease > 0 {
            configuration.lease = lease
        }
        if let url = global.serverURL {
            let transport = HTTPSyncTransport(baseURL: url, token: global.serverToken)
            let engine = SyncEngine(
                store: store, transport: transport, events: events, configuration: configuration, logger: logger)
            return SyncSession(engine: engine, embeddedServer: nil, serverDescription: url)
        }
        let token = UUID().uuidString.lowercased()
        let serverPath = URL(fileURLWithPath: global.databasePath).deletingLastPathComponent()
            .appendingPathComponent("spotter-server.db").path
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
        return SyncSession(engine: engine, embeddedServer: server, serverDescription: "embedded (\(server.baseURL))")
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

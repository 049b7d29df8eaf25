import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SpotterCore
import Synchronization

/// Why the server could not start, in words a user of `spotter serve` can act on.
public struct ServerStartError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }

    /// Why a server database did not open, in one line: SQLite's text goes on with the statement
    /// it ran (for a device's database given as --db, a whole migration), which is left out.
    public static func oneLine(_ error: any Error) -> String {
        let text = "\(error)".components(separatedBy: " - while executing").first ?? "\(error)"
        return text.split(separator: "\n").first.map(String.init) ?? text
    }
}

/// The pieces one server instance is made of, built once from a configuration.
struct ServerComponents: Sendable {
    let store: any ServerStore
    let metrics: ServerMetrics
    let router: ServerRouter
    /// On PostgreSQL: how this instance hears of, and tells, the other instances' changes.
    let relay: PostgresChangeRelay?

    init(_ configuration: ServerConfiguration, logger: Logger) async throws {
        let store = try await Self.openStore(configuration, logger: logger)
        if configuration.tokens.isEmpty {
            // No token given at start: the accounts of the store are the only way in.
            let accounts: [ServerAccount]
            do { accounts = try await (store as? any ServerAccounts)?.listAccounts() ?? [] } catch {
                try? await store.close()
                throw ServerStartError("cannot read the accounts of the server's database: \(error)")
            }
            guard !accounts.isEmpty else {
                try? await store.close()
                throw ServerStartError(
                    "no account can sign in: add one with `spotter serve users add NAME`, or give --token user=secret, --tokens-file or SPOTTER_TOKENS"
                )
            }
        }
        let metrics = ServerMetrics()
        let waiters = ChangeWaiters(limit: configuration.maxWaiting, limitPerUser: configuration.maxWaitingPerUser) {
            metrics.recordWaiting($0)
        }
        if configuration.makeStore == nil, let url = configuration.databaseURL {
            let relay = PostgresChangeRelay(
                location: try PostgresLocation(url: url, password: configuration.databasePassword), waiters: waiters,
                logger: logger,
                listening: { metrics.recordRelayListening($0) })
            waiters.relay(to: { relay.announce($0) })
            self.relay = relay
        } else {
            relay = nil
        }
        let api = SyncAPI(
            store: store, configuration: configuration, metrics: metrics, logger: logger, waiters: waiters)
        self.store = store
        self.metrics = metrics
        router = ServerRouter(
            api: api, store: store, tokens: configuration.tokens, chaos: ChaosInjector(configuration.chaos),
            metrics: metrics, configuration: configuration, logger: logger)
    }

    /// The store the configuration names: PostgreSQL for a `databaseURL`, else the SQLite file.
    static func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> any ServerStore {
        if configuration.makeStore == nil, let url = configuration.databaseURL {
            guard configuration.databasePoolSize >= 1 else {
                throw ServerStartError("the PostgreSQL pool needs at least one connection")
            }
            return try await PostgresServerStore.open(
                try PostgresLocation(url: url, password: configuration.databasePassword),
                poolSize: configuration.databasePoolSize, logger: logger)
        }
        do {
            if let makeStore = configuration.makeStore { return try await makeStore(configuration.databasePath) }
            return try SQLiteServerStore(path: configuration.databasePath)
        } catch let error as ServerStartError {
            throw error
        } catch {
            throw ServerStartError(
                "cannot open the server database at \(configuration.databasePath): \(ServerStartError.oneLine(error))")
        }
    }

    func application(
        _ configuration: ServerConfiguration, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> Application<RouterResponder<ServerRequestContext>> {
        Application(
            router: router.build(),
            server: GuardedHTTP1Channel.builder(configuration.connections),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                // Devices reconnect together after a restart (each wait on the feed is a connection):
                // a longer accept queue than the default 256 keeps their connects from timing out
                // into a SYN retry. The kernel caps it at net.core.somaxconn.
                backlog: 4096),
            services: [
                IdempotencyPurgeService(
                    store: store, clock: configuration.clock, timeToLive: configuration.idempotencyTTL,
                    interval: .seconds(3600), logger: logger)
            ] + (relay.map { [$0] } ?? []),
            onServerRunning: onServerRunning,
            logger: logger)
    }
}

/// Builds the sync server as a Hummingbird application (for HummingbirdTesting and custom hosting).
public func makeServerApplication(
    _ configuration: ServerConfiguration, logger: Logger
) async throws
    -> some ApplicationProtocol
{
    let components = try await ServerComponents(configuration, logger: logger)
    return components.application(configuration, logger: logger)
}

/// Runs the server until SIGINT or SIGTERM, then shuts down gracefully (in-flight requests finish).
///
/// `onListening` receives the bound port once the socket accepts connections — the real one
/// when `configuration.port` is 0.
public func runServerUntilSignalled(
    _ configuration: ServerConfiguration, logger: Logger, onListening: @escaping @Sendable (Int) -> Void
) async throws {
    let components = try await ServerComponents(configuration, logger: logger)
    let app = components.application(configuration, logger: logger) { channel in
        onListening(channel.localAddress?.port ?? configuration.port)
    }
    let group = ServiceGroup(
        configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    do {
        try await group.run()
    } catch {
        try? await components.store.close()
        throw ServerStartError("the server stopped: \(error)")
    }
    try? await components.store.close()
}

/// The batch route's work without HTTP: the same router code and `SyncAPI.performBatch` on
/// the same kind of store. `spotter bench` measures the drain against it (its `limit` part):
/// the durable work of a drain with the network taken away.
public final class DirectBatchServer: Sendable {
    private let components: ServerComponents

    public init(_ configuration: ServerConfiguration, logger: Logger) async throws {
        components = try await ServerComponents(configuration, logger: logger)
    }

    /// What `POST /v1/batch` with this body would answer `user`: its status and body.
    public func batch(_ body: Data, user: String) async -> (status: Int, body: Data) {
        let response = await components.router.batch(.bytes(body), user: user)
        return (response.status, response.body ?? Data())
    }

    public func close() async {
        try? await components.store.close()
    }
}

/// A server running in this process on a background task (used by the embedded default of `spotter`, engine tests and bench).
///
/// Same code as `spotter serve`, bound to loopback, so the embedded sync loop and the tests
/// exercise the real HTTP path rather than a fake.
public final class BackgroundServer: Sendable {
    /// The bound port (the real one when the configuration asked for 0).
    public let port: Int
    /// The server store, for tests and tools that need to look at what the server holds.
    public let store: any ServerStore
    /// The server's counters (also served at `GET /metrics`).
    public let metrics: ServerMetrics
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(
        port: Int, store: any ServerStore, metrics: ServerMetrics, group: ServiceGroup, running: Task<Void, Never>
    ) {
        self.port = port
        self.store = store
        self.metrics = metrics
        self.group = group
        self.running = running
    }

    /// Starts the server and returns once it accepts connections.
    public static func start(_ configuration: ServerConfiguration, logger: Logger) async throws -> BackgroundServer {
        let components = try await ServerComponents(configuration, logger: logger)
        let bound = PortSignal()
        let app = components.application(configuration, logger: logger) { channel in
            bound.resolve(.success(channel.localAddress?.port ?? configuration.port))
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let running = Task {
            do {
                try await group.run()
                bound.resolve(.failure(ServerStartError("the server stopped before it was listening")))
            } catch {
                bound.resolve(.failure(ServerStartError("the server failed: \(error)")))
            }
        }
        do {
            let port = try await bound.value()
            return BackgroundServer(
                port: port, store: components.store, metrics: components.metrics, group: group,
                running: running)
        } catch {
            await group.triggerGracefulShutdown()
            await running.value
            try? await components.store.close()
            throw error
        }
    }

    /// Stops accepting connections, lets in-flight requests finish, then closes the store.
    public func stop() async {
        await group.triggerGracefulShutdown()
        await running.value
        try? await store.close()
    }
}

/// A one-shot hand-over of the bound port (or the failure to bind) from the server task to `start`.
private final class PortSignal: Sendable {
    private struct State {
        var result: Result<Int, any Error>?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = Mutex(State())

    func resolve(_ outcome: Result<Int, any Error>) {
        let continuation: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        continuation?.resume(with: outcome)
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

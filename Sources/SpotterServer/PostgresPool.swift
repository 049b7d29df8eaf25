import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Where a PostgreSQL server store lives, read from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
public struct PostgresLocation: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    /// Reads a `postgres://` or `postgresql://` URL. The only query parameter understood is
    /// `sslmode=disable` (the default): this build speaks to PostgreSQL without TLS, so a URL that
    /// asks for TLS is refused instead of silently sent in the clear.
    public init(url: String) throws(ServerStartError) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw ServerStartError(
                "--database-url must look like postgres://USER@HOST:PORT/DATABASE (got '\(Self.withoutPassword(url))')")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw ServerStartError("--database-url names no host (postgres://USER@HOST:PORT/DATABASE)")
        }
        guard let user = parts.user, !user.isEmpty else {
            throw ServerStartError("--database-url names no user (postgres://USER@HOST:PORT/DATABASE)")
        }
        let database = String(parts.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ServerStartError("--database-url names no database (postgres://USER@HOST:PORT/DATABASE)")
        }
        for item in parts.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?):
                continue
            case ("sslmode", let mode):
                throw ServerStartError(
                    "--database-url asks for sslmode=\(mode ?? ""), but this build connects to PostgreSQL without TLS;"
                        + " use sslmode=disable on a trusted network (loopback or a private link)")
            default:
                throw ServerStartError("--database-url has an unknown parameter '\(item.name)'")
            }
        }
        self.host = host
        port = parts.port ?? 5432
        self.user = user
        password = parts.password
        self.database = database
    }

    /// Any text between "//" and "@" loses what follows its first ":" — a mistyped URL must not
    /// print the password it carries.
    static func withoutPassword(_ url: String) -> String {
        guard let start = url.range(of: "//"), let at = url[start.upperBound...].lastIndex(of: "@"),
            let colon = url[start.upperBound..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    /// The URL without its password, for messages and logs.
    public var redacted: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// A statement PostgreSQL refused while the connection stayed healthy (a constraint, a
/// serialization failure, a deadlock): the transaction is rolled back and the connection reused.
struct PostgresStatementError: Error, CustomStringConvertible {
    var sqlState: String
    var message: String

    var description: String { "PostgreSQL answered \(sqlState): \(message)" }

    /// Serialization failures and deadlocks: running the transaction again is the cure.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
}

/// PostgreSQL for the `ServerTransaction` seam, through PostgresNIO's `PostgresClient`.
///
/// The client owns the connections: it opens them as they are needed (at most `size`), keeps the
/// idle ones alive, forgets the ones that close and closes the rest when its `run()` ends. That
/// runs in a task of this pool's own, from `init` to `close()`. A transaction's statements are
/// awaited one after another on the connection it leased: no thread ever waits for an answer.
///
/// What the client does not do on its own, this pool adds:
/// - admission: `size` permits, one per connection the client may open, handed out in arrival
///   order. At most `size` transactions run at once on this instance; the others wait for a
///   permit (a suspended task, not a thread).
/// - an answer when PostgreSQL is out of reach. With a permit in hand a connection is idle or may
///   be opened, so a lease is quick; one that is not after `probeDelay` has PostgreSQL's port
///   tried: a port that refuses the connection (or does not answer within `connectTimeout`)
///   means PostgreSQL is down, and the request is answered 503 at once. A port that accepts it
///   means a slow server (a loaded machine, a database starting up): the lease goes on waiting,
///   up to `leaseTimeout`. (The client alone would keep every request waiting while it tries to
///   connect again, backing off from 100 ms up to a minute, for a minute before it gives up.)
///   Once PostgreSQL was found out of reach, leases wait only `outageTimeout` until one gets a
///   connection again: the client keeps trying to connect meanwhile and keeps the connection it
///   makes, so a request finds it at once when PostgreSQL is back, and the requests that pile up
///   during an outage are answered 503 at once.
/// - the statement deadline (`PostgresSession.query`): a connection whose statement outlives it is
///   closed, and the client opens a fresh one for the next transaction.
/// - a close that lets the running transactions finish: the client's own shutdown would close
///   their connections under them.
final class PostgresPool: Sendable {
    let location: PostgresLocation
    let size: Int
    /// How long one statement may wait for its answer before its connection is closed and the
    /// request answered 503: a database that hangs must not hold a transaction forever.
    let statementTimeout: TimeAmount
    /// How long opening a connection (or trying PostgreSQL's port) may take.
    let connectTimeout: Duration
    /// How long a transaction holding a permit may wait for its connection from a PostgreSQL that
    /// accepts connections.
    let leaseTimeout: Duration
    /// How long a lease may take before PostgreSQL's port is tried.
    static let probeDelay = Duration.milliseconds(500)
    /// How long a transaction waits for its connection while PostgreSQL is known to be out of reach.
    static let outageTimeout = Duration.milliseconds(250)
    private let logger: Logger
    private let client: PostgresClient
    /// The client's `run()`: cancelled by `close()`, once no transaction is left.
    private let running: Task<Void, Never>
    private let state: Mutex<State>

    private struct State {
        /// Permits not held; `size` of them at first.
        var permits: Int
        /// Transactions waiting for a permit, first come first served.
        var waiting: [CheckedContinuation<Void, any Error>] = []
        /// Transactions holding a permit.
        var holders = 0
        var isClosed = false
        /// `close()`, waiting for the last holder.
        var drained: [CheckedContinuation<Void, Never>] = []
        /// Connections that have already served a transaction: one of them found dead at a
        /// transaction's first statement went stale while it was idle in the pool.
        var served: Set<PostgresConnection.ID> = []
        /// Set when PostgreSQL was found out of reach, cleared by the next lease that gets a connection.
        var unreachable = false
    }

    init(
        location: PostgresLocation, size: Int, statementTimeout: TimeAmount = .seconds(30),
        connectTimeout: Duration = .seconds(5), leaseTimeout: Duration = .seconds(30), logger: Logger
    ) {
        self.location = location
        self.size = size
        self.statementTimeout = statementTimeout
        self.connectTimeout = connectTimeout
        self.leaseTimeout = leaseTimeout
        self.logger = logger
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = size
        // The client reports every failed attempt to connect at `info`, ten a second at the start
        // of an outage; the 503s and their log lines already say it. Its warnings still show.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        self.client = client
        running = Task { await client.run() }
        state = Mutex(State(permits: size))
    }

    /// Runs `body` with a connection of its own, once a permit is free. A connection whose link
    /// failed, or whose statement outlived its deadline, is closed: the client forgets it and
    /// opens a new one when one is needed (so a restarted PostgreSQL is used again as soon as it
    /// accepts connections).
    func withSession<T: Sendable>(
        _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        try await acquire()
        defer { release() }
        return try await leased(body).get()
    }

    /// One step of a lease racing its deadline.
    private enum LeaseStep<T: Sendable>: Sendable {
        case finished(Result<T, any Error>)
        /// PostgreSQL's port refused the connection, or did not answer.
        case outOfReach(any Error)
        case deadline
    }

    /// Leases a connection from the client and runs `body` on it, unless PostgreSQL turns out to
    /// be out of reach, or no connection comes within the deadline: then the lease is cancelled
    /// and the answer is "unavailable".
    private func leased<T: Sendable>(
        _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async -> Result<T, any Error> {
        let race = LeaseRace()
        let outage = state.withLock { $0.unreachable }
        let deadline = outage ? Self.outageTimeout : leaseTimeout
        return await withTaskGroup(of: LeaseStep<T>.self) { group in
            group.addTask {
                do {
                    return .finished(
                        try await self.client.withConnection { connection in
                            // The connection came after the deadline: the request was answered already.
                            guard race.begin() else { return .failure(CancellationError()) }
                            self.state.withLock { $0.unreachable = false }
                            return await self.run(body, on: connection)
                        })
                } catch {
                    return .finished(.failure(PostgresSession.classify(error, doing: "lease a connection")))
                }
            }
            group.addTask {
                guard !outage else {
                    try? await Task.sleep(for: deadline)
                    return .deadline
                }
                // Cancelled (the lease came), the sleep ends early; the step is then not looked at.
                do { try await Task.sleep(for: Self.probeDelay) } catch { return .deadline }
                if let refusal = await self.tryPort() { return .outOfReach(refusal) }
                try? await Task.sleep(for: deadline - Self.probeDelay)
                return .deadline
            }
            for await step in group {
                switch step {
                case .finished(let outcome):
                    group.cancelAll()
                    return outcome
                case .outOfReach(let refusal) where race.expire():
                    group.cancelAll()
                    state.withLock { $0.unreachable = true }
                    return .failure(
                        ServerStoreUnavailable(
                            "PostgreSQL at \(location.host):\(location.port) does not accept connections (\(refusal))"))
                case .deadline where race.expire():
                    group.cancelAll()
                    return .failure(
                        ServerStoreUnavailable("no connection to \(location.host):\(location.port) within \(deadline)"))
                case .deadline, .outOfReach:
                    continue  // the transaction had its connection in time: it goes on
                }
            }
            return .failure(ServerStoreUnavailable("the lease of a connection ended without an answer"))
        }
    }

    /// Runs `body` on a leased connection; what it came to, with a connection that failed closed.
    private func run<T: Sendable>(
        _ body: @Sendable (PostgresSession) async throws -> T, on connection: PostgresConnection
    ) async -> Result<T, any Error> {
        let wasIdle = state.withLock { $0.served.contains(connection.id) }
        let session = PostgresSession(
            connection: connection, wasIdle: wasIdle, timeout: statementTimeout, logger: logger,
            progress: PostgresSession.Progress())
        do {
            let result = try await body(session)
            remember(connection)
            return .success(result)
        } catch let error where error is ServerStoreUnavailable || error is PostgresStaleConnection {
            // Awaited, so the client has heard of the close before the connection goes back to it
            // (it would otherwise lend it again, closed).
            try? await connection.close().get()
            return .failure(error)
        } catch {
            // Refused statements and the handlers' own errors leave a healthy connection
            // (the transaction rolled back first; see `PostgresSession.transaction`).
            remember(connection)
            return .failure(error)
        }
    }

    /// Tries PostgreSQL's port: nil when it accepts a connection (closed at once, before any
    /// PostgreSQL message), else why not.
    private func tryPort() async -> (any Error)? {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(connectTimeout))
                .connect(host: location.host, port: location.port).get()
            channel.close(promise: nil)
            return nil
        } catch {
            return error
        }
    }

    /// Notes that `connection` served a transaction, until it closes.
    private func remember(_ connection: PostgresConnection) {
        let id = connection.id
        guard state.withLock({ $0.served.insert(id).inserted }) else { return }
        connection.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.served.remove(id) }
        }
    }

    private func acquire() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let answer: Result<Void, any Error>? = state.withLock { state in
                guard !state.isClosed else { return .failure(ServerStoreUnavailable("the store is closed")) }
                guard state.permits > 0 else {
                    state.waiting.append(continuation)
                    return nil
                }
                state.permits -= 1
                state.holders += 1
                return .success(())
            }
            if let answer { continuation.resume(with: answer) }
        }
    }

    /// Hands the permit to the first transaction waiting, or puts it back.
    private func release() {
        let (next, drained): (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, Never>]) =
            state.withLock { state in
                if !state.waiting.isEmpty { return (state.waiting.removeFirst(), []) }
                state.holders -= 1
                state.permits += 1
                guard state.isClosed, state.holders == 0 else { return (nil, []) }
                defer { state.drained.removeAll() }
                return (nil, state.drained)
            }
        next?.resume()
        for waiter in drained { waiter.resume() }
    }

    /// Refuses new transactions (and those still waiting for a permit), lets the running ones
    /// finish, then stops the client, which closes every connection.
    func close() async {
        let waiting: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.isClosed = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for waiter in waiting { waiter.resume(throwing: ServerStoreUnavailable("the store is closed")) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                guard state.holders > 0 else { return true }
                state.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        running.cancel()
        await running.value
    }
}

/// Which of a lease and its deadline came first: exactly one of them wins.
private final class LeaseRace: Sendable {
    private enum Outcome { case pending, leased, expired }
    private let outcome = Mutex(Outcome.pending)

    /// The connection came: true when the deadline had not passed yet.
    func begin() -> Bool { settle(.leased) }
    /// The deadline passed: true when no connection had come yet.
    func expire() -> Bool { settle(.expired) }

    private func settle(_ settled: Outcome) -> Bool {
        outcome.withLock { outcome in
            guard outcome == .pending else { return false }
            outcome = settled
            return true
        }
    }
}

/// One connection, lent to one transaction; every statement is awaited, none blocks a thread.
struct PostgresSession {
    let connection: PostgresConnection
    /// True when the connection served a transaction before this one (it may have gone stale).
    let wasIdle: Bool
    let timeout: TimeAmount
    let logger: Logger
    let progress: Progress

    /// How many statements have been sent on this session.
    final class Progress {
        var sent = 0
        var sentAny: Bool { sent > 0 }
    }

    /// Runs one statement and returns all its rows. The first statement on a pooled connection
    /// that finds the link dead throws `PostgresStaleConnection`: nothing ran, so the caller may go
    /// again on a fresh connection.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> PostgresQueryResult {
        let first = !progress.sentAny
        progress.sent += 1
        do {
            guard !connection.isClosed else { throw ServerStoreUnavailable("the connection to PostgreSQL is closed") }
            return try await answer(to: query)
        } catch {
            let classified = Self.classify(error, doing: "run a statement")
            if first, wasIdle, let unavailable = classified as? ServerStoreUnavailable {
                throw PostgresStaleConnection(underlying: unavailable)
            }
            throw classified
        }
    }

    /// The statement's answer, or "unavailable" once `timeout` has passed, whichever comes first.
    /// The deadline is ours, not the connection's: a statement sent on a link that is going down
    /// must not hold its transaction even if the driver never answers it. On time-out the
    /// connection is closed (and so never lent again).
    private func answer(to query: PostgresQuery) async throws -> PostgresQueryResult {
        let connection = connection
        let timeout = timeout
        let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        let once = Once()
        let deadline = connection.eventLoop.scheduleTask(in: timeout) {
            guard once.claim() else { return }
            connection.close().whenComplete { _ in }
            promise.fail(
                ServerStoreUnavailable("PostgreSQL did not answer within \(timeout.nanoseconds / 1_000_000_000) s"))
        }
        let sent: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        sent.whenComplete { result in
            guard once.claim() else { return }
            deadline.cancel()
            promise.completeWith(result)
        }
        return try await promise.futureResult.get()
    }

    /// Lets exactly one of two racing callbacks complete a promise.
    private final class Once: Sendable {
        private let taken = Mutex(false)

        func claim() -> Bool {
            taken.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
    }

    /// Runs `body` between BEGIN and COMMIT; a throw rolls back. A COMMIT that PostgreSQL answers
    /// with ROLLBACK (the transaction had failed) throws instead of passing for a commit, and a
    /// ROLLBACK that fails leaves the connection unusable, so it is reported as unavailable.
    ///
    /// (Not the client's `withTransaction`: every statement here goes through `query` and its
    /// deadline, a read takes its own BEGIN, and a write's first savepoint is the transaction
    /// itself — see `PostgresServerTransaction.savepoint`.)
    func transaction<T>(_ begin: PostgresQuery = "BEGIN", _ body: () async throws -> T) async throws -> T {
        try await query(begin)
        let result: T
        do {
            result = try await body()
        } catch let error as ServerStoreUnavailable {
            throw error  // the link is gone: the server rolls back; this connection is discarded
        } catch {
            do { try await query("ROLLBACK") } catch {
                throw ServerStoreUnavailable("could not roll back: \(error)")
            }
            throw error
        }
        let committed = try await query("COMMIT")
        guard committed.metadata.command == "COMMIT" else {
            throw PostgresStatementError(
                sqlState: "25P02", message: "the transaction had failed; COMMIT answered \(committed.metadata.command)")
        }
        return result
    }

    /// Runs a statement and returns how many rows it changed.
    func execute(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query).metadata.rows ?? 0
    }

    /// A server's refusal of one statement stays a `PostgresStatementError` (the connection is
    /// fine); anything that says the link or the server is gone becomes `ServerStoreUnavailable`.
    static func classify(_ error: any Error, doing what: String) -> any Error {
        if error is ServerStoreUnavailable || error is PostgresStatementError { return error }
        guard let error = error as? PSQLError else {
            return ServerStoreUnavailable("could not \(what): \(error)")
        }
        guard error.code == .server, let info = error.serverInfo, let state = info[.sqlState] else {
            return ServerStoreUnavailable("could not \(what): \(error.code)")
        }
        let message = info[.message] ?? "no message"
        // Class 08: connection exception; 57P0x: the server is shutting down, crashed or starting;
        // 53xxx: out of resources (too many connections, disk full); 28xxx: the credentials were
        // refused (a password rotated under a running instance); 55P03 and 57014: a lock or
        // statement time-out set on the database. None is the request's fault: 503, retry later.
        if state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") || state.hasPrefix("28")
            || state == "55P03" || state == "57014"
        {
            return ServerStoreUnavailable("could not \(what): \(message) (\(state))")
        }
        return PostgresStatementError(sqlState: state, message: message)
    }
}

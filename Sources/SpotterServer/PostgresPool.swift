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

    /// The URL's location, with `password` when the URL carries none.
    public init(url: String, password: String?) throws(ServerStartError) {
        try self.init(url: url)
        if self.password == nil { self.password = password }
    }

    /// The password a libpq passfile (`~/.pgpass`, `PGPASSFILE`) gives this location: the first
    /// line `host:port:database:user:password` that matches (`*` matches anything; `\:` and `\\`
    /// are a colon and a backslash). A file others may read is refused, not used or skipped.
    public func password(fromPassfile path: String) throws(ServerStartError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try OwnerOnlyFile.read(path, as: "the password file")
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = []
            var field = ""
            var escaped = false
            for character in line {
                if escaped {
                    field.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" && fields.count < 4 {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(character)
                }
            }
            fields.append(field)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The URL without its password, for messages and logs.
    public var redacted: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// A file that holds secrets (tokens, a password, a URL with one): read only when no one but its
/// owner may read it, as libpq treats a passfile and ssh a private key.
public enum OwnerOnlyFile {
    /// The file's text; `what` names it in the refusal ("--tokens-file", "the password file").
    public static func read(_ path: String, as what: String) throws(ServerStartError) -> String {
        // The file a link names is what is read, so its mode is what counts (a mounted secret
        // is often a link).
        let path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw ServerStartError("\(what): cannot read \(path)")
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 == 0 else {
            throw ServerStartError(
                "\(what): \(path) may be read by others (mode \(String(mode, radix: 8))); chmod 600 it")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ServerStartError("\(what): cannot read \(path) as UTF-8 text")
        }
        return text
    }
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

/// Pooled connections to PostgreSQL, lent one to a transaction.
///
/// A transaction's statements depend on each other's answers, so a session sends one statement
/// and awaits its answer before the next; awaiting suspends the task, never a thread (no
/// `.wait()` anywhere: the event loop answers the statement's future and the task goes on).
/// `size` bounds the sessions, and so the connections in use and the transactions running at once
/// on this instance; the others wait for a turn, in the order they asked, holding nothing. The
/// transaction's own code then runs on its connection's event loop, so a big batch's merging and
/// JSON take turns with that loop's other connections.
///
/// Why not PostgresNIO's `PostgresClient` (1.33): its pool backs off failed connection attempts
/// by 100 ms × 1.25ⁿ up to a fixed minute (`PoolStateMachine.calculateBackoff`, not configurable),
/// and a request finding no connection waits in its queue rather than failing. After an outage of
/// a minute or more, an instance would go on answering late (or not at all) for up to a minute
/// after PostgreSQL came back; here a request during an outage is answered 503 at once (a connect
/// attempt is bounded to 5 s) and the first request after it opens a fresh connection.
final class PostgresPool: Sendable {
    let location: PostgresLocation
    let size: Int
    /// How long one statement may wait for its answer before its connection is closed and the
    /// request answered 503: a database that hangs must not hold a connection forever.
    let statementTimeout: TimeAmount
    private let logger: Logger
    private let eventLoops: any EventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let state = Mutex(State())

    private struct State {
        var idle: [PostgresConnection] = []
        var nextID = 0
        var isClosed = false
        /// Sessions holding a turn (at most `size`).
        var running = 0
        /// Sessions waiting for a turn, first come first served.
        var waiting: [CheckedContinuation<Bool, Never>] = []
        /// `close()` calls waiting for the running sessions to end.
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    init(location: PostgresLocation, size: Int, statementTimeout: TimeAmount = .seconds(30), logger: Logger) {
        self.location = location
        self.size = size
        self.statementTimeout = statementTimeout
        self.logger = logger
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        eventLoops = MultiThreadedEventLoopGroup.singleton
    }

    /// Runs `body` with a connection of its own. A connection whose link failed is closed and
    /// forgotten; the next request opens a new one (so a restarted PostgreSQL is used again as
    /// soon as it accepts connections).
    func withSession<T: Sendable>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        StoreWriting.assertOutside()
        // Waiting for a turn ignores cancellation, as a queued request ran when its thread came.
        guard await takeTurn() else { throw ServerStoreUnavailable("the store is closed") }
        defer { endTurn() }
        let (connection, reused) = try await lease()
        let session = PostgresSession(
            connection: connection, wasIdle: reused, timeout: statementTimeout, logger: logger,
            progress: PostgresSession.Progress())
        do {
            // The transaction's code runs on its connection's event loop: each answer resumes it
            // where the answer arrived, instead of handing it to another thread per statement.
            let result = try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
                try await StoreWriting.$inside.withValue(true) { try await body(session) }
            }
            giveBack(connection)
            return result
        } catch let error where error is ServerStoreUnavailable || error is PostgresStaleConnection {
            Self.close(connection)
            throw error
        } catch {
            // Refused statements and the handlers' own errors leave a healthy connection
            // (the transaction rolled back first; see `PostgresSession.transaction`).
            giveBack(connection)
            throw error
        }
    }

    /// Waits for one of the `size` turns; false when the pool closed first.
    private func takeTurn() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = state.withLock { state in
                if state.isClosed { return false }
                guard state.running < size else {
                    state.waiting.append(continuation)
                    return nil
                }
                state.running += 1
                return true
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Hands the turn to the first waiting session, or gives it back.
    private func endTurn() {
        let (next, drained): (CheckedContinuation<Bool, Never>?, [CheckedContinuation<Void, Never>]) =
            state.withLock { state in
                if !state.isClosed, !state.waiting.isEmpty { return (state.waiting.removeFirst(), []) }
                state.running -= 1
                guard state.running == 0 else { return (nil, []) }
                defer { state.drained.removeAll() }
                return (nil, state.drained)
            }
        next?.resume(returning: true)
        for waiter in drained { waiter.resume() }
    }

    private func lease() async throws -> (PostgresConnection, reused: Bool) {
        let (found, id): (PostgresConnection?, Int) = try state.withLock { state in
            guard !state.isClosed else { throw ServerStoreUnavailable("the store is closed") }
            while let connection = state.idle.popLast() {
                if !connection.isClosed { return (connection, 0) }
            }
            state.nextID += 1
            return (nil, state.nextID)
        }
        if let found { return (found, true) }
        do {
            let connection = try await PostgresConnection.connect(
                on: eventLoops.next(), configuration: configuration, id: id, logger: logger
            ).get()
            return (connection, false)
        } catch {
            throw PostgresSession.classify(error, doing: "connect to \(location.host):\(location.port)")
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        let kept = state.withLock { state in
            guard !state.isClosed, !connection.isClosed else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { Self.close(connection) }
    }

    /// Closes `connection` without waiting, and keeps it alive until it is closed: the channel
    /// closes later on its event loop, and a connection released before that trips PostgresNIO's
    /// "deinitialized before being closed" assertion (a crash in debug builds).
    static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Refuses new sessions (those waiting for a turn are refused too), waits for the running
    /// ones to end, and closes the idle connections; a running session's connection is closed
    /// as it ends (without being waited for).
    func close() async {
        let (connections, refused): ([PostgresConnection], [CheckedContinuation<Bool, Never>]) =
            state.withLock { state in
                state.isClosed = true
                defer {
                    state.idle.removeAll()
                    state.waiting.removeAll()
                }
                return (state.idle, state.waiting)
            }
        for waiter in refused { waiter.resume(returning: false) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                // Refused waiters never held a turn: only the running sessions are waited for.
                if state.running == 0 { return true }
                state.drained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        for connection in connections { try? await connection.close() }
    }
}

/// One connection, lent to one transaction; each statement is awaited, one after another.
struct PostgresSession {
    let connection: PostgresConnection
    /// True when the connection was pooled before this transaction (it may have gone stale).
    let wasIdle: Bool
    let timeout: TimeAmount
    let logger: Logger
    let progress: Progress

    /// How many statements have been sent on this session.
    final class Progress {
        var sent = 0
        var sentAny: Bool { sent > 0 }
    }

    /// Runs one statement and waits for all its rows. The first statement on a pooled connection
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

    /// Awaits the statement's answer, or `timeout`, whichever comes first. The deadline is
    /// ours, not the connection's: a statement sent on a link that is going down must not hold
    /// its request even if the driver never answers it. On time-out the connection is closed.
    private func answer(to query: PostgresQuery) async throws -> PostgresQueryResult {
        let connection = connection
        let timeout = timeout
        let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        let once = Once()
        let deadline = connection.eventLoop.scheduleTask(in: timeout) {
            guard once.claim() else { return }
            promise.fail(
                ServerStoreUnavailable("PostgreSQL did not answer within \(timeout.nanoseconds / 1_000_000_000) s"))
            PostgresPool.close(connection)
        }
        connection.query(query, logger: logger).whenComplete { result in
            guard once.claim() else { return }
            deadline.cancel()
            promise.completeWith(result)
        }
        return try await promise.futureResult.get()
    }

    /// Runs `body` between BEGIN and COMMIT; a throw rolls back. A COMMIT that PostgreSQL answers
    /// with ROLLBACK (the transaction had failed) throws instead of passing for a commit, and a
    /// ROLLBACK that fails leaves the connection unusable, so it is reported as unavailable.
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

/// Lets exactly one of two racing callbacks go on (a statement's answer or its deadline; a
/// connection or its time-out).
final class Once: Sendable {
    private let taken = Mutex(false)

    func claim() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}

/// Runs a task's jobs on one event loop (a PostgreSQL connection's): what the task awaits from
/// that loop then resumes it on the same thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = self
        eventLoop.execute { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
    }
}

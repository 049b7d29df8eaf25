import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import SpotterCore
import Synchronization

/// Carries "this user's feed moved" between the instances that share one PostgreSQL database, so
/// a request waiting on the change feed at one instance is answered when a write commits through
/// another (`ChangeWaiters` alone only hears of this instance's writes).
///
/// Each instance keeps one connection of its own (outside the pool) that `LISTEN`s on
/// `spotter_changes` and also sends this instance's notices: users changed here are gathered
/// while a notice is being sent and go out together, one `pg_notify` each, with the instance's id
/// so it can ignore its own. When the connection is lost (PostgreSQL restarted, the link cut) it
/// is opened again with backoff and jitter; once it listens again every local wait is woken to
/// read its feed (the catch-up read), so a notice missed meanwhile is not lost, and the notices
/// this instance could not send are sent then.
final class PostgresChangeRelay: Service, Sendable {
    static let channel = "spotter_changes"
    /// PostgreSQL refuses a notice payload of 8000 bytes or more; no user id comes near it.
    static let maxPayloadBytes = 7_900

    /// This instance, in the payload of its notices.
    let instance = UUID().wireString
    private let configuration: PostgresConnection.Configuration
    private let waiters: ChangeWaiters
    private let logger: Logger
    private let listening: @Sendable (Bool) -> Void
    private let pending = Mutex<Set<String>>([])
    private let doorbell = Doorbell()
    /// The connection in use, closed on shutdown so nothing waits on it.
    private let current = Mutex<PostgresConnection?>(nil)
    /// Whether a connection attempt is on its way.
    private let attempting = Atomic(false)

    /// - Parameter listening: told true once the connection listens, false when it is lost
    ///   (the `spotter_change_relay_listening` gauge).
    init(
        location: PostgresLocation, waiters: ChangeWaiters, logger: Logger,
        listening: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        self.waiters = waiters
        self.logger = logger
        self.listening = listening
    }

    /// `user`'s feed moved here: the other instances are told as soon as the connection allows.
    func announce(_ user: String) {
        guard user.utf8.count + instance.utf8.count < Self.maxPayloadBytes else { return }
        pending.withLock { _ = $0.insert(user) }
        doorbell.ring()
    }

    /// Relays until the server shuts down. The relaying runs in a task of its own that this one
    /// does not wait for at shutdown: a connection attempt to a PostgreSQL that is going down may
    /// hang unanswered, and shutdown must not hang with it. The task is cancelled, its connection
    /// closed, and it ends by itself (each attempt is bounded).
    func run() async throws {
        let relaying = Task { await self.relay() }
        try? await gracefulShutdown()
        relaying.cancel()
        if let connection = current.withLock({ current in
            defer { current = nil }
            return current
        }) {
            PostgresPool.close(connection)
        }
        doorbell.ring()
    }

    /// Opens a connection, or throws after `connectWithin` (PostgreSQL may accept the socket and
    /// never answer while it starts or stops); a connection that arrives too late is closed.
    private func connect() async throws -> PostgresConnection {
        let configuration = configuration
        let logger = logger
        let answered = Once()
        // One attempt at a time: one left unanswered is not joined by another every few seconds.
        guard attempting.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else {
            throw ServerStoreUnavailable("the last connection attempt is still unanswered")
        }
        return try await withCheckedThrowingContinuation { continuation in
            let timer = Task {
                try? await Task.sleep(for: Self.connectWithin)
                guard
                    answered.claim()
                else { return }
                continuation.resume(throwing: ServerStoreUnavailable("PostgreSQL did not accept a connection in time"))
            }
            Task {
                defer { self.attempting.store(false, ordering: .releasing) }
                do {
                    let connection = try await PostgresConnection.connect(
                        on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0,
                        logger: logger)
                    timer.cancel()
                    guard
                        answered.claim()
                    else {
                        PostgresPool.close(connection)
                        return
                    }
                    continuation.resume(returning: connection)
                } catch {
                    timer.cancel()
                    guard
                        answered.claim()
                    else { return }
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    static let connectWithin: Duration = .seconds(10)

    /// Listens and sends until cancelled, opening the connection again after each loss.
    private func relay() async {
        var delay = 0.25
        var failing = false
        while !Task.isCancelled {
            do {
                let connection = try await connect()
                guard !Task.isCancelled else {
                    PostgresPool.close(connection)
                    break
                }
                current.withLock { $0 = connection }
                defer { current.withLock { $0 = nil } }
                do {
                    try await connection.listen(on: Self.channel) { notices in
                        listening(true)
                        if failing { logger.notice("listening for other instances' changes again") }
                        failing = false
                        delay = 0.25
                        // Whatever was missed while not listening: every waiting request reads again.
                        waiters.changedEverywhere()
                        doorbell.ring()  // and what could not be sent goes now
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { try await self.receive(notices) }
                            group.addTask { try await self.send(on: connection) }
                            group.addTask { try await self.keepAlive(connection) }
                            try await group.next()
                            group.cancelAll()
                        }
                    }
                } catch {
                    listening(false)
                    PostgresPool.close(connection)
                    throw error
                }
                listening(false)
                PostgresPool.close(connection)
            } catch {
                if Task.isCancelled { break }
                if !failing {
                    logger.warning(
                        "lost the connection that hears other instances' changes; waiting requests fall back on their time-out until it is back",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
                failing = true
            }
            // Backoff with jitter, up to 5 s, so instances do not reconnect in step.
            try? await Task.sleep(for: .seconds(delay * Double.random(in: 0.5...1.0)))
            delay = min(delay * 2, 5)
        }
        listening(false)
    }

    /// Wakes the waits of the users other instances name; ends (throws) when the connection does.
    /// Asks the connection something every 20 s: a link cut without a word (a NAT that forgot
    /// it, a failover) would otherwise look like a quiet one forever. No answer in 10 s closes
    /// the connection, which ends the listening and opens a new one.
    private func keepAlive(_ connection: PostgresConnection) async throws {
        while true {
            try await Task.sleep(for: .seconds(20))
            let answered = Once()
            let watchdog = Task {
                try? await Task.sleep(for: .seconds(10))
                if answered.claim() { PostgresPool.close(connection) }
            }
            defer { watchdog.cancel() }
            for try await _ in try await connection.query("SELECT 1", logger: logger) {}
            _ = answered.claim()
        }
    }

    private func receive(_ notices: PostgresNotificationSequence) async throws {
        let prefix = instance + " "
        for try await notice in notices {
            guard !notice.payload.hasPrefix(prefix), let space = notice.payload.firstIndex(of: " ") else { continue }
            waiters.changedElsewhere(String(notice.payload[notice.payload.index(after: space)...]))
        }
        throw PostgresChangeRelayEnded()
    }

    /// Sends the gathered users each time there are some; a failed send keeps them for the next
    /// connection and ends this one.
    private func send(on connection: PostgresConnection) async throws {
        while true {
            await doorbell.wait()
            try Task.checkCancellation()
            let users = pending.withLock { pending -> [String] in
                defer { pending.removeAll() }
                return Array(pending)
            }
            guard !users.isEmpty else { continue }
            let payloads = users.map { "\(instance) \($0)" }
            do {
                // Read to the end: an error after the first row (or a commit that failed) is raised only there.
                for try await _ in try await connection.query(
                    "SELECT pg_notify(\(Self.channel), payload) FROM unnest(\(payloads)::text[]) AS payload",
                    logger: logger)
                {}
            } catch {
                pending.withLock { $0.formUnion(users) }
                throw error
            }
        }
    }
}

/// Wakes the sender when there is something to send: a ring while nobody waits is kept for the
/// next wait. (An `AsyncStream` would end for good the first time a waiting sender is cancelled,
/// and the relay needs a new sender after each reconnection.)
private final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after a ring (one made before the wait included), or once the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

/// The notification stream ended without an error of its own.
struct PostgresChangeRelayEnded: Error, CustomStringConvertible {
    var description: String { "the connection stopped delivering notices" }
}

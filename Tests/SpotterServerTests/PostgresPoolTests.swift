import Foundation
import Logging
import NIOCore
import PostgresNIO
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterServer

/// The pool behind `spotter serve --database-url`, against a real PostgreSQL.
@Suite("PostgreSQL pool", .postgresRequired)
struct PostgresPoolTests {
    /// A pool of two connections on a fresh database (dropped once the test is done).
    private func pool(statementTimeout: TimeAmount = .seconds(30)) async throws -> PostgresPool {
        let url = try await TestPostgres.freshDatabase()
        var logger = Logger(label: "test.pool")
        logger.logLevel = .critical
        return PostgresPool(
            location: try PostgresLocation(url: url), size: 2, statementTimeout: statementTimeout, logger: logger)
    }

    private func drop(_ pool: PostgresPool) async {
        await pool.close()
        await TestPostgres.dropDatabase(pool.location.redacted)
    }
    /// A statement that outlives the pool's time-out is "unavailable" (503) and its connection is
    /// closed and dropped; the pool then goes on with fresh connections.
    @Test("statements that time out close their connections, and the pool goes on with fresh ones")
    func timedOutStatementsDropTheirConnections() async throws {
        let pool = try await pool(statementTimeout: .milliseconds(200))
        for _ in 0..<6 {
            await #expect(throws: ServerStoreUnavailable.self) {
                try await pool.withSession { session in try await session.query("SELECT pg_sleep(2)") }
            }
        }
        // Long enough for every dropped connection's channel to have closed (and been released).
        try await Task.sleep(for: .seconds(1))
        let answer = try await pool.withSession { session in
            try await session.query("SELECT 41 + 1").rows.first?.decode(Int.self)
        }
        #expect(answer == 42)
        await drop(pool)
    }

    /// A transaction still running when the server stops (`close()`) finishes, and its connection,
    /// no longer pooled, is closed. It used to be released before its channel had closed: a
    /// PostgresNIO assertion that crashed the process in debug builds (seen in CI).
    @Test("a transaction that ends after the pool closed has its connection closed, not dropped open")
    func aTransactionEndingAfterCloseClosesItsConnection() async throws {
        let pool = try await pool()
        let started = StartedSessions()
        let running = (0..<2).map { _ in
            Task {
                try await pool.withSession { session in
                    started.add()
                    return try await session.query("SELECT pg_sleep(0.5)").rows.count
                }
            }
        }
        // Both transactions hold their connections before the pool closes (a fixed sleep was not
        // enough on a loaded machine: they had not started, and found the pool closed).
        let deadline = Date().addingTimeInterval(30)
        while started.count < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(started.count == 2)
        await pool.close()
        for task in running { #expect(try await task.value == 1) }
        try await Task.sleep(for: .milliseconds(500))
        await #expect(throws: ServerStoreUnavailable.self) {
            try await pool.withSession { session in try await session.query("SELECT 1").rows.count }
        }
        await drop(pool)
    }
}

extension PostgresPoolTests {
    /// `size` bounds the transactions running at once: with two connections, six sessions that
    /// each hold theirs for 0.3 s run two at a time, in turn, and every one of them is answered.
    @Test("a pool of two runs two sessions at once, and the others in turn")
    func thePoolSizeBoundsSessionsAtOnce() async throws {
        let pool = try await pool()
        let running = RunningSessions()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await pool.withSession { session in
                        running.enter()
                        defer { running.leave() }
                        try await session.query("SELECT pg_sleep(0.3)")
                        return try await session.query("SELECT \(index)::int8 AS n").rows.first?.decode(Int.self) ?? -1
                    }
                }
            }
            var all: [Int] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.sorted() == Array(0..<6))
        #expect(running.most == 2)
        await drop(pool)
    }
}

/// How many sessions run at once, and the most there ever were.
final class RunningSessions: Sendable {
    private let counts = Mutex((now: 0, most: 0))
    func enter() { counts.withLock { $0 = ($0.now + 1, max($0.most, $0.now + 1)) } }
    func leave() { counts.withLock { $0.now -= 1 } }
    var most: Int { counts.withLock { $0.most } }
}

/// How many sessions have started running their work.
final class StartedSessions: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

import Foundation
import Logging
import PostgresNIO
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterServer

/// On PostgreSQL one account's writes wait for their turn without a connection: while its feed's
/// lock is held, its queued writes leave the rest of the pool to other accounts.
@Suite("An account's writes wait for their turn holding no connection", .postgresRequired)
struct UserTurnsTests {
    final class Answered: Sendable {
        private let status = Mutex<Int?>(nil)
        func set(_ value: Int) { status.withLock { $0 = value } }
        var value: Int? { status.withLock { $0 } }
    }

    @Test func anotherAccountIsServedWhileOneWaitsOnItsLock() async throws {
        let server = try await TestServer.start(.postgres) { $0.databasePoolSize = 2 }
        try await stopping(server) { server in
            let url = try #require(server.configuration.databaseURL)
            let bob = Answered()
            let alices: [Task<Int, Never>] = try await withPostgres(url) { connection in
                // Hold Alice's counter lock, as a long transaction of hers would.
                _ = try await connection.query("BEGIN", logger: Logger(label: "test"))
                _ = try await connection.query(
                    """
                    INSERT INTO change_counters (owner, value) VALUES ('alice', 0)
                    ON CONFLICT (owner) DO UPDATE SET value = change_counters.value
                    """, logger: Logger(label: "test"))
                // Four of Alice's writes queue behind it; a pool of two connections.
                let alices = (0..<4).map { index in
                    Task {
                        (try? await server.send(
                            .POST, Route.workouts, json: Fixtures.workout(name: "Queued \(index) 💪🏽"),
                            key: UUID().uuidString
                        ).status) ?? 0
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                Task { bob.set((try? await server.send(.GET, Route.workouts, token: TestServer.bobToken).status) ?? 0) }
                // Bob is answered while Alice's lock is still held (bounded: 15 s).
                for _ in 0..<300 where bob.value == nil { try await Task.sleep(for: .milliseconds(50)) }
                #expect(bob.value == 200, "Bob's read was served beside Alice's queued writes")
                _ = try await connection.query("COMMIT", logger: Logger(label: "test"))
                return alices
            }
            // Once the lock is gone, every one of Alice's writes lands.
            for alice in alices { #expect(await alice.value == 201) }
            #expect(try await server.store.allWorkouts(user: "alice").count == 4)
        }
    }

    /// Runs `body` with a connection of its own to `url`, and returns what it returns.
    private func withPostgres<T: Sendable>(
        _ url: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let result = Mutex<T?>(nil)
        try await TestPostgres.administer(url) { connection in
            let value = try await body(connection)
            result.withLock { $0 = value }
        }
        return try #require(result.withLock { $0 })
    }
}

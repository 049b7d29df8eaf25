import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// A request whose database went away after it claimed its key, and whose release of the claim
/// failed for the same reason: once PostgreSQL is back, a retry of the key gets a definite answer
/// without waiting for the claim to go stale.
@Suite(
    "A key held when PostgreSQL went away does not stick",
    .postgresRequired)
struct StuckKeyTests {
    /// Stops the cluster from inside the first request, between its claim and its effect.
    final class StopOnce: Sendable {
        private let first = Once()
        let cluster: TestPostgres.PrivateCluster

        init(_ cluster: TestPostgres.PrivateCluster) { self.cluster = cluster }

        func stopTheFirstTime() async {
            guard first.claim() else { return }
            try? await cluster.stopServer()
        }
    }

    @Test func aRetryGetsADefiniteAnswerOncePostgresIsBack() async throws {
        let cluster = try await TestPostgres.privateCluster()
        defer { cluster.destroy() }
        let stopper = StopOnce(cluster)
        let server = try await TestServer.start { configuration in
            configuration.databaseURL = cluster.url
            // Far beyond the test's bound: a stale takeover cannot be what frees the key.
            configuration.staleInProgressAfter = 300
            configuration.afterIdempotencyClaim = { _, _ in await stopper.stopTheFirstTime() }
        }
        try await stopping(server) { server in
            let key = UUID().uuidString
            let id = UUID().wireString
            let body = Fixtures.workout(id: id, name: "Legs 💪🏽 e\u{301}")
            let first = try await server.send(.POST, Route.workouts, json: body, key: key)
            #expect(first.status == 503, "the database went away under the request")
            try await cluster.startServer()

            // The client retries as it would (bounded; 503 while PostgreSQL starts, 409 while the
            // claim is still held) until the answer is definite.
            var answer = first
            let deadline = ContinuousClock.now + .seconds(40)
            while [503, 409].contains(answer.status), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                answer = (try? await server.send(.POST, Route.workouts, json: body, key: key)) ?? answer
            }
            #expect(answer.status == 201, "\(answer.status): \(answer.text)")
            let stored = try await server.store.allWorkouts(user: "alice").filter { $0.id.wireString == id }
            #expect(stored.count == 1 && stored.first?.name == "Legs 💪🏽 e\u{301}")
            // And the key now replays.
            let again = try await server.send(.POST, Route.workouts, json: body, key: key)
            #expect(again.status == 201 && again.headers.first(name: HeaderName.idempotentReplayed) == "true")
        }
    }
}

import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// Starting, stopping and hosting the server.
@Suite("Server lifecycle")
struct LifecycleTests {
    @Test("stop() is graceful: a request in flight finishes and is answered", arguments: StoreBackend.available)
    func gracefulStopFinishesInFlightRequests(_ backend: StoreBackend) async throws {
        let gate = Gate()
        let server = try await TestServer.start(backend) { configuration in
            configuration.afterIdempotencyClaim = { _, _ in await gate.pass() }
        }
        let inFlight = Task { try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: "in-flight") }
        await gate.waitForArrivals(1)
        let stopped = Task { await server.stop(removingFiles: false) }
        await gate.open()
        let response = try await inFlight.value
        await stopped.value
        #expect(response.status == 201)
        let reopened = try await StoreBackend.openStore(
            path: server.databasePath, url: server.configuration.databaseURL)
        #expect(try await reopened.allWorkouts(user: "alice").count == 1)
        try await reopened.close()
        if let url = server.configuration.databaseURL { await TestPostgres.dropDatabase(url) }
        try? FileManager.default.removeItem(at: server.directory)
    }

    @Test("starting on a port already in use fails with an error instead of hanging")
    func bindFailureIsReported() async throws {
        let first = try await TestServer.start()
        try await stopping(first) { first in
            let directory = try TestServer.makeDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = TestServer.configuration(in: directory)
            configuration.port = first.server.port
            await #expect(throws: ServerStartError.self) {
                _ = try await BackgroundServer.start(configuration, logger: Logger(label: "test"))
            }
        }
    }

    @Test("expired idempotency records are purged when the server starts", arguments: StoreBackend.available)
    func expiredRecordsArePurged(_ backend: StoreBackend) async throws {
        let clock = ManualClock()
        let first = try await TestServer.start(backend) { $0.clock = clock }
        let scope = IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: "old-key")
        #expect(try await first.send(.POST, Route.workouts, json: Fixtures.workout(), key: scope.key).status == 201)
        #expect(try await first.store.idempotencyRecord(scope) != nil)
        await first.stop(removingFiles: false)

        clock.advance(by: 9 * 24 * 3600)
        let second = try await TestServer.start(backend, in: first.directory) { $0.clock = clock }
        try await stopping(second) { second in
            // The purge runs as a service at start-up; wait for it, bounded.
            var record = try await second.store.idempotencyRecord(scope)
            for _ in 0..<200 where record != nil {
                try await Task.sleep(for: .milliseconds(10))
                record = try await second.store.idempotencyRecord(scope)
            }
            #expect(record == nil)
            #expect(try await second.store.allWorkouts(user: "alice").count == 1)  // entities stay
        }
    }

    @Test("makeServerApplication runs under HummingbirdTesting on a live socket")
    func applicationUnderHummingbirdTesting() async throws {
        let directory = try TestServer.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try await makeServerApplication(
            TestServer.configuration(in: directory), logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let body = ByteBuffer(string: Fixtures.workout().canonicalString)
            let headers: HTTPFields = [
                .authorization: "Bearer \(TestServer.aliceToken)", HTTPField.Name("Idempotency-Key")!: "live-key",
            ]
            let created = try await client.execute(uri: Route.workouts, method: .post, headers: headers, body: body)
            #expect(created.status == .created)
            let replayed = try await client.execute(uri: Route.workouts, method: .post, headers: headers, body: body)
            #expect(replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(replayed.body == created.body)
            let health = try await client.execute(uri: Route.healthz, method: .get)
            #expect(health.status == .ok)
        }
    }
}

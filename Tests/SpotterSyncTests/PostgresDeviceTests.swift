import Foundation
import Logging
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterSync
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterStore

/// A real device draining its outbox to `spotter serve` on PostgreSQL: across a PostgreSQL restart,
/// and through a round-robin of instances where a reply may be lost after the commit.
@Suite(
    "A real device against instances on PostgreSQL",
    .enabled(
        if: TestPostgres.unavailableReason == nil,
        Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")))
struct PostgresDeviceTests {
    @Test("500 queued operations drain across a PostgreSQL restart: 503s meanwhile, every set exactly once")
    func drainAcrossARestart() async throws {
        // A cluster of this test's own: stopping the shared one would fail the tests using it.
        let cluster = try await TestPostgres.privateCluster()
        defer { cluster.destroy() }
        // Small batches with a little latency, so the drain is still going when PostgreSQL stops.
        let server = try await TestServer.instance(on: cluster.url) { $0.chaos.latencyMS = 20 }
        let device = try Device(server: nil, baseURL: server.baseURL, batchSize: 10)

        let logged = try device.logOffline(500)
        device.engine.setAirplane(false)
        let draining = Task { await device.sync(240) }

        // Stop PostgreSQL once part of the queue has landed (bounded wait).
        let landed = try await server.untilLanded(100)
        #expect(landed >= 100 && landed < 500, "the restart falls in the middle of the drain (\(landed) landed)")
        try await cluster.stopServer()
        try await Task.sleep(for: .seconds(2))
        let whileDown = await (try? server.store.allSets(user: "alice")) == nil
        try await cluster.startServer()

        #expect(await draining.value, "the queue drains once PostgreSQL is back")
        #expect(whileDown, "the store was really unreachable")
        let onServer = try await server.store.allSets(user: "alice")
        #expect(onServer.count == 500)
        #expect(Set(onServer.map(\.id.wireString)) == logged, "every set exactly once")
        #expect(try device.store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        let metrics = server.server.metrics.prometheusText()
        #expect(
            metrics.split(separator: "\n").contains { $0.contains("status=\"503\"") && $0.contains("/v1/batch") },
            "the batches sent while PostgreSQL was down were answered 503")
        await server.stop()
    }

    @Test("an engine whose every request goes to the next instance, one dropping replies after commit: each set once")
    func retriesLandOnTheOtherInstance() async throws {
        let url = try await TestPostgres.freshDatabase()
        let first = try await TestServer.instance(on: url) { dropping in
            dropping.chaos.dropRate = 0.5
            dropping.chaos.seed = 13
        }
        let second = try await TestServer.instance(on: url)
        let store = try makeStore(user: "alice").withSystemClock()
        var configuration = SyncConfiguration()
        configuration.batchSize = 5
        configuration.retryPolicy.base = 0.05
        configuration.retryPolicy.cap = 0.5
        configuration.requestTimeout = 5
        let engine = SyncEngine(
            store: store,
            transport: AlternatingTransport(instances: [
                HTTPSyncTransport(baseURL: first.baseURL, token: TestServer.aliceToken),
                HTTPSyncTransport(baseURL: second.baseURL, token: TestServer.aliceToken),
            ]),
            configuration: configuration)
        var logged = Set<String>()
        for index in 0..<60 {
            logged.insert(
                try store.workoutLog.logSet(
                    LogSetInput(exercise: "Deadlift (Barbell)", weight: Double(100 + index), reps: 3)
                )
                .set.id.wireString)
        }
        #expect(await engine.drain(timeout: 120))
        let onServer = try await second.store.allSets(user: "alice")
        #expect(onServer.count == 60)
        #expect(Set(onServer.map(\.id.wireString)) == logged)
        #expect(try store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        let replays = second.server.metrics.prometheusText().split(separator: "\n").first {
            $0.hasPrefix("spotter_idempotency_replays_total")
        }
        #expect(
            replays.map { !$0.hasSuffix(" 0") } == true, "retries of dropped replies replayed on the other instance")
        await first.stop()
        await second.stop()
        await TestPostgres.dropDatabase(url)
    }
}

/// Sends each request to the next instance in turn, as a round-robin load balancer would: a
/// retry never reaches the instance that took the attempt before it.
final class AlternatingTransport: SyncTransport, Sendable {
    private let instances: [any SyncTransport]
    private let next = Mutex(0)

    init(instances: [any SyncTransport]) { self.instances = instances }

    func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) {
        let instance = next.withLock { next in
            defer { next = (next + 1) % instances.count }
            return instances[next]
        }
        instance.send(request, completion: completion)
    }
}

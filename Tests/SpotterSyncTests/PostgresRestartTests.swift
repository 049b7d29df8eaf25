import Foundation
import Logging
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterSync
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// A real device draining its outbox to `spotter serve` on PostgreSQL while PostgreSQL restarts.
@Suite(
    "PostgreSQL restart while a queue drains",
    .enabled(
        if: TestPostgres.unavailableReason == nil,
        Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")))
struct PostgresRestartTests {
    @Test("500 queued operations drain across a PostgreSQL restart: 503s meanwhile, every set exactly once")
    func drainAcrossARestart() async throws {
        // A cluster of this test's own: stopping the shared one would fail the tests using it.
        let cluster = try TestPostgres.privateCluster()
        defer { cluster.destroy() }
        var configuration = ServerConfiguration(databasePath: "", tokens: [LiveServer.token: "alice"])
        configuration.databaseURL = cluster.url
        configuration.databasePoolSize = 4
        // Small batches with a little latency, so the drain is still going when PostgreSQL stops.
        configuration.chaos.latencyMS = 20
        var logger = Logger(label: "test.server")
        logger.logLevel = .critical
        let server = try await BackgroundServer.start(configuration, logger: logger)
        let device = try Device(server: nil, baseURL: server.baseURL, batchSize: 10)

        try device.store.preferences.setAirplane(true)
        var logged = Set<String>()
        for index in 0..<500 {
            logged.insert(
                try device.store.workoutLog.logSet(
                    LogSetInput(exercise: "Squat (Barbell)", weight: Double(60 + index % 80), reps: 5)
                ).set.id.wireString)
        }
        device.engine.setAirplane(false)
        let draining = Task { await device.sync(240) }

        // Stop PostgreSQL once part of the queue has landed (bounded wait).
        var landed = 0
        for _ in 0..<600 where landed < 100 {
            try await Task.sleep(for: .milliseconds(50))
            landed = try await server.store.allSets(user: "alice").count
        }
        #expect(landed >= 100 && landed < 500, "the restart falls in the middle of the drain (\(landed) landed)")
        try cluster.stopServer()
        try await Task.sleep(for: .seconds(2))
        let whileDown = await (try? server.store.allSets(user: "alice")) == nil
        try cluster.startServer()

        #expect(await draining.value, "the queue drains once PostgreSQL is back")
        #expect(whileDown, "the store was really unreachable")
        let onServer = try await server.store.allSets(user: "alice")
        #expect(onServer.count == 500)
        #expect(Set(onServer.map(\.id.wireString)) == logged, "every set exactly once")
        #expect(try device.store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        let metrics = server.metrics.prometheusText()
        #expect(
            metrics.split(separator: "\n").contains { $0.contains("status=\"503\"") && $0.contains("/v1/batch") },
            "the batches sent while PostgreSQL was down were answered 503")
        await server.stop()
    }
}

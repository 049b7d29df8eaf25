import Foundation
import Logging
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Testing

/// Two instances over one PostgreSQL database: a device waiting on the feed at one instance hears
/// of a set another device wrote through the other one, without any trigger of its own — also
/// after PostgreSQL restarted, once each instance listens again.
@Suite(
    "Changes reach a watching device across instances (PostgreSQL)",
    .enabled(
        if: TestPostgres.unavailableReason == nil,
        Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")))
struct LiveChangesPostgresTests {
    private func instance(_ url: String) async throws -> TestServer {
        try await TestServer.instance(on: url) { $0.databasePoolSize = 2 }
    }

    private func has(_ device: Device, _ id: UUID) throws -> Bool {
        try device.store.queries.sets(workoutID: nil).contains { $0.set.id == id }
    }

    @Test("a set written through one instance wakes the device waiting at the other, also after a PostgreSQL restart")
    func acrossInstancesAndARestart() async throws {
        // A cluster of this test's own: it is stopped and started again.
        let cluster = try await TestPostgres.privateCluster()
        defer { cluster.destroy() }
        let first = try await instance(cluster.url)
        let second = try await instance(cluster.url)
        let phone = try Device(server: nil, baseURL: first.baseURL)
        let laptop = try Device(server: nil, baseURL: second.baseURL, watch: true)
        laptop.engine.start()
        #expect(await eventually { gauge(second, "spotter_change_relay_listening") == 1 })
        #expect(await eventually { gauge(second, "spotter_changes_waiting") == 1 }, "the laptop waits at the second")

        // The laptop's wait lasts 25 s and its periodic pull is ten minutes away: only the second
        // instance hearing of the first one's write brings the set within the 10 s allowed here.
        let before = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: 100, reps: 5))
        #expect(await phone.sync())
        #expect(try await eventually(10) { try has(laptop, before.set.id) }, "the phone's set reached the laptop")

        // PostgreSQL restarts: both instances lose their listening connection and take it again.
        try await cluster.stopServer()
        #expect(await eventually { gauge(second, "spotter_change_relay_listening") == 0 })
        try await Task.sleep(for: .seconds(1))
        try await cluster.startServer()
        #expect(await eventually(30) { gauge(second, "spotter_change_relay_listening") == 1 })
        #expect(await eventually(30) { gauge(first, "spotter_change_relay_listening") == 1 })
        #expect(await eventually(30) { gauge(second, "spotter_changes_waiting") == 1 }, "the laptop waits again")

        let after = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: 105, reps: 5))
        #expect(await phone.sync())
        #expect(try await eventually(10) { try has(laptop, after.set.id) }, "heard across the instances again")
        laptop.engine.stop()
        await first.stop()
        await second.stop()
    }
}

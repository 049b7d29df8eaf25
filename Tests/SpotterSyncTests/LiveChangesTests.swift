import Foundation
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Testing

/// A device that watches the change feed (as the UI does) receives another device's set without
/// any sync of its own: its periodic pull is ten minutes away, so only the server's answer to
/// its open wait can bring the set in time.
@Suite("Changes reach a watching device at once (real server)")
struct LiveChangesTests {
    /// Requests waiting on a change feed, from the server's own `/metrics`.
    private func waiting(_ server: TestServer) -> Int? { gauge(server, "spotter_changes_waiting") }

    @Test func aSetLoggedOnADeviceReachesAWatchingDeviceWithoutItsOwnSync() async throws {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server, watch: true)
        laptop.engine.start()
        #expect(await eventually { waiting(server) == 1 }, "the laptop keeps one wait open")

        let first = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: 100, reps: 5))
        #expect(await phone.sync())
        #expect(
            try await eventually {
                try laptop.store.queries.sets(workoutID: nil).contains { $0.set.id == first.set.id }
            },
            "the phone's set is on the laptop, which never synced by itself")
        #expect(await eventually { waiting(server) == 1 }, "and it waits again")

        // Airplane mode closes the wait: nothing of the laptop's is open on the server.
        laptop.engine.setAirplane(true)
        #expect(await eventually { waiting(server) == 0 })
        let second = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: 105, reps: 5))
        #expect(await phone.sync())
        try await Task.sleep(for: .milliseconds(300))
        #expect(try !laptop.store.queries.sets(workoutID: nil).contains { $0.set.id == second.set.id })

        // Back online it catches up, and waits again.
        laptop.engine.setAirplane(false)
        #expect(
            try await eventually {
                try laptop.store.queries.sets(workoutID: nil).contains { $0.set.id == second.set.id }
            })
        #expect(await eventually { waiting(server) == 1 })
        let third = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: 110, reps: 3))
        #expect(await phone.sync())
        #expect(
            try await eventually {
                try laptop.store.queries.sets(workoutID: nil).contains { $0.set.id == third.set.id }
            })
        laptop.engine.stop()
        #expect(await eventually { waiting(server) == 0 }, "a stopped engine leaves no wait open")
        await server.stop()
    }

    @Test("a watching device says offline as soon as the server stops, not at its next periodic pull")
    func aStoppedServerIsSaidAtOnce() async throws {
        let server = try await TestServer.start()
        let laptop = try Device(server: server, watch: true)
        laptop.engine.start()
        var connectivity: [Connectivity] = []
        func read() {
            for case .connectivity(let state) in laptop.engine.events.drain() { connectivity.append(state) }
        }
        #expect(await eventually { waiting(server) == 1 }, "the laptop keeps one wait open")
        #expect(
            await eventually {
                read()
                return connectivity.last == .online
            }, "\(connectivity)")
        // Nothing is queued and the periodic pull is ten minutes away: only the broken wait can tell.
        await server.stop()
        #expect(
            await eventually(10) {
                read()
                if case .offline = connectivity.last { return true }
                return false
            }, "still \(connectivity) after the server stopped")
        laptop.engine.stop()
    }
}

/// A gauge of the server's own `/metrics`.
func gauge(_ server: TestServer, _ name: String) -> Int? {
    let line = server.server.metrics.prometheusText().split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "").map { Int($0) } }
}

/// Polls `condition` for up to `seconds` (a bounded wait for something to happen, not a speed test).
func eventually(_ seconds: Double = 15, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

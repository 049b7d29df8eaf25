import Foundation
import Logging
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterSync
import SpotterTestSupport
import Testing

@testable import SpotterStore

extension TestServer {
    /// Alice's live sets as the server holds them (the devices here sign in as Alice).
    func sets() async throws -> [WireSet] {
        try await store.allSets(user: "alice").filter { $0.deleted != true }
    }

    /// Polls until the server holds at least `count` of Alice's sets, for at most about 30 s
    /// (a drain to interrupt midway); how many it held at the end.
    func untilLanded(_ count: Int) async throws -> Int {
        var landed = 0
        for _ in 0..<600 where landed < count {
            try await Task.sleep(for: .milliseconds(50))
            landed = try await store.allSets(user: "alice").count
        }
        return landed
    }
}

/// A client device: its own database file and an engine over real HTTP.
struct Device {
    let store: SpotterStore
    let engine: SyncEngine

    /// - Parameter watch: keep a wait on the change feed open (as the UI does), with the periodic
    ///   pull at ten minutes, so that only the wait can bring another device's change in time.
    init(
        server: TestServer?, baseURL: String? = nil, batchSize: Int = 100, user: String = "local", watch: Bool = false
    ) throws {
        store = try makeStore(clock: ManualClock(), user: user).withSystemClock()
        var configuration = SyncConfiguration()
        if watch {
            configuration.watchChanges = true
            configuration.periodicInterval = 600
        }
        configuration.batchSize = batchSize
        configuration.retryPolicy.base = 0.05  // same shape, shorter waits
        configuration.retryPolicy.cap = 0.5
        configuration.requestTimeout = 5
        let url = baseURL ?? server!.baseURL
        engine = SyncEngine(
            store: store, transport: HTTPSyncTransport(baseURL: url, token: TestServer.aliceToken),
            configuration: configuration)
    }

    /// Drains the queue; when it drained but its pull did not read the feed to its end (a
    /// request that timed out on a machine busy with the rest of the suite), pulls again for up
    /// to 20 s, so that what the test reads next is what the server had.
    func sync(_ seconds: TimeInterval = 60) async -> Bool {
        var drained = await engine.drain(timeout: seconds)
        let retryUntil = Date().addingTimeInterval(min(seconds, 20))
        while drained, engine.lastPullFailure != nil, Date() < retryUntil {
            try? await Task.sleep(for: .milliseconds(100))
            drained = await engine.drain(timeout: max(0.1, retryUntil.timeIntervalSinceNow))
        }
        return drained
    }

    /// Logs `count` sets of squats in airplane mode (so none leaves yet); their ids.
    func logOffline(_ count: Int, weight: (Int) -> Double = { Double(60 + $0 % 80) }) throws -> Set<String> {
        try store.preferences.setAirplane(true)
        var logged = Set<String>()
        for index in 0..<count {
            logged.insert(
                try store.workoutLog.logSet(LogSetInput(exercise: "Squat (Barbell)", weight: weight(index), reps: 5))
                    .set.id.wireString)
        }
        return logged
    }

    /// The sets this device shows, as comparable tuples.
    func shownSets() throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try store.queries.sets(workoutID: nil).map { row in
                (
                    row.set.id.wireString,
                    "\(row.set.exercise)|\(Formatting.number(row.set.weight))|\(row.set.reps)|\(row.set.rpe.map(Formatting.number) ?? "-")"
                )
            })
    }
}

func describe(_ sets: [WireSet]) -> [String: String] {
    Dictionary(
        uniqueKeysWithValues: sets.map { set in
            (
                set.id.wireString,
                "\(set.exercise)|\(Formatting.number(set.weight))|\(set.reps)|\(set.rpe.map(Formatting.number) ?? "-")"
            )
        })
}

extension SpotterStore {
    func withSystemClock() throws -> SpotterStore {
        try SpotterStore(writer: writer, userID: userID, clock: SystemClock())
    }
}

@Suite("Sync against the real server on 127.0.0.1", .serialized)
struct RealServerSyncTests {
    /// The drain sends the next batch the moment one is answered (claimed while it travelled).
    /// A week offline against workouts the server already has: sets logged, edited and
    /// deleted, and whole workouts deleted after their sets, drained in batches of 3 — the
    /// server ends with exactly what this device shows, and nothing is refused.
    @Test func aPipelinedDrainOfAWeekOfflineEndsWithWhatTheDeviceShows() async throws {
        let server = try await TestServer.start()
        let device = try Device(server: server, batchSize: 3)
        let workouts = try (0..<6).map { try device.store.workoutLog.createWorkout(name: "Day \($0)") }
        #expect(await device.sync())
        try device.store.preferences.setAirplane(true)
        var kept: [UUID] = []
        for (day, workout) in workouts.enumerated() {
            var sets: [UUID] = []
            for index in 0..<4 {
                sets.append(
                    try device.store.workoutLog.logSet(
                        LogSetInput(
                            exercise: "Squat (Barbell)", weight: Double(100 + index), reps: 5,
                            workout: .existing(workout.id))
                    ).set.id)
            }
            try device.store.workoutLog.editSet(id: sets[0], changes: SetChanges(reps: 3))
            if day % 2 == 1 {
                try device.store.workoutLog.deleteWorkout(id: workout.id)
            } else {
                try device.store.workoutLog.deleteSet(id: sets[3])
                kept += sets.prefix(3)
            }
        }
        device.engine.setAirplane(false)
        #expect(await device.sync())
        let counts = try device.store.queries.queueCounts()
        #expect(counts.pending == 0 && counts.failed == 0 && counts.blocked == 0, "\(counts)")
        let onServer = try await server.sets()
        #expect(Set(onServer.map(\.id)) == Set(kept))
        #expect(onServer.filter { $0.reps == 3 }.count == 3, "each kept workout's edited set")
        let live = try await server.store.workouts(user: "alice", includeDeleted: false)
        #expect(live.map(\.name).sorted() == ["Day 0", "Day 2", "Day 4"])
        #expect(Set(try device.store.queries.sets(workoutID: nil).map(\.set.id)) == Set(kept))
        await server.stop()
    }

    @Test func twoHundredSetsLoggedOfflineArriveExactlyOnce() async throws {
        let server = try await TestServer.start()
        let device = try Device(server: server)
        try device.store.preferences.setAirplane(true)
        var logged = Set<String>()
        for index in 0..<200 {
            logged.insert(
                try device.store.workoutLog.logSet(
                    LogSetInput(exercise: "Bench Press (Barbell)", weight: Double(60 + index % 50), reps: 5)
                ).set.id.wireString)
        }
        await device.engine.syncOnce()
        #expect(try await server.sets().isEmpty, "airplane mode sends nothing")
        device.engine.setAirplane(false)
        #expect(await device.sync())
        let onServer = try await server.sets()
        #expect(onServer.count == 200)
        #expect(Set(onServer.map(\.id.wireString)) == logged, "exactly the logged sets, no duplicate ids")
        #expect(try device.store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        await server.stop()
    }

    @Test func chaosDropsFailuresAndRateLimitsStillGiveExactlyTwoHundred() async throws {
        var chaos = ChaosOptions()
        chaos.dropRate = 0.3
        chaos.failRate = 0.2
        chaos.rate429 = 0.05
        chaos.seed = 42
        let server = try await TestServer.start { $0.chaos = chaos }
        let device = try Device(server: server, batchSize: 20)
        let logged = try device.logOffline(200) { Double(100 + $0 % 20) }
        device.engine.setAirplane(false)
        #expect(await device.sync(120))
        let onServer = try await server.sets()
        #expect(onServer.count == 200)
        #expect(Set(onServer.map(\.id.wireString)) == logged)
        let metrics = try device.store.queries.syncMetrics().counters
        #expect((metrics["replays"] ?? 0) >= 1, "a dropped reply was replayed, not applied twice: \(metrics)")
        #expect((metrics["retried_connection"] ?? 0) >= 1)
        await server.stop()
    }

    @Test func twoDevicesEditingOfflineConvergeOnTheServersState() async throws {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server)
        var ids: [UUID] = []
        for index in 0..<6 {
            ids.append(
                try phone.store.workoutLog.logSet(
                    LogSetInput(exercise: "Deadlift (Barbell)", weight: Double(140 + index * 5), reps: 3)
                ).set.id)
        }
        #expect(await phone.sync())
        #expect(await laptop.sync())
        #expect(try laptop.shownSets() == phone.shownSets())

        // Both offline, both editing.
        try phone.store.preferences.setAirplane(true)
        try laptop.store.preferences.setAirplane(true)
        try phone.store.workoutLog.editSet(id: ids[0], changes: SetChanges(reps: 4))
        try phone.store.workoutLog.deleteSet(id: ids[1])
        try phone.store.workoutLog.editSet(id: ids[4], changes: SetChanges(reps: 2))
        try laptop.store.workoutLog.editSet(id: ids[2], changes: SetChanges(weight: 152.5))
        try laptop.store.workoutLog.deleteSet(id: ids[3])
        try laptop.store.workoutLog.editSet(id: ids[4], changes: SetChanges(rpe: 9))  // same set, another field
        try laptop.store.workoutLog.editSet(id: ids[1], changes: SetChanges(reps: 1))  // deleted on the phone meanwhile
        let extra = try laptop.store.workoutLog.logSet(LogSetInput(exercise: "Pull Up", weight: 0, reps: 12)).set.id

        phone.engine.setAirplane(false)
        #expect(await phone.sync())
        laptop.engine.setAirplane(false)
        _ = await laptop.sync()
        #expect(await phone.sync())

        let truth = describe(try await server.sets())
        #expect(try phone.shownSets() == truth)
        #expect(try laptop.shownSets() == truth)
        #expect(truth[ids[4].wireString] == "Deadlift (Barbell)|160|2|9", "per-field last write wins")
        #expect(truth[ids[1].wireString] == nil && truth[ids[3].wireString] == nil)
        #expect(truth[extra.wireString] != nil)
        // The edit of a set deleted elsewhere lost to the delete: it is not left failed, it is a
        // conflict the laptop lists (the delete won over it).
        #expect(try laptop.store.queries.queueCounts().failed == 0)
        let conflicts = try laptop.store.conflicts.list()
        #expect(conflicts.contains { $0.record.isDeleteOverEdit }, "the edit of a set deleted elsewhere is reported")
        await server.stop()
    }

    /// The server refuses a set logged into a workout another device deleted, which the client
    /// cannot foresee offline. The set is not dropped, nor left rejected: it is kept, with the edit
    /// made after it, in a copy of the workout ("Shared (restored)"), and both reach the server.
    @Test func aSetLoggedIntoAWorkoutDeletedElsewhereIsKeptWithItsEdit() async throws {
        let server = try await TestServer.start()
        let deviceA = try Device(server: server)
        let shared = try deviceA.store.workoutLog.createWorkout(name: "Shared")
        #expect(await deviceA.sync())

        // B knows the workout, then goes offline; A deletes it.
        let offlineB = try Device(server: nil, baseURL: "http://127.0.0.1:9")  // nothing listens there
        let deviceB = try Device(server: server)
        let onlineStoreB = deviceB.store
        #expect(await deviceB.sync())
        try deviceA.store.workoutLog.deleteWorkout(id: shared.id)
        #expect(await deviceA.sync())

        // B logs into the deleted workout; a first try fails to connect (so it was attempted),
        // then B edits the set: a second operation that depends on the first.
        let doomed = try onlineStoreB.workoutLog.logSet(
            LogSetInput(exercise: "Bench Press (Barbell)", weight: 100, reps: 5, workout: .existing(shared.id)))
        let fine = try onlineStoreB.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 120, reps: 5, workout: .new(name: "Legs")))
        let offlineEngine = SyncEngine(
            store: onlineStoreB, transport: HTTPSyncTransport(baseURL: "http://127.0.0.1:9", token: "x"))
        await offlineEngine.syncOnce()
        offlineEngine.stop()  // its retry timer must not race the real device's engine
        _ = offlineB
        try onlineStoreB.workoutLog.editSet(id: doomed.set.id, changes: SetChanges(reps: 6))
        #expect(
            try onlineStoreB.queries.outbox(limit: 50).filter { $0.entityID == doomed.set.id.wireString }.count == 2)

        _ = await deviceB.sync(20)
        let kept = try #require(try onlineStoreB.queries.set(id: doomed.set.id), "the set is never dropped")
        #expect(kept.syncState == .synced)
        #expect(kept.set.reps == 6, "the edit made after the refused create went out too")
        let restored = try #require(try onlineStoreB.queries.workout(id: kept.set.workoutID))
        #expect(restored.workout.name == "Shared (restored)")
        #expect(restored.workout.id != shared.id)
        #expect(try onlineStoreB.queries.workout(id: shared.id) == nil)
        #expect(try onlineStoreB.queries.set(id: fine.set.id)?.syncState == .synced, "B's other sets sync")
        let onServer = try await server.sets()
        #expect(Set(onServer.map(\.id)) == [fine.set.id, doomed.set.id])
        #expect(onServer.first { $0.id == doomed.set.id }?.workoutID == restored.workout.id)
        #expect(onServer.first { $0.id == doomed.set.id }?.reps == 6)
        #expect(try onlineStoreB.queries.queueCounts() == QueueCounts())
        await server.stop()
    }
}

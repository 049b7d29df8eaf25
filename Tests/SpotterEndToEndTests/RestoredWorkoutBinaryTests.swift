import Foundation
import Testing

/// A set logged on one device into a workout another device deleted is kept, in a workout named
/// after the deleted one with " (restored)", and reaches the server and every device: the real
/// binary, two devices, a real `spotter serve`.
@Suite(
    "Sets of a workout deleted on another device are restored",
    .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct RestoredWorkoutBinaryTests {
    static let kept = "1 set of 'Push' was kept in 'Push (restored)': the workout was deleted on another device"

    /// A logs a set into a new workout "Push" and both devices sync: each holds it.
    static func bothHavePush(_ fleet: Fleet) async throws -> (workoutID: String, setID: String) {
        let logged = try await fleet.run(
            "a",
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Push"])
        #expect(logged.status == 0, "\(logged.stderr)")
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        #expect(try await fleet.run("b", ["sync"]).status == 0)
        let push = try #require(try await fleet.workouts("b").first { $0["name"] as? String == "Push" })
        return (try #require(push["id"] as? String), logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func logOnB(
        _ fleet: Fleet, into workoutID: String, environment: [String: String] = [:]
    ) async throws
        -> String
    {
        let logged = try await fleet.run(
            "b", ["log", "--exercise", "Squat (Barbell)", "--weight", "140", "--reps", "3", "--workout", workoutID],
            environment: environment)
        #expect(logged.status == 0, "\(logged.stderr)")
        return logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What every side must show once A deleted "Push" and B's set was kept: the server holds B's
    /// set, live, in "Push (restored)" (a new id) and not A's; both devices list the same after
    /// A syncs (A's own set went with the workout), and nothing on B is failed, pending or rejected.
    static func expectRestoredEverywhere(
        _ fleet: Fleet, deleted workoutID: String, keptSet: String
    ) async throws {
        let live = try await fleet.serverWorkouts().filter { ($0["deleted"] as? Bool) != true }
        #expect(live.map { $0["name"] as? String } == ["Push (restored)"], "\(live)")
        let restoredID = try #require(live.first?["id"] as? String)
        #expect(restoredID != workoutID)
        let serverSets = try await fleet.serverSets().filter { ($0.value["deleted"] as? Bool) != true }
        #expect(serverSets.keys.sorted() == [keptSet], "\(serverSets)")
        #expect(serverSets[keptSet]?["workout_id"] as? String == restoredID)

        #expect(try await fleet.run("a", ["sync"]).status == 0)
        for device in ["a", "b"] {
            let sets = try await fleet.sets(device)
            #expect(sets.keys.sorted() == [keptSet], "\(device): \(sets)")
            #expect(sets[keptSet]?["workout_id"] as? String == restoredID, "\(device)")
            #expect(sets[keptSet]?["sync_state"] as? String == "synced", "\(device): \(sets)")
            let workouts = try await fleet.workouts(device)
            #expect(workouts.map { $0["name"] as? String } == ["Push (restored)"], "\(device): \(workouts)")
            #expect(workouts.first?["id"] as? String == restoredID)
            #expect(workouts.first?["sync_state"] as? String == "synced")
            for command in [["sets"], ["workouts"], ["status"], ["outbox"]] {
                let shown = try await fleet.run(device, command)
                #expect(!shown.stdout.lowercased().contains("rejected"), "\(device) \(command): \(shown.stdout)")
            }
        }
        let status = try SpotterBinary.json(try await fleet.run("b", ["status", "--json"]).stdout)
        #expect(status["failed"] as? Int == 0 && status["pending"] as? Int == 0 && status["blocked"] as? Int == 0)
    }

    @Test("B logs offline into a workout A then deletes: the set is restored, sent, and reaches A")
    func aSetLoggedOfflineIntoAWorkoutDeletedElsewhereIsRestored() async throws {
        let fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let (workoutID, _) = try await Self.bothHavePush(fleet)
        #expect(try await fleet.run("b", ["airplane", "on"]).status == 0)
        let setB = try await Self.logOnB(fleet, into: workoutID)
        #expect(try await fleet.run("a", ["delete", "--workout", workoutID]).status == 0)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        #expect(try await fleet.run("b", ["airplane", "off"]).status == 0)
        let synced = try await fleet.run("b", ["sync"])
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout.contains(Self.kept), "\(synced.stdout)")
        #expect(synced.stdout.contains("failed 0"), "\(synced.stdout)")
        try await Self.expectRestoredEverywhere(fleet, deleted: workoutID, keptSet: setB)
        // Told once: the next sync has nothing more to say about it.
        #expect(!(try await fleet.run("b", ["sync"]).stdout.contains("kept in")))
    }

    @Test("B's create reaches the server after A's delete and is refused 422: restored and sent, never rejected")
    func aCreateRefusedBecauseTheWorkoutIsGoneIsRestored() async throws {
        let fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let (workoutID, _) = try await Self.bothHavePush(fleet)
        #expect(try await fleet.run("a", ["delete", "--workout", workoutID]).status == 0)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        // B has not pulled since: its log sends the create at once, and the server refuses it.
        let setB = try await Self.logOnB(fleet, into: workoutID)
        let synced = try await fleet.run("b", ["sync"])
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout.contains(Self.kept), "\(synced.stdout)")
        let outbox = try SpotterBinary.json(try await fleet.run("b", ["outbox", "--json"]).stdout)
        let ops = outbox["operations"] as? [[String: Any]] ?? []
        #expect(!ops.contains { $0["state"] as? String == "failed_permanent" }, "\(ops)")
        #expect(
            ops.contains { $0["entity_id"] as? String == setB && $0["state"] as? String == "succeeded" },
            "the set's create went out again and succeeded: \(ops)")
        try await Self.expectRestoredEverywhere(fleet, deleted: workoutID, keptSet: setB)
    }

    /// B's create could not reach the server and waits for its retry when B next syncs: the pull
    /// brings the workout's tombstone first, while the set's create is still queued.
    @Test("the tombstone arrives while B's create is still queued: the set is restored, not deleted")
    func aTombstonePulledWhileTheCreateIsQueuedRestoresTheSet() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let (workoutID, _) = try await Self.bothHavePush(fleet)
        #expect(try await fleet.run("a", ["delete", "--workout", workoutID]).status == 0)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        let slow = ["SPOTTER_RETRY_BASE_SECONDS": "600"]  // its retry is not due during the test
        fleet.server.stop()
        let setB = try await Self.logOnB(fleet, into: workoutID, environment: slow)
        try await fleet.restart()
        let synced = try await fleet.run("b", ["sync", "--timeout", "20"], environment: slow)
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout.contains(Self.kept), "\(synced.stdout)")
        try await Self.expectRestoredEverywhere(fleet, deleted: workoutID, keptSet: setB)
    }
}

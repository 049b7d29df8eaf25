import Foundation
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Testing

/// A set whose create landed on the server but whose reply was dropped, then deleted with its
/// workout by a device that had seen it: the sender cannot tell that from a set the server never
/// had until its create is answered, so it must ask under the same key before keeping the set.
@Suite("A dropped reply and a workout deleted elsewhere, against the real server")
struct DroppedReplyDeleteTests {
    /// A phone and a laptop of one user on one hand-moved clock; the phone has logged a set into
    /// a new workout "Push" and synced it.
    static func phoneWithPush(
        on server: TestServer
    ) async throws -> (clock: ManualClock, phone: ClockedDevice, laptop: ClockedDevice, first: LoggedSet) {
        let clock = ManualClock()
        let phone = try ClockedDevice(server: server, clock: clock)
        let laptop = try ClockedDevice(server: server, clock: clock)
        let first = try phone.store.workoutLog.logSet(
            LogSetInput(exercise: "Bench Press (Barbell)", weight: 100, reps: 5, workout: .new(name: "Push")))
        await phone.sync()
        return (clock, phone, laptop, first)
    }

    @Test(
        "a set the server stored (reply dropped), then deleted with its workout by a device that saw it, is not restored"
    )
    func aLandedSetDeletedWithItsWorkoutMakesNoRestoredCopy() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (clock, phone, laptop, first) = try await Self.phoneWithPush(on: server)

        // The phone logs a second set; the server stores it and the reply is lost.
        let second = try phone.store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 140, reps: 3, workout: .existing(first.workout.id)))
        await phone.sync(dropping: true)
        #expect(try await server.sets().map(\.id) == [first.set.id, second.set.id], "the server stored it")
        #expect(try phone.store.queries.queueCounts().pending == 1, "the phone does not know")

        // The laptop sees both sets and deletes the workout, meaning both to go.
        await laptop.sync()
        #expect(try laptop.store.queries.set(id: second.set.id) != nil)
        try laptop.store.workoutLog.deleteWorkout(id: first.workout.id)
        await laptop.sync()
        #expect(try await server.sets().isEmpty)

        // The phone pulls the tombstones before its retry is due: the set stays queued as it was.
        await phone.sync()
        #expect(
            try phone.store.queries.workoutSummaries(limit: 10).allSatisfy { !$0.workout.name.hasSuffix("(restored)") },
            "no copy while the create's answer is open")
        // The retry is answered under its own key: it had landed, so it went with the workout.
        for _ in 0..<5 {
            clock.advance(by: 120)
            await phone.sync()
            if try phone.store.queries.queueCounts() == QueueCounts() { break }
        }
        await laptop.sync()

        #expect(try phone.store.queries.queueCounts() == QueueCounts())
        let onServer = try await server.store.workouts(user: "alice", includeDeleted: false)
        #expect(onServer.isEmpty, "no restored workout reached the server: \(onServer.map(\.name))")
        #expect(try await server.sets().isEmpty)
        for (name, device) in [("phone", phone), ("laptop", laptop)] {
            #expect(try device.store.queries.workoutSummaries(limit: 10).isEmpty, "\(name) shows no workout")
            #expect(try device.store.queries.sets(workoutID: nil).isEmpty, "\(name) shows no set")
        }
    }

    @Test(
        "a set whose refusal was dropped, then a rename of its workout refused because another device deleted it: the set is kept and reaches the server"
    )
    func aSetStillOnItsWayOutlivesItsWorkoutsRefusedRename() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (clock, phone, laptop, first) = try await Self.phoneWithPush(on: server)
        await laptop.sync()
        try laptop.store.workoutLog.deleteWorkout(id: first.workout.id)
        await laptop.sync()

        // The phone, not knowing, logs into the workout: the server refuses the set (its workout
        // is gone) and that answer is lost, so the set's create stays open, sent.
        let late = try phone.store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 140, reps: 3, workout: .existing(first.workout.id)))
        await phone.sync(dropping: true)
        #expect(try await server.sets().isEmpty)
        // Then it renames the workout; the rename goes out (the set's retry is not due yet) and is
        // refused: the workout was deleted on another device.
        try phone.store.workoutLog.editWorkout(id: first.workout.id, changes: WorkoutChanges(name: "Push A"))
        await phone.sync()
        #expect(try phone.store.queries.set(id: late.set.id) != nil, "the set waits for its own answer, still here")

        // Its retry is refused again, and now heard: the set is kept in a restored copy and sent.
        for _ in 0..<6 {
            clock.advance(by: 120)
            await phone.sync()
            if try phone.store.queries.queueCounts() == QueueCounts() { break }
        }
        #expect(try phone.store.queries.queueCounts() == QueueCounts(), "nothing left on its way or failed")
        let kept = try #require(try phone.store.queries.set(id: late.set.id), "the set is never dropped")
        let restored = try #require(try phone.store.queries.workout(id: kept.set.workoutID))
        #expect(restored.workout.name.hasSuffix("(restored)"))
        #expect(try phone.store.queries.workout(id: first.workout.id) == nil, "the deleted workout is gone here too")
        let onServer = try await server.sets()
        #expect(onServer.map(\.id) == [late.set.id])
        #expect(onServer.first?.workoutID == restored.workout.id)
        await laptop.sync()
        #expect(try laptop.store.queries.set(id: late.set.id)?.set.workoutID == restored.workout.id)
    }

    @Test("a refused connect is told apart from a dropped reply, and a try that never left is not counted as sent")
    func aTryThatCouldNotConnectWasNeverSent() async throws {
        let transport = HTTPSyncTransport(baseURL: "http://127.0.0.1:9", token: "x")  // nothing listens there
        let result = await withCheckedContinuation { continuation in
            transport.send(TransportRequest(method: "GET", path: "/v1/me", timeout: 5)) {
                continuation.resume(returning: $0)
            }
        }
        guard case .failure(.unreachable) = result else {
            Issue.record("a refused connect should be unreachable, got \(result)")
            return
        }
        let store = try makeStore()
        _ = try store.workoutLog.logSet(LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5))
        let engine = SyncEngine(store: store, transport: transport)
        await engine.syncOnce()
        engine.stop()
        let ops = try store.queries.outbox(limit: 50)
        let tried = ops.filter { $0.attemptCount >= 1 }
        #expect(!tried.isEmpty && tried.allSatisfy { $0.firstSentAt == nil }, "tried, never sent: \(ops)")
        #expect(try store.queries.queueCounts().pending == ops.count)
    }
}

/// A device's second edit of a field, made before the first edit's answer came back, is based on
/// the version before the first: the server must not take the device's own earlier value for
/// another device's and tell the user of a conflict that is none.
@Suite("A device's own edits in a row, against the real server")
struct OwnEditsInARowTests {
    @Test("a rename, its reply dropped, then a second rename: the second wins and no conflict is recorded")
    func aSecondRenameBeforeTheFirstWasAnsweredIsNoConflict() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let phone = try ClockedDevice(server: server, clock: clock)
        let logged = try phone.store.workoutLog.logSet(
            LogSetInput(exercise: "Bench Press (Barbell)", weight: 100, reps: 5, workout: .new(name: "Push")))
        await phone.sync()
        try phone.store.workoutLog.editWorkout(id: logged.workout.id, changes: WorkoutChanges(name: "Push A"))
        await phone.sync(dropping: true)  // stored on the server; the phone never hears so
        clock.advance(by: 1)
        try phone.store.workoutLog.editWorkout(id: logged.workout.id, changes: WorkoutChanges(name: "Push B"))
        for _ in 0..<5 {
            clock.advance(by: 120)
            await phone.sync()
            if try phone.store.queries.queueCounts() == QueueCounts() { break }
        }
        #expect(try phone.store.queries.queueCounts() == QueueCounts())
        let onServer = try await server.store.workouts(user: "alice", includeDeleted: false)
        #expect(onServer.map(\.name) == ["Push B"])
        #expect(try phone.store.conflicts.list(includeSettled: true).isEmpty, "the phone's own rename is no conflict")
        #expect(try phone.store.queries.workout(id: logged.workout.id)?.workout.name == "Push B")
    }
}

import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

@Suite("The one-transaction write path")
struct WritePathTests {
    /// A logged set survives a power cut: every commit flushes the WAL. (GRDB turns a pool's
    /// writer to NORMAL when it enables WAL; the store must set FULL back, on a new file and on
    /// an existing one.)
    @Test func everyCommitIsFlushedToDisk() throws {
        let path = temporaryDatabasePath()
        let created = try SpotterStore.open(path: path, userID: "alice")
        #expect(try created.synchronousMode() == 2)
        _ = try created.log()
        let reopened = try SpotterStore.open(path: path, userID: "alice")
        #expect(try reopened.synchronousMode() == 2)
    }

    @Test func loggingASetWritesTheSetAndOnePendingOperationWithAKey() throws {
        let store = try makeStore()
        let logged = try store.log()

        let rows = try store.queries.sets(workoutID: logged.workout.id)
        #expect(rows.map(\.set.id) == [logged.set.id])
        #expect(rows[0].syncState == .pending)
        let setOps = try store.operations().filter { $0.entityType == .set }
        #expect(setOps.count == 1)
        #expect(setOps[0].kind == .create)
        #expect(setOps[0].state == .pending)
        #expect(UUID(uuidString: setOps[0].idempotencyKey) != nil)
        #expect(setOps[0].payload["reps"] == .int(5))
        // The set waits for its workout's create.
        let workoutOp = try #require(try store.operations().first { $0.entityType == .workout })
        #expect(setOps[0].dependsOn == workoutOp.opID)
    }

    @Test func aFailureOnTheSecondWriteLeavesNeither() throws {
        let store = try makeStore()
        let workout = try store.workoutLog.createWorkout(name: "Push Day")
        try store.writer.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
            )
        }
        #expect(throws: (any Error).self) { try store.log(workout: .existing(workout.id)) }
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM outbox WHERE entity_type = 'set'") == 0)
    }

    @Test func invalidInputIsRefusedBeforeAnythingIsWritten() throws {
        let store = try makeStore()
        #expect(throws: StoreError.invalid(ValidationError(field: "weight", message: "must be 0 or more"))) {
            try store.log(weight: -5)
        }
        #expect(throws: StoreError.self) { try store.log(reps: 5000) }
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM workouts") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 0)
    }

    @Test func exerciseNamesResolveCaseInsensitivelyAndUnknownOnesBecomeCustom() throws {
        let store = try makeStore()
        #expect(try store.queries.exerciseCount() >= 80)
        let known = try store.log("bench press (BARBELL)")
        #expect(known.set.exercise == "Bench Press (Barbell)")
        let custom = try store.log("Zercher Carry")
        #expect(custom.set.exercise == "Zercher Carry")
        #expect(try store.count("SELECT COUNT(*) FROM exercises WHERE is_custom = 1") == 1)
    }

    @Test func setsGoToTheWorkoutInProgressAndPRsAreMarked() throws {
        let store = try makeStore()
        let first = try store.log(weight: 100, reps: 5)
        let second = try store.log(weight: 110, reps: 5)
        let third = try store.log(weight: 90, reps: 5)
        #expect(first.createdWorkout && !second.createdWorkout)
        #expect(second.workout.id == first.workout.id)
        #expect(try store.queries.sets(workoutID: first.workout.id).map(\.set.position) == [1, 2, 3])
        #expect(!first.isPR && second.isPR && !third.isPR)
    }

    @Test func editsAndDeletesOfUnknownSetsChangeNothing() throws {
        let store = try makeStore()
        try store.log()
        let before = try store.count("SELECT COUNT(*) FROM outbox")
        #expect(throws: StoreError.self) { try store.workoutLog.editSet(id: UUID(), changes: SetChanges(reps: 3)) }
        #expect(throws: StoreError.self) { try store.workoutLog.deleteSet(id: UUID()) }
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == before)
    }
}

@Suite("Coalescing against the real queue")
struct StoreCoalescingTests {
    @Test func createPlusUpdatesIsOneCreateCarryingTheFinalFields() throws {
        let store = try makeStore()
        let logged = try store.log(weight: 100, reps: 5)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(weight: 102.5))
        let ops = try store.operations().filter { $0.entityID == logged.set.id.wireString }
        #expect(ops.count == 1)
        #expect(ops[0].kind == .create)
        #expect(ops[0].payload["reps"] == .int(6))
        #expect(ops[0].payload["weight"] == .double(102.5))
    }

    @Test func createPlusDeleteLeavesNothing() throws {
        let store = try makeStore()
        let logged = try store.log()
        try store.workoutLog.deleteSet(id: logged.set.id)
        #expect(try store.operations().filter { $0.entityType == .set }.isEmpty)
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 0)
        // The workout too: an unsent create and its delete cancel out, sets and all.
        try store.log(workout: .existing(logged.workout.id))
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM workouts") == 0)
    }

    @Test func updatesMergeAndUpdatePlusDeleteIsOneDelete() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 7, rpe: 9))
        var queued = try store.operations().filter { $0.state == .pending && $0.entityType == .set }
        #expect(queued.count == 1)
        #expect(queued[0].kind == .update)
        #expect(queued[0].payload == ["reps": .int(7), "rpe": .double(9)])
        #expect(queued[0].before == ["reps": .int(5), "rpe": .null])
        let keyBefore = queued[0].idempotencyKey
        try store.workoutLog.deleteSet(id: logged.set.id)
        queued = try store.operations().filter { $0.state == .pending && $0.entityType == .set }
        #expect(queued.count == 1)
        #expect(queued[0].kind == .delete)
        #expect(queued[0].idempotencyKey != keyBefore)
        #expect(try store.queries.sets(workoutID: logged.workout.id).isEmpty)
    }

    @Test func anOperationThatWasEverSentIsNeverRewritten() throws {
        let store = try makeStore()
        let logged = try store.log()
        _ = try store.queue.claimEligible(limit: 10)  // the workout create goes out
        // Its claim returned it to the queue as a transient failure: sent once, maybe received.
        let workoutOp = try #require(try store.operations().first { $0.entityType == .workout })
        try store.queue.complete(
            opID: workoutOp.opID, result: .transient(status: 503, error: "unavailable", retryAt: store.clock.now()))
        let sentPayload = try #require(try store.queries.operation(id: workoutOp.opID)).payload
        try store.workoutLog.editWorkout(id: logged.workout.id, changes: WorkoutChanges(name: "Renamed"))
        let ops = try store.operations().filter { $0.entityType == .workout }
        #expect(ops.count == 2)
        #expect(ops[0].payload == sentPayload)
        #expect(ops[1].kind == .update)
        #expect(ops[1].dependsOn == ops[0].opID)
        #expect(ops[1].payload == ["name": .string("Renamed")])
    }
}

/// Logs a set and marks its workout and set creates as succeeded, as if synced.
func sentSet(_ store: SpotterStore) throws -> LoggedSet {
    let logged = try store.log()
    for _ in 0..<2 {
        for op in try store.queue.claimEligible(limit: 10) {
            try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        }
    }
    #expect(try store.queries.queueCounts().pending == 0)
    return logged
}

import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// A set logged here into a workout another device deleted is kept, in a restored copy of the
/// workout; a set the server had, with nothing queued here, goes with the workout.
@Suite("Sets of a workout deleted elsewhere are kept")
struct RestoredWorkoutTests {
    /// A synced workout "Push" with one synced set, and a second set logged into it here whose
    /// create is still queued.
    static func pushWithAQueuedSet(_ store: SpotterStore) throws -> (synced: LoggedSet, queued: LoggedSet) {
        let synced = try store.log(workout: .new(name: "Push"))
        try acknowledgeAll(store, logged: synced)
        let queued = try store.log("Squat (Barbell)", weight: 140, reps: 3, workout: .existing(synced.workout.id))
        return (synced, queued)
    }

    static func tombstone(of workout: Workout, andOf set: WorkoutSet, from version: Int64) -> [PulledEntity] {
        [
            .deletedSet(set.id, ServerStamp(serverVersion: version, updatedAt: nil)),
            .deletedWorkout(workout.id, ServerStamp(serverVersion: version + 1, updatedAt: nil)),
        ]
    }

    static func restored(_ store: SpotterStore) throws -> Row? {
        try store.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM workouts WHERE name = 'Push (restored)'")
        }
    }

    @Test func aPulledTombstoneNeverDeletesASetWhoseCreateIsQueuedHere() throws {
        let store = try makeStore()
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        let merged = try store.pull.mergePage(
            Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")

        // The set the server had, with nothing queued here, went with the workout.
        #expect(try store.queries.set(id: synced.set.id) == nil)
        #expect(try store.queries.workout(id: synced.workout.id) == nil, "nothing holds the deleted workout here")
        // The set logged here is kept, in a new workout with the old one's name.
        let copy = try #require(try Self.restored(store), "a restored workout is made")
        let copyID: String = copy["id"]
        #expect(copyID != synced.workout.id.wireString, "the copy has an id of its own")
        let kept = try #require(try store.queries.set(id: queued.set.id), "the queued set is never deleted")
        #expect(kept.set.workoutID.wireString == copyID)
        #expect(kept.syncState == .pending)
        #expect((copy["started_at"] as String) == Timestamp.format(queued.set.performedAt))
        #expect(
            merged.notices.map(\.message) == [
                "1 set of 'Push' was kept in 'Push (restored)': the workout was deleted on another device"
            ])

        // Both go out as normal queued operations: the copy's create, then the set's, naming it.
        let ops = try store.operations().filter { $0.state == .pending }
        let workoutCreate = try #require(ops.first { $0.entityType == .workout })
        #expect(workoutCreate.kind == .create && workoutCreate.entityID == copyID)
        #expect(workoutCreate.payload["name"] == .string("Push (restored)"))
        let setCreate = try #require(ops.first { $0.entityType == .set })
        #expect(setCreate.kind == .create && setCreate.entityID == queued.set.id.wireString)
        #expect(setCreate.payload["workout_id"] == .string(copyID))
        #expect(setCreate.dependsOn == workoutCreate.opID)
        #expect(setCreate.opID == queued.opID, "never sent: the same operation, rewritten")
        let first = try store.queue.claimEligible(limit: 10)
        #expect(first.map(\.entityType) == [.workout], "the set waits for its new workout's create")

        // `spotter sync` tells it once.
        #expect(try store.restorations.takeUntold().map(\.sentence) == merged.notices.map(\.message))
        #expect(try store.restorations.takeUntold().isEmpty)
    }

    @Test func aSetWithNothingQueuedFollowsTheTombstoneAndNothingIsRestored() throws {
        let store = try makeStore()
        let synced = try store.log(workout: .new(name: "Push"))
        try acknowledgeAll(store, logged: synced)
        let merged = try store.pull.mergePage(
            Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(try store.queries.set(id: synced.set.id) == nil)
        #expect(try store.queries.workout(id: synced.workout.id) == nil)
        #expect(try Self.restored(store) == nil)
        #expect(merged.notices.isEmpty)
        #expect(try store.count("SELECT COUNT(*) FROM outbox WHERE state != 'succeeded'") == 0)
    }

    /// Only the tombstone of the workout (the set's own tombstone is on the same page in the
    /// feed, but a workout with only sets this device logged has none): the workout still goes.
    @Test func aSetTheUserDeletedHereStaysDeleted() throws {
        let store = try makeStore()
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        try store.workoutLog.deleteSet(id: queued.set.id)
        let merged = try store.pull.mergePage(
            Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(try store.queries.set(id: queued.set.id) == nil)
        #expect(try Self.restored(store) == nil)
        #expect(merged.notices.isEmpty)
    }

    /// The workout has an edit queued here too (a rename): its tombstone waits for that edit, but
    /// the set is kept at once, and the rename's 404 then takes only the workout.
    @Test func aTombstoneThatWaitsForTheWorkoutsEditStillKeepsTheSet() throws {
        let store = try makeStore()
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        try store.workoutLog.editWorkout(id: synced.workout.id, changes: WorkoutChanges(name: "Push day"))
        let merged = try store.pull.mergePage(
            Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(merged.notices.count == 1)
        let kept = try #require(try store.queries.set(id: queued.set.id))
        #expect(kept.set.workoutID != synced.workout.id)
        let rename = try #require(try store.operations().first { $0.entityType == .workout && $0.kind == .update })
        _ = try store.queue.claimEligible(limit: 10)
        try store.queue.complete(opID: rename.opID, result: .permanent(status: 404, error: "no workout"))
        #expect(try store.queries.workout(id: synced.workout.id) == nil)
        #expect(try store.queries.set(id: queued.set.id) != nil, "the set stays in the restored workout")
    }

    /// The create was sent before the pull showed the delete, and the server refused it: the
    /// workout it names is gone. It is no rejection: the set moves to the restored workout and a
    /// fresh create (a new key) goes out.
    @Test func aCreateRefusedBecauseTheWorkoutIsGoneGoesOutAgainInTheRestoredWorkout() throws {
        let store = try makeStore()
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        let sent = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(sent.entityID == queued.set.id.wireString)
        let notices = try store.queue.complete(
            opID: sent.opID,
            result: .workoutGone(status: 422, error: "workout_id: must name an existing workout of this user"))
        #expect(
            notices.map(\.message) == [
                "1 set of 'Push' was kept in 'Push (restored)': the workout was deleted on another device"
            ])
        let kept = try #require(try store.queries.set(id: queued.set.id))
        #expect(kept.syncState == .pending, "never rejected")
        let copy = try #require(try Self.restored(store))
        let copyID: String = copy["id"]
        let create = try #require(try store.operations().first { $0.entityType == .set && $0.state == .pending })
        #expect(create.kind == .create)
        #expect(create.payload["workout_id"] == .string(copyID))
        #expect(create.idempotencyKey != sent.idempotencyKey, "a refusal is sent again under a new key")
        #expect(create.attemptCount == 0)
        #expect(try store.queries.queueCounts().failed == 0)
        // The tombstone comes later: the workout goes, the kept set stays.
        try store.pull.mergePulled(Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(try store.queries.workout(id: synced.workout.id) == nil)
        #expect(try store.queries.set(id: queued.set.id)?.set.workoutID.wireString == copyID)
    }

    /// `sent` answered 422 because its workout is gone, after another program removed `set`'s
    /// row; the operation as recorded then.
    static func refusedAsWorkoutGone(
        _ sent: OutboxOperation, afterRemovingSet set: WorkoutSet, _ store: SpotterStore
    ) throws -> OutboxOperation {
        try store.writer.write { db in
            try db.execute(sql: "DELETE FROM sets WHERE id = ?", arguments: [set.id.wireString])
        }
        try store.queue.complete(
            opID: sent.opID,
            result: .workoutGone(status: 422, error: "workout_id: must name an existing workout of this user"))
        return try #require(try store.operations().first { $0.opID == sent.opID })
    }

    /// The same refusal for a set whose row is no longer here (another program removed it): there
    /// is nothing to keep but the operation, and it must not stay on its way for ever, counted as
    /// pending by every status line with no try that could ever end it. It fails for good, saying why.
    @Test func aRefusalForASetWhoseRowIsGoneFailsItForGoodInsteadOfLeavingItOnItsWay() throws {
        let store = try makeStore()
        let (_, queued) = try Self.pushWithAQueuedSet(store)
        let sent = try #require(try store.queue.claimEligible(limit: 10).first)
        let op = try Self.refusedAsWorkoutGone(sent, afterRemovingSet: queued.set, store)
        #expect(op.state == .failedPermanent)
        #expect(op.lastError?.contains("no longer on this device") == true)
        #expect(try store.queries.queueCounts().failed == 1)
        #expect(try store.queries.queueCounts().inFlight == 0)
        #expect(try Self.restored(store) == nil, "no empty copy is made for it")
    }

    /// An edit answered so, for a set whose row is gone and whose edit does not name a workout:
    /// nothing says which workout to restore, and the edit fails for good rather than staying sent.
    @Test func aRefusedEditOfASetWhoseRowIsGoneFailsForGood() throws {
        let store = try makeStore()
        let logged = try store.log(workout: .new(name: "Push"))
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 7))
        let sent = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(sent.kind == .update && sent.payload["workout_id"] == nil)
        let op = try Self.refusedAsWorkoutGone(sent, afterRemovingSet: logged.set, store)
        #expect(op.state == .failedPermanent)
        #expect(try store.queries.queueCounts().inFlight == 0)
    }

    /// One device: a set's edit is sent and answered 503 (a retry is due later), then the user
    /// deletes the workout. The delete must not overtake the edit made before it: the server
    /// would then refuse the edit as another device's delete, and every device would list a
    /// conflict between the user and themselves.
    @Test func aWorkoutsDeleteWaitsForAnEditOfItsSetMadeBeforeIt() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let logged = try store.log(workout: .new(name: "Push"))
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 9))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(
            opID: edit.opID,
            result: .transient(status: 503, error: "unavailable", retryAt: clock.now().addingTimeInterval(600)))
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        #expect(try store.queue.claimEligible(limit: 10).isEmpty, "the delete waits for the edit's retry")
        clock.advance(by: 601)
        let retried = try store.queue.claimEligible(limit: 10)
        #expect(retried.map(\.opID) == [edit.opID], "the edit goes first, alone")
        try store.queue.complete(opID: edit.opID, result: .succeeded(status: 200, row: nil))
        let delete = try store.queue.claimEligible(limit: 10)
        #expect(delete.map(\.kind) == [.delete] && delete.first?.entityType == .workout)
    }

    /// The same with an edit the engine gave up on without an answer (it returns to the queue when
    /// the server next answers): the delete waits for it too, and for a given-up edit of the
    /// workout itself.
    @Test func aWorkoutsDeleteWaitsForEditsThatGaveUpWithoutAnAnswer() throws {
        let store = try makeStore()
        let logged = try store.log(workout: .new(name: "Push"))
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 9))
        try store.workoutLog.editWorkout(id: logged.workout.id, changes: WorkoutChanges(name: "Push A"))
        for op in try store.queue.claimEligible(limit: 10) {
            try store.queue.complete(opID: op.opID, result: .gaveUp(status: 503, error: "unavailable"))
        }
        #expect(try store.operations().filter { $0.state == .failedPermanent && $0.noAnswer }.count == 2)
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        #expect(try store.queue.claimEligible(limit: 10).isEmpty, "the delete waits for both given-up edits")
        #expect(try store.queue.requeueNoAnswer() == 2)
        let again = try store.queue.claimEligible(limit: 10)
        #expect(again.allSatisfy { $0.kind == .update } && again.count == 2, "the edits go first: \(again)")
        for op in again { try store.queue.complete(opID: op.opID, result: .succeeded(status: 200, row: nil)) }
        let delete = try store.queue.claimEligible(limit: 10)
        #expect(delete.map(\.kind) == [.delete] && delete.first?.entityType == .workout)
    }

    /// A workout whose tombstone was pulled while a set of it was queued stays, marked deleted on
    /// another device. Renamed then, the rename is refused (404): no later tombstone will settle
    /// it, so it is settled at once — nothing stays "failed" for a workout gone everywhere.
    @Test func aRenameRefusedForAWorkoutWhoseTombstoneWasPulledIsSettled() throws {
        let store = try makeStore()
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        let create = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(
            opID: create.opID,
            result: .transient(status: 503, error: "unavailable", retryAt: Date().addingTimeInterval(600)))
        try store.pull.mergePulled(Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(try store.queries.set(id: queued.set.id) != nil)
        try store.workoutLog.editWorkout(id: synced.workout.id, changes: WorkoutChanges(name: "Renamed"))
        let rename = try #require(try store.queue.claimEligible(limit: 10).first { $0.entityType == .workout })
        try store.queue.complete(opID: rename.opID, result: .permanent(status: 404, error: "no workout"))
        #expect(try store.operations().first { $0.opID == rename.opID }?.state == .succeeded)
        #expect(try store.queries.queueCounts().failed == 0)
    }

    /// A create whose reply was lost after it landed, given up and queued again (its count starts
    /// afresh), then claimed once more and put back unsent (it did not fit the batch, or airplane
    /// mode came on): it still may have landed, so the workout's tombstone leaves it queued under
    /// its own key instead of copying it into a restored workout.
    @Test func aCreateThatMayHaveLandedStaysSentThroughARetryAndAnUnsentClaim() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let (synced, queued) = try Self.pushWithAQueuedSet(store)
        let sent = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(sent.entityID == queued.set.id.wireString)
        clock.advance(by: 1)
        _ = try store.queue.complete(opID: sent.opID, result: .gaveUp(status: nil, error: "connection reset"))
        clock.advance(by: 1)
        #expect(try store.queue.requeueNoAnswer() == 1)
        clock.advance(by: 1)
        let again = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(again.opID == sent.opID && again.attemptCount == 1, "counted afresh")
        clock.advance(by: 1)
        try store.queue.releaseUnsent(opIDs: [again.opID])
        let op = try #require(try store.operations().first { $0.opID == sent.opID })
        #expect(op.firstSentAt != nil, "the first try left and may have landed")

        try store.pull.mergePulled(Self.tombstone(of: synced.workout, andOf: synced.set, from: 10), cursor: "11")
        #expect(try Self.restored(store) == nil, "no copy while the create's answer is open")
        let still = try #require(try store.operations().first { $0.opID == sent.opID })
        #expect(still.idempotencyKey == sent.idempotencyKey && still.payload == sent.payload, "sent again as it was")
    }
}

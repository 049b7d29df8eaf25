import Foundation
import GRDB
import SpotterCore
import SpotterStore
import SpotterTestSupport
import Testing

@Suite("The outbox queue: claim, lease, complete")
struct QueueTests {
    @Test func aSetWaitsForItsWorkoutsCreate() throws {
        let store = try makeStore()
        try store.log()
        let first = try store.queue.claimEligible(limit: 10)
        #expect(first.map(\.entityType) == [.workout])
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)  // the set's dependency is in flight
        try store.queue.complete(opID: first[0].opID, result: .succeeded(status: 201, row: nil))
        #expect(try store.queue.claimEligible(limit: 10).map(\.entityType) == [.set])
    }

    /// A batch claimed while another is in flight (to leave the moment that one is answered)
    /// stops before the first operation that waits on one in flight, so the server still
    /// meets every operation in queue order: here a workout's delete, queued after a set of it
    /// whose create waits on the workout's create, may not overtake that set.
    @Test func aClaimAheadOfABatchInFlightStopsAtTheFirstOperationWaitingOnIt() throws {
        let store = try makeStore()
        let other = try store.workoutLog.createWorkout(name: "Other")  // op 1
        let legs = try store.log(workout: .new(name: "Legs"))  // ops 2 (workout), 3 (set)
        try store.workoutLog.createWorkout(name: "Arms")  // op 4
        let inFlight = try store.queue.claimEligible(limit: 2)  // Other and Legs go out
        #expect(inFlight.map(\.entityType) == [.workout, .workout])
        try store.workoutLog.deleteWorkout(id: other.id)  // op 5: waits on Other's create

        let ahead = try store.queue.claimEligible(limit: 10, aheadOfInFlight: true)
        // The set (op 3) waits on Legs' create: nothing queued after it may go ahead of it.
        #expect(ahead.isEmpty)
        // Claimed without that rule (the previous batch answered), Arms goes (and the set
        // and the delete stay behind their creates as always).
        let next = try store.queue.claimEligible(limit: 10)
        #expect(next.map(\.entityType) == [.workout])
        #expect(next.first?.entityID != legs.workout.id.wireString)

        for op in inFlight + next {
            try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        }
        let rest = try store.queue.claimEligible(limit: 10, aheadOfInFlight: true)
        #expect(rest.map(\.entityType) == [.set, .workout])
        #expect(rest.map(\.kind) == [.create, .delete])
    }

    @Test func aClaimAheadTakesWhatComesBeforeTheFirstWaitingOperation() throws {
        let store = try makeStore()
        try store.workoutLog.createWorkout(name: "A")
        let first = try store.queue.claimEligible(limit: 1)
        try store.workoutLog.createWorkout(name: "B")
        try store.workoutLog.createWorkout(name: "C")
        let ahead = try store.queue.claimEligible(limit: 10, aheadOfInFlight: true)
        #expect(ahead.count == 2)  // nothing waits on A: B and C go ahead
        #expect(!ahead.contains { $0.opID == first[0].opID })
    }

    @Test func aTransientFailureWaitsUntilItsNextAttempt() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.workoutLog.createWorkout(name: "Legs")
        let op = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(
            opID: op.opID,
            result: .transient(status: 503, error: "unavailable", retryAt: clock.now().addingTimeInterval(4)))
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        clock.advance(by: 3.9)
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        clock.advance(by: 0.2)
        let again = try store.queue.claimEligible(limit: 10)
        #expect(again.map(\.opID) == [op.opID])
        #expect(again[0].attemptCount == 2)
        #expect(again[0].idempotencyKey == op.idempotencyKey)
    }

    /// A server asked for a long wait: `spotter retry` sends it now, with the same key.
    @Test func aRetryAsksNowForAnOperationWaitingOutItsRetryTime() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.workoutLog.createWorkout(name: "Legs")
        let op = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(
            opID: op.opID,
            result: .transient(status: 503, error: "busy", retryAt: clock.now().addingTimeInterval(RetryAfter.longest)))
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        try store.queue.retry(opID: op.opID)
        let now = try store.queue.claimEligible(limit: 10)
        #expect(now.map(\.opID) == [op.opID])
        #expect(now.first?.idempotencyKey == op.idempotencyKey, "it may have landed: the same key")
    }

    @Test func oneOperationPerEntityInFlightAndEnqueueOrderKept() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
        let firstEdit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 7))  // cannot coalesce into a sent op
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        try store.queue.complete(opID: firstEdit.opID, result: .succeeded(status: 200, row: nil))
        let second = try store.queue.claimEligible(limit: 10)
        #expect(second.count == 1)
        #expect(second[0].payload == ["reps": .int(7)])
    }

    @Test func unrelatedEntitiesDoNotWaitBehindAFailingOne() throws {
        let store = try makeStore()
        try store.workoutLog.createWorkout(name: "A")
        let op = try #require(try store.queue.claimEligible(limit: 1).first)
        try store.queue.complete(
            opID: op.opID,
            result: .transient(status: 500, error: "boom", retryAt: store.clock.now().addingTimeInterval(60)))
        try store.workoutLog.createWorkout(name: "B")
        #expect(try store.queue.claimEligible(limit: 10).count == 1)
    }

    @Test func eachUserClaimsOnlyTheirOwnQueue() throws {
        let alice = try makeStore(user: "alice")
        let bob = alice.forUser("bob")
        try alice.workoutLog.createWorkout(name: "Alice's")
        try bob.workoutLog.createWorkout(name: "Bob's")
        let claimedByBob = try bob.queue.claimEligible(limit: 10)
        #expect(claimedByBob.count == 1)
        #expect(claimedByBob[0].payload["name"] == .string("Bob's"))
        #expect(try alice.queries.queueCounts().pending == 1)
        #expect(try bob.queries.outbox(limit: 10).allSatisfy { $0.userID == "bob" })
    }

    @Test func twoConnectionsNeverClaimTheSameOperation() async throws {
        let path = temporaryDatabasePath()
        let first = try SpotterStore.open(path: path, userID: "alice")
        for index in 0..<200 { try first.workoutLog.createWorkout(name: "W\(index)") }
        let second = try SpotterStore.open(path: path, userID: "alice")
        async let a = Self.claimAll(first)
        async let b = Self.claimAll(second)
        let (claimedA, claimedB) = try await (a, b)
        #expect(Set(claimedA).isDisjoint(with: Set(claimedB)))
        #expect(claimedA.count + claimedB.count == 200)
    }

    static func claimAll(_ store: SpotterStore) async throws -> [String] {
        var claimed: [String] = []
        while true {
            let batch = try store.queue.claimEligible(limit: 7)
            if batch.isEmpty { return claimed }
            claimed += batch.map(\.opID)
            await Task.yield()
        }
    }

    @Test func anExpiredLeaseComesBack() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.workoutLog.createWorkout(name: "Pull")
        let op = try #require(try store.queue.claimEligible(limit: 10, lease: 30).first)
        clock.advance(by: 29)
        #expect(try store.queue.releaseExpiredLeases() == 0)
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        clock.advance(by: 2)
        #expect(try store.queue.releaseExpiredLeases() == 1)
        let again = try store.queue.claimEligible(limit: 10)
        #expect(again.map(\.opID) == [op.opID])
        #expect(again[0].idempotencyKey == op.idempotencyKey)
    }

    @Test func succeededHistoryIsPrunedToTheCap() throws {
        let store = try makeStore()
        for index in 0..<30 { try store.workoutLog.createWorkout(name: "W\(index)") }
        for op in try store.queue.claimEligible(limit: 100) {
            try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        }
        try store.queue.pruneSucceeded(keep: 10)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 10)
        #expect(try store.queries.queueCounts().pending == 0)
    }
}

@Suite("Completing operations: reconciliation and permanent failures")
struct CompletionTests {
    @Test func successAppliesTheServersCanonicalFieldsOnlyWhenNothingLaterIsQueued() throws {
        let store = try makeStore()
        let logged = try store.log(weight: 100.333, reps: 5)
        let workoutOp = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: workoutOp.opID, result: .succeeded(status: 201, row: nil))
        let setOp = try #require(try store.queue.claimEligible(limit: 10).first)
        var canonical = logged.set
        canonical.weight = 100.33
        let stamp = ServerStamp(serverVersion: 7, updatedAt: "2026-11-22T10:00:00.000Z")
        try store.queue.complete(opID: setOp.opID, result: .succeeded(status: 201, row: .set(canonical, stamp)))
        let row = try #require(try store.queries.set(id: logged.set.id))
        #expect(row.set.weight == 100.33)
        #expect(row.serverVersion == 7)
        #expect(row.syncState == .synced)
    }

    @Test func aLaterQueuedEditIsNotOverwrittenByAnEarlierAcknowledgement() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 8))
        try store.queue.complete(
            opID: edit.opID,
            result: .succeeded(status: 200, row: serverRow(logged.set, version: 9, reps: 6)))
        let row = try #require(try store.queries.set(id: logged.set.id))
        #expect(row.set.reps == 8)
        #expect(row.syncState == .pending)
    }

    @Test func aRejectedCreateStaysVisibleBlocksItsDependantsAndCanBeRetriedWithANewKey() throws {
        let store = try makeStore()
        let logged = try store.log()
        let workoutOp = try #require(try store.queue.claimEligible(limit: 10).first)
        let notices = try store.queue.complete(
            opID: workoutOp.opID, result: .permanent(status: 422, error: "name: too long"))
        #expect(notices.count == 1)
        let setOp = try #require(try store.operations().first { $0.entityType == .set })
        #expect(setOp.state == .blocked)
        #expect(try store.queries.workoutSummaries().first?.syncState == .rejected)
        #expect(try store.queries.set(id: logged.set.id)?.syncState == .rejected)
        #expect(try store.queries.queueCounts().failed == 1)
        #expect(try store.queries.queueCounts().blocked == 1)

        // Edit and retry.
        try store.workoutLog.editWorkout(id: logged.workout.id, changes: WorkoutChanges(name: "Fixed"))
        let ops = try store.operations()
        let newCreate = try #require(ops.first { $0.entityType == .workout })
        #expect(newCreate.kind == .create && newCreate.state == .pending)
        #expect(newCreate.idempotencyKey != workoutOp.idempotencyKey)
        #expect(newCreate.payload["name"] == .string("Fixed"))
        #expect(ops.first { $0.entityType == .set }?.state == .pending)
        #expect(try store.queries.queueCounts().failed == 0)
    }

    @Test func discardingARejectedCreateRemovesItAndWhatWaitedOnIt() throws {
        let store = try makeStore()
        let logged = try store.log()
        let workoutOp = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: workoutOp.opID, result: .permanent(status: 422, error: "nope"))
        try store.queue.discard(opID: workoutOp.opID)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 0)
        #expect(try store.queries.workout(id: logged.workout.id) == nil)
    }

    @Test func aRejectedUpdateRollsBackUnlessALaterEditTouchedTheField() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(weight: 120, reps: 6))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 9))
        let notices = try store.queue.complete(
            opID: edit.opID, result: .permanent(status: 422, error: "weight: too heavy"))
        #expect(notices.first?.message.contains("rolled back") == true)
        let row = try #require(try store.queries.set(id: logged.set.id))
        #expect(row.set.weight == 100)  // rolled back
        #expect(row.set.reps == 9)  // a later edit owns it
    }

    @Test func aRejectedDeleteBringsTheEntityBack() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.deleteSet(id: logged.set.id)
        #expect(try store.queries.sets(workoutID: logged.workout.id).isEmpty)
        let delete = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: delete.opID, result: .permanent(status: 403, error: "forbidden"))
        #expect(try store.queries.sets(workoutID: logged.workout.id).map(\.set.id) == [logged.set.id])
    }

    @Test func anUpdateOfAnEntityDeletedElsewhereRemovesItWithANotice() throws {
        let store = try makeStore()
        let logged = try sentSet(store)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 2))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        let notices = try store.queue.complete(opID: edit.opID, result: .permanent(status: 404, error: "not found"))
        #expect(notices.first?.message.contains("another device") == true)
        #expect(try store.queries.set(id: logged.set.id) == nil)
    }
}

@Suite("Favorites kept the middle-ground way")
struct FavoritesTests {
    @Test func togglingOfflineSendsAtMostOneCallPerExercise() throws {
        let store = try makeStore()
        #expect(try store.workoutLog.toggleFavorite(exercise: "squat (barbell)"))
        #expect(try store.queries.favorites() == ["Squat (Barbell)"])
        #expect(try !store.workoutLog.toggleFavorite(exercise: "Squat (Barbell)"))
        #expect(try store.workoutLog.toggleFavorite(exercise: "Squat (Barbell)"))
        let ops = try store.operations().filter { $0.entityType == .favorite }
        #expect(ops.count == 1)
        #expect(ops[0].kind == .create)
    }

    @Test func aPendingEntryLeavesOnlyWhenTheLatestTogglesCallFinishes() throws {
        let store = try makeStore()
        try store.workoutLog.toggleFavorite(exercise: "Deadlift (Barbell)")
        let put = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(try !store.workoutLog.toggleFavorite(exercise: "Deadlift (Barbell)"))  // unstar while the PUT is out
        try store.queue.complete(opID: put.opID, result: .succeeded(status: 204, row: nil))
        #expect(try store.queries.favorites().isEmpty)  // the pending removal still wins
        let delete = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: delete.opID, result: .succeeded(status: 204, row: nil))
        #expect(try store.queries.favorites().isEmpty)
        #expect(try store.count("SELECT COUNT(*) FROM favorite_pending") == 0)
    }
}

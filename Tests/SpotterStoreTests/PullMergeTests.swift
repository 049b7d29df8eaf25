import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterStore

/// The server's row of a set, as the feed and a write's answer carry it.
func serverRow(
    _ set: WorkoutSet, version: Int64, reps: Int? = nil, notes: String? = nil, deleted: Bool = false
) -> PulledEntity {
    let stamp = ServerStamp(serverVersion: version, updatedAt: "2026-11-23T10:00:00.000Z")
    if deleted { return .deletedSet(set.id, stamp) }
    var row = set
    if let reps { row.reps = reps }
    if let notes { row.notes = notes }
    return .set(row, stamp)
}

func serverRow(_ workout: Workout, version: Int64, name: String? = nil) -> PulledEntity {
    var row = workout
    if let name { row.name = name }
    return .workout(row, ServerStamp(serverVersion: version, updatedAt: "2026-11-23T10:00:00.000Z"))
}

func pulledSet(_ row: PulledEntity) throws -> PulledEntity { row }
func pulledWorkout(_ row: PulledEntity) throws -> PulledEntity { row }

/// Sends everything queued and answers each operation with the canonical row at a new version.
@discardableResult
func acknowledgeAll(_ store: SpotterStore, logged: LoggedSet, from version: Int64 = 1) throws -> Int64 {
    var version = version
    while case let ops = try store.queue.claimEligible(limit: 10), !ops.isEmpty {
        for op in ops {
            let body =
                op.entityType == .set
                ? serverRow(logged.set, version: version) : serverRow(logged.workout, version: version)
            try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: body))
            version += 1
        }
    }
    return version
}

@Suite("Pulled changes are never dropped")
struct PullMergeTests {
    @Test func aChangeThatArrivesWhileAnEditIsQueuedWinsOverAnOlderReplayedAnswer() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)  // workout v1, set v2
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(notes: "paused"))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        // Meanwhile another device set the reps; the server's row now has both changes (v4).
        try store.pull.mergePulled(
            [try pulledSet(serverRow(logged.set, version: 4, reps: 6, notes: "paused"))], cursor: "4")
        // Reps, which no queued edit touches, show the other device's value at once; the notes
        // being sent stay this device's until answered.
        #expect(try store.queries.set(id: logged.set.id)?.set.reps == 6, "an untouched field follows at once")
        #expect(try store.queries.set(id: logged.set.id)?.set.notes == "paused")
        // The edit's reply had been dropped; its retry replays the answer of the time (v3).
        try store.queue.complete(
            opID: edit.opID, result: .succeeded(status: 200, row: serverRow(logged.set, version: 3, notes: "paused")))
        let shown = try #require(try store.queries.set(id: logged.set.id))
        #expect(shown.set.reps == 6, "the other device's change is not lost")
        #expect(shown.set.notes == "paused")
        #expect(shown.serverVersion == 4)
        #expect(shown.syncState == .synced)
    }

    @Test func anAnswerNewerThanTheWaitingChangeIsTakenWhole() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.pull.mergePulled([try pulledSet(serverRow(logged.set, version: 3, notes: "paused"))], cursor: "3")
        try store.queue.complete(
            opID: edit.opID,
            result: .succeeded(status: 200, row: serverRow(logged.set, version: 4, reps: 6, notes: "paused")))
        let shown = try #require(try store.queries.set(id: logged.set.id))
        #expect(shown.set.reps == 6)
        #expect(shown.set.notes == "paused", "fields this device did not touch come from the server's row")
        #expect(shown.serverVersion == 4)
    }

    @Test func aDeleteFromElsewhereWaitsBehindAQueuedEditAndIsAppliedAfterIt() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 8))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.pull.mergePulled([try pulledSet(serverRow(logged.set, version: 5, deleted: true))], cursor: "5")
        #expect(try store.queries.set(id: logged.set.id) != nil)
        try store.queue.complete(
            opID: edit.opID, result: .succeeded(status: 200, row: serverRow(logged.set, version: 4)))
        #expect(try store.queries.set(id: logged.set.id) == nil, "the newer tombstone wins once nothing is queued")
    }

    @Test func aWorkoutDeletedElsewhereGoesOnceTheEditThatKeptItIsAnswered() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 9))
        let edit = try #require(try store.queue.claimEligible(limit: 10).first)
        // Another device deleted the workout (and with it the set) while the edit was queued.
        try store.pull.mergePulled(
            [
                try pulledSet(serverRow(logged.set, version: 5, deleted: true)),
                .deletedWorkout(logged.workout.id, ServerStamp(serverVersion: 6, updatedAt: nil)),
            ], cursor: "6")
        #expect(try store.queries.workout(id: logged.workout.id) != nil, "kept while its edited set is unresolved")
        try store.queue.complete(opID: edit.opID, result: .permanent(status: 404, error: "no such set"))
        #expect(try store.queries.set(id: logged.set.id) == nil)
        #expect(try store.count("SELECT COUNT(*) FROM workouts") == 0, "the workout goes once nothing holds it")
    }

    @Test func aSetThatArrivesBeforeItsWorkoutWaitsForIt() throws {
        let source = try makeStore()
        let logged = try source.log()
        let store = try makeStore()
        // The workout was renamed after the set was logged, so the feed carries the set first —
        // here on a page of its own, with the workout on the next.
        try store.pull.mergePulled([try pulledSet(serverRow(logged.set, version: 2))], cursor: "2")
        #expect(try store.queries.sets(workoutID: nil).isEmpty)
        try store.pull.mergePulled(
            [try pulledWorkout(serverRow(logged.workout, version: 3, name: "Leg Day"))], cursor: "3")
        let sets = try store.queries.sets(workoutID: logged.workout.id)
        #expect(sets.map(\.set.id) == [logged.set.id])
        #expect(sets.first?.syncState == .synced)
        #expect(try store.count("SELECT COUNT(*) FROM pulled_waiting") == 0)
    }

    /// Another client stored "Squat" (an alias of the catalogue's Squat (Barbell)) and a name
    /// the catalogue lacks: this device shows exactly what the server holds.
    @Test func aPulledSetKeepsTheServersExerciseName() throws {
        let source = try makeStore()
        let logged = try source.log()
        let store = try makeStore()
        var aliased = logged.set
        aliased.exercise = "Squat"
        var unknown = logged.set
        unknown.id = UUID()
        unknown.exercise = "Zercher Good Morning"
        try store.pull.mergePulled(
            [
                try pulledWorkout(serverRow(logged.workout, version: 1)), try pulledSet(serverRow(aliased, version: 2)),
                try pulledSet(serverRow(unknown, version: 3)),
            ], cursor: "3")
        let names = try store.queries.sets(workoutID: nil).map(\.set.exercise).sorted()
        #expect(names == ["Squat", "Zercher Good Morning"])
        #expect(try store.queries.exercises(matching: "Zercher").contains("Zercher Good Morning"))
    }

    @Test func aPulledSetDoesNotComeBackIntoAWorkoutDeletedHere() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        try store.pull.mergePulled([try pulledSet(serverRow(logged.set, version: 5, reps: 9))], cursor: "5")
        #expect(try store.queries.sets(workoutID: nil).isEmpty, "the set stays deleted with its workout")
        let delete = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: delete.opID, result: .succeeded(status: 204, row: nil))
        #expect(try store.count("SELECT COUNT(*) FROM workouts") == 0)
        #expect(try store.count("SELECT COUNT(*) FROM pulled_waiting") == 0, "nothing waits for a workout that is gone")
    }
}

/// A page's sets are written many rows a statement: what lands must be what one row at a time
/// gave, in the feed's order, with every refused row still named.
@Suite("A big page merges as row by row")
struct BigPageMergeTests {
    final class Reports: Sendable {
        private let rows = Mutex<[UnreadableRow]>([])
        func add(_ row: UnreadableRow) { rows.withLock { $0.append(row) } }
        var all: [UnreadableRow] { rows.withLock { $0 } }
    }

    @Test func setsAroundTombstonesAndARowHeldByAnotherAccountLandAsOneByOne() throws {
        var alice = try makeStore(user: "alice")
        let reports = Reports()
        alice.onUnreadable = { reports.add($0) }
        // Bob, on the same device, already holds a set whose id the feed also carries for alice.
        let bob = alice.forUser("bob")
        let bobs = try bob.log()
        try acknowledgeAll(bob, logged: bobs)
        let stamp = ServerStamp(serverVersion: nil, updatedAt: "2026-11-23T10:00:00.000Z")
        var version: Int64 = 0
        func next() -> ServerStamp {
            version += 1
            return ServerStamp(serverVersion: version, updatedAt: stamp.updatedAt)
        }
        let day = Workout(name: "Day", startedAt: Date(timeIntervalSince1970: 1_790_000_000))
        let gone = Workout(name: "Gone", startedAt: Date(timeIntervalSince1970: 1_790_000_000))
        func set(_ index: Int, of workout: Workout, id: UUID = UUID()) -> WorkoutSet {
            var set = bobs.set
            set.id = id
            set.workoutID = workout.id
            set.position = index + 1
            set.reps = 1 + index % 12
            set.notes = "set \(index)"
            return set
        }
        var page: [PulledEntity] = [.workout(day, next())]
        // 120 sets: two full statements and a part of one, Bob's id in the middle of the second.
        let daySets = (0..<120).map { set($0, of: day, id: $0 == 70 ? bobs.set.id : UUID()) }
        page += daySets.map { .set($0, next()) }
        // A tombstone after them in the same page deletes one still held back (the third statement).
        page.append(.deletedSet(daySets[110].id, next()))
        // A workout and its sets, then its tombstone: its sets go with it.
        page.append(.workout(gone, next()))
        page += (0..<5).map { .set(set($0, of: gone), next()) }
        page.append(.deletedWorkout(gone.id, next()))
        // After the tombstones, one more set of the live workout.
        let last = set(120, of: day)
        page.append(.set(last, next()))

        try alice.pull.mergePulled(page, cursor: "\(version)")

        let shown = try alice.queries.sets(workoutID: day.id)
        let expected = daySets.map(\.id).filter { $0 != daySets[110].id && $0 != bobs.set.id } + [last.id]
        #expect(Set(shown.map(\.set.id)) == Set(expected))
        #expect(shown.count == 119)
        #expect(shown.allSatisfy { $0.syncState == .synced })
        #expect(try alice.queries.set(id: daySets[10].id)?.set.notes == "set 10")
        #expect(try alice.queries.workout(id: gone.id) == nil)
        #expect(try alice.count("SELECT COUNT(*) FROM sets WHERE workout_id = ?", [gone.id.wireString]) == 0)
        #expect(reports.all.map(\.id) == [bobs.set.id.wireString], "the refused row is named, once")
        #expect(
            try bob.queries.set(id: bobs.set.id)?.set.notes == bobs.set.notes, "Bob's row untouched")
        #expect(try alice.preferences.meta(alice.pullCursorKey) == "\(version)")
    }

    @Test func aPageOfThousandsLeavesTheWritersSettingsAsTheyWere() throws {
        let store = try makeStore()
        let settings = { () throws -> [Int] in
            try store.writer.write { db in
                [
                    try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0,
                    try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 0,
                ]
            }
        }
        let before = try settings()
        let workout = Workout(name: "Volume", startedAt: Date(timeIntervalSince1970: 1_790_000_000))
        var page: [PulledEntity] = [.workout(workout, ServerStamp(serverVersion: 1, updatedAt: nil))]
        for index in 0..<1_500 {
            let set = WorkoutSet(
                workoutID: workout.id, exercise: "Squat (Barbell)", position: index + 1, weight: 100, unit: .kg,
                reps: 5, performedAt: workout.startedAt)
            page.append(.set(set, ServerStamp(serverVersion: Int64(index + 2), updatedAt: nil)))
        }
        #expect(try store.pull.mergePulled(page, cursor: "1501") == 1_501)
        #expect(try store.queries.sets(workoutID: workout.id).count == 1_500)
        #expect(try settings() == before, "the big page's cache and checkpoint settings are its own")
    }
}

@Suite("A create whose id the server already has")
struct TakenIDTests {
    /// The same file imported on another device first: this device's create is answered 409
    /// (id taken). The create is fulfilled, but an edit made here before it was sent is still
    /// the user's intent and goes out as an update. (The soak's seed 577467369.)
    @Test func editsCoalescedIntoTheCreateGoOutAsAnUpdate() throws {
        let store = try makeStore()
        let logged = try store.log()
        let workoutCreate = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: workoutCreate.opID, result: .succeeded(status: 201, row: nil))
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(rpe: 7.5, notes: "E86"))
        let create = try #require(try store.queue.claimEligible(limit: 10).first)
        #expect(create.kind == .create)
        try store.queue.complete(opID: create.opID, result: .succeeded(status: 409, row: nil))
        let resent = try store.queue.claimEligible(limit: 10)
        #expect(resent.map(\.kind) == [.update])
        #expect(resent.first?.payload == ["rpe": .double(7.5), "notes": .string("E86")])
        #expect(try store.queries.set(id: logged.set.id)?.set.notes == "E86", "the local edit stays while it is sent")
    }

    @Test func aCreateWithoutLaterEditsSendsNothingMore() throws {
        let store = try makeStore()
        try store.log()
        try acknowledgeAll(store, logged: try store.log())
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
    }
}

@Suite("Deletes of creates that may have landed; leases of dead processes")
struct UncertainOutcomeTests {
    @Test func deletingAWorkoutWhoseCreateGaveUpSendsTheDelete() throws {
        let store = try makeStore()
        let logged = try store.log()
        let create = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(
            opID: create.opID, result: .permanent(status: nil, error: "gave up after 20 attempts: timed out"))
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        let sent = try store.queue.claimEligible(limit: 10)
        #expect(sent.map(\.kind) == [.delete], "the delete goes out: the create may have reached the server")
        #expect(sent.first?.entityType == .workout)
        #expect(try store.queries.queueCounts().failed == 0, "the delete replaces the failed create as the intent")
        try store.queue.complete(opID: sent[0].opID, result: .succeeded(status: 404, row: nil))
        #expect(try store.count("SELECT COUNT(*) FROM workouts") == 0)
        #expect(try store.queries.queueCounts() == QueueCounts())
    }

    @Test func deletingAWorkoutTheServerRefusedSendsNothing() throws {
        let store = try makeStore()
        let logged = try store.log()
        let create = try #require(try store.queue.claimEligible(limit: 10).first)
        try store.queue.complete(opID: create.opID, result: .permanent(status: 422, error: "name: too long"))
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        #expect(try store.queue.claimEligible(limit: 10).isEmpty)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 0)
    }

    @Test func aLeaseHeldByAProcessThatIsGoneIsReleasedAtOnce() throws {
        let store = try makeStore()
        try store.workoutLog.createWorkout(name: "Legs")
        try store.workoutLog.createWorkout(name: "Arms")
        let claimed = try store.queue.claimEligible(limit: 10)
        #expect(claimed.count == 2)
        let finished = ChildProcess()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET lease_owner = ? WHERE op_id = ?",
                arguments: ["\(finished.processIdentifier):1", claimed[0].opID])
        }
        #expect(try store.queue.releaseExpiredLeases() == 1, "only the dead holder's lease is released")
        #expect(try store.queue.claimEligible(limit: 10).map(\.opID) == [claimed[0].opID])
    }

    @Test("a pulled change over a queued edit: untouched fields follow at once, the edited field stays until answered")
    func untouchedFieldsFollowAtOnce() throws {
        let store = try makeStore()
        let logged = try store.log()
        try acknowledgeAll(store, logged: logged)  // workout v1, set v2
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 8))
        // Another device changed the notes and, concurrently, the reps.
        let changed = try store.pull.mergePulled(
            [serverRow(logged.set, version: 4, reps: 6, notes: "wide grip")], cursor: "4")
        #expect(changed == 1, "the screen is told")
        let shown = try #require(try store.queries.set(id: logged.set.id))
        #expect(shown.set.notes == "wide grip")
        #expect(shown.set.reps == 8, "the queued edit's value stays until the server merges it")
        #expect(shown.syncState == .pending)
        // A queued create owns the whole row: nothing is merged into it.
        let fresh = try store.log()
        try store.pull.mergePulled([serverRow(fresh.set, version: 9, notes: "from elsewhere")], cursor: "9")
        #expect(try store.queries.set(id: fresh.set.id)?.set.notes == nil)
    }
}

import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// A batch's answers recorded in bulk leave exactly the rows the one-by-one path leaves; and
/// whatever is not the plain case is left to the one-by-one path, untouched.
@Suite("Recording a batch in bulk")
struct OutboxBulkTests {
    /// One database, copied: the same operations, ids and clock on both sides.
    struct Twins {
        let bulk: SpotterStore
        let oneByOne: SpotterStore
        let sets: [WorkoutSet]
        let workout: Workout
        let claimed: [OutboxOperation]
    }

    /// A workout the server has, six sets logged in it and claimed as one batch; `before`
    /// changes the device first (after the claim), as a user or the feed would.
    func twins(
        lifts: [String] = ["Squat (Barbell)", "Bench Press (Barbell)"], weighIn: Bool = false,
        before: (SpotterStore, [WorkoutSet], Workout) throws -> Void = { _, _, _ in }
    ) throws -> Twins {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        if weighIn {
            // A weigh-in before the sets, already on the server.
            try store.workoutLog.logBodyWeight(80, unit: .kg, at: clock.now().addingTimeInterval(-60))
            let create = try #require(try store.queue.claimEligible(limit: 1).first)
            try store.queue.complete(opID: create.opID, result: .succeeded(status: 201, row: nil))
        }
        var logged: [LoggedSet] = []
        for index in 0..<6 {
            logged.append(try store.log(lifts[index % lifts.count], reps: 5 + index))
        }
        let sets = logged.map(\.set)
        let workout = logged[0].workout
        let workoutCreate = try #require(try store.queue.claimEligible(limit: 1).first)
        try store.queue.complete(
            opID: workoutCreate.opID, result: .succeeded(status: 201, row: serverRow(workout, version: 1)))
        let claimed = try store.queue.claimEligible(limit: 100)
        #expect(claimed.count == 6)
        try before(store, sets, workout)
        clock.advance(by: 2)
        let copy = temporaryDatabasePath()
        try store.writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
        var oneByOne = try SpotterStore.open(path: copy, userID: store.userID, clock: clock)
        oneByOne.recordsInBulk = false
        return Twins(bulk: store, oneByOne: oneByOne, sets: sets, workout: workout, claimed: claimed)
    }

    /// Every table an answer can touch, row by row.
    func tables(_ store: SpotterStore) throws -> [String: [[DatabaseValue]]] {
        try store.writer.read { db in
            var dump: [String: [[DatabaseValue]]] = [:]
            for table in ["outbox", "sets", "workouts", "sync_latency", "pulled_waiting", "records_dirty", "exercises"]
            {
                dump[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map {
                    Array($0.databaseValues)
                }
            }
            return dump
        }
    }

    /// Whether the bulk path takes `outcomes` (asked inside a transaction that is then rolled back).
    func takenInBulk(_ store: SpotterStore, _ outcomes: [OperationOutcome]) throws -> Bool {
        let before = try tables(store)
        var taken = false
        try store.writer.writeWithoutTransaction { db in
            try db.inTransaction {
                taken = try store.queue.recordInBulk(outcomes, db: db, now: store.clock.now())
                return .rollback
            }
        }
        #expect(try tables(store) == before)
        return taken
    }

    func answers(_ twins: Twins, change: (inout WorkoutSet) -> Void = { _ in }) -> [OperationOutcome] {
        twins.claimed.enumerated().map { index, op in
            var set = twins.sets.first { $0.id.wireString == op.entityID }!
            if index == 3 { change(&set) }
            return OperationOutcome(
                opID: op.opID, result: .succeeded(status: 201, row: serverRow(set, version: Int64(10 + index))))
        }
    }

    /// Records `outcomes` on both twins and expects the same rows; returns the bulk side's tables.
    @discardableResult
    func expectSameRows(_ twins: Twins, _ outcomes: [OperationOutcome]) throws -> [String: [[DatabaseValue]]] {
        let bulkNotices = try twins.bulk.queue.complete(outcomes)
        let notices = try twins.oneByOne.queue.complete(outcomes)
        #expect(bulkNotices == notices)
        let bulk = try tables(twins.bulk)
        let reference = try tables(twins.oneByOne)
        for (table, rows) in reference {
            let mine = bulk[table] ?? []
            #expect(mine.count == rows.count, "rows in \(table)")
            for (taken, expected) in zip(mine, rows) where taken != expected {
                Issue.record("\(table): in bulk \(taken), one by one \(expected)")
                break
            }
        }
        return bulk
    }

    @Test func theUsualAnswerIsRecordedInBulkAndLeavesTheRowsTheOneByOnePathLeaves() throws {
        let twins = try twins()
        let outcomes = answers(twins)
        #expect(try takenInBulk(twins.bulk, outcomes))
        let rows = try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.queueCounts().pending == 0)
        #expect(rows["sync_latency"]?.count == 7, "the workout's and each set's")
        for (index, op) in twins.claimed.enumerated() {
            let shown = try #require(try twins.bulk.queries.set(id: UUID(wire: op.entityID)!))
            #expect(shown.serverVersion == Int64(10 + index))
            #expect(shown.syncState == .synced)
        }
    }

    /// A lift the body is part of keeps an estimate of its own here (none without a weigh-in
    /// before the set, else made from the body's weight): the server's answer, which carries no
    /// estimate, is still the row here, so its batch is recorded in bulk, leaving the rows the
    /// one-by-one path leaves — the estimate included.
    @Test(arguments: [false, true])
    func aBatchWithABodyWeightLiftIsRecordedInBulk(weighIn: Bool) throws {
        let twins = try twins(lifts: ["Pull Up", "Squat (Barbell)", "Chest Dip"], weighIn: weighIn)
        let outcomes = answers(twins)
        #expect(try takenInBulk(twins.bulk, outcomes))
        let rows = try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.queueCounts().pending == 0)
        #expect(rows["sync_latency"]?.count == (weighIn ? 8 : 7), "the weigh-in's, the workout's and each set's")
        let pullUp = try #require(twins.sets.first { $0.exercise == "Pull Up" })
        let estimate = try twins.bulk.writer.read { db in
            try Double.fetchOne(db, sql: "SELECT e1rm_kg FROM sets WHERE id = ?", arguments: [pullUp.id.wireString])
        }
        if weighIn {
            #expect(estimate != nil && estimate != pullUp.estimatedOneRepMaxKg, "made from the body's weight")
        } else {
            #expect(estimate == nil, "no weigh-in before the set: no estimate")
        }
    }

    @Test func anAnswerThatDiffersFromTheRowHereIsMergedOneByOne() throws {
        let twins = try twins()
        let outcomes = answers(twins) { $0.weight = 100.5 }  // the server holds other content
        #expect(try !takenInBulk(twins.bulk, outcomes))
        try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.set(id: twins.sets[3].id)?.set.weight == 100.5)
    }

    @Test func aLaterEditQueuedForOneSetKeepsTheBatchOneByOne() throws {
        let twins = try twins { store, sets, _ in
            try store.workoutLog.editSet(id: sets[4].id, changes: SetChanges(notes: "paused"))
        }
        let outcomes = answers(twins)
        #expect(try !takenInBulk(twins.bulk, outcomes))
        try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.set(id: twins.sets[4].id)?.set.notes == "paused", "the queued edit wins here")
    }

    @Test func aFailureInTheBatchKeepsItOneByOne() throws {
        let twins = try twins()
        var outcomes = answers(twins)
        outcomes[2].result = .permanent(status: 422, error: "reps: too many")
        #expect(try !takenInBulk(twins.bulk, outcomes))
        try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.queueCounts().failed == 1)
    }

    @Test func aWorkoutDeletedHereWhileItsSetsTravelledKeepsTheBatchOneByOne() throws {
        let twins = try twins { store, _, workout in try store.workoutLog.deleteWorkout(id: workout.id) }
        let outcomes = answers(twins)
        #expect(try !takenInBulk(twins.bulk, outcomes))
        try expectSameRows(twins, outcomes)
    }

    @Test func aChangeFromTheFeedWaitingForOneSetKeepsTheBatchOneByOne() throws {
        let twins = try twins { store, sets, _ in
            // Another device's edit, newer than the answers below: it waits while the create is out.
            try store.pull.mergePulled([serverRow(sets[1], version: 50, reps: 9)], cursor: "50")
        }
        let outcomes = answers(twins)
        #expect(try !takenInBulk(twins.bulk, outcomes))
        try expectSameRows(twins, outcomes)
        #expect(try twins.bulk.queries.set(id: twins.sets[1].id)?.set.reps == 9, "the newer change is taken")
    }

    @Test func aLateDuplicateAnswerKeepsTheBatchOneByOne() throws {
        let twins = try twins()
        let outcomes = answers(twins)
        try twins.bulk.queue.complete([outcomes[0]])
        try twins.oneByOne.queue.complete([outcomes[0]])
        #expect(try !takenInBulk(twins.bulk, outcomes), "one operation already has its answer")
        try expectSameRows(twins, outcomes)
    }
}

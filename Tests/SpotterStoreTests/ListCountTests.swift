import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

/// The UI's list is read without set counts; `spotter workouts` and the selected workout's
/// `liveSetCount` still count, and agree with the table read without any index.
@Suite("Workout list set counts")
struct ListCountTests {
    @Test("the list read without counts touches no set rows and says the counts are unknown")
    func uncountedListReadsNoSets() throws {
        let store = try makeStore()
        try store.log()
        let plan = try store.writer.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + store.queries.workoutSummariesSQL(countingSets: false),
                arguments: [200]
            ).map { $0["detail"] as String }
        }
        #expect(!plan.contains { $0.contains(" s ") || $0.contains("sets") }, "\(plan)")
        #expect(try store.queries.workoutSummaries(countingSets: false).map(\.setCount) == [nil])
        #expect(try store.queries.workoutSummaries().map(\.setCount) == [1])
    }

    @Test("counted and live counts match a full scan after logging, deleting, a rollback, an import and a pull")
    func countsMatchTheTable() throws {
        let store = try makeStore()
        func expectExact(_ step: String) throws {
            for summary in try store.queries.workoutSummaries(limit: 10_000) {
                let scanned = try store.count(
                    "SELECT COUNT(*) FROM sets NOT INDEXED WHERE workout_id = ? AND deleted_at IS NULL",
                    [summary.workout.id.wireString])
                #expect(summary.setCount == scanned, "\(step): \(summary.workout.name)")
                #expect(try store.queries.liveSetCount(workoutID: summary.workout.id) == scanned, "\(step)")
            }
        }
        let first = try store.log()
        let second = try store.log(weight: 105)
        try store.log(weight: 110)
        try store.workoutLog.deleteSet(id: first.set.id)
        try expectExact("logged three, deleted one")

        // A workout delete the server refuses is rolled back: its sets come back.
        try acknowledgeAll(store, logged: second)
        try store.workoutLog.deleteWorkout(id: second.workout.id)
        #expect(try store.queries.liveSetCount(workoutID: second.workout.id) == 0)
        for op in try store.queue.claimEligible(limit: 10) {
            try store.queue.complete(opID: op.opID, result: .permanent(status: 403, error: "refused"))
        }
        #expect(try store.queries.liveSetCount(workoutID: second.workout.id) == 2)
        try expectExact("workout delete rolled back")

        let parsed = try ImportParser.parse(
            """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2025-03-01 07:00:00,Legs,Squat (Barbell),1,100,5,0,0,,,
            2025-03-01 07:00:00,Legs,Squat (Barbell),2,100,5,0,0,,,
            2025-03-02 07:00:00,Pull,Pull Up,1,0,8,0,0,,,
            """)
        #expect(try store.workoutLog.importSets(parsed.sets).added == 3)
        try expectExact("imported")

        let remote = Workout(id: UUID(), name: "Remote", startedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let sets = (1...2).map { position in
            WorkoutSet(
                workoutID: remote.id, exercise: "Deadlift (Barbell)", position: position, weight: 180, reps: 3,
                performedAt: remote.startedAt.addingTimeInterval(Double(position) * 60))
        }
        try store.pull.mergePulled(
            [serverRow(remote, version: 50), serverRow(sets[0], version: 51), serverRow(sets[1], version: 52)],
            cursor: "52")
        #expect(try store.queries.liveSetCount(workoutID: remote.id) == 2)
        try store.pull.mergePulled([serverRow(sets[0], version: 53, deleted: true)], cursor: "53")
        #expect(try store.queries.liveSetCount(workoutID: remote.id) == 1)
        try expectExact("pulled")
    }
}

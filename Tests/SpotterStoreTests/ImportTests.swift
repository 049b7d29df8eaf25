import Foundation
import SpotterCore
import SpotterStore
import Testing

@Suite("Importing into the store")
struct ImportTests {
    func strongFile(rows: Int) -> String {
        var lines = ["Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE"]
        for index in 0..<rows {
            let day = index / 25
            let date = String(format: "2025-%02d-%02d 07:00:00", 1 + day / 28 % 12, 1 + day % 28)
            lines.append("\(date),Session \(day),Squat (Barbell),\(index % 25 + 1),\(100 + index % 7),5,0,0,,,")
        }
        return lines.joined(separator: "\n")
    }

    @Test func tenThousandRowsImportOnceEachWithTheirOperations() throws {
        let store = try makeStore()
        let parsed = try ImportParser.parse(strongFile(rows: 10_000))
        #expect(parsed.sets.count == 10_000)
        let first = try store.workoutLog.importSets(parsed.sets)
        #expect(first.added == 10_000)
        #expect(first.workoutsAdded == 400)
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 10_000)
        #expect(
            try store.count("SELECT COUNT(*) FROM outbox WHERE kind = 'create'") == 10_400,
            "imported sets sync like any other")

        let again = try store.workoutLog.importSets(parsed.sets)
        #expect(again.added == 0 && again.alreadyPresent == 10_000)
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 10_000)
        #expect(try store.count("SELECT COUNT(*) FROM outbox") == 10_400)
    }

    @Test func identicalRowsAreDistinctSetsButStillImportOnce() throws {
        let store = try makeStore()
        let text = """
            Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
            """
        let parsed = try ImportParser.parse(text)
        #expect(try store.workoutLog.importSets(parsed.sets).added == 3)
        #expect(try store.workoutLog.importSets(parsed.sets).added == 0)
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 3)
    }

    /// Imported under a token not yet verified, its workout renamed, the queue then moved to the
    /// account the server named: importing the file again (ids now derived for the account)
    /// still finds the workout, by its start, and adds nothing. (The soak's seed 204.)
    @Test func aFileImportedBeforeTheFirstSyncAndRenamedImportsAgainAsNothing() throws {
        let unverified = try makeStore(user: "unverified|http://127.0.0.1:8080|abc")
        let text = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-03-02 18:00:00,Push,Bench Press (Barbell),1,80,8,0,0,,,
            2026-03-02 18:00:00,Push,Bench Press (Barbell),2,85,6,0,0,,,
            """
        let parsed = try ImportParser.parse(text)
        #expect(try unverified.workoutLog.importSets(parsed.sets).added == 2)
        let workout = try #require(try unverified.queries.workoutSummaries().first)
        try unverified.workoutLog.editWorkout(id: workout.workout.id, changes: WorkoutChanges(name: "Push (heavy)"))
        let account = unverified.forUser("http://127.0.0.1:8080|alice")
        try account.accounts.reassign(from: [unverified.userID])
        #expect(try account.workoutLog.importSets(parsed.sets).added == 0)
        #expect(try account.count("SELECT COUNT(*) FROM sets") == 2)
        #expect(try account.count("SELECT COUNT(*) FROM workouts") == 1)
    }

    @Test func anExportImportsIntoAFreshDatabaseUnchangedAndIntoItsOwnAddsNothing() throws {
        let store = try makeStore()
        try store.log("Bench Press (Barbell)", weight: 100, reps: 5)
        try store.log("Bench Press (Barbell)", weight: 100, reps: 5)
        try store.log("Overhead Press (Barbell)", weight: 60, reps: 8)
        let csv = StrongExport.csv(try store.queries.exportRows())

        let parsed = try ImportParser.parse(csv)
        #expect(try store.workoutLog.importSets(parsed.sets).added == 0, "its own export adds nothing")

        let fresh = try makeStore()
        #expect(try fresh.workoutLog.importSets(parsed.sets).added == 3)
        #expect(StrongExport.csv(try fresh.queries.exportRows()) == csv)
    }
}

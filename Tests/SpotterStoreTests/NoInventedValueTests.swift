import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

@Suite("No read invents a value: an unreadable cell is an error naming its row")
struct NoInventedValueTests {
    @Test("a session whose sets' time does not read is reported, never dated 1970")
    func unreadableSessionDate() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)")
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE sets SET performed_at = 'last tuesday' WHERE id = ?", arguments: [logged.set.id.wireString]
            )
        }
        #expect {
            _ = try store.queries.exerciseSessions(exercise: "Squat (Barbell)", limit: 12)
        } throws: { error in
            "\(error)".contains(logged.workout.id.wireString) || "\(error)".contains(logged.set.id.wireString)
        }
    }

    @Test("an import that finds its workout under an id that is not one says so, and adds no set to a made-up id")
    func unreadableWorkoutIDOnImport() throws {
        let store = try makeStore()
        let text = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-04-08 16:50:00,Push,Bench Press (Barbell),1,100,5,0,0,,,
            """
        let parsed = try ImportParser.parse(text, timeZone: TimeZone(identifier: "UTC")!)
        #expect(try store.workoutLog.importSets(parsed.sets).added == 1)
        try store.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE workouts SET id = 'not an id' WHERE name = 'Push'")
            try db.execute(sql: "UPDATE sets SET workout_id = 'not an id'")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let again = try ImportParser.parse(
            text + "\n2026-04-08 16:50:00,Push,Bench Press (Barbell),2,105,5,0,0,,,",
            timeZone: TimeZone(identifier: "UTC")!)
        #expect {
            _ = try store.workoutLog.importSets(again.sets)
        } throws: { error in
            "\(error)".contains("not an id") && "\(error)".contains("workouts")
        }
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 1, "nothing added under a made-up id")
    }

    @Test("a set whose weight cell does not read is named by its id, and an edit of its reps traps nowhere")
    func unreadableWeightCellIsNamedNotTrappedOn() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)")
        let setKey = logged.set.id.wireString
        try store.writer.write { db in
            try db.execute(sql: "UPDATE sets SET weight = '10O' WHERE id = ?", arguments: [setKey])
        }
        // Read as its GRDB record, the row fails naming itself and the column.
        #expect {
            _ = try store.writer.read { db in try WorkoutSet.fetchOne(db, key: setKey) }
        } throws: { error in
            guard let unreadable = error as? UnreadableRow else { return false }
            return unreadable.table == "sets" && unreadable.id == setKey && unreadable.reason.contains("weight")
        }
        let create = try #require(try store.operations().first { $0.entityID == setKey })
        let preview = try store.queries.discardPreview(opID: create.opID)
        #expect(preview.summary.contains(String(setKey.prefix(8))), "\(preview.summary)")
        #expect(!preview.summary.contains(" kg"), "no weight or unit is made up: \(preview.summary)")
        // The edit either goes through (the estimate is then none) or names the row; it never traps.
        do {
            try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 6))
            #expect(try store.count("SELECT COUNT(*) FROM sets WHERE id = ? AND e1rm_kg IS NULL", [setKey]) == 1)
        } catch {
            #expect("\(error)".contains(setKey), "\(error)")
        }
    }

    @Test(
        "a set at a place past the last (a damaged row, a server that broke the rule) makes the next log a refusal, not a trap"
    )
    func aPlacePastTheLastIsRefusedNotOverflowed() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)")
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE sets SET position = ? WHERE id = ?", arguments: [Int64.max, logged.set.id.wireString])
        }
        #expect {
            try store.log("Squat (Barbell)")
        } throws: { error in
            "\(error)".contains("last place") && "\(error)".contains(logged.workout.name)
        }
        #expect(try store.count("SELECT COUNT(*) FROM sets") == 1, "nothing logged, nothing queued")
        #expect(try store.operations().count == 2, "the workout's and the first set's creates only")
        // A new workout takes the next set as usual.
        let next = try store.log("Squat (Barbell)", workout: .new(name: "Fresh"))
        #expect(next.set.position == 1)
    }
}

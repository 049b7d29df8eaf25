import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

/// Each synced entity is a GRDB record of the device's database whose columns are its one
/// definition (`Column`): what the write path stores is the record's encoding, the record reads
/// back what was logged, and GRDB's query interface takes the columns. (A cell that does not read
/// fails the fetch naming the row: `NoInventedValueTests`.)
@Suite("Each entity is a GRDB record of the device's database, its columns its one definition")
struct EntityRecordTests {
    /// Emoji with skin-tone and joiner sequences, stacked combining marks, Hebrew and Arabic.
    /// (Control characters and bidi overrides are refused before anything is written:
    /// `controlCharactersAreRefusedAndNothingIsStored`.)
    static let hostile = "👩🏽‍💻🏋️‍♀️ e\u{301}\u{302}\u{303} שלום עולם مرحبا"

    /// A store with one of each entity, the texts hostile where the entity has text.
    static func storeWithOneOfEach() throws -> (SpotterStore, LoggedSet, Routine, BodyWeight) {
        let store = try makeStore()
        let logged = try store.workoutLog.logSet(
            LogSetInput(
                exercise: "Squat (Barbell)", weight: 102.5, reps: 5, rpe: 8.5, notes: hostile))
        let routine = try store.routines.create(
            name: "Legs \(hostile)",
            exercises: [RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(reps: 5)])], notes: hostile,
            restSeconds: 150)
        let weighIn = try store.workoutLog.logBodyWeight(81.4, unit: .kg, notes: hostile)
        return (store, logged, routine, weighIn)
    }

    @Test("what was logged reads back whole as each entity's record, hostile text and all")
    func loggedEntitiesReadBackAsRecords() throws {
        let (store, logged, routine, weighIn) = try Self.storeWithOneOfEach()
        let read = try store.writer.read { db in
            (
                try WorkoutSet.fetchOne(db, key: logged.set.id.wireString),
                try Workout.fetchOne(db, key: logged.workout.id.wireString),
                try Routine.fetchOne(db, key: routine.id.wireString),
                try BodyWeight.fetchOne(db, key: weighIn.id.wireString)
            )
        }
        #expect(read.0 == logged.set)
        #expect(read.1 == logged.workout)
        #expect(read.2 == routine)
        #expect(read.3 == weighIn)
        #expect(logged.set.notes?.contains("👩🏽‍💻") == true, "the hostile note was kept, not emptied")
    }

    @Test("GRDB's query interface takes an entity's columns as they are defined")
    func queryInterfaceTakesTheColumns() throws {
        let (store, logged, _, _) = try Self.storeWithOneOfEach()
        try store.log("Bench Press (Barbell)", weight: 60, reps: 8)
        let squats = try store.writer.read { db in
            try WorkoutSet.filter(WorkoutSet.Column.exercise == "Squat (Barbell)")
                .order(WorkoutSet.Column.position).fetchAll(db)
        }
        #expect(squats == [logged.set])
        let heavy = try store.writer.read { db in
            try WorkoutSet.filter(WorkoutSet.Column.weight > 100).select(WorkoutSet.Column.exercise, as: String.self)
                .fetchAll(db)
        }
        #expect(heavy == ["Squat (Barbell)"])
    }

    @Test("every row the write path stores holds exactly its record's encoding in the entity's columns")
    func theWritePathStoresTheRecordsEncoding() throws {
        let (store, logged, routine, weighIn) = try Self.storeWithOneOfEach()
        func check<Record: EntityRecord>(_ record: Record, id: UUID) throws {
            let encoded = try record.databaseDictionary
            #expect(Set(encoded.keys) == Set(Record.Column.names), "the record encodes every column, no more")
            let stored = try store.writer.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Record.Column.columnList) FROM \(Record.databaseTableName) WHERE id = ?",
                    arguments: [id.wireString])
            }
            let row = try #require(stored)
            for column in Record.Column.allCases {
                #expect(
                    row[column.name] as DatabaseValue == encoded[column.name],
                    "\(Record.databaseTableName).\(column.name)")
            }
        }
        try check(logged.set, id: logged.set.id)
        try check(logged.workout, id: logged.workout.id)
        try check(routine, id: routine.id)
        try check(weighIn, id: weighIn.id)
    }

    @Test("the server's starred list is written and read as records: a name twice in another case is one star")
    func starredExercisesAreRecords() throws {
        let store = try makeStore()
        let names = ["Squat (Barbell)", "squat (barbell)", "Curl \(Self.hostile)"]
        try store.pull.replaceServerFavorites(names)
        let stored = try store.writer.read { db in try Favorite.order(Favorite.Column.exercise).fetchAll(db) }
        #expect(Set(stored) == [Favorite(exercise: "Squat (Barbell)"), Favorite(exercise: "Curl \(Self.hostile)")])
        #expect(Set(try store.queries.favorites()) == ["Squat (Barbell)", "Curl \(Self.hostile)"])
        // Unstarring one the server has queues its removal; starring it again cancels that.
        #expect(try store.workoutLog.toggleFavorite(exercise: "Squat (Barbell)") == false)
        #expect(try store.workoutLog.toggleFavorite(exercise: "Squat (Barbell)") == true)
        #expect(try store.operations().isEmpty)
    }

    @Test("a note with a bidi override or a bell is refused with its reason, and no record is stored")
    func controlCharactersAreRefusedAndNothingIsStored() throws {
        let store = try makeStore()
        for text in ["\u{202E}txet\u{202C}", "ding\u{7}"] {
            #expect {
                _ = try store.workoutLog.logSet(
                    LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5, notes: text))
            } throws: { error in
                "\(error)".contains("control characters")
            }
        }
        #expect(try store.writer.read { db in try WorkoutSet.fetchCount(db) } == 0)
        #expect(try store.writer.read { db in try Workout.fetchCount(db) } == 0)
    }

    @Test("a record selects its entity's columns only, not the device's bookkeeping beside them")
    func theSelectionIsTheEntitysColumns() throws {
        let store = try makeStore()
        try store.log("Squat (Barbell)")
        let columns = try store.writer.read { db in
            try Row.fetchOne(db, WorkoutSet.all()).map { Array($0.columnNames) }
        }
        #expect(columns == WorkoutSet.Column.names)
    }
}

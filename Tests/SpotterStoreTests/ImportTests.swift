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

    /// A Hevy file of lifts that differ from the catalogue's by implement, grip, load or movement.
    static let variantsCSV = #"""
        "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Ring Dip","","","0","normal","0","8","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Triceps Dip","","","0","normal","0","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Lying Leg Raise","","","0","normal","0","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Leg Raise Parallel Bars","","","0","normal","0","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Machine Bicep Curl","","","0","normal","30","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Seated Machine Curl","","","0","normal","30","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Triceps Pushdown","","","0","normal","25","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Tricep Pushdown","","","0","normal","25","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Low Bar Squat","","","0","normal","140","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","High Bar Squat","","","0","normal","120","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Barbell Glute Bridge","","","0","normal","100","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Walking Lunge (Dumbbell)","","","0","normal","20","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Leg Curl","","","0","normal","40","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Calf Raise","","","0","normal","60","15","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Back Squat","","","0","normal","130","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Rope Pushdown","","","0","normal","20","12","","",""
        """#

    static let variants = [
        "Ring Dip", "Lying Leg Raise", "Leg Raise Parallel Bars", "Machine Bicep Curl", "Seated Machine Curl",
        "Triceps Pushdown", "Tricep Pushdown", "Low Bar Squat", "High Bar Squat", "Barbell Glute Bridge",
        "Walking Lunge (Dumbbell)", "Leg Curl", "Calf Raise",
    ]

    @Test func variantsOfALiftStayApartAndOnlyTheSameLiftIsMapped() throws {
        let store = try makeStore()
        let result = try store.workoutLog.importSets(try ImportParser.parse(Self.variantsCSV).sets)
        #expect(result.added == 16)
        let names = try store.queries.sets(workoutID: nil).map(\.set.exercise)
        for variant in Self.variants {
            #expect(names.contains(variant), "\(variant) is its own exercise: \(names)")
        }
        for merged in ["Leg Raise", "Preacher Curl (Machine)", "Triceps Pushdown (Cable - Straight Bar)"] {
            #expect(!names.contains(merged), "nothing merged into \(merged): \(names)")
        }
        #expect(names.filter { $0 == "Triceps Dip" }.count == 1, "only the file's own Triceps Dip")
        #expect(names.filter { $0 == "Squat (Barbell)" }.count == 1, "only Back Squat is Squat (Barbell)")
        #expect(
            result.mapped == [
                "Back Squat": .init(to: "Squat (Barbell)", rows: 1),
                "Rope Pushdown": .init(to: "Triceps Rope Pushdown", rows: 1),
            ])
        #expect(Set(result.customCreated) == Set(Self.variants))
    }

    /// Names that read as a catalogue name on screen but differ in bytes: a no-break space, two
    /// spaces, a word joiner, an emoji variation selector, a full-width letter. Each is that lift,
    /// said as a mapping; none is a custom exercise that splits its history.
    @Test func namesThatOnlyLookLikeALiftAreThatLiftAndSaidSo() throws {
        let lookalikes = [
            "Bench\u{00A0}Press (Barbell)", "Bench  Press (Barbell)", "Bench Press (Barbell)\u{2060}",
            "Bench Press (Barbell)\u{FE0F}", "\u{FF22}ench Press (Barbell)", "Bench\u{200B} Press (Barbell)",
        ]
        var lines = ["Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE"]
        for (index, name) in lookalikes.enumerated() {
            lines.append("2026-04-08 16:50:00,Push,\"\(name)\",\(index + 1),100,5,0,0,,,")
        }
        let store = try makeStore()
        let result = try store.workoutLog.importSets(try ImportParser.parse(lines.joined(separator: "\n")).sets)
        #expect(result.added == lookalikes.count)
        #expect(result.customCreated.isEmpty, "\(result.customCreated)")
        #expect(Set(try store.queries.sets(workoutID: nil).map(\.set.exercise)) == ["Bench Press (Barbell)"])
        #expect(result.mapped.values.allSatisfy { $0.to == "Bench Press (Barbell)" }, "\(result.mapped)")
        // Logged by hand the same way.
        let logged = try store.workoutLog.logSet(
            LogSetInput(exercise: "\u{FF22}ench\u{00A0}Press (Barbell)", weight: 100, reps: 5))
        #expect(logged.set.exercise == "Bench Press (Barbell)")
        // A name that is really different stays its own.
        let other = try store.workoutLog.logSet(LogSetInput(exercise: "Bench Press (Barbel)", weight: 100, reps: 5))
        #expect(other.set.exercise == "Bench Press (Barbel)")
    }

    @Test func mappedCountsOnlyTheRowsImportedNotTheRowsAlreadyHere() throws {
        let store = try makeStore()
        let first =
            "Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time\n"
            + "2026-04-11,Back Squat,Legs,140.0,5,,,"
        _ = try store.workoutLog.importSets(try ImportParser.parse(first).sets)
        let again = first + "\n2026-04-11,Back Squat,Legs,145.0,5,,,\n2026-04-11,Back Squat,Legs,150.0,3,,,"
        let result = try store.workoutLog.importSets(try ImportParser.parse(again).sets)
        #expect(result.added == 2 && result.alreadyPresent == 1)
        #expect(result.mapped == ["Back Squat": .init(to: "Squat (Barbell)", rows: 2)], "\(result.mapped)")
        let nothingNew = try store.workoutLog.importSets(try ImportParser.parse(again).sets)
        #expect(nothingNew.added == 0 && nothingNew.mapped.isEmpty, "\(nothingNew.mapped)")
    }

    @Test("an imported workout ends when the file says it did (Strong's Duration, Hevy's end_time), and syncs so")
    func importedWorkoutsAreFinished() throws {
        let utc = TimeZone(identifier: "UTC")!
        let strong = """
            Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,RPE
            2026-01-02 07:00:00,Legs,1h 2m,Squat (Barbell),1,140,5,,,
            2026-01-03 07:00:00,Arms,soon,Curl (Dumbbell),1,20,10,,,
            """
        let hevy = #"""
            "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
            "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Pull Up","","","0","normal","","8","","",""
            "Push","9 Apr 2026, 16:50","9 Apr 2026, 16:40","","Bench Press (Barbell)","","","0","normal","80","5","","",""
            """#
        let store = try makeStore()
        for text in [strong, hevy] {
            let parsed = try ImportParser.parse(text, timeZone: utc)
            #expect(parsed.problems.isEmpty, "a length that does not read is no problem of the set")
            #expect(try store.workoutLog.importSets(parsed.sets).added == 2)
        }
        let byName = Dictionary(
            uniqueKeysWithValues: try store.queries.workoutSummaries().map { ($0.workout.name, $0.workout) })
        func minutes(_ name: String) -> Double? {
            byName[name].flatMap { workout in workout.endedAt.map { $0.timeIntervalSince(workout.startedAt) / 60 } }
        }
        #expect(minutes("Legs") == 62)
        #expect(minutes("Pull") == 50)
        #expect(byName["Arms"]?.endedAt == nil, "a length that does not read leaves the workout open")
        #expect(byName["Push"]?.endedAt == nil, "an end before the start is not taken")
        let create = try #require(
            try store.operations().first { $0.entityType == .workout && $0.entityID == byName["Legs"]?.id.wireString })
        #expect(create.payload["ended_at"] != nil, "the end goes to the server with the workout")
    }

    @Test("a file without units imported again with the other --unit adds nothing, and says those rows are here")
    func theOtherUnitDoesNotDoubleAnImport() throws {
        let store = try makeStore()
        let text = strongFile(rows: 12)
        let first = try store.workoutLog.importSets(try ImportParser.parse(text, defaultUnit: .kg).sets)
        #expect(first.added == 12)
        let again = try store.workoutLog.importSets(try ImportParser.parse(text, defaultUnit: .lb).sets)
        #expect(again.added == 0 && again.presentInOtherUnit == 12, "\(again)")
        #expect(try store.queries.sets(workoutID: nil).count == 12)
        #expect(try store.queries.sets(workoutID: nil).allSatisfy { $0.set.unit == .kg }, "what was there stays")
        // A file that names its unit is another set when the unit differs.
        let stated = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps
            2026-01-02 07:00:00,Legs,Squat (Barbell),1,100,kg,5
            2026-01-02 07:00:00,Legs,Squat (Barbell),2,100,lbs,5
            """
        #expect(try store.workoutLog.importSets(try ImportParser.parse(stated).sets).added == 2)
    }

    @Test(
        "a FitNotes comment is the set's note; the file imported again, or as an earlier version read it, adds nothing")
    func fitNotesCommentsAreKeptWithoutDoubling() throws {
        let utc = TimeZone(identifier: "UTC")!
        let text = """
            Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time,Comment
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,,"deep, slow 👩🏽‍💻"
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,,
            2026-04-11,Deadlift (Barbell),Back,190.0,1,,,,grind\u{7}
            """
        let store = try makeStore()
        // As an earlier version imported it: no comment read.
        var earlier = try ImportParser.parse(text, timeZone: utc).sets
        for index in earlier.indices { earlier[index].comment = nil }
        #expect(try store.workoutLog.importSets(earlier).added == 3)
        let again = try store.workoutLog.importSets(try ImportParser.parse(text, timeZone: utc).sets)
        #expect(again.added == 0 && again.alreadyPresent == 3, "\(again)")

        let fresh = try makeStore()
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.cleanedLines == [4], "the bell is taken out of the comment, and the line named")
        #expect(try fresh.workoutLog.importSets(parsed.sets).added == 3)
        let notes = try fresh.queries.sets(workoutID: nil).map(\.set.notes)
        #expect(notes.contains("deep, slow 👩🏽‍💻") && notes.contains("grind"), "\(notes)")
        #expect(try fresh.workoutLog.importSets(parsed.sets).added == 0)
    }

    @Test func aDryRunWritesNoSetWorkoutExerciseOrOperation() throws {
        let store = try makeStore()
        try store.log("Deadlift (Barbell)", weight: 180, reps: 5)
        let workouts = try store.queries.workoutSummaries()
        let exercises = try store.queries.exerciseList(customOnly: false)
        let operations = try store.operations()
        let sets = try store.queries.sets(workoutID: nil)
        let dry = try store.workoutLog.importSets(try ImportParser.parse(Self.variantsCSV).sets, dryRun: true)
        #expect(dry.added == 16 && dry.workoutsAdded == 1 && dry.customCreated.count == Self.variants.count)
        #expect(dry.mapped["Back Squat"]?.rows == 1)
        #expect(try store.queries.sets(workoutID: nil) == sets)
        #expect(try store.queries.workoutSummaries() == workouts)
        #expect(try store.queries.exerciseList(customOnly: false) == exercises)
        #expect(try store.operations() == operations)
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

    @Test("a weight of three decimals is stored as a typed one is; the file and its export import as nothing new")
    func importedWeightsAreKeptToHundredths() throws {
        let store = try makeStore()
        let text = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-03-02 18:00:00,Push,Bench Press (Barbell),1,100.005,kg,5,,,,,
            2026-03-02 18:00:00,Push,Bench Press (Barbell),2,22.6796,kg,5,,,,,
            """
        #expect(try store.workoutLog.importSets(try ImportParser.parse(text).sets).added == 2)
        let weights = try store.queries.sets(workoutID: nil).map(\.set.weight).sorted()
        #expect(weights == [22.68, Validation.keptWeight(100.005)], "\(weights)")
        #expect(try store.workoutLog.importSets(try ImportParser.parse(text).sets).added == 0, "the file again")
        let export = StrongExport.csv(try store.queries.exportRows())
        #expect(try store.workoutLog.importSets(try ImportParser.parse(export).sets).added == 0, "its export")
        #expect(Validation.keptWeight(100.005) == LogSetInput(exercise: "x", weight: 100.005, reps: 1).weight)
    }

    @Test("supersets and the notes on a workout's exercises come back from an export; a second import adds nothing")
    func anExportKeepsSupersetsAndExerciseNotes() throws {
        let store = try makeStore()
        let first = try store.workoutLog.logSet(LogSetInput(exercise: "Leg Press", weight: 140, reps: 10))
        try store.workoutLog.logSet(LogSetInput(exercise: "Leg Curl (Machine)", weight: 40, reps: 12, superset: true))
        try store.workoutLog.logSet(LogSetInput(exercise: "Leg Press", weight: 150, reps: 8))
        let note = "Seat 7, feet high 👣🏽\n\"slow\", e\u{301}"
        try store.workoutLog.editWorkout(
            id: first.workout.id, changes: WorkoutChanges(exerciseNote: (exercise: first.set.exercise, note: note)))
        // Finished within a second of its start: the export's Duration is 0, and it reads back finished.
        try store.workoutLog.editWorkout(
            id: first.workout.id, changes: WorkoutChanges(endedAt: first.workout.startedAt.addingTimeInterval(0.004)))
        let sets = try store.queries.sets(workoutID: first.workout.id).map(\.set)
        #expect(sets.compactMap(\.superset).count == 3, "the press and the curl are one superset: \(sets)")
        let csv = StrongExport.csv(try store.queries.exportRows())

        let fresh = try makeStore()
        #expect(try fresh.workoutLog.importSets(try ImportParser.parse(csv).sets).added == 3)
        let workout = try #require(try fresh.queries.workoutSummaries().first?.workout)
        #expect(workout.exerciseNotes == [first.set.exercise: note])
        #expect(workout.endedAt != nil, "finished, as it was")
        let back = try fresh.queries.sets(workoutID: workout.id).map(\.set)
        #expect(back.map(\.superset) == sets.map(\.superset))
        #expect(StrongExport.csv(try fresh.queries.exportRows()) == csv, "and its export is the same file")
        #expect(try fresh.workoutLog.importSets(try ImportParser.parse(csv).sets).added == 0)
        #expect(try store.workoutLog.importSets(try ImportParser.parse(csv).sets).added == 0)
    }
}

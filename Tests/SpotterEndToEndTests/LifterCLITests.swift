import Foundation
import Testing

/// Issue 12, defects 5 and 10: the command line a lifter scripts.
@Suite("The lifter's command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct LifterCLITests {
    static func log(_ db: String, _ exercise: String, _ weight: String, _ reps: String) async throws {
        let result = try await SpotterBinary.run(
            ["log", "--exercise", exercise, "--weight", weight, "--reps", reps], db: db)
        #expect(result.status == 0, "log: \(result.stderr)")
    }

    /// `sets` may open the file read-only and cannot recompute anything: an edit or a delete made
    /// from the command line leaves the records right by itself.
    @Test func recordsFollowAnEditAndADeleteMadeFromTheCommandLine() async throws {
        let db = SpotterBinary.temporaryDatabase()
        var ids: [String] = []
        for weight in ["100", "110", "105"] {
            let result = try await SpotterBinary.run(
                ["log", "--exercise", "Bench Press (Barbell)", "--weight", weight, "--reps", "5"], db: db)
            #expect(result.status == 0, "log: \(result.stderr)")
            ids.append(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        func badges() async throws -> [String: Bool] {
            let listing = try await SpotterBinary.run(["sets"], db: db).stdout
            var marked: [String: Bool] = [:]
            for line in listing.split(separator: "\n") {
                if let id = ids.first(where: { line.hasPrefix($0) }) { marked[id] = line.contains(" PR") }
            }
            return marked
        }
        #expect(try await badges() == [ids[0]: false, ids[1]: true, ids[2]: false])

        let edit = try await SpotterBinary.run(["edit", ids[1], "--weight", "90"], db: db)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(
            try await badges() == [ids[0]: false, ids[1]: false, ids[2]: true],
            "the typo fixed to 90 kg is no record; 105 kg now is")

        let delete = try await SpotterBinary.run(["delete", ids[2]], db: db)
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(try await badges() == [ids[0]: false, ids[1]: false], "with 105 kg gone, 90 kg beats nothing")
    }

    /// README's own example: "squat" typed at the command line is the catalogue's Squat (Barbell),
    /// as on import, for logging and for a rest setting alike: no custom "squat" splits the history.
    @Test func namesFromTheAppsDefaultListsFindTheCatalogue() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await Self.log(db, "squat", "100", "5")
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [[String: Any]])?.first?["exercise"] as? String == "Squat (Barbell)")
        #expect(try await Self.customExercises(db).isEmpty, "no custom exercise")

        let rest = try await SpotterBinary.run(["config", "rest", "150", "--exercise", "squat"], db: db)
        #expect(rest.status == 0, "\(rest.stderr)")
        let shown = try await SpotterBinary.run(["config", "show"], db: db).stdout.lowercased()
        #expect(shown.contains("squat (barbell)") && shown.contains("150"), "\(shown)")
        #expect(
            shown.split(separator: "\n").filter { $0.contains("squat") }.count == 1,
            "one rule, for the catalogue's name: \(shown)")
    }

    /// A value the parser refuses (`--format wrong`) is one line too, with the pointer to the help on it.
    @Test func anUnknownFormatIsOneLineAndExitTwo() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let result = try await SpotterBinary.run(["import", "/nonexistent.csv", "--format", "wrong"], db: db)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(result.stderr.contains("'wrong'") && result.stderr.contains("spotter --help"))
    }

    /// The server keeps weights to two decimals; a device that kept "100.005" as typed showed
    /// 100 kg, held 100.01 after its sync, and then refused to undo the log as "changed since".
    @Test func aWeightWithThreeDecimalsIsKeptAsTheServerKeepsIt() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100.005", "--reps", "2"], db: db)
        #expect(logged.status == 0, "\(logged.stderr)")
        let before = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect(before.stdout.contains("\"weight\":100.01"), "stored as the server will keep it: \(before.stdout)")
        #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
        let after = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect(after.stdout.contains("\"weight\":100.01") && after.stdout.contains("\"synced\""), "\(after.stdout)")
        let undo = try await SpotterBinary.run(["undo"], db: db)
        #expect(undo.status == 0, "the sync changed nothing, so the log is undone: \(undo.stderr)")
        #expect(undo.stdout.contains("100.01 kg"), "\(undo.stdout)")
    }

    @Test func aNegativeRestSaysTheRangeNotMissingArgument() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let result = try await SpotterBinary.run(["config", "rest", "-5"], db: db)
        #expect(result.status == 2)
        #expect(result.stderr.contains("from 0 to 3600") && !result.stderr.contains("Missing"), "\(result.stderr)")
        let shown = try await SpotterBinary.run(["config", "show"], db: db)
        #expect(shown.stdout.contains("rest 90 s"), "nothing changed: \(shown.stdout)")
    }

    @Test func importWithTheWrongFormatIsOneLineAndExitTwo() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("strong.csv")
        var lines = ["Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE"]
        for index in 1...208 { lines.append("2026-04-08 16:50:00,A,Bench Press (Barbell),\(index),100,5,0,0,,,") }
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let result = try await SpotterBinary.run(["import", file.path, "--format", "fitnotes"], db: db)
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 1, "one line: \(result.stderr)")
        #expect(result.stderr.contains("not a fitnotes export") && result.stderr.contains("strong"))
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [Any])?.isEmpty == true, "nothing imported")
    }

    @Test func aNegativeWeightSaysWeightsCannotBeNegative() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let result = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "-5", "--reps", "5"], db: db)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("spotter: weights cannot be negative"), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test func statsAsJSONAndASuggestionForAShortName() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await Self.log(db, "Bench Press (Barbell)", "100", "5")
        try await Self.log(db, "Bench Press (Barbell)", "18", "1000")
        let stats = try SpotterBinary.json(try await SpotterBinary.run(["stats", "--json"], db: db).stdout)
        let records = try #require(stats["records"] as? [[String: Any]])
        #expect(records.first?["exercise"] as? String == "Bench Press (Barbell)")
        #expect(records.first?["best_e1rm_kg"] as? Double == 116.7, "18 kg × 1000 estimates nothing")
        #expect((stats["weekly_volume"] as? [Any])?.count == 1)

        let missing = try await SpotterBinary.run(["stats", "--exercise", "bench"], db: db)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("did you mean Bench Press (Barbell)?"), "\(missing.stderr)")
    }

    @Test func starUnstarAndStarsGoThroughTheUIsToggle() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        var result = try await SpotterBinary.run(["star", "bench press (barbell)"], db: db)
        #expect(result.status == 0 && result.stdout == "starred Bench Press (Barbell)\n")
        result = try await SpotterBinary.run(["star", "Bench Press (Barbell)"], db: db)
        #expect(result.stdout == "Bench Press (Barbell) is already starred\n")
        // Seventeen offline changes in all: still at most one queued operation.
        for index in 0..<16 {
            try await SpotterBinary.run([index % 2 == 0 ? "unstar" : "star", "Bench Press (Barbell)"], db: db)
        }
        let outbox = try SpotterBinary.json(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout)
        let ops = try #require(outbox["operations"] as? [[String: Any]])
        #expect(ops.filter { $0["entity_type"] as? String == "favorite" }.count <= 1)
        let stars = try SpotterBinary.json(try await SpotterBinary.run(["stars", "--json"], db: db).stdout)
        let list = try #require(stars["stars"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["exercise"] as? String == "Bench Press (Barbell)")
        #expect(list.first?["sync_state"] as? String == "pending")
        result = try await SpotterBinary.run(["star", "benchh"], db: db)
        #expect(result.status == 2 && result.stderr.contains("no exercise named 'benchh'"))
    }

    @Test func exercisesMergeMovesACustomExercisesSets() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await Self.log(db, "Squats", "100", "5")
        try await Self.log(db, "Squats", "105", "5")
        let merged = try await SpotterBinary.run(["exercises", "merge", "squats", "Squat (Barbell)"], db: db)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.hasPrefix("merged Squats into Squat (Barbell): 2 sets queued to sync"))
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect(
            (sets["sets"] as? [[String: Any]])?.allSatisfy { $0["exercise"] as? String == "Squat (Barbell)" } == true)
        #expect(try await Self.customExercises(db).isEmpty)
    }

    @Test("log --exercise: a name matching several lifts exits 2 listing them; one match is taken; --custom makes one")
    func ambiguousExerciseNames() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let ambiguous = try await SpotterBinary.run(
            ["log", "--exercise", "bench", "--weight", "60", "--reps", "5"], db: db)
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("'bench' matches several exercises"), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("Bench Press (Barbell)") && ambiguous.stderr.contains("--custom"))
        #expect(try await Self.customExercises(db).isEmpty, "nothing was made")
        // One match is that lift.
        let one = try await SpotterBinary.run(
            ["log", "--exercise", "hip thrust", "--weight", "60", "--reps", "5"], db: db)
        #expect(one.status == 0, "\(one.stderr)")
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [[String: Any]])?.first?["exercise"] as? String == "Hip Thrust (Barbell)")
        // --custom makes the new lift on purpose, and says so.
        let custom = try await SpotterBinary.run(
            ["log", "--exercise", "bench", "--custom", "--weight", "20", "--reps", "10"], db: db)
        #expect(custom.status == 0, "\(custom.stderr)")
        #expect(custom.stderr.contains("new custom exercise 'bench'"))
        #expect(try await Self.customExercises(db) == ["bench"], "the new lift exists afterwards")
    }

    /// The custom exercises' names, from `exercises list --custom --json` (which must succeed).
    static func customExercises(_ db: String) async throws -> [String] {
        let result = try await SpotterBinary.run(["exercises", "list", "--custom", "--json"], db: db)
        #expect(result.status == 0, "exercises list: \(result.stderr)")
        let rows = try #require(try SpotterBinary.json(result.stdout)["exercises"] as? [[String: Any]])
        return rows.compactMap { $0["name"] as? String }
    }

    @Test("edit SET --exercise takes a name as log does: several matches exit 2, one is taken, --custom makes one")
    func editExerciseResolvesLikeLog() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "60", "--reps", "5"], db: db)
        #expect(logged.status == 0, "\(logged.stderr)")
        let id = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func exercise() async throws -> String? {
            let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
            return (sets["sets"] as? [[String: Any]])?.first?["exercise"] as? String
        }

        let ambiguous = try await SpotterBinary.run(["edit", id, "--exercise", "bench"], db: db)
        #expect(ambiguous.status == 2, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("'bench' matches several exercises"), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("Bench Press (Barbell)") && ambiguous.stderr.contains("--custom"))
        #expect(try await exercise() == "Squat (Barbell)", "the refused edit changed nothing")
        #expect(try await Self.customExercises(db).isEmpty)

        let alias = try await SpotterBinary.run(["edit", id, "--exercise", "bench press"], db: db)
        #expect(alias.status == 0, "\(alias.stderr)")
        #expect(try await exercise() == "Bench Press (Barbell)", "a catalogue name or alias is that lift")

        let one = try await SpotterBinary.run(["edit", id, "--exercise", "hip thrust"], db: db)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try await exercise() == "Hip Thrust (Barbell)")
        #expect(try await Self.customExercises(db).isEmpty)

        let custom = try await SpotterBinary.run(["edit", id, "--exercise", "bench", "--custom"], db: db)
        #expect(custom.status == 0, "\(custom.stderr)")
        #expect(custom.stderr.contains("new custom exercise 'bench'"))
        #expect(try await exercise() == "bench")
        #expect(try await Self.customExercises(db) == ["bench"])

        // The custom exercise is now known: named again, it is taken as it is, without --custom.
        let again = try await SpotterBinary.run(["edit", id, "--exercise", "BENCH"], db: db)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await exercise() == "bench")
    }

    @Test("routine add --exercise takes a name as log does: several matches exit 2, one is taken, --custom makes one")
    func routineAddResolvesLikeLog() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let created = try await SpotterBinary.run(["routine", "create", "Push A"], db: db)
        #expect(created.status == 0, "\(created.stderr)")
        func add(_ name: String, _ extra: [String] = []) async throws -> SpotterBinary.Result {
            try await SpotterBinary.run(
                ["routine", "add", "Push A", "--exercise", name, "--reps", "5", "--weight", "60"] + extra, db: db)
        }
        let ambiguous = try await add("bench")
        #expect(ambiguous.status == 2, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("Bench Press (Barbell)") && ambiguous.stderr.contains("--custom"))
        #expect(try await Self.customExercises(db).isEmpty)

        let squat = try await add("squat")
        #expect(squat.status == 0, "\(squat.stderr)")
        #expect(squat.stdout.contains("Squat (Barbell)"), "\(squat.stdout)")
        let one = try await add("hip thrust")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("Hip Thrust (Barbell)"), "\(one.stdout)")
        let custom = try await add("bench", ["--custom"])
        #expect(custom.status == 0, "\(custom.stderr)")
        #expect(custom.stderr.contains("new custom exercise 'bench'"))

        let shown = try await SpotterBinary.run(["routine", "show", "Push A"], db: db)
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("1. Squat (Barbell)") }, "\(shown.stdout)")
        #expect(lines.contains { $0.hasPrefix("2. Hip Thrust (Barbell)") }, "\(shown.stdout)")
        #expect(lines.contains { $0 == "3. bench" }, "\(shown.stdout)")
    }

    static let variantsCSV = #"""
        "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Power Snatch","","","0","normal","50","3","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Snatch (Barbell)","","","0","normal","60","2","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Pull Up (Weighted)","","","0","normal","10","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Crunch (Machine)","","","0","normal","40","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Hanging Knee Raise","","","0","normal","","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Seated Cable Row - V Grip (Cable)","","","0","normal","60","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Seated Cable Row - Bar Grip","","","0","normal","55","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Bench Press","","","0","normal","80","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Triceps Rope Pushdown","","","0","normal","20","12","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Triceps Rope Pushdown","","","1","dropset","15","10","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Squat (Barbell)","","","0","normal","100","5","","",""
        "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Triceps Rope Pushdown","","","0","normal","25","8","","",""
        """#

    @Test("a file of which no row reads imports nothing and exits 1, each line named")
    func aFileOfOnlyBadRowsFails() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("bad.csv").path
        try """
        Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-04-08 16:50:00,Push,Bench Press (Barbell),1,0x10,5,0,0,,,
        0001-01-01 00:00:00,Push,Bench Press (Barbell),1,60,5,0,0,,,
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await SpotterBinary.run(["import", file], db: db)
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("line 2") && result.stderr.contains("line 3"), "\(result.stderr)")
        #expect(result.stdout.contains("imported 0 sets"), "\(result.stdout)")
    }

    @Test("a dry run against a database that does not exist yet reports the import and leaves no file behind")
    func aDryRunMakesNoDatabase() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let folder = URL(fileURLWithPath: db).deletingLastPathComponent()
        let file = folder.appendingPathComponent("hevy.csv").path
        try Self.variantsCSV.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: db))
        let dry = try await SpotterBinary.run(["import", file, "--dry-run"], db: db)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would import 12 sets into 1 new workout from"), "\(dry.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "hevy.csv" }
        #expect(left.isEmpty, "nothing but the file read: \(left)")
    }

    @Test(
        "import keeps different lifts apart, names every mapping and every exercise it makes; --dry-run writes nothing")
    func importSaysWhatItDid() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("hevy.csv").path
        try Self.variantsCSV.write(toFile: file, atomically: true, encoding: .utf8)

        let dry = try await SpotterBinary.run(["import", file, "--dry-run"], db: db)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would import 12 sets into 1 new workout from"), "\(dry.stdout)")
        #expect(dry.stdout.contains("Bench Press → Bench Press (Barbell) (1 set)"), "\(dry.stdout)")
        #expect(dry.stdout.contains("would make"), "\(dry.stdout)")
        let nothing = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((nothing["sets"] as? [[String: Any]])?.isEmpty == true, "a dry run writes nothing")
        let workouts = try await SpotterBinary.run(["workouts", "--json"], db: db)
        #expect(workouts.status == 0, "\(workouts.stderr)")
        #expect((try SpotterBinary.json(workouts.stdout)["workouts"] as? [Any])?.isEmpty == true, "no workout")
        #expect(try await Self.customExercises(db).isEmpty, "no exercise made")
        let outbox = try await SpotterBinary.run(["outbox", "--json"], db: db)
        #expect(outbox.status == 0, "\(outbox.stderr)")
        #expect((try SpotterBinary.json(outbox.stdout)["operations"] as? [Any])?.isEmpty == true, "nothing queued")

        let real = try await SpotterBinary.run(["import", file], db: db)
        #expect(real.stdout.contains("imported 12 sets"), "\(real.stdout)")
        for variant in [
            "Power Snatch", "Pull Up (Weighted)", "Crunch (Machine)", "Hanging Knee Raise",
            "Seated Cable Row - V Grip (Cable)", "Seated Cable Row - Bar Grip",
        ] {
            #expect(real.stdout.contains(variant), "\(variant) is named as made: \(real.stdout)")
        }
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let rows = sets["sets"] as? [[String: Any]] ?? []
        let exercises = Set(rows.compactMap { $0["exercise"] as? String })
        #expect(
            exercises.contains("Power Snatch") && exercises.contains("Snatch (Barbell)"), "kept apart: \(exercises)")
        #expect(
            !exercises.contains("Pull Up") && !exercises.contains("Crunch") && !exercises.contains("Hanging Leg Raise"))
        // The repeated pushdown block stays where it was: its drop set right after its first set.
        let pushdowns = rows.filter { $0["exercise"] as? String == "Triceps Rope Pushdown" }
            .sorted { ($0["position"] as? Int ?? 0) < ($1["position"] as? Int ?? 0) }
        #expect(pushdowns.map { $0["weight"] as? Double } == [20, 15, 25], "\(pushdowns)")
    }

    @Test("a Strong file with a Weight Unit column keeps each row's unit; only blank rows take --unit, counted")
    func mixedUnitsAreTrue() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("strong.csv").path
        try """
        Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-03-02 18:00:00,Legs,Squat (Barbell),1,100,kg,5,0,0,,,
        2026-03-02 18:00:00,Legs,Squat (Barbell),2,225,lbs,5,0,0,,,
        2026-03-02 18:00:00,Legs,Plank,1,0,,0,0,60,,,
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await SpotterBinary.run(["import", file], db: db)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!imported.stdout.contains("the file names no unit"), "\(imported.stdout)")
        #expect(imported.stdout.contains("1 row without a unit read as kg"), "\(imported.stdout)")
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let units = (sets["sets"] as? [[String: Any]] ?? []).compactMap { $0["unit"] as? String }
        #expect(units.sorted() == ["kg", "kg", "lb"])
    }
}

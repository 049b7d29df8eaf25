import Foundation
import Testing

/// Routines from the command line, as a lifter scripts them: errors name the exercise and set
/// rather than a JSON path, and a workout's plan says what was lifted where it was not the target.
@Suite("Routines on the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct RoutineCLITests {
    @discardableResult
    static func run(_ arguments: [String], db: String, expect status: Int32 = 0) async throws -> SpotterBinary.Result {
        let result = try await SpotterBinary.run(arguments, db: db)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        return result
    }

    @Test("a rep range typed with an en dash is taken, and show and start print it as a range")
    func repRangesReadAndPrintAsRanges() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await Self.run(["routine", "create", "Arms"], db: db)
        try await Self.run(
            [
                "routine", "add", "Arms", "--exercise", "Bicep Curl (Dumbbell)", "--sets", "2", "--reps", "10–15",
                "--weight", "12",
            ], db: db)
        try await Self.run(
            [
                "routine", "add", "Arms", "--exercise", "Triceps Rope Pushdown", "--sets", "1", "--reps", "8 - 12",
                "--weight", "20",
            ], db: db)
        let shown = try await Self.run(["routine", "show", "Arms"], db: db).stdout
        #expect(shown.contains("10–15 reps") && shown.contains("8–12 reps"), "\(shown)")
        #expect(!shown.contains("10-15"), "\(shown)")
        let started = try await Self.run(["routine", "start", "Arms"], db: db).stdout
        #expect(started.contains("12 kg × 10–15"), "\(started)")
        #expect(started.contains("20 kg × 8–12"), "\(started)")
        try await Self.run(
            ["routine", "add", "Arms", "--exercise", "Bicep Curl (Dumbbell)", "--sets", "1", "--reps", "10–"], db: db,
            expect: 2)
    }

    @Test func aBadValueNamesTheExerciseAndSetAndChangesNothing() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await Self.run(["routine", "create", "Push A"], db: db)
        try await Self.run(
            ["routine", "add", "Push A", "--exercise", "bench press", "--sets", "3", "--reps", "5", "--weight", "100"],
            db: db)
        let before = try await Self.run(["routine", "show", "Push A", "--json"], db: db).stdout
        let refused = try await SpotterBinary.run(
            ["routine", "add", "Push A", "--exercise", "squat", "--sets", "2", "--reps", "5", "--rpe", "8.3"], db: db)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("squat (exercise 2), set 1: rpe must be from 1 to 10"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("exercises["), "no JSON path for a person: \(refused.stderr)")
        #expect(try await Self.run(["routine", "show", "Push A", "--json"], db: db).stdout == before)
        // Removed by the name it was added by: "bench press" is the catalogue's Bench Press (Barbell).
        try await Self.run(["routine", "remove", "Push A", "--exercise", "bench press"], db: db)
        let after = try SpotterBinary.json(try await Self.run(["routine", "show", "Push A", "--json"], db: db).stdout)
        #expect(((after["routine"] as? [String: Any])?["exercises"] as? [Any])?.isEmpty == true, "\(after)")
    }

    @Test func aDoneRowOfThePlanSaysWhatWasLiftedWhenItWasNotTheTarget() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await Self.run(["routine", "create", "Legs"], db: db)
        try await Self.run(
            ["routine", "add", "Legs", "--exercise", "squat", "--sets", "2", "--reps", "5", "--weight", "140"], db: db)
        let started = try await Self.run(["routine", "start", "Legs", "--json"], db: db).stdout
        let document = try SpotterBinary.json(started)
        let workoutID = try #require(document["workout_id"] as? String)
        let planned = try #require(document["planned"] as? [[String: Any]])
        let ids = planned.compactMap { $0["id"] as? String }
        #expect(ids.count == 2)
        try await Self.run(["routine", "done", ids[0]], db: db)
        try await Self.run(["routine", "done", ids[1], "--reps", "3"], db: db)

        let lines = try await Self.run(["routine", "plan", workoutID], db: db).stdout.split(separator: "\n")
        let first = try #require(lines.first { $0.hasPrefix(ids[0]) })
        let second = try #require(lines.first { $0.hasPrefix(ids[1]) })
        #expect(first.contains("done") && !first.contains("logged"), "the target was lifted: \(first)")
        #expect(second.contains("140 kg × 5") && second.contains("(logged 140 kg × 3)"), "\(second)")
        let json = try SpotterBinary.json(try await Self.run(["routine", "plan", workoutID, "--json"], db: db).stdout)
        let rows = try #require(json["planned"] as? [[String: Any]])
        let logged = try #require(rows.first { $0["id"] as? String == ids[1] }?["logged"] as? [String: Any])
        #expect(logged["reps"] as? Int == 3)
        #expect(logged["weight"] as? Double == 140)
        // A weight in another unit says so.
        try await Self.run(["routine", "create", "Arms"], db: db)
        try await Self.run(
            [
                "routine", "add", "Arms", "--exercise", "Bicep Curl (Barbell)", "--sets", "1", "--reps", "8",
                "--weight", "30",
            ],
            db: db)
        let arms = try SpotterBinary.json(try await Self.run(["routine", "start", "Arms", "--json"], db: db).stdout)
        let curl = try #require((arms["planned"] as? [[String: Any]])?.first?["id"] as? String)
        let setID = try await Self.run(["routine", "done", curl, "--weight", "65", "--unit", "lb"], db: db).stdout
        let sets =
            try SpotterBinary.json(try await Self.run(["sets", "--json"], db: db).stdout)["sets"] as? [[String: Any]]
        let curlSet = try #require(
            sets?.first { $0["id"] as? String == setID.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(curlSet["unit"] as? String == "lb" && curlSet["weight"] as? Double == 65, "\(curlSet)")
    }
}

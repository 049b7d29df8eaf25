import Foundation
import SpotterCore
import Testing

/// `spotter sets`, `workouts`, `outbox` and `stats` print aligned columns, measured the way the
/// terminal draws them; a long name is cut with "…" ("..." without a UTF-8 locale), never in
/// the middle of a character; the id stays first on every line.
@Suite("The CLI's listings line up")
struct CLIAlignedOutputTests {
    static let names = [
        "Heavy Day 🏋️ 스쿼트 with a name much longer than its column", "Push 💪🏽", "Cafe\u{301} curl",
        "腿日 深蹲 and more words than fit here", "Bench",
    ]

    /// A database with a workout and a set for each name (custom exercises of the same names).
    static func logged() async throws -> String {
        let db = SpotterBinary.temporaryDatabase()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: db).status == 0)
        for (index, name) in names.enumerated() {
            let result = try await SpotterBinary.run(
                [
                    "log", "--exercise", name, "--custom", "--weight", String(20 + index * 100), "--reps",
                    String(1 + index * 3), "--new-workout", name,
                ], db: db)
            try #require(result.status == 0, "\(result.stderr)")
        }
        return db
    }

    /// The display column where `marker` starts on each line that has it.
    static func columns(of marker: String, in text: String) -> [Int] {
        text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: marker) else { return nil }
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
    }

    @Test("sets, workouts, outbox and stats: the columns after a name start at the same place on every line")
    func columnsLineUp() async throws {
        let db = try await Self.logged()
        let environment = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        let sets = try await SpotterBinary.run(["sets"], db: db, environment: environment).stdout
        #expect(Set(Self.columns(of: " × ", in: sets)).count == 1, "\(sets)")
        #expect(Self.columns(of: " × ", in: sets).count == Self.names.count, "\(sets)")
        #expect(sets.contains("…"), "a long name ends with an ellipsis:\n\(sets)")
        let ids = sets.split(separator: "\n").map { String($0.prefix(36)) }
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil }, "the id first on every line:\n\(sets)")

        let workouts = try await SpotterBinary.run(["workouts"], db: db, environment: environment).stdout
        #expect(Set(Self.columns(of: " sets", in: workouts)).count == 1, "\(workouts)")
        #expect(workouts.contains("…"), "\(workouts)")

        let outbox = try await SpotterBinary.run(["outbox"], db: db, environment: environment).stdout
        #expect(Set(Self.columns(of: "attempts", in: outbox)).count == 1, "\(outbox)")

        let stats = try await SpotterBinary.run(["stats"], db: db, environment: environment).stdout
        let records = stats.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  week") }
        #expect(records.count == Self.names.count, "\(stats)")
        #expect(Set(Self.columns(of: "e1RM", in: records.joined(separator: "\n"))).count == 1, "\(stats)")
        #expect(stats.contains("…"), "\(stats)")
        #expect(!stats.contains(" 1 sets"), "one set is 'set':\n\(stats)")
    }

    @Test("without a UTF-8 locale a cut name ends with '...', as in the UI")
    func asciiEllipsis() async throws {
        let db = try await Self.logged()
        let environment = ["LANG": "C", "LC_ALL": "C", "LC_CTYPE": "C"]
        for command in ["sets", "workouts", "stats"] {
            let listed = try await SpotterBinary.run([command], db: db, environment: environment)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("..."), "\(command):\n\(listed.stdout)")
            #expect(!listed.stdout.contains("…"), "\(command):\n\(listed.stdout)")
        }
        // --json is the same whatever the locale.
        let json = try await SpotterBinary.run(["workouts", "--json"], db: db, environment: environment)
        let names = (try SpotterBinary.json(json.stdout)["workouts"] as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String
        }
        #expect(Set(names) == Set(Self.names))
    }
}

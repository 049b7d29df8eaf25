import Foundation
import Testing

/// Weigh-ins from the command line, on the real binary: log, list, edit, delete, import, export.
@Suite("Body weight on the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct BodyWeightCLITests {
    static func write(_ text: String) throws -> String {
        let path = SpotterBinary.temporaryDatabase().replacingOccurrences(of: ".db", with: ".csv")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func listed(_ db: String) async throws -> [[String: Any]] {
        let listed = try await SpotterBinary.run(["bodyweight", "--json"], db: db)
        #expect(listed.status == 0, "\(listed.stderr)")
        return try SpotterBinary.json(listed.stdout)["body_weights"] as? [[String: Any]] ?? []
    }

    @Test func logEditDeleteAndMistypes() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let logged = try await SpotterBinary.run(
            ["bodyweight", "log", "179.5lb", "--date", "2026-11-20", "--notes", "👩🏽‍🚀 e\u{301} بعد"], db: db)
        #expect(logged.status == 0, "\(logged.stderr)")
        let id = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var rows = try await Self.listed(db)
        #expect(rows.count == 1)
        #expect(rows.first?["unit"] as? String == "lb" && rows.first?["weight"] as? Double == 179.5)
        #expect(rows.first?["notes"] as? String == "👩🏽‍🚀 e\u{301} بعد")
        #expect(rows.first?["sync_state"] as? String == "pending", "no server: it waits, and says so")

        // Mistypes: each refused with a reason, nothing written.
        for (arguments, reason) in [
            (["bodyweight", "log", "8.1"], "from 20 kg to 400 kg"),
            (["bodyweight", "log", "eighty"], "must be a number"),
            (["bodyweight", "log", "80", "--date", "2026-02-30"], "--date takes a day"),
            (["bodyweight", "log", "80", "--date", "1899-12-31"], "--date takes a day from 1900 on"),
            (["bodyweight", "log", "80", "--date", "2999-01-01"], "cannot be in the future"),
            (["bodyweight", "log", "80kg", "--unit", "lb"], "the weight says kg and --unit says lb"),
            (["bodyweight", "log", "80", "--notes", "a\u{7}b"], "control characters"),
            (["bodyweight", "edit", id], "nothing to change"),
            (["bodyweight", "edit", "not-an-id", "--weight", "80"], "must be a UUID"),
            (["bodyweight", "delete", UUID().uuidString], "not found"),
        ] {
            let refused = try await SpotterBinary.run(arguments, db: db)
            #expect(refused.status != 0, "\(arguments)")
            #expect(refused.stderr.contains(reason), "\(arguments): \(refused.stderr)")
        }
        #expect(try await Self.listed(db).count == 1)

        let edited = try await SpotterBinary.run(
            ["bodyweight", "edit", id, "--weight", "81.2", "--unit", "kg", "--clear-notes"], db: db)
        #expect(edited.status == 0, "\(edited.stderr)")
        rows = try await Self.listed(db)
        #expect(rows.first?["weight"] as? Double == 81.2 && rows.first?["unit"] as? String == "kg")
        #expect(rows.first?["notes"] == nil)
        let line = try await SpotterBinary.run(["bodyweight"], db: db)
        #expect(line.stdout.contains("81.2 kg") && line.stdout.contains("[pending]"), "\(line.stdout)")
        #expect(try await SpotterBinary.run(["bodyweight", "delete", id], db: db).status == 0)
        #expect(try await Self.listed(db).isEmpty)
    }

    @Test func importsFitNotesAndHevyOnceAndExportsWhatReadsBack() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let fitnotes = try Self.write(
            """
            Date,Time,Measurement,Value,Unit,Comment
            2026-11-01,07:30:00,Body Weight,81.4,kg,after 🏋🏽‍♀️ e\u{301}
            2026-11-02,07:31:00,Body Fat,15,%,
            2026-11-03,07:32:00,Body Weight,abc,kg,
            2026-11-04,07:32:00,Body Weight,180,lbs,"tab\u{1B}[31m"
            2026-11-05,07:32:00,Body Weight,8.1,kg,

            """)
        let first = try await SpotterBinary.run(["import", fitnotes], db: db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("imported 2 weigh-ins from FitNotes body tracker export"), "\(first.stdout)")
        #expect(first.stdout.contains("1 row of other measurements left out"))
        #expect(first.stdout.contains("2 malformed rows skipped"))
        #expect(first.stdout.contains("1 note cleaned of control characters (line 5)"))
        #expect(first.stderr.contains("line 4: Value 'abc' is not a number"))
        #expect(first.stderr.contains("line 6: weight 8.1 kg must be a body weight"))
        let again = try await SpotterBinary.run(["import", fitnotes], db: db)
        #expect(again.stdout.contains("imported 0 weigh-ins") && again.stdout.contains("2 already present"))
        #expect(try await Self.listed(db).count == 2)

        let hevy = try Self.write(
            """
            date,weight_kg,fat_percent,waist_cm
            "12 Nov 2026, 07:30",82.1,,
            "13 Nov 2026, 07:30",,14,80

            """)
        let fromHevy = try await SpotterBinary.run(["import", hevy], db: db)
        #expect(fromHevy.stdout.contains("imported 1 weigh-in from Hevy measurements export"), "\(fromHevy.stdout)")
        #expect(try await Self.listed(db).count == 3)

        // The export reads back as the same weigh-ins, on this device and on a fresh one.
        let exported = try await SpotterBinary.run(["export", "--body-weight"], db: db)
        #expect(exported.status == 0)
        #expect(exported.stdout.hasPrefix("Date,Time,Measurement,Value,Unit,Comment\n"))
        #expect(exported.stdout.contains("Body Weight,81.4,kg,after 🏋🏽‍♀️ e\u{301}"), "\(exported.stdout)")
        let file = try Self.write(exported.stdout)
        let same = try await SpotterBinary.run(["import", file], db: db)
        #expect(same.stdout.contains("imported 0 weigh-ins") && same.stdout.contains("3 already present"))
        let fresh = SpotterBinary.temporaryDatabase()
        let moved = try await SpotterBinary.run(["import", file], db: fresh)
        #expect(moved.stdout.contains("imported 3 weigh-ins"), "\(moved.stdout)")
        let before = try await Self.listed(db).map { "\($0["weight"] ?? "") \($0["unit"] ?? "") \($0["notes"] ?? "")" }
        let after = try await Self.listed(fresh).map {
            "\($0["weight"] ?? "") \($0["unit"] ?? "") \($0["notes"] ?? "")"
        }
        #expect(before == after)
    }

    @Test func importedAssistedAndWeightedLiftsRankByTheLoadMoved() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let weighIns = try Self.write(
            "Date,Time,Measurement,Value,Unit,Comment\n2026-01-01,07:00:00,Body Weight,80,kg,\n")
        #expect(try await SpotterBinary.run(["import", weighIns], db: db).status == 0)
        let strong = try Self.write(
            """
            Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-02-01 18:00:00,Pull,Chin Up (Assisted),1,20,kg,6,,,,,
            2026-02-01 18:00:00,Pull,Chin Up (Assisted),2,30,kg,6,,,,,
            2026-02-01 18:00:00,Pull,Pull Up (Weighted),1,10,kg,5,,,,,

            """)
        let imported = try await SpotterBinary.run(["import", strong], db: db)
        #expect(imported.status == 0, "\(imported.stderr)")
        let stats = try await SpotterBinary.run(["stats"], db: db)
        #expect(stats.stdout.contains("e1RM 72 kg (body − 20 kg assistance × 6"), "\(stats.stdout)")
        #expect(stats.stdout.contains("e1RM 105 kg (body + 10 kg × 5"), "\(stats.stdout)")
    }
}

import Foundation
import GRDB
import SpotterCore
import Testing

/// Charts, records, the calendar and muscle volume from the command line, on the real binary.
@Suite("Progress on the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct ProgressCLITests {
    /// Times in the file are read in the process's zone: UTC here, so days are fixed.
    static let environment = ["TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]

    /// Three bench sessions a week apart (a warm-up in the first) and a squat in the last.
    static let fixture = """
        Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-01-05 10:00:00,Day A,Bench Press (Barbell),W,60,10,0,0,,,
        2026-01-05 10:00:00,Day A,Bench Press (Barbell),1,100,5,0,0,,,
        2026-01-05 10:00:00,Day A,Bench Press (Barbell),2,100,5,0,0,,,
        2026-01-12 10:00:00,Day B,Bench Press (Barbell),1,110,2,0,0,,,
        2026-01-12 10:00:00,Day B,Bench Press (Barbell),2,90,10,0,0,,,
        2026-01-19 10:00:00,Day C,Bench Press (Barbell),1,120,1,0,0,,,
        2026-01-19 10:00:00,Day C,Bench Press (Barbell),2,100,12,0,0,,,
        2026-01-19 10:00:00,Day C,Squat (Barbell),1,140,5,0,0,,,

        """

    static func run(_ arguments: [String], db: String, locale: String = "C.UTF-8") async throws -> SpotterBinary.Result
    {
        var environment = Self.environment
        environment["LANG"] = locale
        environment["LC_ALL"] = locale
        return try await SpotterBinary.run(arguments, db: db, environment: environment)
    }

    /// A database with the fixture imported.
    static func importedDatabase() async throws -> String {
        let db = SpotterBinary.temporaryDatabase()
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("strong.csv").path
        try fixture.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await run(["import", file], db: db)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        return db
    }

    /// The series computed straight from the file's rows, as the store reads them.
    static func expectedSeries(db: String, exercise: String, metric: ProgressMetric) throws -> [ProgressPoint] {
        let queue = try DatabaseQueue(path: db)
        let samples = try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, workout_id, performed_at, weight, unit, reps FROM sets
                    WHERE exercise = ? AND deleted_at IS NULL AND kind != 'warmup'
                    ORDER BY performed_at, workout_id, position, id
                    """, arguments: [exercise]
            ).map { row in
                let unit = WeightUnit(rawValue: row["unit"]) ?? .kg
                return ProgressSample(
                    setID: row["id"], workoutID: row["workout_id"],
                    performedAt: Timestamp.parse(row["performed_at"])!,
                    loadKg: (row["weight"] as Double) * unit.kilograms, reps: row["reps"])
            }
        }
        return ProgressSeries.points(samples: samples, metric: metric)
    }

    @Test("chart --json: the series the sets give, for each metric; the text marks records")
    func chartJSONMatchesTheStore() async throws {
        let db = try await Self.importedDatabase()
        for metric in ProgressMetric.allCases {
            let result = try await Self.run(
                ["chart", "bench press (barbell)", "--metric", metric.rawValue, "--json"], db: db)
            #expect(result.status == 0, "\(result.stderr)")
            let json = try SpotterBinary.json(result.stdout)
            #expect(json["exercise"] as? String == "Bench Press (Barbell)")
            #expect(json["metric"] as? String == metric.rawValue)
            let points = try #require(json["points"] as? [[String: Any]])
            let expected = try Self.expectedSeries(db: db, exercise: "Bench Press (Barbell)", metric: metric)
            #expect(points.count == expected.count && expected.count == 3, "\(metric)")
            for (point, want) in zip(points, expected) {
                #expect(abs((point["value"] as? Double ?? -1) - want.value) < 1e-9, "\(metric)")
                #expect(point["record"] as? Bool == want.isRecord)
                #expect(point["workout_id"] as? String == want.workoutID)
                #expect(point["date"] as? String == Timestamp.format(want.date))
            }
        }
        let picture = try await Self.run(
            ["chart", "Bench Press (Barbell)", "--metric", "heaviest", "--width", "60", "--height", "12"], db: db)
        #expect(picture.status == 0, "\(picture.stderr)")
        let rows = picture.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(
            rows.count == 12 && rows.allSatisfy { $0.count <= 60 }, "the chart is the size asked: \(picture.stdout)")
        let top = picture.stdout.contains("120")
        #expect(top, "the top label is the best: \(picture.stdout)")
        #expect(picture.stdout.contains("5 Jan 2026") && picture.stdout.contains("19 Jan 2026"), "\(picture.stdout)")
        let braille = picture.stdout.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }
        #expect(braille, "braille dots")
        let text = try await Self.run(["chart", "Bench Press (Barbell)", "--metric", "heaviest", "--list"], db: db)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("2026-01-05  100 kg\n"), "\(text.stdout)")
        #expect(text.stdout.contains("2026-01-12  110 kg  ★"), "\(text.stdout)")
        #expect(text.stdout.contains("2026-01-19  120 kg  ★"), "\(text.stdout)")
        let ascii = try await Self.run(
            ["chart", "Bench Press (Barbell)", "--metric", "heaviest", "--list"], db: db, locale: "C")
        #expect(ascii.stdout.contains("120 kg  *") && !ascii.stdout.contains("★"), "\(ascii.stdout)")
        let plain = ascii.stdout.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(plain, "no braille without UTF-8: \(ascii.stdout)")
        let recent = try await Self.run(["chart", "Bench Press (Barbell)", "--range", "3m", "--json"], db: db)
        #expect(recent.status == 0)
        let most = try SpotterBinary.json(try await Self.run(["chart", "--json"], db: db).stdout)
        #expect(most["exercise"] as? String == "Bench Press (Barbell)", "the lift logged most")
        let empty = try await Self.run(["chart"], db: SpotterBinary.temporaryDatabase())
        #expect(empty.status == 1 && empty.stderr.contains("no working sets"), "\(empty.stderr)")
    }

    @Test("records: the same text for the same sets")
    func recordsText() async throws {
        let db = try await Self.importedDatabase()
        let result = try await Self.run(["records", "Bench Press (Barbell)"], db: db)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = """
            Bench Press (Barbell): records (warm-ups excluded)
            Heaviest for at least N reps
              1 rep   120 kg  2026-01-19
              2 reps  110 kg  2026-01-12
              3 reps  100 kg  2026-01-05  (× 5)
              5 reps  100 kg  2026-01-05
              8 reps  100 kg  2026-01-19  (× 12)
              10 reps 100 kg  2026-01-19  (× 12)
              12 reps 100 kg  2026-01-19
            Estimated 1RM        140 kg  2026-01-19
            Best set volume      1200 kg  2026-01-19
            Best session volume  1320 kg  2026-01-19
            Rep maxes the estimated 1RM predicts
               1 ×   140 kg
               2 × 131.3 kg
               3 × 127.3 kg
               4 × 123.5 kg
               5 ×   120 kg
               6 × 116.7 kg
               7 × 113.5 kg
               8 × 110.5 kg
               9 × 107.7 kg
              10 ×   105 kg
              11 × 102.4 kg
              12 ×   100 kg

            """
        #expect(result.stdout == expected, "\(result.stdout)")
        let json = try SpotterBinary.json(
            try await Self.run(["records", "bench press (barbell)", "--json"], db: db).stdout)
        let reps = try #require(json["rep_records"] as? [[String: Any]])
        #expect(reps.map { $0["reps"] as? Int } == [1, 2, 3, 5, 8, 10, 12])
        #expect((json["best_e1rm"] as? [String: Any])?["value_kg"] as? Double == 140)
        // In pounds when the lifter shows pounds.
        #expect(try await Self.run(["config", "unit", "lb"], db: db).status == 0)
        let pounds = try await Self.run(["records", "Bench Press (Barbell)"], db: db)
        #expect(pounds.stdout.contains("1 rep   264.6 lb"), "\(pounds.stdout)")
    }

    @Test("days printed as text are local days: a 07:30 workout in Tokyo is that day's, in workouts and stats")
    func localDaysInText() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let file = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("early.csv").path
        try """
        Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-01-05 07:30:00,Early,Bench Press (Barbell),1,100,5,0,0,,,

        """.write(toFile: file, atomically: true, encoding: .utf8)
        var tokyo = Self.environment
        tokyo["TZ"] = "Asia/Tokyo"
        #expect(try await SpotterBinary.run(["import", file], db: db, environment: tokyo).status == 0)
        let workouts = try await SpotterBinary.run(["workouts"], db: db, environment: tokyo)
        #expect(workouts.stdout.contains("  2026-01-05  Early"), "\(workouts.stdout)")
        let stats = try await SpotterBinary.run(["stats"], db: db, environment: tokyo)
        #expect(stats.stdout.contains("2026-01-05") && !stats.stdout.contains("2026-01-04"), "\(stats.stdout)")
        let calendar = try SpotterBinary.json(
            try await SpotterBinary.run(["calendar", "--year", "2026", "--json"], db: db, environment: tokyo).stdout)
        let days = (calendar["days"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String }
        #expect(days == ["2026-01-05"], "\(days)")
    }

    @Test("calendar --json: the training days, their volume, and the streak; the text is a grid")
    func calendarJSON() async throws {
        let db = try await Self.importedDatabase()
        let json = try SpotterBinary.json(try await Self.run(["calendar", "--year", "2026", "--json"], db: db).stdout)
        #expect(json["year"] as? Int == 2026)
        let days = try #require(json["days"] as? [[String: Any]])
        let byDate = Dictionary(uniqueKeysWithValues: days.map { ($0["date"] as? String ?? "", $0) })
        #expect(byDate["2026-01-05"]?["volume_kg"] as? Double == 1000, "the warm-up is no volume")
        #expect(byDate["2026-01-12"]?["volume_kg"] as? Double == 1120)
        #expect(byDate["2026-01-19"]?["volume_kg"] as? Double == 2020)
        #expect(byDate["2026-01-19"]?["workouts"] as? Int == 1)
        #expect(byDate["2026-01-19"]?["shade"] as? Int == 4)
        #expect(json["streak_weeks"] as? Int == 0, "nothing this week or last")
        let logged = try await Self.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: db)
        #expect(logged.status == 0, "\(logged.stderr)")
        let now = try SpotterBinary.json(try await Self.run(["calendar", "--json"], db: db).stdout)
        #expect(now["streak_weeks"] as? Int == 1)
        let twice = try SpotterBinary.json(
            try await Self.run(["calendar", "--json", "--weeks-min", "2"], db: db).stdout)
        #expect(twice["streak_weeks"] as? Int == 0)
        // The goal and the first day of the week are preferences; a bad value changes nothing.
        #expect(try await Self.run(["config", "streak", "2"], db: db).status == 0)
        let kept = try SpotterBinary.json(try await Self.run(["calendar", "--json"], db: db).stdout)
        #expect(kept["weeks_min"] as? Int == 2 && kept["streak_weeks"] as? Int == 0, "\(kept)")
        for bad in [["config", "streak", "0"], ["config", "streak", "🏋️"], ["config", "week-start", "friday"]] {
            let refused = try await Self.run(bad, db: db)
            #expect(refused.status == 2, "\(bad): \(refused.stderr)")
        }
        #expect(try await Self.run(["config", "week-start", "sunday"], db: db).status == 0)
        let sunday = try SpotterBinary.json(try await Self.run(["calendar", "--json"], db: db).stdout)
        #expect(sunday["first_weekday"] as? Int == 1 && sunday["weeks_min"] as? Int == 2, "\(sunday)")
        let sundayText = try await Self.run(["calendar", "--year", "2026"], db: db)
        #expect(sundayText.stdout.split(separator: "\n").contains { $0.hasPrefix("Sun") }, "\(sundayText.stdout)")
        #expect(try await Self.run(["config", "week-start", "monday"], db: db).status == 0)
        let monday = try SpotterBinary.json(try await Self.run(["calendar", "--json"], db: db).stdout)
        #expect(monday["first_weekday"] as? Int == 2)
        let shown = try await Self.run(["config", "show"], db: db)
        #expect(
            shown.stdout.contains("week-start monday") && shown.stdout.contains("streak 2 a week"), "\(shown.stdout)")
        #expect(try await Self.run(["config", "streak", "1"], db: db).status == 0)

        let text = try await Self.run(["calendar", "--year", "2026"], db: db)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.hasPrefix("Mon ") } && lines.contains { $0.hasPrefix("Sun") }, "\(text.stdout)")
        #expect(text.stdout.contains("█") && text.stdout.contains("Jan"), "\(text.stdout)")
        #expect(text.stdout.contains("streak: "), "\(text.stdout)")
        let ascii = try await Self.run(["calendar", "--year", "2026"], db: db, locale: "C")
        #expect(ascii.stdout.contains("#") && !ascii.stdout.contains("█") && !ascii.stdout.contains("░"))
    }

    @Test("volume --json: sets and volume per muscle, secondary muscles at half")
    func volumeJSON() async throws {
        let db = SpotterBinary.temporaryDatabase()
        for (exercise, weight, reps) in [("Bench Press (Barbell)", "100", "5"), ("Bicep Curl (Barbell)", "30", "10")] {
            let logged = try await Self.run(
                ["log", "--exercise", exercise, "--weight", weight, "--reps", reps], db: db)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        let result = try await Self.run(["volume", "--weeks", "3", "--json"], db: db)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try SpotterBinary.json(result.stdout)
        #expect((json["weeks"] as? [String])?.count == 3)
        let muscles = try #require(json["muscles"] as? [[String: Any]])
        func thisWeek(_ muscle: String) -> [String: Any]? {
            (muscles.first { $0["muscle"] as? String == muscle }?["weeks"] as? [[String: Any]])?.first
        }
        #expect(thisWeek("chest")?["sets"] as? Double == 1)
        #expect(thisWeek("chest")?["volume_kg"] as? Double == 500)
        #expect(thisWeek("triceps")?["sets"] as? Double == 0.5)
        #expect(thisWeek("triceps")?["volume_kg"] as? Double == 250)
        #expect(thisWeek("biceps")?["volume_kg"] as? Double == 300)
        #expect(thisWeek("forearms")?["sets"] as? Double == 0.5)
        #expect(json["unassigned_sets"] as? Int == 0)
        let text = try await Self.run(["volume"], db: db)
        #expect(text.stdout.contains("chest") && text.stdout.contains("this wk"), "\(text.stdout)")
    }

    @Test("an unknown exercise, a bad option, hostile names: exit 2 with a reason, never a crash")
    func refusals() async throws {
        let db = try await Self.importedDatabase()
        let unknown = try await Self.run(["chart", "Zzyzx Lift"], db: db)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no exercise named"), "\(unknown.stderr)")
        let ambiguous = try await Self.run(["records", "bench"], db: db)
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("Bench Press (Barbell)"), "\(ambiguous.stderr)")
        let suggested = try await Self.run(["records", "Bench Pres (Barbell)"], db: db)
        #expect(suggested.status == 2, "\(suggested.stdout)")
        for arguments in [
            ["chart", "Bench Press (Barbell)", "--metric", "speed"],
            ["chart", "Bench Press (Barbell)", "--range", "2w"],
            ["chart", "Bench Press (Barbell)", "--width", "5"],
            ["chart", "Bench Press (Barbell)", "--height", "-3"],
            ["chart", "Bench Press (Barbell)", "--width", "1e9"],
            ["calendar", "--weeks-min", "0"],
            ["calendar", "--year", "20260"],
            ["volume", "--weeks", "0"],
            ["volume", "--weeks", "💪🏽"],
        ] {
            let result = try await Self.run(arguments, db: db)
            #expect(result.status == 2, "\(arguments): \(result.stdout)")
            #expect(!result.stderr.isEmpty, "\(arguments) said nothing")
        }
        for name in [
            "💪🏽 Curl", "👩🏿‍🦰", "e\u{301}\u{301}\u{301}\u{301}", "\u{202E}Squat (Barbell)", "Bench\u{1B}[2J",
            "\u{200F}مرحبا", String(repeating: "\u{301}", count: 500),
        ] {
            for command in [
                ["chart", name], ["records", name], ["chart", name, "--json"], ["exercises", "muscles", name],
            ] {
                let result = try await Self.run(command, db: db)
                #expect(result.status == 2, "\(command.map { $0.unicodeScalars.map { String($0.value, radix: 16) } })")
                #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{202E}"))
            }
        }
    }

    @Test("exercises muscles: set for a custom exercise, printed back; unknown muscles and catalogue lifts refused")
    func musclesRoundTrip() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let logged = try await Self.run(
            ["log", "--exercise", "Landmine Press", "--custom", "--weight", "30", "--reps", "8"], db: db)
        #expect(logged.status == 0, "\(logged.stderr)")
        let none = try await Self.run(["exercises", "muscles", "Landmine Press"], db: db)
        #expect(none.status == 0 && none.stdout.contains("no muscles set"), "\(none.stdout)\(none.stderr)")
        let set = try await Self.run(
            ["exercises", "muscles", "landmine press", "Shoulders, chest", "--secondary", "triceps,upper back"], db: db)
        #expect(set.status == 0, "\(set.stderr)")
        let line = "Landmine Press: primary shoulders, chest; secondary triceps, upper back\n"
        #expect(set.stdout == line)
        #expect(try await Self.run(["exercises", "muscles", "Landmine Press"], db: db).stdout == line)
        let catalogue = try await Self.run(["exercises", "muscles", "Squat (Barbell)"], db: db)
        #expect(catalogue.stdout.hasPrefix("Squat (Barbell): primary quads, glutes"), "\(catalogue.stdout)")

        let wrong = try await Self.run(["exercises", "muscles", "Landmine Press", "chest,glutez"], db: db)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("'glutez'") && wrong.stderr.contains("full body"), "\(wrong.stderr)")
        let hostile = try await Self.run(["exercises", "muscles", "Landmine Press", "chest,\u{202E}abs"], db: db)
        #expect(hostile.status == 2 && !hostile.stderr.contains("\u{202E}"))
        let fixed = try await Self.run(["exercises", "muscles", "Squat (Barbell)", "lats"], db: db)
        #expect(fixed.status == 2 && fixed.stderr.contains("catalogue"), "\(fixed.stderr)")
        let lonely = try await Self.run(["exercises", "muscles", "Landmine Press", "--secondary", "abs"], db: db)
        #expect(lonely.status == 2)
        #expect(try await Self.run(["exercises", "muscles", "Landmine Press"], db: db).stdout == line, "unchanged")
        // The muscles count in the week's volume.
        let volume = try SpotterBinary.json(try await Self.run(["volume", "--json"], db: db).stdout)
        let shoulders = (volume["muscles"] as? [[String: Any]])?.first { $0["muscle"] as? String == "shoulders" }
        #expect(((shoulders?["weeks"] as? [[String: Any]])?.first?["volume_kg"] as? Double) == 240)
    }
}

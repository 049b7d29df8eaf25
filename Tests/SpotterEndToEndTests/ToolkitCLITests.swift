import Foundation
import GRDB
import Testing

/// Plates and warm-ups from the command line, on the real binary.
@Suite(
    "Plates and warm-ups on the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build")
)
struct ToolkitCLITests {
    @Test func warmupPrintsTheRampWithPlatesAndFollowsTheLiftersPlates() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let ramp = try await SpotterBinary.run(["warmup", "squat", "140"], db: db)
        #expect(ramp.status == 0, "\(ramp.stderr)")
        #expect(ramp.stdout.contains("1. 20 kg × 10   bar only (20 kg)"))
        #expect(ramp.stdout.contains("2. 55 kg × 5   20 + 15 + 2.5 per side"))
        #expect(ramp.stdout.contains("4. 110 kg × 2   20 + 25 + 20 per side"))
        #expect(ramp.stdout.contains("work: 140 kg   20 + 2×25 + 10 per side"))
        let odd = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "101"], db: db)
        #expect(odd.stdout.contains("nearest: 100 kg or 102.5 kg"))
        let pounds = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "225lb"], db: db)
        #expect(pounds.stdout.contains("work: 225 lb   45 + 2×45 per side"))

        // The lifter's own bar and plates, then one lift's own bar.
        let set = try await SpotterBinary.run(["config", "plates", "kg", "--bar", "15", "10,5,2.5"], db: db)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("15 kg bar, 10/5/2.5"))
        let own = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "60"], db: db)
        #expect(own.stdout.contains("work: 60 kg   15 + 2×10 + 2.5 per side"))
        let trap = try await SpotterBinary.run(
            ["config", "plates", "kg", "--exercise", "Deadlift (Trap Bar)", "--bar", "25"], db: db)
        #expect(trap.status == 0, "\(trap.stderr)")
        let show = try await SpotterBinary.run(["config", "show"], db: db)
        #expect(show.stdout.contains("plates kg: 15 kg bar, 10/5/2.5"))
        #expect(show.stdout.contains("plates lb: 45 lb bar, 45/35/25/10/5/2.5"))
        #expect(show.stdout.contains("25 kg"))

        // A custom ramp.
        let scheme = try await SpotterBinary.run(["config", "warmup", "bar:8,50:5,75:2"], db: db)
        #expect(scheme.stdout.contains("warmup bar×8, 50%×5, 75%×2"))
        let custom = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "100"], db: db)
        #expect(custom.stdout.contains("1. 15 kg × 8"))
        #expect(custom.stdout.contains("3. 75 kg × 2"))
    }

    @Test func badInputIsRefusedWithItsReasonAndChangesNothing() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let before = try await SpotterBinary.run(["config", "show"], db: db).stdout
        for arguments in [
            ["config", "plates", "kg", "--bar", "20", "25,💪🏽"],
            ["config", "plates", "kg", "--bar", "nan"],
            ["config", "plates", "stone", "--bar", "6"],
            ["config", "plates", "kg", "--bar", "20", "0"],
            ["config", "plates", "kg", "--bar", "20", "25,\u{1B}[2J"],
            ["config", "plates", "kg", "--exercise", "Squat (Barbell)", "--bar", "20", "25,20"],
            ["config", "warmup", "150:3"],
            // Above 0 and below 100, but kept as 0 and 100: refused, never stored as what fails to read.
            ["config", "plates", "kg", "--bar", "20", "1e-300"],
            ["config", "plates", "kg", "--bar", "20", "25,0.001"],
            ["config", "warmup", "bar:10,99.999:1"],
            ["config", "warmup", "bar:10,\u{202E}40:5"],
            ["warmup", "Squat (Barbell)", "lots"],
            // Swift reads these as numbers (16, 8, 100, 40); nobody types them as one.
            ["log", "--exercise", "Squat (Barbell)", "--weight", "0x10", "--reps", "5"],
            ["log", "--exercise", "Squat (Barbell)", "--weight", "0x1p3", "--reps", "5"],
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--rpe", "0x8"],
            ["log", "--exercise", "Squat (Barbell)", "--weight", "inf", "--reps", "5"],
            ["warmup", "Squat (Barbell)", "0x64"],
            ["bodyweight", "log", "0x50"],
            ["config", "warmup", "0x28:5"],
            ["config", "plates", "kg", "--bar", "0x14"],
            ["warmup", "Squat (Barbell)", "-5"],
        ] {
            let result = try await SpotterBinary.run(arguments, db: db)
            #expect(result.status != 0, "\(arguments) was taken")
            #expect(!result.stderr.isEmpty, "\(arguments) said nothing")
            #expect(!result.stderr.contains("\u{1B}"), "a control character is never echoed")
        }
        #expect(try await SpotterBinary.run(["config", "show"], db: db).stdout == before)
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [Any])?.isEmpty == true, "nothing was logged: \(sets)")
        #expect(
            try await SpotterBinary.run(["config", "plates", "kg", "--bar", "20", "1e-300"], db: db).stderr.contains(
                "'1e-300' is not a plate"), "the value as typed, not the 0 it would be kept as")
        for arguments in [
            ["warmup", "Squat (Barbell)", "-5"], ["bodyweight", "log", "-80"], ["serve", "--port", "-1"],
            ["warmup", "Squat (Barbell)", "-5lb"], ["warmup", "Squat (Barbell)", "-.5"],
        ] {
            let negative = try await SpotterBinary.run(arguments, db: db)
            #expect(negative.status == 2)
            #expect(
                negative.stderr.contains("was read as an option"),
                "the reason, not a missing argument: \(negative.stderr)")
        }
        // Given on purpose, after '--', it is refused for what it is.
        let afterDashes = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "--", "-5"], db: db)
        #expect(afterDashes.status != 0 && afterDashes.stderr.contains("must be 0 or more"), "\(afterDashes.stderr)")
        let ambiguous = try await SpotterBinary.run(["warmup", "bench", "100"], db: db)
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("Bench Press (Barbell)"))
    }

    @Test func aWarmUpPastThePlatesSaysWhatItLeftOutAndOnlyThen() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let near = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "1100"], db: db)
        #expect(near.status == 0 && !near.stdout.contains("left out"), "every step loads: \(near.stdout)")
        let far = try await SpotterBinary.run(["warmup", "Squat (Barbell)", "2000"], db: db)
        #expect(far.stdout.contains("these plates load at most 1020 kg: steps past it are left out"), "\(far.stdout)")
        #expect(!far.stdout.contains("1020 kg × 3"), "no step loaded as the most under another percentage")
    }

    @Test func aSettingThatNoLongerReadsIsNamedAndMendedFromTheCommandLine() async throws {
        let db = SpotterBinary.temporaryDatabase()
        #expect(try await SpotterBinary.run(["config", "plates", "kg", "--bar", "15", "10,5"], db: db).status == 0)
        // A damaged file (an older build, a hand edit): the plates read as no valid setting.
        let queue = try DatabaseQueue(path: db)
        try await queue.write { db in
            try db.execute(sql: "UPDATE meta SET value = '20: 0' WHERE key = 'pref.plates.kg'")
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('pref.warmup', 'bar:10,100:1')")
        }
        try queue.close()
        let show = try await SpotterBinary.run(["config", "show"], db: db)
        #expect(show.status == 1, "not every setting read")
        #expect(show.stdout.contains("plates lb: 45 lb bar"), "the others still show: \(show.stdout)")
        #expect(show.stdout.contains("spotter config plates kg default"), "\(show.stdout)")
        #expect(show.stdout.contains("spotter config warmup default"), "\(show.stdout)")
        // Setting it again mends it; so does 'default'.
        let again = try await SpotterBinary.run(["config", "plates", "kg", "--bar", "20"], db: db)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("20 kg bar, 25/20/15/10/5/2.5/1.25"), "\(again.stdout)")
        let reset = try await SpotterBinary.run(["config", "plates", "kg", "default"], db: db)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await SpotterBinary.run(["config", "warmup", "default"], db: db).status == 0)
        let mended = try await SpotterBinary.run(["config", "show"], db: db)
        #expect(mended.status == 0, "\(mended.stdout)")
        #expect(mended.stdout.contains("plates kg: 20 kg bar, 25/20/15/10/5/2.5/1.25"))
        #expect(try await SpotterBinary.run(["warmup", "Squat (Barbell)", "100"], db: db).status == 0)
    }
}

import Foundation
import SpotterCore
import Testing

@Suite("Reading Strong, Hevy and FitNotes exports")
struct ImportParserTests {
    let utc = TimeZone(identifier: "UTC")!

    /// The reader splits bytes, so text around the delimiter must come through whole: emoji with
    /// a skin tone, a ZWJ family, a combining mark right after a comma, Arabic, a flag, CR LF and a
    /// lone CR as line ends, CR LF inside quotes, doubled quotes and a byte-order mark.
    @Test func hostileTextAroundDelimitersComesThroughWhole() throws {
        let text =
            "\u{FEFF}a,b,c\r\n"
            + "💪🏽,\u{301}x,\"q \"\"y\"\"\r\nz\"\r"
            + "👨‍👩‍👧,مرحبا,🇫🇷\n"
            + "\"\",,\n"
            + "  \r\n"
            + "last,e\u{301},\"\"\"\""
        let records = CSV.records(text, delimiter: ",")
        #expect(
            records.map(\.fields) == [
                ["a", "b", "c"],
                ["💪🏽", "\u{301}x", "q \"y\"\nz"],
                ["👨‍👩‍👧", "مرحبا", "🇫🇷"],
                ["", "", ""],
                ["last", "e\u{301}", "\""],
            ])
        #expect(records.map(\.line) == [1, 2, 4, 5, 7])
        #expect(CSV.records("x;\u{1F4AA};y", delimiter: ";").map(\.fields) == [["x", "💪", "y"]])
    }

    @Test("a weight in hexadecimal and a date out of any lifter's years are named problems, the good rows kept")
    func misreadNumbersAndDatesAreProblems() throws {
        let text = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-04-08 16:50:00,Push,Bench Press (Barbell),1,0x10,5,0,0,,,
            0001-01-01 00:00:00,Push,Bench Press (Barbell),1,60,5,0,0,,,
            24-03-03 10:00:00,Push,Bench Press (Barbell),1,60,5,0,0,,,
            9999-12-31 23:59:59,Push,Bench Press (Barbell),1,60,5,0,0,,,
            2026-04-08 16:50:00,Push,Bench Press (Barbell),2,1e2,5,0,0,,,
            2026-04-08 16:50:00,Push,Bench Press (Barbell),3,62.5,5,0,0x1,,,
            2026-04-08 16:50:00,Push,Bench Press (Barbell),4,.5,5,0,90,,,
            2026-04-08 16:50:00,Push,Rowing (Machine),5,0,0,-3,-7,,,
            """
        let parsed = try ImportParser.parse(text, timeZone: utc)
        // A negative distance or time is a listed problem, not quietly a row without one.
        #expect(parsed.problems.map(\.line) == [2, 3, 4, 5, 7, 9], "\(parsed.problems)")
        #expect(
            parsed.problems.last?.message.contains("distance_m must be a number from 0") == true, "\(parsed.problems)")
        #expect(parsed.problems.first?.message.contains("'0x10' is not a number") == true)
        #expect(parsed.problems.dropFirst().first?.message.contains("not a workout date") == true)
        #expect(parsed.sets.map(\.weight) == [100, 0.5])
        #expect(parsed.sets.last?.durationS == 90)
        #expect(ImportParser.isDecimal("-3.5e-2") && ImportParser.isDecimal("62.") && !ImportParser.isDecimal("."))
        #expect(!ImportParser.isDecimal("nan") && !ImportParser.isDecimal("inf") && !ImportParser.isDecimal("1e"))
    }

    @Test func strongCommaDialectWithQuotedNotesSpanningLines() throws {
        let text = #"""
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-04-08 16:50:00,"Push Day",Bench Press (Barbell),W,60,10.0,0,0,,,
            2026-04-08 16:50:00,"Push Day",Bench Press (Barbell),1,100,5,0,0,"felt
            strong, ""easy""",Good day,8
            2026-04-08 16:50:00,"Push Day",Bench Press (Barbell),FAILURE,100,3,0,0,,,
            2026-04-08 16:50:00,"Push Day",Running,1,0,0,5000,1500,,,
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.format == .strong)
        #expect(parsed.problems.isEmpty)
        #expect(parsed.sets.map(\.kind) == [.warmup, .normal, .failure, .normal])
        #expect(parsed.sets[0].reps == 10, "reps written as a float")
        #expect(parsed.sets[1].notes == "felt\nstrong, \"easy\"")
        #expect(parsed.sets[1].rpe == 8)
        #expect(parsed.sets[1].workoutStart == Date(timeIntervalSince1970: 1_775_667_000))
        #expect(parsed.sets[3].distanceM == 5000 && parsed.sets[3].durationS == 1500, "cardio keeps distance and time")
        #expect(parsed.sets.allSatisfy { $0.unit == .kg && $0.workoutName == "Push Day" })
    }

    @Test(
        "notes over the limit are cut to it, never inside a character; a long workout name is said; the lines are named"
    )
    func longNotesAreCutWholeCharactersAndTheLinesAreNamed() throws {
        let flexed = String(repeating: "💪🏽", count: 2_500)  // two scalars each: 5 000
        let accented = String(repeating: "e\u{301}", count: 150)  // 300 scalars in 150 characters
        let arabic = String(repeating: "مرحبا ", count: 900)  // right to left, 5 400 scalars
        let text =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-04-08 16:50:00,\(accented),Bench Press (Barbell),1,100,5,0,0,\(flexed),\(arabic),\n"
            + "2026-04-08 16:50:00,\(accented),Bench Press (Barbell),2,100,5,0,0,short,,\n"
            + "2026-04-09 16:50:00,Pull,Deadlift (Barbell),1,180,3,0,0,,,\n"
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.sets.count == 3, "no row is lost")
        #expect(parsed.cutLines == [2, 3], "both rows of the long-named workout, and no other")
        let first = parsed.sets[0]
        #expect(first.notes?.unicodeScalars.count == 4_000, "as much as fits")
        #expect(first.notes?.last == "💪🏽", "the last emoji whole, its skin tone with it")
        #expect(first.notes.map { flexed.hasPrefix($0) } == true)
        #expect((first.workoutNotes?.unicodeScalars.count ?? 0) <= 4_000)
        #expect(first.workoutNotes.map { arabic.hasPrefix($0) } == true)
        #expect(first.workoutName == accented, "the name is cut where the workout is stored, after it is found")
        #expect(parsed.sets[1].notes == "short")
        for set in parsed.sets {
            #expect(throws: Never.self) { try Validation.notes(set.notes) }
            #expect(throws: Never.self) { try Validation.notes(set.workoutNotes) }
            #expect(throws: Never.self) {
                try Validation.workoutName(Validation.cut(set.workoutName, toScalars: Validation.maxNameLength))
            }
        }
    }

    @Test("a cut keeps whole characters and fits the count the server checks")
    func aCutKeepsWholeCharacters() {
        #expect(Validation.cut("e\u{301}e\u{301}e\u{301}", toScalars: 5) == "e\u{301}e\u{301}")
        #expect(Validation.cut("👨‍👩‍👧 family", toScalars: 4) == "", "a family emoji is five scalars: none fits")
        #expect(Validation.cut("ab cd", toScalars: 3) == "ab", "no trailing space is left")
        #expect(Validation.cut("short", toScalars: 200) == "short")
        #expect(Validation.cut("", toScalars: 0) == "")
    }

    @Test("names and notes with control or bidi characters are imported without them, and the lines are named")
    func controlCharactersAreCleanedAndReported() throws {
        let text =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-04-08 16:50:00,\"\u{200B}\u{202E}\",Bench Press (Barbell),1,100,5,0,0,\"left\u{2066}right\ttab\",,\n"
            + "2026-04-08 16:50:00,\"Push \u{1B}[31mDay\",\"Tab\tCurl\",2,20,8,0,0,,\"a\u{85}b\",\n"
            + "2026-04-08 16:50:00,Push Day,Bench Press (Barbell),3,100,5,0,0,,,\n"
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.sets.count == 3, "no row is lost")
        #expect(parsed.cleanedLines == [2, 3])
        #expect(parsed.sets[0].workoutName == "Workout", "a name left empty")
        #expect(parsed.sets[0].notes == "leftright\ttab", "notes keep their tab")
        #expect(parsed.sets[1].workoutName == "Push  [31mDay")
        #expect(parsed.sets[1].exercise == "Tab Curl")
        #expect(parsed.sets[1].workoutNotes == "a b")
        for set in parsed.sets {
            #expect(throws: Never.self) { try Validation.workoutName(set.workoutName) }
            #expect(throws: Never.self) { try Validation.exercise(set.exercise) }
            #expect(throws: Never.self) { try Validation.notes(set.notes) }
        }
    }

    @Test func strongSemicolonDialectWithAUnitColumn() throws {
        let text = #"""
            Date;Workout Name;Exercise Name;Set Order;Weight;Weight Unit;Reps;RPE;Distance;Distance Unit;Seconds;Notes;Workout Notes
            2026-01-02 07:00:00;Legs;Squat (Barbell);1;225;lbs;5;;;;;;
            2026-01-02 07:00:00;Legs;Running;1;0;kg;0;;3.5;km;1200;;
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.sets[0].unit == .lb && parsed.sets[0].weight == 225)
        #expect(parsed.sets[1].distanceM == 3500)
    }

    @Test func strongAllQuotedWithAUnitInTheHeader() throws {
        let text = #"""
            "Workout #";"Date";"Workout Name";"Duration (sec)";"Exercise Name";"Set Order";"Weight (kg)";"Reps";"RPE";"Distance (meters)";"Seconds";"Notes";"Workout Notes"
            "1";"2026-01-02 07:00:00";"Legs";"3600";"Squat (Barbell)";"1";"140";"5";"8";"";"";"";""
            """#
        let parsed = try ImportParser.parse(text, defaultUnit: .lb, timeZone: utc)
        #expect(parsed.sets.count == 1)
        #expect(parsed.sets[0].unit == .kg, "the header suffix wins over the default")
        #expect(parsed.sets[0].rpe == 8)
        #expect(parsed.sets[0].workoutEnd == parsed.sets[0].workoutStart.addingTimeInterval(3600))
    }

    @Test("cells padded with non-ASCII space are trimmed, hostile text is kept whole, dates follow their rows")
    func paddedCellsHostileTextAndInterleavedDates() throws {
        // The byte check that skips trimming must not skip a cell padded with NBSP or U+3000, nor
        // cut a name that ends in an emoji with a modifier or a combining mark; the date read for
        // one row must not stick to the next row of another workout.
        let text =
            "Date,Workout Name,Exercise Name,Set Order,Weight (lbs),Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-01-02 07:00:00,Legs,\u{00A0}Squat (Barbell)\u{3000},1,\"62,5\",5,,,Go 💪🏽,,\n"
            + "2026-01-03 08:00:00,Arms,Curl e\u{0301},1,20,10,,,\u{202E}note,,\n"
            + "2026-01-02 07:00:00,Legs,Squat (Barbell),2,100,5,,,,,\n"
        let parsed = try ImportParser.parse(text, defaultUnit: .kg, timeZone: utc)
        #expect(parsed.sets.count == 3)
        #expect(parsed.sets[0].exercise == "Squat (Barbell)")
        #expect(parsed.sets[0].weight == 62.5 && parsed.sets[0].unit == .lb, "a decimal comma, the header's unit")
        #expect(parsed.sets[0].notes == "Go 💪🏽")
        #expect(parsed.sets[1].exercise == "Curl e\u{0301}")
        #expect(parsed.sets[1].notes == "note", "the override is taken out, as from any cell")
        let second = parsed.sets[1].workoutStart.timeIntervalSince(parsed.sets[0].workoutStart)
        #expect(second == 90_000, "the second workout's own date")
        #expect(parsed.sets[2].workoutStart == parsed.sets[0].workoutStart)
    }

    @Test("a quoted comma in a comma file: groupings dropped, a lone three-digit group refused, never read as 1")
    func quotedThousandsAreNotReadAsDecimals() throws {
        let text =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-01-02 07:00:00,Legs,Squat (Barbell),1,\"1,000\",lbs,1,,,,,\n"
            + "2026-01-02 07:00:00,Legs,Squat (Barbell),2,\"1,000.5\",lbs,1,,,,,\n"
            + "2026-01-02 07:00:00,Legs,Squat (Barbell),3,\"62,5\",kg,5,,,,,\n"
            + "2026-01-02 07:00:00,Legs,Rowing,1,,,1,\"1,000,000\",,,,\n"
        let parsed = try ImportParser.parse(text, defaultUnit: .kg, timeZone: utc)
        #expect(parsed.sets.map(\.weight) == [1000.5, 62.5, 0])
        #expect(parsed.sets.last?.distanceM == 1_000_000, "more than one group: thousands")
        #expect(parsed.problems.count == 1)
        #expect(parsed.problems.first?.line == 2)
        #expect(parsed.problems.first?.message.contains("'1,000' could be 1000 or 1.000") == true)
        // In a semicolon file the comma is the decimal mark, whatever follows it.
        let semicolons =
            "Date;Workout Name;Exercise Name;Set Order;Weight;Weight Unit;Reps\n"
            + "2026-01-02 07:00:00;Legs;Squat (Barbell);1;1,250;kg;5\n"
        #expect(try ImportParser.parse(semicolons, timeZone: utc).sets.map(\.weight) == [1.25])
    }

    @Test("a workout finished as it began exports Duration 0 and reads back finished")
    func zeroDurationReadsBackFinished() throws {
        let text = """
            Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-01-02 07:00:00,Quick,0,Squat (Barbell),1,100,kg,5,,,,,
            2026-01-03 07:00:00,Open,,Squat (Barbell),1,100,kg,5,,,,,
            2026-01-04 07:00:00,Blink,0.4,Squat (Barbell),1,100,kg,5,,,,,
            2026-01-05 07:00:00,Strong's own,0s,Squat (Barbell),1,100,kg,5,,,,,
            2026-01-06 07:00:00,Garbled,soon,Squat (Barbell),1,100,kg,5,,,,,
            """
        let sets = try ImportParser.parse(text, timeZone: utc).sets
        #expect(sets[0].workoutEnd == sets[0].workoutStart)
        #expect(sets[1].workoutEnd == nil, "an empty cell leaves the workout open")
        #expect(sets[2].workoutEnd == sets[2].workoutStart.addingTimeInterval(0.4))
        #expect(sets[3].workoutEnd == sets[3].workoutStart)
        #expect(sets[4].workoutEnd == nil)
    }

    @Test func strongWithoutAUnitUsesTheDefault() throws {
        let text = #"""
            Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,RPE
            2026-01-02 07:00:00,Legs,1h,Squat (Barbell),1,315,5,,,
            """#
        #expect(try ImportParser.parse(text, defaultUnit: .lb, timeZone: utc).sets[0].unit == .lb)
    }

    @Test func hevyNewestFirstWithBodyweightAndSetTypes() throws {
        let text = #"""
            "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_lbs","reps","distance_miles","duration_seconds","rpe"
            "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Pull Up","","","1","dropset","","8","","",""
            "Pull","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Pull Up","","","0","warmup","","5","","",""
            "Run","7 Apr 2026, 06:00","7 Apr 2026, 06:30","","Running","","","0","normal","","","3","1800",""
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.format == .hevy)
        #expect(parsed.sets.map(\.kind) == [.drop, .warmup, .normal])
        #expect(parsed.sets[0].weight == 0 && parsed.sets[0].unit == .lb, "empty weight is bodyweight")
        #expect(parsed.sets[0].setOrder == 2)
        #expect(abs((parsed.sets[2].distanceM ?? 0) - 4828.032) < 0.001)
    }

    @Test("a Hevy file with both weight columns reads each row in the column its weight is in")
    func hevyWithBothWeightColumns() throws {
        let text = #"""
            "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","weight_lbs","reps","distance_km","duration_seconds","rpe"
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Bench Press (Barbell)","","","0","normal","100","","5","","",""
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Bench Press (Barbell)","","","1","normal","","225","5","","",""
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Bench Press (Barbell)","","","2","normal","102.5","226","5","","",""
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Pull Up","","","0","normal","","","8","","",""
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Bench Press (Barbell)","","","3","normal","0","225","5","","",""
            """#
        let sets = try ImportParser.parse(text, timeZone: utc).sets
        #expect(sets.map(\.weight) == [100, 225, 102.5, 0, 225])
        #expect(sets.map(\.unit) == [.kg, .lb, .kg, .kg, .lb], "a kg row is never read as lb, nor 225 lb as 0 kg")
    }

    @Test("superset numbers below the first are none, never folded into the first superset")
    func negativeSupersetsAreNone() throws {
        let hevy = #"""
            "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
            "Legs","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Squat (Barbell)","-1","","0","normal","100","5","","",""
            "Legs","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Leg Press","0","","0","normal","100","5","","",""
            "Legs","8 Apr 2026, 16:50","8 Apr 2026, 17:40","","Leg Curl (Machine)","0","","0","normal","40","5","","",""
            """#
        #expect(try ImportParser.parse(hevy, timeZone: utc).sets.map(\.superset) == [nil, 1, 1])
        let strong = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Superset
            2026-01-02 07:00:00,Legs,Squat (Barbell),1,100,kg,5,-1
            2026-01-02 07:00:00,Legs,Leg Press,1,100,kg,5,0
            2026-01-02 07:00:00,Legs,Bench Press (Barbell),1,100,kg,5,2
            """
        #expect(try ImportParser.parse(strong, timeZone: utc).sets.map(\.superset) == [nil, nil, 2])
    }

    @Test("a workout end that does not read or comes before its start leaves the workout open, and is said")
    func anEndBeforeTheStartIsSaid() throws {
        let hevy = #"""
            "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
            "Push","8 Apr 2026, 16:50","8 Apr 2026, 16:40","","Bench Press (Barbell)","","","0","normal","100","5","","",""
            "Pull","9 Apr 2026, 16:50","9 Apr 2026, 17:40","","Pull Up","","","0","normal","","8","","",""
            """#
        let parsed = try ImportParser.parse(hevy, timeZone: utc)
        #expect(parsed.sets.map { $0.workoutEnd == nil } == [true, false])
        #expect(parsed.unreadableEndLines == [2])
        let strong = """
            Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-01-02 07:00:00,Legs,soon,Squat (Barbell),1,100,kg,5,,,,,
            """
        #expect(try ImportParser.parse(strong, timeZone: utc).unreadableEndLines == [2])
    }

    @Test func fitNotesRowsAndAMalformedOneWithItsLineNumber() throws {
        let text = #"""
            Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
            2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
            2026-04-11,Curl, Hammer,Arms,20,10,,,
            2026-04-11,Running,Cardio,,,5.0,km,00:25:00
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.format == .fitnotes)
        #expect(parsed.sets.count == 2)
        #expect(parsed.sets[1].durationS == 1500 && parsed.sets[1].distanceM == 5000)
        #expect(parsed.problems.map(\.line) == [3])
    }

    @Test func invalidValuesAreReportedPerLineAndTheRestImports() throws {
        let text = #"""
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-04-08 16:50:00,A,Bench Press (Barbell),1,heavy,5,0,0,,,
            2026-04-08 16:50:00,A,Bench Press (Barbell),2,100,5,0,0,,,8.3
            yesterday,A,Bench Press (Barbell),3,100,5,0,0,,,
            2026-04-08 16:50:00,A,Bench Press (Barbell),4,100,5,0,0,,,
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.sets.count == 1)
        #expect(parsed.problems.map(\.line) == [2, 3, 4])
        #expect(parsed.problems[0].message.contains("Weight"))
        #expect(parsed.problems[1].message.contains("rpe"))
    }

    @Test func anUnknownHeaderIsRefusedWhole() {
        #expect(throws: ImportError.self) { try ImportParser.parse("a,b,c\n1,2,3\n") }
        #expect(throws: ImportError.self) { try ImportParser.parse("") }
    }

    @Test func exportReadsBackUnchanged() throws {
        let workout = Workout(name: "Push, Day", startedAt: Date(timeIntervalSince1970: 1_775_667_000), notes: "good")
        let sets = [
            WorkoutSet(
                workoutID: workout.id, exercise: "Bench Press (Barbell)", position: 1, kind: .warmup, weight: 60,
                reps: 10, performedAt: workout.startedAt),
            WorkoutSet(
                workoutID: workout.id, exercise: "Bench Press (Barbell)", position: 2, weight: 102.5, unit: .lb,
                reps: 5, rpe: 8.5, notes: "a \"quote\"\nand a line", performedAt: workout.startedAt),
            WorkoutSet(
                workoutID: workout.id, exercise: "Running", position: 3, weight: 0, reps: 0, distanceM: 5000,
                durationS: 1500, performedAt: workout.startedAt),
        ]
        let csv = StrongExport.csv(sets.map { ExportRow(workout: workout, set: $0) }, timeZone: utc)
        let parsed = try ImportParser.parse(csv, timeZone: utc)
        #expect(parsed.problems.isEmpty)
        #expect(parsed.sets.map(\.exercise) == sets.map(\.exercise))
        #expect(parsed.sets.map(\.kind) == sets.map(\.kind))
        #expect(parsed.sets.map(\.weight) == sets.map(\.weight))
        #expect(parsed.sets.map(\.unit) == sets.map(\.unit))
        #expect(parsed.sets.map(\.reps) == sets.map(\.reps))
        #expect(parsed.sets.map(\.rpe) == sets.map(\.rpe))
        #expect(parsed.sets.map(\.notes) == sets.map(\.notes))
        #expect(parsed.sets.map(\.distanceM) == sets.map(\.distanceM))
        #expect(
            parsed.sets.allSatisfy {
                $0.workoutName == "Push, Day" && $0.workoutStart == workout.startedAt && $0.workoutNotes == "good"
            })
    }
}

import Foundation
import SpotterCore
import SpotterStore
import SpotterSync
import Testing

@testable import SpotterTUI

@Suite("Screen layout")
struct LayoutTests {
    @Test("a workout name that starts with a combining mark shows without it everywhere, the header and titles too")
    func leadingMarkInEveryTitle() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "\u{301}Leg day")
        try fixture.log("Squat (Barbell)", 100, 5, workout: workout.id)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("N"))
        let screen = app.screen
        for y in 0..<screen.height {
            #expect(!screen.line(y).unicodeScalars.contains("\u{301}"), "line \(y): \(screen.line(y))")
        }
        #expect(screen.line(0).hasPrefix(" Spotter · Leg day ("), "\(screen.line(0))")
        #expect(screen.contains("Sets · Leg day"), "\(screen)")
        #expect(screen.contains("Log set · Leg day"), "\(screen)")
    }

    @Test("80x24: header, both panes, the sets table and the key hints, every row exactly 80 columns")
    func layoutAt80x24() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Push Day")
        try fixture.log("Bench Press (Barbell)", 100, 5, rpe: 8, workout: workout.id)
        try fixture.log("Bench Press (Barbell)", 100, 5, rpe: 8.5, workout: workout.id)
        try fixture.log("Incline Bench Press (Dumbbell)", 30, 10, workout: workout.id)
        let app = fixture.controller()
        let screen = app.screen

        #expect(screen.width == 80 && screen.height == 24)
        #expect(screen.line(0).hasPrefix(" Spotter · Push Day ("))
        #expect(screen.line(0).contains("⟳ Syncing… 4"))
        #expect(screen.line(1).hasPrefix("┌ Workouts "))
        #expect(screen.line(1).hasSuffix("┐"))
        #expect(screen.line(1).contains("┐┌ Sets · Push Day"))
        #expect(screen.line(2).contains("▸ Push Day"))
        #expect(screen.line(2).contains("today"))
        #expect(
            screen.line(2).contains("#") && screen.line(2).contains("Exercise") && screen.line(2).contains("Weight")
                && screen.line(2).contains("Reps") && screen.line(2).contains("RPE")
                && screen.line(2).contains("Status"))
        let first = try #require(screen.row(containing: "  1 Bench Press (Barbell)"))
        #expect(screen.line(first).contains("100 kg    5 8 "))
        #expect(screen.line(first).contains("⏳"))
        #expect(screen.line(first + 1).contains("8.5"))
        #expect(screen.contains("Incline Bench Press"))
        #expect(screen.line(22).hasPrefix("└") && screen.line(22).hasSuffix("┘"))
        #expect(
            screen.line(23).contains("n log") && screen.line(23).contains("? help")
                && screen.line(23).contains("q quit"))
        for y in 0..<24 {
            #expect(DisplayWidth.of(screen.line(y)) == 80, "row \(y) is not 80 columns: \(screen.line(y))")
        }
    }

    @Test("80x24: the widest weights show whole, as logged and in lb")
    func widestWeightsShowWhole() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Heavy")
        try fixture.log("Deadlift (Barbell)", 122.25, 3, workout: workout.id)
        try fixture.log("Deadlift (Barbell)", 2000, 1, workout: workout.id)
        var app = fixture.controller()
        #expect(app.screen.contains("122.25 kg") && app.screen.contains("2000 kg"), "\(app.screen)")
        try fixture.store.preferences.setDisplayUnit(.lb)
        app = fixture.controller()
        #expect(app.screen.contains("4409.25 lb") && app.screen.contains("269.52 lb"), "\(app.screen)")
    }

    @Test("80x24: a planned row of a rep range shows the range as written, 8–12, and 10–15 whole")
    func plannedRepRangeShowsAsWritten() throws {
        let fixture = try Fixture()
        try fixture.store.routines.create(
            name: "Arms",
            exercises: [
                RoutineExercise(
                    exercise: "Bicep Curl (Dumbbell)", sets: [PlannedSet(weight: 12, reps: 8, repsMax: 12)],
                    progression: .double)
            ])
        _ = try fixture.store.routines.start("Arms")
        let app = fixture.controller()
        let screen = app.screen
        let row = try #require(
            (0..<screen.height).map(screen.line).first { $0.contains("Bicep Curl (Dumbbell)") }, "\(screen)")
        #expect(row.contains(" 8–12 "), "\(row)")
        // A two-digit range takes the column's fifth place rather than turning into "10+".
        try fixture.store.routines.create(
            name: "Calves",
            exercises: [
                RoutineExercise(
                    exercise: "Seated Calf Raise (Machine)", sets: [PlannedSet(weight: 40, reps: 10, repsMax: 15)])
            ])
        _ = try fixture.store.routines.start("Calves")
        let calves = fixture.controller()
        let calfRow = try #require(
            (0..<calves.screen.height).map(calves.screen.line).first { $0.contains("Seated Calf Raise") },
            "\(calves.screen)")
        #expect(calfRow.contains("10–15"), "\(calfRow)")
        #expect(!calfRow.contains("10+"))
    }

    @Test("200x60: wider panes keep long names whole and the list fills the height")
    func layoutAt200x60() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Upper Body Hypertrophy Block Week 3")
        for index in 0..<40 {
            try fixture.log(
                index % 2 == 0 ? "Bulgarian Split Squat (Dumbbell)" : "Lat Pulldown (Cable)", 20 + Double(index), 8,
                workout: workout.id)
        }
        let app = fixture.controller(columns: 200, rows: 60)
        app.handle(.character("G"))
        let screen = app.screen

        #expect(screen.width == 200 && screen.height == 60)
        #expect(screen.line(0).contains("Upper Body Hypertrophy Block Week 3"))
        #expect(screen.contains("Bulgarian Split Squat (Dumbbell)"))
        #expect(screen.line(1).hasPrefix("┌ Workouts "))
        #expect(screen.line(58).hasPrefix("└") && screen.line(58).hasSuffix("┘"))
        #expect(screen.line(59).contains("? help"))
        // The last set is selected and visible after G: the 20th set of its exercise (sets are
        // numbered per exercise, as Strong and Hevy number them).
        let last = try #require(screen.row(containing: " 20 Lat Pulldown (Cable)"))
        #expect(screen.line(last).contains("59 kg"))
        #expect(last <= 57)
        #expect(screen.style(of: "20 Lat Pulldown", onRow: last)?.reverse == true)
        for y in 0..<60 { #expect(DisplayWidth.of(screen.line(y)) == 200) }
    }

    @Test("below 80x24 the screen says the terminal is too small, and redraws when it grows")
    func tooSmall() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 79, rows: 30)
        #expect(app.screen.contains("Terminal too small"))
        #expect(app.screen.contains("79x30, needs at least 80x24"))
        app.resize(columns: 100, rows: 23)
        #expect(app.screen.contains("Terminal too small"))
        app.resize(columns: 100, rows: 30)
        #expect(!app.screen.contains("Terminal too small"))
        #expect(app.screen.line(0).contains("Spotter"))
    }

    @Test("ASCII glyphs without a UTF-8 locale: no box drawing or symbols on screen")
    func asciiFallback() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller(glyphs: .ascii)
        let screen = app.screen
        let allASCII = screen.text.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(allASCII, "\(screen.text)")
        #expect(screen.line(1).hasPrefix("+ Workouts "))
        #expect(screen.line(0).contains("~ Syncing... 2"))
        let row = try #require(screen.row(containing: "Squat (Barbell)"))
        #expect(screen.line(row).contains(".."))
        app.handle(.character("a"))
        #expect(app.screen.line(0).contains("> Airplane - 2 queued"))
    }

    @Test("without UTF-8, names and messages are ASCII too: an emoji is '??', × is x, and no border moves")
    func asciiFallbackCoversNamesAndMessages() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "💪 Push · Day")
        try fixture.log("Bench Press (Barbell)", 100, 5, workout: workout.id)
        let app = fixture.controller(glyphs: .ascii)
        app.handle(.character("n"))
        app.handle(.enter)
        let screen = app.screen
        #expect(screen.text.unicodeScalars.allSatisfy { $0.isASCII }, "\(screen.text)")
        #expect(screen.contains("?? Push - Day"), "\(screen.text)")
        #expect(screen.contains("100 kg x 5"), "the logged message: \(screen.text)")
        for y in 0..<screen.height { #expect(screen.line(y).count == screen.width, "row \(y) keeps its width") }
    }

    @Test(
        "help shows every line whole, at 80x24 and at 120 columns (scrolled to, when below the box)",
        arguments: [80, 120])
    func helpIsNotClipped(columns: Int) throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: columns, rows: 24)
        app.handle(.character("?"))
        let top = try #require(app.screen.row(containing: "Help"))
        #expect(!app.screen.line(top + 1).contains("…"))
        // Every page of the help, from its first line to its last (j scrolls one line).
        var pages = [app.screen]
        for _ in 0..<app.state.helpScrollLimit {
            app.handle(.character("j"))
            pages.append(app.screen)
        }
        for text in Renderer.helpLines.map(\.text) {
            #expect(pages.contains { $0.contains(text) }, "'\(text)' whole at \(columns) columns")
        }
    }

    @Test("wide characters take two cells and never break the column grid")
    func wideCharacters() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        let written = buffer.put("a⏳b日本", x: 0, y: 0)
        #expect(written == 8)
        #expect(buffer.line(0) == "a⏳b日本  ")
        #expect(buffer[1, 0].width == 2 && buffer[2, 0].width == 0)
        #expect(DisplayWidth.of(buffer.line(0)) == 10)
        // Clipping never splits a wide character.
        var clipped = ScreenBuffer(width: 4, height: 1)
        clipped.put("ab日", x: 0, y: 0, maxWidth: 3)
        #expect(clipped.line(0) == "ab  ")
    }
}

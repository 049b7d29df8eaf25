import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// The progress screens in the UI (`c`, `Y`, `V`), through the reducer and a real store.
@Suite("Progress in the UI: chart, records, calendar, weekly volume per muscle")
struct ProgressViewsTests {
    /// Squat sessions a week apart for `weeks` weeks, rising 2.5 kg a week (one flat week), then bench.
    static func history(_ fixture: Fixture, weeks: Int = 12) throws {
        for week in 0..<weeks {
            let start = fixture.clock.now().addingTimeInterval(-Double(weeks - week) * 7 * 86_400)
            let workout = try fixture.store.workoutLog.createWorkout(name: "Lower \(week)", startedAt: start)
            let weight = 100 + 2.5 * Double(week == 5 ? 4 : week)
            for (index, (exercise, load, reps, kind)) in [
                ("Squat (Barbell)", 60.0, 5, SetKind.warmup), ("Squat (Barbell)", weight, 5, .normal),
                ("Bench Press (Barbell)", 70.0, 8, .normal),
            ].enumerated() {
                try fixture.store.workoutLog.logSet(
                    LogSetInput(
                        exercise: exercise, weight: load, reps: reps, kind: kind, workout: .existing(workout.id),
                        performedAt: start.addingTimeInterval(Double(index) * 180)))
            }
        }
    }

    static func progress(_ app: AppController) throws -> ProgressView {
        guard case .progress(let view) = app.state.overlay else { throw Missing() }
        return view
    }

    struct Missing: Error {}

    @Test("c on a set opens its exercise's chart; m and r cycle the metric and range; ←/→ move the cursor")
    func chartFromASet() throws {
        let fixture = try Fixture()
        try Self.history(fixture)
        let app = fixture.controller(columns: 80, rows: 24)
        app.handle(.character("l"))  // the sets pane of the newest workout
        app.handle(.character("j"))  // its work set of squats
        app.handle(.character("c"))
        var view = try Self.progress(app)
        #expect(view.exercise == "Squat (Barbell)")
        #expect(view.metric == .e1rm && view.range == .year)
        let screen = app.screen
        #expect(screen.contains("Progress · Squat (Barbell) · chart"), "\(screen)")
        #expect(screen.contains("Estimated 1RM"))
        // The cursor starts on the latest session: 127.5 × 5 → Epley 148.8 kg.
        #expect(screen.contains("148.8 kg"), "\(screen)")
        for row in 0..<24 { #expect(DisplayWidth.of(screen.line(row)) <= 80) }
        let braille = screen.text.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }
        #expect(braille, "the line is drawn in braille dots")

        app.handle(.character("m"))
        view = try Self.progress(app)
        #expect(view.metric == .heaviest)
        #expect(app.screen.contains("127.5 kg"), "heaviest: the latest work set")
        app.handle(.left)
        #expect(app.screen.contains("125 kg ★ record"), "the session before, a record: \(app.screen)")
        app.handle(.character("r"))
        #expect(try Self.progress(app).range == .all)
        app.handle(.character("m"))
        app.handle(.character("m"))
        #expect(try Self.progress(app).metric == .volume)
        #expect(app.screen.contains("637.5 kg"), "127.5 × 5 in the session's volume: \(app.screen)")
        app.handle(.escape)
        #expect(app.state.overlay == .none)
    }

    @Test("Tab shows the records: heaviest for N reps with dates, the best estimate, and the rep maxes it predicts")
    func recordsPage() throws {
        let fixture = try Fixture()
        try Self.history(fixture)
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("l"))
        app.handle(.character("j"))
        app.handle(.character("c"))
        app.handle(.tab)
        let screen = app.screen
        #expect(screen.contains("Heaviest for at least"), "\(screen)")
        #expect(screen.row(containing: "5 reps").map { screen.line($0).contains("127.5 kg") } == true, "\(screen)")
        #expect(screen.contains("Best estimated 1RM"))
        #expect(screen.contains("148.8 kg"))
        #expect(screen.contains("1RM 148.8 kg"), "the rep-max table starts at the estimate itself")
        app.handle(.character("u"))  // not a key here: nothing changes
        app.handle(.tab)
        #expect(try Self.progress(app).page == .chart)
    }

    @Test("with no set selected, c charts the exercise logged most; with no sets at all it says so")
    func mostLoggedOrNone() throws {
        let empty = try Fixture()
        let none = empty.controller()
        none.handle(.character("c"))
        #expect(none.state.overlay == .none)
        #expect(none.screen.contains("No working sets yet"), "\(none.screen)")

        let fixture = try Fixture()
        try Self.history(fixture)
        try fixture.log("Bench Press (Barbell)", 60, 10)
        try fixture.log("Bench Press (Barbell)", 60, 10)
        let app = fixture.controller()
        app.handle(.character("c"))  // the workouts pane has the focus
        #expect(try Self.progress(app).exercise == "Bench Press (Barbell)", "14 bench sets, 12 squat")
    }

    @Test("^G in the form and c in the history open the chart; Esc goes back where it came from")
    func chartFromTheFormAndHistory() throws {
        let fixture = try Fixture()
        try Self.history(fixture)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.type("Squat (Barbell)")
        app.handle(.control("g"))
        #expect(try Self.progress(app).exercise == "Squat (Barbell)")
        app.handle(.escape)
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("Esc goes back to the form: \(app.state.overlay)")
            return
        }
        #expect(form.exercise == "Squat (Barbell)", "the form as it was left")
        app.handle(.escape)
        app.handle(.character("l"))
        app.handle(.character("j"))
        app.handle(.character("h"))
        guard case .history = app.state.overlay else {
            Issue.record("h opens the history")
            return
        }
        app.handle(.character("c"))
        #expect(try Self.progress(app).exercise == "Squat (Barbell)")
        app.handle(.escape)
        guard case .history = app.state.overlay else {
            Issue.record("Esc goes back to the history: \(app.state.overlay)")
            return
        }
    }

    @Test("an assisted lift charts the load moved: the body weight less the assistance")
    func assistedLiftChartsTheLoadMoved() throws {
        let fixture = try Fixture()
        let start = fixture.clock.now().addingTimeInterval(-30 * 86_400)
        try fixture.store.workoutLog.logBodyWeight(80, unit: .kg, at: start.addingTimeInterval(-3600))
        let workout = try fixture.store.workoutLog.createWorkout(name: "Pull", startedAt: start)
        try fixture.store.workoutLog.logSet(
            LogSetInput(
                exercise: "Pull Up (Assisted)", weight: 20, reps: 8, workout: .existing(workout.id), performedAt: start)
        )
        let app = fixture.controller()
        app.handle(.character("l"))
        app.handle(.character("c"))
        app.handle(.character("m"))  // heaviest
        #expect(app.screen.contains("60 kg"), "80 kg less 20 kg of help: \(app.screen)")
    }

    @Test("Y shows the year, the streak, and Enter lists the day's workouts and opens one")
    func calendar() throws {
        let fixture = try Fixture()
        try Self.history(fixture, weeks: 3)
        let app = fixture.controller(columns: 80, rows: 24)
        app.handle(.character("Y"))
        guard case .calendar(var view) = app.state.overlay else {
            Issue.record("Y opens the calendar")
            return
        }
        let screen = app.screen
        #expect(screen.contains("Training calendar"), "\(screen)")
        #expect(screen.contains("Streak: 3 weeks"), "three weeks in a row, the last one a week ago: \(screen)")
        for row in 0..<24 { #expect(DisplayWidth.of(screen.line(row)) <= 80) }
        // Back a week to the newest session (a week before today, at the same time).
        app.handle(.character("h"))
        guard case .calendar(let moved) = app.state.overlay else { return }
        view = moved
        #expect(app.screen.contains("1 workout, 2 sets"), "two working sets; the warm-up is not counted: \(app.screen)")
        app.handle(.enter)
        guard case .calendar(let listed) = app.state.overlay, let list = listed.dayWorkouts else {
            Issue.record("Enter lists the day's workouts")
            return
        }
        #expect(list.map(\.title).first?.hasSuffix("Lower 2") == true, "\(list.map(\.title))")
        app.handle(.enter)
        #expect(app.state.overlay == .none)
        #expect(app.state.currentWorkout?.summary.workout.name == "Lower 2")
        #expect(app.state.focus == .sets)
        _ = view
        // + raises the weekly goal: two workouts a week were never done.
        app.handle(.character("Y"))
        app.handle(.character("+"))
        #expect(app.screen.contains("Streak: 0 weeks"), "\(app.screen)")
        #expect(try fixture.store.preferences.streakGoal == 2, "the goal is kept for the next time")
        app.handle(.character("-"))
        #expect(app.screen.contains("Streak: 3 weeks"), "\(app.screen)")
    }

    @Test("V lists sets per muscle this week and before; lifts with no muscles are counted, not dropped")
    func muscleVolume() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 100, 5)
        try fixture.log("Squat (Barbell)", 100, 5)
        try fixture.log("Bench Press (Barbell)", 80, 5)
        try fixture.log("Zercher Carry 🦵🏽", 60, 5)
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("V"))
        let screen = app.screen
        #expect(screen.contains("Weekly volume per muscle"), "\(screen)")
        let quads = try #require(screen.row(containing: "quads"))
        #expect(screen.line(quads).contains("2 sets"), "\(screen)")
        #expect(screen.contains("1 set of lifts with no muscles named: Zercher Carry"), "\(screen)")
        app.handle(.escape)
        #expect(app.state.overlay == .none)
    }

    @Test("as logged, a lift logged in lb is charted in lb; a chosen unit wins")
    func chartInTheLoggedUnit() throws {
        let fixture = try Fixture()
        try fixture.store.workoutLog.logSet(
            LogSetInput(exercise: "Deadlift (Barbell)", weight: 330, unit: .lb, reps: 5))
        let app = fixture.controller()
        app.handle(.character("l"))
        app.handle(.character("c"))
        app.handle(.character("m"))  // heaviest
        #expect(app.screen.contains("330 lb"), "as logged: \(app.screen)")
        app.handle(.tab)
        #expect(app.screen.contains("330 lb"), "the records too: \(app.screen)")
        app.handle(.escape)
        app.handle(.character("u"))  // kg
        app.handle(.character("c"))
        app.handle(.character("m"))
        #expect(app.screen.contains("149.7 kg"), "\(app.screen)")
    }

    @Test("workouts of warm-ups only keep no streak, as they are no training day on the calendar")
    func warmupsOnlyKeepNoStreak() throws {
        let fixture = try Fixture()
        for week in 0..<3 {
            let start = fixture.clock.now().addingTimeInterval(-Double(week) * 7 * 86_400 - 3_600)
            let workout = try fixture.store.workoutLog.createWorkout(name: "Warm-up \(week)", startedAt: start)
            try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Squat (Barbell)", weight: 20, reps: 10, kind: .warmup, workout: .existing(workout.id),
                    performedAt: start))
        }
        let app = fixture.controller()
        app.handle(.character("Y"))
        #expect(app.screen.contains("Streak: 0 weeks"), "\(app.screen)")
    }

    @Test("V with only lifts that have no muscles says so and counts their sets")
    func volumeOfCustomLiftsOnly() throws {
        let fixture = try Fixture()
        try fixture.log("Sandbag Carry", 60, 5)
        try fixture.log("Sandbag Carry", 60, 5)
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("V"))
        #expect(app.screen.contains("2 sets of lifts with no muscles named: Sandbag Carry"), "\(app.screen)")
    }

    @Test("the progress screens fit 80×24 and fill 200×60, in Unicode and in ASCII")
    func sizesAndGlyphs() throws {
        let fixture = try Fixture()
        try Self.history(fixture, weeks: 40)
        for (columns, rows) in [(80, 24), (200, 60)] {
            for glyphs in [Glyphs.unicode, .ascii] {
                let app = fixture.controller(columns: columns, rows: rows, glyphs: glyphs)
                for key in ["c", "Y", "V"] {
                    app.handle(.character(Character(key)))
                    let screen = app.screen
                    for row in 0..<rows {
                        #expect(DisplayWidth.of(screen.line(row)) <= columns, "\(key) at \(columns)x\(rows)")
                    }
                    if glyphs == .ascii {
                        #expect(screen.text.unicodeScalars.allSatisfy { $0.isASCII }, "\(key): \(screen)")
                    }
                    #expect(screen.line(rows - 1).contains("Esc close"), "\(key): its keys on the bottom bar")
                    #expect(screen.line(rows - 2).hasPrefix(String(glyphs.bottomLeft)), "\(key): the box reaches it")
                    app.handle(.escape)
                }
            }
        }
    }

    @Test("hostile exercise names chart without breaking a row")
    func hostileNames() throws {
        let fixture = try Fixture()
        for name in ["👍🏽 Curl", "Cafe\u{301} Press", "חתירה Row", "👨‍👩‍👧 Carry"] {
            try fixture.log(name, 20, 10)
            try fixture.log(name, 22.5, 10)
        }
        let app = fixture.controller()
        for index in 0..<4 {
            app.handle(.character("l"))
            app.handle(.character(index == 0 ? "g" : "j"))
            app.handle(.character("c"))
            let screen = app.screen
            for row in 0..<24 { #expect(DisplayWidth.of(screen.line(row)) <= 80, "\(screen)") }
            #expect(screen.contains("Progress ·"), "\(screen)")
            app.handle(.escape)
        }
    }
}

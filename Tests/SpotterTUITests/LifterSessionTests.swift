import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// Issue 12 (the lifter's session) and issue 10 item 3 (paste), through the reducer and a real store.
@Suite("A lifter's session: the right workout, the right prefill, fields that behave")
struct LifterSessionTests {
    /// A finished session months ago: "Lower" with squats, then bench.
    @discardableResult
    static func oldSession(_ fixture: Fixture, daysAgo: Double = 200) throws -> Workout {
        let start = fixture.clock.now().addingTimeInterval(-daysAgo * 86_400)
        let workout = try fixture.store.workoutLog.createWorkout(name: "Lower", startedAt: start)
        for (index, (exercise, weight, reps)) in [
            ("Squat (Barbell)", 140.0, 5), ("Squat (Barbell)", 150.0, 3), ("Bench Press (Barbell)", 100.0, 5),
            ("Bench Press (Barbell)", 105.0, 3),
        ].enumerated() {
            try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: exercise, weight: weight, reps: reps, workout: .existing(workout.id),
                    performedAt: start.addingTimeInterval(Double(index) * 180)))
        }
        try fixture.store.workoutLog.editWorkout(
            id: workout.id, changes: WorkoutChanges(endedAt: start.addingTimeInterval(3600)))
        return workout
    }

    static func form(_ app: AppController) throws -> SetForm {
        guard case .setForm(let form) = app.state.overlay else { throw FormMissing() }
        return form
    }

    struct FormMissing: Error {}

    @Test("n at launch logs into a new workout of today, not into the old workout that is selected")
    func nLogsIntoTodayNotTheSelectedOldWorkout() throws {
        let fixture = try Fixture()
        let old = try Self.oldSession(fixture)
        let app = fixture.controller()
        #expect(app.state.currentWorkout?.id == old.id, "the newest (old) workout is selected at launch")
        app.handle(.character("n"))
        #expect(try Self.form(app).title == "Log set · new workout")
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: old.id).count == 4, "nothing was added to the old workout")
        let today = try #require(app.state.workoutInProgress)
        #expect(today.id != old.id)
        #expect(today.summary.workout.name == "Afternoon Workout")
        let logged = try fixture.store.queries.sets(workoutID: today.id)
        #expect(logged.map(\.set.exercise) == ["Squat (Barbell)"])
        #expect(logged.first?.set.weight == 140 && logged.first?.set.reps == 5, "the first set of the last session")

        // A second n goes to the same workout in progress, even with the old workout selected.
        app.handle(.tab)
        app.handle(.character("j"))
        #expect(app.state.currentWorkout?.id == old.id)
        app.handle(.character("n"))
        #expect(try Self.form(app).title == "Log set · Afternoon Workout")
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: today.id).count == 2)
        #expect(try fixture.store.queries.sets(workoutID: old.id).count == 4)
    }

    @Test("N logs into the selected workout on purpose, an old one too")
    func shiftNLogsIntoTheSelectedWorkout() throws {
        let fixture = try Fixture()
        let old = try Self.oldSession(fixture)
        let app = fixture.controller()
        app.handle(.character("N"))
        #expect(try Self.form(app).title.hasPrefix("Log set · Lower ("))
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: old.id).count == 5)
        #expect(app.state.workoutInProgress == nil)
    }

    @Test(
        "choosing another exercise with Enter prefills from that exercise's last session, by set position, with the date"
    )
    func enterOnASuggestionPrefillsThatExercise() throws {
        let fixture = try Fixture()
        try Self.oldSession(fixture)
        // Today: one bench set done already, so the next is the second.
        try fixture.log("Bench Press (Barbell)", 100, 5)
        try fixture.log("Squat (Barbell)", 60, 10)
        let app = fixture.controller()
        app.handle(.character("j"))  // the squat set is selected: the form opens on squats
        app.handle(.character("n"))
        #expect(try Self.form(app).exercise == "Squat (Barbell)")
        app.handle(.backTab)
        app.type("bench pr")
        app.handle(.enter)  // Enter takes the highlighted suggestion (the first)
        let form = try Self.form(app)
        #expect(form.exercise == "Bench Press (Barbell)")
        #expect(form.focus == .weight, "Enter on a new exercise fills its numbers, it does not save")
        // Bench was pressed today already: the next set follows the set just logged (100×5), and
        // last session's second set (105×3) stays in the note, as Strong's "previous" column.
        #expect(form.weight == "100" && form.unit == .kg && form.reps == "5", "the set just logged")
        #expect(form.kind == .normal)
        let note = try #require(form.prefillNote)
        #expect(note.contains("set 2/2") && note.contains("Bench Press (Barbell)"))
        let oldDate = fixture.clock.now().addingTimeInterval(-200 * 86_400)
        let year = String(Calendar.current.component(.year, from: oldDate))
        let sameYear =
            Calendar.current.component(.year, from: oldDate)
            == Calendar.current.component(.year, from: fixture.clock.now())
        #expect(sameYear || note.contains(year), "a date of another year shows the year: \(note)")
        #expect(app.screen.contains("previous: 105 kg × 3 set 2/2"), "\(app.screen)")
        app.handle(.enter)
        let sets = try fixture.store.queries.sets(workoutID: try #require(app.state.workoutInProgress).id)
        #expect(sets.last?.set.exercise == "Bench Press (Barbell)" && sets.last?.set.weight == 100)
    }

    @Test("Tab to an exercise without history clears the previous exercise's numbers")
    func tabToAnExerciseWithoutHistoryClears() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3, rpe: 9)
        let app = fixture.controller()
        app.handle(.character("n"))
        #expect(try Self.form(app).weight == "140" && Self.form(app).unit == .kg)
        app.handle(.backTab)
        app.type("Deadlift (Barbell)")
        app.handle(.tab)
        let form = try Self.form(app)
        #expect(form.exercise == "Deadlift (Barbell)")
        #expect(form.weight.isEmpty && form.reps.isEmpty && form.rpe.isEmpty)
        #expect(form.prefillNote == nil)
        #expect(app.screen.contains("no earlier Deadlift (Barbell) set"))
    }

    @Test("Shift-Tab back into a chosen exercise selects it: typing replaces the name, never appends to it")
    func tabbingIntoAFilledFieldSelectsIt() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 60, 5)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.backTab)  // the form opens on the weight
        app.handle(.control("u"))
        app.type("deadl")
        app.handle(.tab)
        #expect(try Self.form(app).exercise == "Deadlift (Barbell)")
        app.handle(.backTab)
        app.type("squat (barbell)")
        #expect(try Self.form(app).exercise == "squat (barbell)", "not 'Deadlift (Barbell)squat (barbell)'")
        app.handle(.left)
        app.handle(.tab)
        app.handle(.backTab)
        app.handle(.backspace)
        #expect(try Self.form(app).exercise == "Squat (Barbell", "Backspace edits a selected field")
    }

    @Test("the first key typed into a prefilled field replaces it; Backspace edits it")
    func typingReplacesAPrefilledField() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 60, 5)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.type("80")
        #expect(try Self.form(app).weight == "80")
        app.handle(.tab)
        app.handle(.backspace)
        app.type("8")
        #expect(try Self.form(app).reps == "8", "Backspace then typing edits: 5 → '' → 8")
        app.handle(.enter)
        let sets = try fixture.store.queries.sets(workoutID: nil)
        #expect(sets.last?.set.weight == 80 && sets.last?.set.reps == 8)

        app.handle(.character("n"))
        app.handle(.backspace)
        #expect(try Self.form(app).weight == "8", "Backspace edits the prefilled number (the unit is beside it)")
        app.type("5")
        #expect(try Self.form(app).weight == "85", "and typing after it appends a digit, never to 'kg'")
        app.handle(.right)
        app.handle(.tab)
        app.handle(.right)
        app.type("0")
        #expect(try Self.form(app).reps == "80", "after an arrow, typing appends")
    }

    @Test("a 10 000-character paste fills the exercise field up to its limit and says the rest was refused")
    func pasteIsBounded() throws {
        let paste = String(repeating: "_%a", count: 3_334)
        var state = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date())
        _ = state.reduce(.character("n"))
        var effects = 0
        for character in paste { effects += state.reduce(.character(character)).count }
        guard case .setForm(let pasted) = state.overlay else { throw FormMissing() }
        #expect(pasted.exercise.count == Validation.maxExerciseLength)
        #expect(effects == Validation.maxExerciseLength, "one type-ahead query per accepted character, none after")
        #expect(pasted.error == "Exercise holds at most 100 characters; the rest was not typed")

        let fixture = try Fixture()
        let app = fixture.controller()
        app.handle(.character("n"))
        app.type(paste)
        #expect(try Self.form(app).exercise.count == Validation.maxExerciseLength)
        #expect(app.screen.contains("Exercise holds at most 100 characters"))

        app.handle(.escape)
        app.handle(.character("/"))
        app.type(String(repeating: "b", count: 500))
        #expect(app.state.filterInput?.text.count == 100)
        // The filter line shows the end of the text, where the cursor is (scrolled: "/…bbbb").
        let filterLine = app.screen.line(23)
        #expect(filterLine.contains("/bbbb") || filterLine.contains("/…bbbb"), "\(filterLine)")
        app.handle(.escape)
        app.handle(.character("w"))
        app.type(String(repeating: "w", count: 500))
        #expect(app.state.overlay == .newWorkout(name: String(repeating: "w", count: Validation.maxNameLength)))
    }

    @Test("rest: per exercise, + adds 30 s, t skips, the bell rings at zero, none after a warm-up")
    func restTimerIsConfigurable() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        try fixture.store.preferences.setRestSeconds(180, exercise: "squat (barbell)")
        try fixture.store.preferences.setRestSeconds(60, exercise: nil)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.enter)
        #expect(app.screen.line(0).contains("rest 03:00"), "the squat's own rest")
        app.handle(.character("+"))
        #expect(app.screen.line(0).contains("rest 03:30"))
        app.handle(.character("t"))
        #expect(!app.screen.line(0).contains("rest"))
        #expect(app.state.bellRequests == 0)

        // Another exercise: the default; at zero the bell rings once and the bar says so.
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("Deadlift (Barbell)")
        app.handle(.tab)
        app.type("180")
        app.handle(.tab)
        app.type("3")
        app.handle(.enter)
        #expect(app.screen.line(0).contains("rest 01:00"))
        fixture.clock.advance(by: 61)
        app.tick()
        #expect(app.state.bellRequests == 1)
        #expect(app.screen.line(23).contains("Rest over"))
        app.tick()
        #expect(app.state.bellRequests == 1, "one bell per rest")

        // A warm-up starts no timer.
        app.handle(.character("n"))
        for _ in 0..<3 { app.handle(.tab) }
        app.handle(.character("w"))
        #expect(try Self.form(app).kind == .warmup)
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: nil).last?.set.kind == .warmup)
        #expect(app.state.restEndsAt == nil)

        // The bell can be turned off.
        try fixture.store.preferences.setRestBell(false)
        let quiet = fixture.controller()
        quiet.handle(.character("n"))
        quiet.handle(.tab)
        quiet.handle(.tab)
        quiet.handle(.tab)
        quiet.handle(.character("n"))  // kind: normal
        quiet.handle(.enter)
        fixture.clock.advance(by: 200)
        quiet.tick()
        #expect(quiet.state.bellRequests == 0 && quiet.state.restEndsAt == nil)
    }

    @Test("a lb lifter sees pounds everywhere, the prefill too, while the stored kilograms stay")
    func displayUnitPreference() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 90.72, 5)
        try fixture.store.preferences.setDisplayUnit(.lb)
        let app = fixture.controller()
        #expect(app.screen.contains("200 lb"))
        #expect(!app.screen.contains("90.72 kg"))
        app.handle(.character("n"))
        #expect(try Self.form(app).weight == "200" && Self.form(app).unit == .lb)
        app.handle(.enter)  // saved untouched: the stored 90.72 kg, not a rounded 200 lb
        let saved = try fixture.store.queries.sets(workoutID: nil).map(\.set)
        #expect(saved.count == 2 && saved.allSatisfy { $0.weight == 90.72 && $0.unit == .kg }, "\(saved)")
        try fixture.store.workoutLog.deleteSet(id: try #require(saved.last).id)
        app.handle(.character("u"))  // lb → as logged
        #expect(app.screen.contains("90.72 kg"))
        #expect(try fixture.store.preferences.displayUnit == nil)
        app.handle(.character("u"))
        #expect(try fixture.store.preferences.displayUnit == .kg)
        #expect(try fixture.store.queries.sets(workoutID: nil).map(\.set.weight) == [90.72], "nothing stored changed")
    }

    @Test("every workout is reachable: scrolling to the end loads older ones, and old dates carry their year")
    func longHistories() throws {
        let fixture = try Fixture()
        let now = fixture.clock.now()
        for day in 1...205 {
            try fixture.store.workoutLog.createWorkout(
                name: "Session \(day)", startedAt: now.addingTimeInterval(-Double(day) * 2 * 86_400))
        }
        let app = fixture.controller()
        #expect(app.state.workouts.count == 200)
        #expect(app.state.moreWorkouts)
        app.handle(.tab)
        app.handle(.character("G"))  // one press: the oldest workout, not the oldest loaded
        #expect(app.state.workouts.count == 205)
        #expect(!app.state.moreWorkouts)
        #expect(app.state.currentWorkout?.summary.workout.name == "Session 205")
        let oldest = try #require(app.state.currentWorkout)
        let year = Calendar.current.component(.year, from: oldest.summary.workout.startedAt)
        #expect(year != Calendar.current.component(.year, from: now))
        #expect(oldest.dayLabel.hasSuffix(String(year)), "\(oldest.dayLabel)")
        #expect(app.screen.contains(oldest.dayLabel))
    }

    @Test("emoji in workout names are measured by display width: no border moves", arguments: [80, 120])
    func wideCharactersKeepBorders(columns: Int) throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Leg day 🦵🔥🏋️‍♂️ 💪🏽 家 🇬🇧 and a long tail of words")
        try fixture.log("Squat (Barbell)", 140, 3, workout: workout.id)
        let app = fixture.controller(columns: columns, rows: 24)
        let screen = app.screen
        for y in 0..<24 {
            #expect(DisplayWidth.of(screen.line(y)) == columns, "row \(y): \(screen.line(y))")
        }
        #expect(screen.contains("Leg day"))
        for y in 1..<23 where screen.line(y).hasPrefix("│") {
            #expect(screen.line(y).hasSuffix("│"), "row \(y)'s right border: \(screen.line(y))")
        }
    }

    @Test("the form shows the exercise's last sessions and an e1RM sparkline; h and ^O open its whole history")
    func historyAtAGlance() throws {
        let fixture = try Fixture()
        try Self.oldSession(fixture, daysAgo: 300)
        let recent = try Self.oldSession(fixture, daysAgo: 200)
        try fixture.store.workoutLog.logSet(
            LogSetInput(
                exercise: "Squat (Barbell)", weight: 160, reps: 2, workout: .existing(recent.id),
                performedAt: recent.startedAt.addingTimeInterval(900)))
        let app = fixture.controller()
        app.handle(.character("n"))
        let form = try Self.form(app)
        let history = try #require(form.history)
        #expect(history.exercise == "Squat (Barbell)")
        #expect(history.lines.count == 2)
        #expect(history.lines[0].contains("140×5 150×3 160×2"), "\(history.lines)")
        #expect(history.lines[1].contains("140×5 150×3") && history.lines[1].contains("e1RM 165 kg"))
        #expect(history.trend.count == 2 && history.trend[0] < history.trend[1], "oldest first, rising")
        let screen = app.screen
        #expect(screen.contains("Last sessions  e1RM ▁█ (2)"))
        #expect(screen.contains("140×5 150×3 160×2"))
        #expect(Renderer.sparkline([1, 2, 3, 4], glyphs: .ascii) == "_-+#")

        app.handle(.control("o"))
        guard case .history(let view) = app.state.overlay else {
            Issue.record("^O did not open the history")
            return
        }
        #expect(view.total == 2 && view.lines.count == 2)
        #expect(app.screen.contains("History · Squat (Barbell) · 2 sessions"))
        app.handle(.escape)
        #expect(try Self.form(app).exercise == "Squat (Barbell)", "Esc goes back to the form")
        app.handle(.escape)

        app.handle(.character("h"))
        guard case .history(let fromSet) = app.state.overlay else {
            Issue.record("h did not open the history")
            return
        }
        #expect(fromSet.exercise == "Squat (Barbell)" && fromSet.lines.first?.contains("PR") == true)
        app.handle(.escape)
        #expect(app.state.overlay == .none)
    }

    @Test(
        "Enter on a highlighted suggestion takes it; a custom exercise is made only from the 'new custom exercise' row")
    func enterTakesTheHighlightedSuggestion() throws {
        let fixture = try Fixture()
        // A lifter's history: bench pressed before, so it is the first match for "bench".
        try fixture.log("Bench Press (Barbell)", 80, 5)
        try fixture.log("Squat (Barbell)", 60, 10)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("j"))  // the squat set: the form opens on squats
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("bench")
        #expect(app.screen.contains("▸   Bench Press (Barbell)"), "\(app.screen)")
        #expect(app.screen.contains("+ new custom exercise 'bench'"), "the typed text is offered, not taken")
        app.handle(.enter)
        var form = try Self.form(app)
        #expect(form.exercise == "Bench Press (Barbell)")
        #expect(form.newCustomExercise == nil)
        app.type("60")
        app.handle(.tab)
        app.type("5")
        app.handle(.enter)
        #expect(try fixture.store.queries.exercises(matching: "bench").first == "Bench Press (Barbell)")
        #expect(try !fixture.store.queries.exercises(matching: "bench").contains("bench"), "no junk exercise")

        // The custom row is drawn below the suggestions and reached by going down past the last
        // one: Enter then makes the new lift, and the form says so before anything is saved.
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("bench")
        var typed = try Self.form(app)
        let shown = TypeAhead.shownCount(typed: typed.exercise, suggestions: typed.suggestions)
        app.handle(.up)
        #expect(try Self.form(app).highlighted == 0, "up from the first suggestion stays on it")
        for _ in 0..<shown { app.handle(.down) }
        typed = try Self.form(app)
        #expect(typed.highlighted == TypeAhead.customRow)
        let lines = (0..<40).map { app.screen.line($0) }
        let customLine = try #require(lines.firstIndex { $0.contains("▸ + new custom exercise 'bench'") })
        #expect(
            lines[customLine - 1].contains(typed.suggestions[shown - 1]),
            "the highlighted custom row is drawn right below the last suggestion shown: \(app.screen)")
        app.handle(.down)
        #expect(try Self.form(app).highlighted == TypeAhead.customRow, "the custom row is the last")
        app.handle(.up)
        #expect(try Self.form(app).highlighted == shown - 1, "up from the custom row is the last suggestion")
        app.handle(.down)
        app.handle(.enter)
        form = try Self.form(app)
        #expect(form.exercise == "bench")
        #expect(form.newCustomExercise == "bench")
        #expect(app.screen.contains("new custom exercise 'bench': saving adds it"), "\(app.screen)")

        // Text nothing matches has only the custom row, highlighted.
        app.handle(.escape)
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("bench spoto")
        #expect(try Self.form(app).suggestions.isEmpty)
        #expect(app.screen.contains("▸ + new custom exercise 'bench spoto'"), "\(app.screen)")
        app.handle(.enter)
        #expect(try Self.form(app).newCustomExercise == "bench spoto")
    }

    @Test("Enter takes the row moved to, even when another suggestion spells exactly what was typed")
    func enterTakesTheRowMovedToOverAnExactMatch() throws {
        let fixture = try Fixture()
        try fixture.log("Pull Up", 0, 8)
        try fixture.log("Pull Up (Assisted)", 20, 8)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("pull up")
        var form = try Self.form(app)
        let exact = try #require(form.suggestions.firstIndex(of: "Pull Up"))
        let assisted = try #require(form.suggestions.firstIndex(of: "Pull Up (Assisted)"))
        #expect(form.highlighted == exact, "the exact match is the default highlight: \(form.suggestions)")
        #expect(!app.screen.contains("new custom exercise"), "an exact match offers no custom row")
        let step: Key = assisted > exact ? .down : .up
        for _ in 0..<abs(assisted - exact) { app.handle(step) }
        #expect(try Self.form(app).highlighted == assisted)
        #expect(app.screen.contains("▸   Pull Up (Assisted)"), "\(app.screen)")
        app.handle(.enter)
        form = try Self.form(app)
        #expect(form.exercise == "Pull Up (Assisted)", "the highlighted row, not the exact match")
        #expect(form.newCustomExercise == nil)
        app.handle(.enter)
        let sets = try fixture.store.queries.sets(workoutID: try #require(app.state.workoutInProgress).id)
        #expect(sets.last?.set.exercise == "Pull Up (Assisted)")

        // The exact match with nothing moved is what Enter takes.
        app.handle(.character("n"))
        app.handle(.backTab)
        app.type("PULL UP")
        app.handle(.enter)
        #expect(try Self.form(app).exercise == "Pull Up")
    }

    @Test("a leftover custom 'bench' with no sets does not beat the highlighted Bench Press (Barbell)")
    func junkCustomExerciseDoesNotBeatTheHighlight() throws {
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 80, 5)
        // A junk custom exercise left over from an earlier Enter, its only set deleted.
        let junk = try fixture.log("bench", 60, 5)
        try fixture.store.workoutLog.deleteSet(id: junk.set.id)
        #expect(try fixture.store.queries.exerciseList(customOnly: true).map(\.name) == ["bench"])
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("n"))
        #expect(app.state.overlay != .none, "\(app.screen)")
        app.handle(.backTab)
        app.type("bench")
        let form = try Self.form(app)
        #expect(form.suggestions.first == "Bench Press (Barbell)", "pressed before: first")
        let junkRow = try #require(form.suggestions.firstIndex(of: "bench"))
        // Move to the catalogue lift, whatever the default: Enter takes what is highlighted.
        for _ in 0..<junkRow { app.handle(.up) }
        #expect(try Self.form(app).highlighted == 0)
        #expect(app.screen.contains("▸   Bench Press (Barbell)"), "\(app.screen)")
        // The form was opened on bench already (the last set), so Enter takes it and saves.
        app.handle(.enter)
        #expect(app.state.overlay == .none, "saved")
        let sets = try fixture.store.queries.sets(workoutID: try #require(app.state.workoutInProgress).id)
        #expect(sets.map(\.set.exercise) == ["Bench Press (Barbell)", "Bench Press (Barbell)"])
    }

    @Test("an edit that moves a set to a new custom exercise says so before saving; Enter again saves")
    func editToANewCustomExerciseWarnsFirst() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Squat (Barbell)", 100, 5)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("e"))
        #expect(try Self.form(app).title == "Edit set")
        app.handle(.backTab)
        #expect(try Self.form(app).focus == .exercise)
        app.type("zercher 🧑🏽‍🦱 squat")
        var form = try Self.form(app)
        for _ in 0..<(TypeAhead.shownCount(typed: form.exercise, suggestions: form.suggestions)) {
            app.handle(.down)
        }
        #expect(try Self.form(app).highlighted == TypeAhead.customRow)
        app.handle(.enter)
        form = try Self.form(app)
        #expect(form.newCustomExercise == "zercher 🧑🏽‍🦱 squat")
        #expect(form.error?.hasPrefix("new custom exercise 'zercher 🧑🏽‍🦱 squat': Enter saves it") == true)
        #expect(app.screen.contains("new custom exercise 'zercher"), "\(app.screen)")
        #expect(
            try fixture.store.queries.sets(workoutID: logged.set.workoutID).first?.set.exercise == "Squat (Barbell)",
            "nothing saved yet")
        app.handle(.enter)
        #expect(app.state.overlay == .none)
        #expect(
            try fixture.store.queries.sets(workoutID: logged.set.workoutID).first?.set.exercise
                == "zercher 🧑🏽‍🦱 squat")
    }

    @Test("after warm-ups and after a drop set the next set is normal; a weight change is followed by the next set")
    func prefillFollowsTheSession() throws {
        let fixture = try Fixture()
        // Last session: w20, w40, w50, then 65×4.
        let old = try fixture.store.workoutLog.createWorkout(
            name: "Push", startedAt: fixture.clock.now().addingTimeInterval(-3 * 86_400))
        for (weight, reps, kind) in [(20.0, 10, SetKind.warmup), (40, 5, .warmup), (50, 3, .warmup), (65, 4, .normal)] {
            fixture.clock.advance(by: 60)
            _ = try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Bench Press (Barbell)", weight: weight, reps: reps, kind: kind,
                    workout: .existing(old.id)))
        }
        let app = fixture.controller(columns: 120, rows: 40)
        // Today's first set opens on bench (the selected workout's last set); last session's
        // first set was a warm-up: its numbers come, its kind does not.
        app.handle(.character("n"))
        var form = try Self.form(app)
        #expect(form.exercise == "Bench Press (Barbell)")
        #expect(form.kind == .normal, "a warm-up of last session is not copied")
        app.handle(.character("6"))
        app.handle(.character("0"))
        app.handle(.tab)
        app.type("5")
        app.handle(.enter)
        app.handle(.character("n"))
        form = try Self.form(app)
        #expect(form.weight == "60" && form.reps == "5" && form.kind == .normal, "follows the set just logged")
        // Change the weight once: the next set needs only n and Enter.
        app.type("70")
        app.handle(.enter)
        app.handle(.character("n"))
        form = try Self.form(app)
        #expect(form.weight == "70" && form.kind == .normal)
        app.handle(.enter)
        let today = try #require(app.state.workoutInProgress)
        let logged = try fixture.store.queries.sets(workoutID: today.id).map(\.set)
        #expect(logged.map(\.weight) == [60, 70, 70])
        #expect(logged.allSatisfy { $0.kind == .normal })
        // After a drop set, the next is normal again.
        app.handle(.character("n"))
        app.handle(.tab)
        app.handle(.tab)
        app.handle(.tab)
        app.handle(.character("d"))
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: today.id).last?.set.kind == .drop)
        app.handle(.character("n"))
        #expect(try Self.form(app).kind == .normal, "a drop set is not copied")
    }

    @Test("after today's warm-ups, fewer than last session's, the next set is a work set at a work weight")
    func prefillAfterTodaysWarmUpsIsAWorkSet() throws {
        let fixture = try Fixture()
        // Last session: w20, w40, w50, then 65×4 and 67.5×3.
        let old = try fixture.store.workoutLog.createWorkout(
            name: "Push", startedAt: fixture.clock.now().addingTimeInterval(-3 * 86_400))
        for (weight, reps, kind) in [
            (20.0, 10, SetKind.warmup), (40, 5, .warmup), (50, 3, .warmup), (65, 4, .normal), (67.5, 3, .normal),
        ] {
            fixture.clock.advance(by: 60)
            _ = try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Bench Press (Barbell)", weight: weight, reps: reps, kind: kind,
                    workout: .existing(old.id)))
        }
        let app = fixture.controller(columns: 120, rows: 40)
        // Today: one warm-up, at 20 kg, logged through the form (kind w).
        app.handle(.character("n"))
        var form = try Self.form(app)
        #expect(form.weight == "20" && form.kind == .normal, "last session's first set, its kind not copied")
        for _ in 0..<3 { app.handle(.tab) }
        #expect(try Self.form(app).focus == .kind)
        app.handle(.character("w"))
        app.handle(.enter)
        let today = try #require(app.state.workoutInProgress)
        #expect(try fixture.store.queries.sets(workoutID: today.id).map(\.set.kind) == [.warmup])

        // Last session's second set was a warm-up (40 kg): a work set is offered instead.
        app.handle(.character("n"))
        form = try Self.form(app)
        #expect(form.kind == .normal)
        #expect(form.weight == "65" && form.reps == "4", "last session's first work set: \(form.weight)×\(form.reps)")
        #expect(form.prefillNote?.contains("previous: 40 kg × 5 (warmup)") == true, "\(form.prefillNote ?? "")")
        app.handle(.control("u"))
        app.type("70")
        app.handle(.tab)
        app.type("5")
        app.handle(.tab)
        app.type("8")
        app.handle(.enter)
        // After a work set, the next follows it: weight, reps and RPE.
        app.handle(.character("n"))
        form = try Self.form(app)
        #expect(form.weight == "70" && form.reps == "5" && form.rpe == "8" && form.kind == .normal)
        // A drop set at 50 kg: the next set follows the work set before it, not the drop.
        app.handle(.control("u"))
        app.type("50")
        app.handle(.tab)
        app.type("8")
        app.handle(.tab)
        app.handle(.tab)
        app.handle(.character("d"))
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: today.id).last?.set.kind == .drop)
        app.handle(.character("n"))
        form = try Self.form(app)
        #expect(form.kind == .normal, "a drop set is not copied")
        #expect(form.weight == "70" && form.reps == "5" && form.rpe == "8", "the last work set: \(form.weight)")
        app.handle(.enter)
        let logged = try fixture.store.queries.sets(workoutID: today.id).map(\.set)
        #expect(logged.map(\.weight) == [20, 70, 50, 70])
        #expect(logged.map(\.kind) == [.warmup, .normal, .drop, .normal])
    }

    @Test("the plan's note keeps its rep range")
    func plannedNoteKeepsTheRepRange() throws {
        let fixture = try Fixture()
        _ = try fixture.store.routines.create(
            name: "Arms",
            exercises: [
                RoutineExercise(
                    exercise: "Bicep Curl (Dumbbell)", sets: [PlannedSet(weight: 12, reps: 10, repsMax: 15)])
            ])
        fixture.clock.advance(by: 60)
        _ = try fixture.store.routines.start("Arms")
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("n"))
        let form = try Self.form(app)
        #expect(form.weight == "12" && form.reps == "10")
        #expect(form.prefillNote?.hasPrefix("planned: 12 kg × 10–15") == true, "\(form.prefillNote ?? "")")
    }

    /// Squat 80 × 5 three days ago, then routine "Legs A" (one squat set at `planned` × 5)
    /// started today; the UI open on its workout.
    static func legsAStarted(_ fixture: Fixture, planned: Double) throws -> AppController {
        let old = try fixture.store.workoutLog.createWorkout(
            name: "Legs", startedAt: fixture.clock.now().addingTimeInterval(-3 * 86_400))
        try fixture.log("Squat (Barbell)", 80, 5, workout: old.id)
        _ = try fixture.store.routines.create(
            name: "Legs A",
            exercises: [RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(weight: planned, reps: 5)])])
        fixture.clock.advance(by: 60)
        _ = try fixture.store.routines.start("Legs A")
        return fixture.controller(columns: 120, rows: 40)
    }

    @Test("inside a routine's workout, n on a planned exercise takes the plan's target, not last session's")
    func planTargetWinsThePrefill() throws {
        let fixture = try Fixture()
        let app = try Self.legsAStarted(fixture, planned: 82.5)  // last session: 80 kg
        app.handle(.character("n"))
        let form = try Self.form(app)
        #expect(form.exercise == "Squat (Barbell)")
        #expect(form.weight == "82.5" && form.reps == "5", "the plan's target: \(form.weight)×\(form.reps)")
        #expect(form.prefillNote?.contains("planned") == true)
    }

    @Test("e on a planned row: the form keeps the plan's numbers and shows the plates and last sessions")
    func plannedFormShowsPlatesAndHistory() throws {
        let fixture = try Fixture()
        let app = try Self.legsAStarted(fixture, planned: 102.5)
        app.handle(.character("e"))  // the planned row is selected
        let form = try Self.form(app)
        #expect(form.title.hasPrefix("Log planned set"), "\(app.screen)")
        #expect(form.weight == "102.5" && form.reps == "5", "the plan's numbers stay: \(form.weight)×\(form.reps)")
        let screen = app.screen
        #expect(screen.contains("Plates") && screen.contains("per side"), "\(screen)")
        #expect(screen.contains("Last sessions"), "\(screen)")
        #expect(form.warmupOffer == nil, "the plan's rows are its warm-ups")
    }
}

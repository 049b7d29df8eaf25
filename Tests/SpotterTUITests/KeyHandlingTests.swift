import Foundation
import SpotterCore
import SpotterStore
import SpotterSync
import Testing

@testable import SpotterTUI

@Suite("Keys through the reducer, against a real store")
struct KeyHandlingTests {
    @Test("n, type-ahead, Tab, numbers, Enter: the set is in the store and on screen, and the engine is nudged")
    func logSetFormFlow() throws {
        let fixture = try Fixture()
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        app.handle(.character("n"))
        guard case .setForm(let opened) = app.state.overlay else {
            Issue.record("n did not open the form")
            return
        }
        #expect(opened.focus == .exercise)
        #expect(app.screen.contains("┌ Log set"))
        app.type("bench p")
        guard case .setForm(let typing) = app.state.overlay else { return }
        #expect(typing.suggestions.first == "Bench Press (Barbell)")
        #expect(app.screen.contains("▸   Bench Press (Barbell)"))
        app.handle(.tab)
        app.type("100")
        app.handle(.tab)
        app.type("5")
        app.handle(.tab)
        app.type("8")
        app.handle(.enter)

        #expect(app.state.overlay == .none)
        let sets = try fixture.store.queries.sets(workoutID: nil)
        #expect(sets.count == 1)
        #expect(sets[0].set.exercise == "Bench Press (Barbell)")
        #expect(sets[0].set.weight == 100 && sets[0].set.reps == 5 && sets[0].set.rpe == 8)
        #expect(sync.calls.contains(.trigger(.enqueue)))
        let screen = app.screen
        #expect(screen.contains("Bench Press (Barbell)"))
        #expect(screen.line(0).contains("rest 01:30"))
        #expect(screen.line(23).contains("Logged Bench Press (Barbell) 100 kg × 5"))
    }

    @Test("Enter pressed twice quickly saves exactly one set")
    func doubleEnterSavesOnce() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.enter)
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: nil).count == 2)
        #expect(app.state.overlay == .none)
    }

    @Test("n between sets repeats the selected exercise with its last numbers: two keys")
    func repeatLastSet() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3, rpe: 9)
        let app = fixture.controller()
        app.handle(.character("n"))
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.exercise == "Squat (Barbell)")
        #expect(form.weight == "140" && form.unit == .kg && form.reps == "3" && form.rpe == "9")
        app.handle(.enter)
        let sets = try fixture.store.queries.sets(workoutID: nil)
        #expect(sets.count == 2)
        #expect(sets.allSatisfy { $0.set.weight == 140 && $0.set.reps == 3 })
        #expect(app.state.currentSet?.set.id == sets.last?.set.id, "the new set is selected")
    }

    @Test("choosing an exercise prefills weight, reps and RPE from its last set")
    func prefillFromLastSet() throws {
        let fixture = try Fixture()
        try fixture.log("Deadlift (Barbell)", 200, 2, rpe: 9.5)
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.backTab)  // back to the exercise field
        app.handle(.control("u"))
        app.type("deadl")
        app.handle(.tab)
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.exercise == "Deadlift (Barbell)")
        #expect(form.focus == .weight)
        #expect(form.weight == "200" && form.unit == .kg && form.reps == "2" && form.rpe == "9.5")
        #expect(app.screen.contains("200 kg"), "\(app.screen)")
        app.handle(.control("u"))
        app.type("205")
        app.handle(.enter)
        let deadlifts = try fixture.store.queries.sets(workoutID: nil).filter {
            $0.set.exercise == "Deadlift (Barbell)"
        }
        #expect(deadlifts.map(\.set.weight) == [200, 205])
        #expect(deadlifts.last?.isPR == true)
        let row = try #require(app.screen.row(containing: "205 kg"))
        #expect(app.screen.line(row).contains("PR"))
    }

    @Test("type-ahead lists starred exercises first; f stars the selected set's exercise")
    func typeAheadStarredFirst() throws {
        let fixture = try Fixture()
        try fixture.log("Goblet Squat (Dumbbell)", 30, 12)
        let app = fixture.controller()
        app.handle(.character("f"))
        #expect(try fixture.store.queries.favorites() == ["Goblet Squat (Dumbbell)"])
        app.handle(.character("n"))
        app.handle(.backTab)
        app.handle(.control("u"))
        app.type("squat")
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.suggestions.first == "Goblet Squat (Dumbbell)")
        #expect(app.screen.contains("▸ ★ Goblet Squat (Dumbbell)"))
        // Arrows choose another suggestion; Enter takes it.
        app.handle(.down)
        let second = form.suggestions[1]
        app.handle(.tab)
        guard case .setForm(let moved) = app.state.overlay else { return }
        #expect(moved.exercise == second)
    }

    @Test("Esc cancels the form without saving; a bad number keeps it open with the reason")
    func cancelAndValidation() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        app.handle(.character("n"))
        app.type("Squat (Barbell)")
        app.handle(.escape)
        #expect(app.state.overlay == .none)
        #expect(try fixture.store.queries.sets(workoutID: nil).isEmpty)

        app.handle(.character("n"))
        app.type("Squat (Barbell)")
        app.handle(.tab)
        app.type("heavy")
        app.handle(.tab)
        app.type("5")
        app.handle(.enter)
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("the form closed on invalid input")
            return
        }
        #expect(form.focus == .weight)
        #expect(app.screen.contains("Weight must be a number"))
        #expect(try fixture.store.queries.sets(workoutID: nil).isEmpty)
    }

    @Test("e edits the selected set; d asks first, n keeps it, y deletes it")
    func editAndDelete() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("e"))
        app.handle(.control("u"))
        app.type("142.5")
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: nil).first?.set.weight == 142.5)
        #expect(app.screen.contains("142.5 kg"))

        app.handle(.character("d"))
        #expect(app.screen.line(23).contains("Delete set Squat (Barbell) 142.5 kg × 3?"))
        app.handle(.character("n"))
        #expect(try fixture.store.queries.sets(workoutID: nil).count == 1)
        app.handle(.character("d"))
        app.handle(.character("y"))
        #expect(try fixture.store.queries.sets(workoutID: nil).isEmpty)
        #expect(app.screen.contains("No sets yet"))
    }

    @Test("w starts a named workout and selects it; Tab and j/k move between workouts")
    func workoutsAndNavigation() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("w"))
        app.type("Pull Day")
        app.handle(.enter)
        #expect(app.state.currentWorkout?.summary.workout.name == "Pull Day")
        #expect(app.screen.line(0).contains("Pull Day"))
        #expect(app.state.sets.isEmpty)
        app.handle(.tab)
        #expect(app.state.focus == .workouts)
        app.handle(.character("j"))
        #expect(app.state.currentWorkout?.summary.workout.name == "Afternoon Workout")
        #expect(app.state.sets.count == 1)
        app.handle(.up)
        #expect(app.state.currentWorkout?.summary.workout.name == "Pull Day")
    }

    @Test("/ filters the focused pane; Esc clears the filter")
    func filter() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        try fixture.log("Bench Press (Barbell)", 100, 5)
        let app = fixture.controller()
        app.handle(.character("/"))
        app.type("bench")
        #expect(app.screen.line(23).contains("/bench_"))
        app.handle(.enter)
        #expect(app.state.visibleSets.map(\.set.exercise) == ["Bench Press (Barbell)"])
        #expect(!app.screen.contains("Squat (Barbell)"))
        app.handle(.escape)
        #expect(app.state.visibleSets.count == 2)
    }

    @Test("the / filter is a type-ahead: Enter keeps the highlighted name; its last row keeps the typed text")
    func filterTypeAhead() throws {
        let fixture = try Fixture()
        try fixture.log("Leg Press (Machine)", 200, 10)
        try fixture.log("Bench Press (Barbell)", 100, 5)
        try fixture.log("Overhead Press (Barbell)", 60, 5)
        try fixture.log("Bench Press (Barbell)", 100, 5)
        let app = fixture.controller()
        app.handle(.character("/"))
        app.type("press")
        // Offered once each, in the pane's order, with the typed text's own row last.
        #expect(
            app.state.filterSuggestions == [
                "Leg Press (Machine)", "Bench Press (Barbell)", "Overhead Press (Barbell)",
            ])
        #expect(app.screen.contains("▸ Leg Press (Machine)"))
        #expect(app.screen.contains("all matching 'press'"))
        #expect(app.screen.line(23).contains("Enter take  ↓↑ pick"), "the keys show on an 80-column bar")
        // While typing, the pane already narrows by the typed text.
        #expect(app.state.visibleSets.count == 4)
        app.handle(.down)
        #expect(app.screen.contains("▸ Bench Press (Barbell)"))
        app.handle(.enter)
        #expect(app.state.filterInput == nil)
        #expect(app.state.setFilter == "Bench Press (Barbell)")
        #expect(app.state.visibleSets.map(\.set.exercise) == ["Bench Press (Barbell)", "Bench Press (Barbell)"])

        // Down past the last suggestion is the typed text: Enter keeps "press" as it is.
        app.handle(.escape)
        app.handle(.character("/"))
        app.type("press")
        for _ in 0..<4 { app.handle(.down) }
        #expect(app.screen.contains("▸ all matching 'press'"))
        app.handle(.enter)
        #expect(app.state.setFilter == "press")
        #expect(app.state.visibleSets.count == 4)

        // A name that starts with the text comes first; nothing matching offers nothing.
        app.handle(.escape)
        app.handle(.character("/"))
        app.type("o")
        #expect(app.state.filterSuggestions.first == "Overhead Press (Barbell)")
        app.type("zz")
        #expect(app.state.filterSuggestions.isEmpty)
        app.handle(.enter)
        #expect(app.state.setFilter == "ozz")
        #expect(app.state.visibleSets.isEmpty)
    }

    @Test("the workouts pane's filter offers workout names, and Enter keeps the highlighted one")
    func workoutFilterTypeAhead() throws {
        let fixture = try Fixture()
        let pull = try fixture.store.workoutLog.createWorkout(name: "Pull Day")
        try fixture.log("Deadlift (Barbell)", 180, 3, workout: pull.id)
        let push = try fixture.store.workoutLog.createWorkout(name: "Push Day 💪🏽")
        try fixture.log("Bench Press (Barbell)", 100, 5, workout: push.id)
        let app = fixture.controller()
        app.handle(.left)
        app.handle(.character("/"))
        app.type("day")
        #expect(Set(app.state.filterSuggestions) == ["Pull Day", "Push Day 💪🏽"])
        let second = app.state.filterSuggestions[1]
        app.handle(.down)
        app.handle(.enter)
        #expect(app.state.workoutFilter == second)
        #expect(app.state.visibleWorkouts.map(\.summary.workout.name) == [second])
        for row in 0..<24 { #expect(app.screen.line(row).count <= 80) }
    }

    @Test("s asks for a sync, focus-in is a resume trigger, and without an engine s says so")
    func syncTriggers() throws {
        let fixture = try Fixture()
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        app.handle(.character("s"))
        app.handle(.focusIn)
        #expect(sync.calls == [.trigger(.manual), .trigger(.resumed)])

        let offline = fixture.controller(sync: nil)
        offline.handle(.character("s"))
        #expect(offline.screen.line(23).contains("Sync unavailable"))
        offline.handle(.character("a"))
        #expect(try fixture.store.preferences.isAirplaneOn)
    }

    @Test("? opens help, Esc closes it; q quits")
    func helpAndQuit() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        app.handle(.character("?"))
        #expect(app.screen.contains("┌ Help"))
        #expect(app.screen.contains("debug pane"))
        app.handle(.escape)
        #expect(!app.screen.contains("┌ Help"))
        app.handle(.character("q"))
        #expect(app.shouldQuit)
    }

    @Test("the rest timer counts down in the header and disappears when rest is over")
    func restTimer() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.enter)
        #expect(app.screen.line(0).contains("rest 01:30"))
        fixture.clock.advance(by: 72)
        app.tick()
        #expect(app.screen.line(0).contains("rest 00:18"))
        fixture.clock.advance(by: 20)
        app.tick()
        #expect(!app.screen.line(0).contains("rest"))
    }

    @Test("the reducer alone: form editing needs no store")
    func pureReducer() {
        var state = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date())
        #expect(state.reduce(.character("n")) == [.loadSuggestions(query: "")])
        #expect(state.reduce(.character("S")) == [.loadSuggestions(query: "S")])
        _ = state.reduce(.control("u"))
        _ = state.reduce(.tab)
        _ = state.reduce(.character("9"))
        _ = state.reduce(.backspace)
        _ = state.reduce(.character("8"))
        guard case .setForm(let form) = state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.exercise.isEmpty && form.weight == "8")
        #expect(AppState.parseWeight("225 lb", defaultUnit: .kg)! == WeightAmount(weight: 225, unit: .lb))
        #expect(AppState.parseWeight("102,5kg", defaultUnit: .lb)! == WeightAmount(weight: 102.5, unit: .kg))
        #expect(AppState.parseWeight("lots", defaultUnit: .kg) == nil)
        // What Swift reads as a number and no lifter types as one: refused, never 16 kg.
        for typed in ["0x10", "0x1p3", "nan", "inf", "-inf", "1e309"] {
            #expect(AppState.parseWeight(typed, defaultUnit: .kg) == nil, "\(typed)")
        }
    }
}

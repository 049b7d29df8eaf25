import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// The routine editor as a lifter drives it: keys through the reducer alone (nothing saved
/// until `s`), then through the controller against a real store (saved and queued once).
@Suite("The routine editor")
struct RoutineEditorTests {
    static let pushA = Routine(
        name: "Push A",
        exercises: [
            RoutineExercise(
                exercise: "Bench Press (Barbell)", sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3),
                restSeconds: 120, progression: .linear),
            RoutineExercise(
                exercise: "Overhead Press (Barbell)", sets: [PlannedSet(weight: 50, reps: 8, repsMax: 12, rpe: 8)]),
        ])

    static func editing(_ routine: Routine = pushA) -> AppState {
        var state = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date(timeIntervalSince1970: 0))
        state.overlay = .routineEditor(RoutineEditor(routine: routine))
        return state
    }

    static func editor(_ state: AppState) throws -> RoutineEditor {
        guard case .routineEditor(let editor) = state.overlay else {
            throw EditorTestError("the editor is not open: \(state.overlay)")
        }
        return editor
    }

    static func press(_ state: inout AppState, _ keys: Key...) -> [AppEffect] {
        keys.flatMap { state.reduce($0) }
    }

    static func type(_ state: inout AppState, _ text: String) -> [AppEffect] {
        text.flatMap { state.reduce(.character($0)) }
    }

    // MARK: The reducer alone

    @Test("a set's reps: Enter on the set, type a range, Enter applies it; s asks the store to save it")
    func editASetsReps() throws {
        var state = Self.editing()
        // Row 0 is the exercise, row 1 its first set.
        _ = Self.press(&state, .character("j"), .enter)
        var editor = try Self.editor(state)
        #expect(editor.form?.focus == .reps, "the form opens on the reps")
        #expect(Renderer.render(state).contains("Planned set 1 · Bench Press (Barbell)"))
        #expect(Self.type(&state, "6-8").isEmpty)
        #expect(Self.press(&state, .enter).isEmpty, "applying a field saves nothing yet")
        editor = try Self.editor(state)
        #expect(editor.form == nil)
        #expect(editor.routine.exercises[0].sets[0].reps == 6 && editor.routine.exercises[0].sets[0].repsMax == 8)
        #expect(editor.routine.exercises[0].sets[1].reps == 5, "only that set changed")
        #expect(editor.isDirty)
        let screen = Renderer.render(state)
        #expect(screen.contains("6–8 reps"), "a range shows with an en dash, as everywhere: \(screen)")
        #expect(screen.contains("Edit routine · Push A · unsaved"))
        #expect(screen.line(23).contains(KeyMap.hints(.routineEditor)))

        let effects = Self.press(&state, .character("s"))
        #expect(effects == [.saveRoutineEdits(id: Self.pushA.id, exercises: editor.routine.exercises, close: false)])
    }

    @Test("every field of a set: kind, weight as a percentage, RPE cleared")
    func editEveryField() throws {
        var state = Self.editing()
        for _ in 0..<5 { _ = Self.press(&state, .character("j")) }
        _ = Self.press(&state, .character("e"), .backTab, .backTab)
        #expect(try Self.editor(state).form?.focus == .kind)
        _ = Self.type(&state, "w")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "75%")
        _ = Self.press(&state, .tab, .tab)
        _ = Self.press(&state, .control("u"))
        _ = Self.press(&state, .enter)
        let set = try Self.editor(state).routine.exercises[1].sets[0]
        #expect(set == PlannedSet(kind: .warmup, percentOfOneRepMax: 75, reps: 8, repsMax: 12))
    }

    @Test("an exercise's progression, increment and rest")
    func editExerciseSettings() throws {
        var state = Self.editing()
        _ = Self.press(&state, .enter)
        // It opens on the name: a letter typed there is a name, never a choice of progression.
        #expect(try Self.editor(state).form?.focus == .exercise)
        _ = Self.press(&state, .tab)  // unit
        _ = Self.press(&state, .tab)  // progression
        #expect(try Self.editor(state).form?.focus == .progression)
        _ = Self.type(&state, "d")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "5")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "3:00")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "2")
        _ = Self.press(&state, .enter)
        let exercise = try Self.editor(state).routine.exercises[0]
        #expect(exercise.progression == .double && exercise.increment == 5)
        #expect(exercise.restSeconds == 180 && exercise.superset == 2)
        #expect(Renderer.render(state).contains("1. Bench Press (Barbell) · double +5 kg · rest 180 s · superset 2"))
    }

    @Test("a adds an exercise after the selected one, with its sets; d removes one; J and K move one")
    func addRemoveMoveExercises() throws {
        var state = Self.editing()
        let effects = Self.press(&state, .character("a"))
        #expect(effects == [.loadSuggestions(query: "")], "the type-ahead is asked for")
        #expect(Renderer.render(state).contains("Add exercise"))
        _ = Self.type(&state, "Squat (Barbell)")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "4")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "140")
        _ = Self.press(&state, .enter)
        var editor = try Self.editor(state)
        #expect(editor.form == nil)
        #expect(
            editor.routine.exercises.map(\.exercise) == [
                "Bench Press (Barbell)", "Squat (Barbell)", "Overhead Press (Barbell)",
            ])
        #expect(editor.routine.exercises[1].sets == Array(repeating: PlannedSet(weight: 140, reps: 5), count: 4))
        #expect(editor.currentRow == .exercise(1), "the new exercise is selected")

        _ = Self.press(&state, .character("J"))
        editor = try Self.editor(state)
        #expect(editor.routine.exercises.map(\.exercise).last == "Squat (Barbell)")
        #expect(editor.currentRow == .exercise(2), "the selection moves with it")
        _ = Self.press(&state, .character("K"), .character("K"))
        editor = try Self.editor(state)
        #expect(editor.routine.exercises.map(\.exercise).first == "Squat (Barbell)")
        _ = Self.press(&state, .character("K"))
        #expect(state.message?.text == "Already the first exercise")

        _ = Self.press(&state, .character("d"))
        editor = try Self.editor(state)
        #expect(editor.routine.exercises.map(\.exercise) == ["Bench Press (Barbell)", "Overhead Press (Barbell)"])
        #expect(editor.isDirty == false, "added, moved and removed again: the routine as saved")
    }

    @Test("+ copies the selected set after it; d removes a set but never an exercise's last one")
    func addAndRemoveSets() throws {
        var state = Self.editing()
        _ = Self.press(&state, .character("G"))  // not bound in the editor: nothing happens
        _ = Self.press(&state, .character("j"), .character("j"), .character("+"))
        var editor = try Self.editor(state)
        #expect(editor.routine.exercises[0].sets.count == 4)
        #expect(editor.currentRow == .set(exercise: 0, set: 2))
        _ = Self.press(&state, .character("d"), .character("d"), .character("d"))
        editor = try Self.editor(state)
        #expect(editor.routine.exercises[0].sets.count == 1)
        // The overhead press has one set: removing it is refused.
        editor.select(.set(exercise: 1, set: 0))
        state.overlay = .routineEditor(editor)
        _ = Self.press(&state, .character("d"))
        #expect(try Self.editor(state).routine.exercises[1].sets.count == 1)
        #expect(state.message?.isError == true && state.message?.text.contains("at least one set") == true)
    }

    @Test("rest 1:99, a range 12-8 and 225 lb on a kg exercise are refused with the reason, never stored as another")
    func typosAreRefusedNotReinterpreted() throws {
        var state = Self.editing()
        _ = Self.press(&state, .enter, .tab, .tab, .tab, .tab)  // the exercise's rest
        #expect(try Self.editor(state).form?.focus == .rest)
        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "1:99")
        _ = Self.press(&state, .enter)
        #expect(try Self.editor(state).form?.error == "Rest's seconds after ':' are 00 to 59, like 2:30")
        _ = Self.press(&state, .escape)
        #expect(try Self.editor(state).routine == Self.pushA, "nothing changed")

        _ = Self.press(&state, .character("j"), .enter)  // the first set: reps
        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "12-8")
        _ = Self.press(&state, .enter)
        #expect(try Self.editor(state).form?.error == "A rep range goes low to high, like 8-12")
        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "5")
        _ = Self.press(&state, .backTab)  // the weight
        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "225 lb")
        _ = Self.press(&state, .enter)
        #expect(
            try Self.editor(state).form?.error
                == "This exercise is planned in kg: type the weight in kg (or change its unit first)")
        _ = Self.press(&state, .escape)
        #expect(try Self.editor(state).routine == Self.pushA, "nothing changed")
    }

    @Test("a value the rules refuse is refused in the form, with the reason, and nothing changes or is saved")
    func invalidValuesAreRefused() throws {
        var state = Self.editing()
        _ = Self.press(&state, .character("j"), .enter)
        _ = Self.type(&state, "0")
        #expect(Self.press(&state, .enter).isEmpty)
        var editor = try Self.editor(state)
        #expect(editor.form?.error == "Reps: a planned set needs at least 1 rep")
        #expect(editor.routine == Self.pushA, "nothing changed")
        #expect(Renderer.render(state).contains("Reps: a planned set needs at least 1 rep"))

        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "five")
        _ = Self.press(&state, .enter)
        #expect(try Self.editor(state).form?.error == "Reps must be a whole number, or a range such as 8-12")
        _ = Self.press(&state, .control("u"))
        _ = Self.type(&state, "5")
        _ = Self.press(&state, .tab)
        _ = Self.type(&state, "11")
        _ = Self.press(&state, .enter)
        editor = try Self.editor(state)
        #expect(editor.form?.error == "RPE must be from 1 to 10 in steps of 0.5")
        #expect(editor.form?.focus == .rpe, "the field at fault has the cursor")
        _ = Self.press(&state, .escape)
        #expect(try Self.editor(state).form == nil && (try Self.editor(state)).routine == Self.pushA)
        #expect(Self.press(&state, .character("s")).isEmpty, "no change, nothing to save")
        #expect(state.message?.text == "No changes to save")

        // A routine that breaks the rules some other way is not sent to the store either.
        var broken = try Self.editor(state)
        broken.routine.exercises[1].increment = 500
        state.overlay = .routineEditor(broken)
        #expect(Self.press(&state, .character("s")).isEmpty)
        #expect(
            state.message?.text == "Not saved: Overhead Press (Barbell) (exercise 2): increment must be from 0 to 100")
        #expect(state.message?.isError == true)
    }

    @Test("Esc with unsaved changes asks: n keeps editing, y discards; without changes it just closes")
    func escapeAsksBeforeDiscarding() throws {
        var state = Self.editing()
        _ = Self.press(&state, .character("j"), .character("d"))
        #expect(Self.press(&state, .escape).isEmpty)
        #expect(try Self.editor(state).confirmingDiscard)
        #expect(state.keyContexts == [.confirmDiscard])
        #expect(
            Renderer.render(state).line(23).contains("Unsaved changes to Push A.  y discard  s save  n keep editing"))
        _ = Self.press(&state, .character("n"))
        #expect(try Self.editor(state).confirmingDiscard == false)
        #expect(try Self.editor(state).routine.exercises[0].sets.count == 2, "the change is still there")
        _ = Self.press(&state, .escape)
        let effects = Self.press(&state, .character("y"))
        #expect(effects == [.loadRoutines])
        guard case .routinePicker(let picker) = state.overlay else {
            Issue.record("y did not go back to the routine list")
            return
        }
        #expect(picker.pendingSelection == Self.pushA.id)

        var clean = Self.editing()
        #expect(Self.press(&clean, .escape) == [.loadRoutines])
        // s from the question saves, then closes.
        var saving = Self.editing()
        _ = Self.press(&saving, .character("j"), .character("+"), .escape)
        let saved = Self.press(&saving, .character("s"))
        guard case .saveRoutineEdits(_, let exercises, let close) = saved.first else {
            Issue.record("s did not save: \(saved)")
            return
        }
        #expect(close && exercises[0].sets.count == 4)
    }

    // MARK: Against a real store

    @Test("R, e, change reps, a adds an exercise through the type-ahead, s: saved and queued as one change")
    func editThroughTheController() throws {
        let fixture = try Fixture()
        let created = try fixture.store.routines.create(name: "Push A", exercises: Self.pushA.exercises)
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        app.handle(.character("R"))
        #expect(app.screen.contains(KeyMap.hints(.routinePicker)))
        app.handle(.character("e"))
        #expect(app.screen.contains("Edit routine · Push A"))
        app.handle(.character("j"))
        app.handle(.enter)
        app.type("8")
        app.handle(.enter)
        app.handle(.character("G"))
        // Add after the last exercise: select it first.
        for _ in 0..<5 { app.handle(.character("j")) }
        app.handle(.character("a"))
        app.type("squat (b")
        guard case .routineEditor(let typing) = app.state.overlay else {
            Issue.record("the editor closed")
            return
        }
        #expect(typing.form?.suggestions.first == "Squat (Barbell)", "the set form's type-ahead")
        #expect(app.screen.contains("▸ Squat (Barbell)"))
        app.handle(.tab)
        #expect(app.state.overlay.routineForm?[input: .exercise].text == "Squat (Barbell)")
        app.handle(.enter)
        #expect(try fixture.store.queries.queueCounts().pending == 0, "nothing is saved before s")

        app.handle(.character("s"))
        #expect(app.screen.line(23).contains("Saved Push A: 3 exercises, 7 sets"))
        let stored = try fixture.store.routines.routine("Push A").routine
        #expect(stored.id == created.id)
        #expect(stored.exercises[0].sets.map(\.reps) == [8, 5, 5])
        #expect(stored.exercises.map(\.exercise).last == "Squat (Barbell)")
        #expect(stored.exercises[2].sets.count == 3)
        let queued = try fixture.store.queries.outbox(limit: 20).filter {
            $0.entityType == .routine && $0.state == .pending
        }
        #expect(queued.count == 1, "one update queued: \(queued)")
        #expect(queued.first?.kind == .update)
        #expect(sync.calls.contains(.trigger(.enqueue)))
        guard case .routineEditor(let after) = app.state.overlay else {
            Issue.record("the editor closed on save")
            return
        }
        #expect(after.isDirty == false && after.routine == stored)
        app.handle(.escape)
        #expect(app.screen.contains("Start routine"), "Esc after saving closes without asking")
    }

    @Test("Enter on a suggestion in the routine editor takes the highlighted row, over an exact match too")
    func enterTakesTheHighlightedSuggestionInTheEditor() throws {
        let fixture = try Fixture()
        try fixture.store.routines.create(name: "Push A", exercises: Self.pushA.exercises)
        // Pressed before: first in the type-ahead.
        try fixture.log("Pull Up", 0, 8)
        try fixture.log("Pull Up (Assisted)", 20, 8)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("R"))
        app.handle(.character("e"))
        for _ in 0..<5 { app.handle(.character("j")) }
        app.handle(.character("a"))
        app.type("pull up")
        var form = try #require(app.state.overlay.routineForm)
        let exact = try #require(form.suggestions.firstIndex(of: "Pull Up"))
        let assisted = try #require(form.suggestions.firstIndex(of: "Pull Up (Assisted)"))
        #expect(form.highlighted == exact, "the exact match is highlighted first")
        let step: Key = assisted > exact ? .down : .up
        for _ in 0..<abs(assisted - exact) { app.handle(step) }
        #expect(app.screen.contains("▸ Pull Up (Assisted)"), "\(app.screen)")
        app.handle(.enter)
        guard case .routineEditor(let editor) = app.state.overlay else {
            Issue.record("the editor closed")
            return
        }
        #expect(editor.form == nil, "Enter on the name applies the new exercise")
        #expect(editor.routine.exercises.map(\.exercise).last == "Pull Up (Assisted)")

        // Enter right after typing part of a name takes the first suggestion, not the text.
        app.handle(.character("G"))
        app.handle(.character("a"))
        app.type("squat (b")
        form = try #require(app.state.overlay.routineForm)
        #expect(form.suggestions.first == "Squat (Barbell)")
        app.handle(.enter)
        guard case .routineEditor(let after) = app.state.overlay else {
            Issue.record("the editor closed")
            return
        }
        #expect(after.routine.exercises.map(\.exercise).last == "Squat (Barbell)")
        #expect(try fixture.store.queries.exerciseList(customOnly: true).isEmpty, "no custom exercise was made")
    }

    @Test("a save the store refuses changes nothing, queues nothing, and says why in the status line")
    func storeRefusalChangesNothing() throws {
        let fixture = try Fixture()
        let created = try fixture.store.routines.create(name: "Push A", exercises: Self.pushA.exercises)
        let before = try fixture.store.queries.outbox(limit: 50)
        let app = fixture.controller()
        app.handle(.character("R"))
        app.handle(.character("e"))
        var exercises = created.exercises
        exercises[0].sets[1].reps = 0
        app.run(.saveRoutineEdits(id: created.id, exercises: exercises, close: true))
        #expect(
            app.screen.line(23).contains("Not saved: Bench Press (Barbell) (exercise 1), set 2: reps: a planned set"))
        #expect(app.state.message?.isError == true)
        guard case .routineEditor(let editor) = app.state.overlay else {
            Issue.record("the editor closed")
            return
        }
        #expect(editor.error?.contains("set 2") == true)
        #expect(try fixture.store.routines.routine("Push A").routine == created)
        #expect(try fixture.store.queries.outbox(limit: 50) == before)
    }

    @Test("n names a new routine and opens it; a taken name is refused; r renames; d asks, then deletes")
    func newRenameDelete() throws {
        let fixture = try Fixture()
        try fixture.store.routines.create(name: "Push A", exercises: Self.pushA.exercises)
        let app = fixture.controller()
        app.handle(.character("R"))
        app.handle(.character("n"))
        #expect(app.screen.contains("New routine"))
        app.type("push a")
        app.handle(.enter)
        guard case .routineName(let refused) = app.state.overlay else {
            Issue.record("a taken name closed the dialog: \(app.state.overlay)")
            return
        }
        #expect(refused.error == "a routine named \"push a\" already exists")
        #expect(app.screen.contains("a routine named \"push a\" already exists"))
        app.handle(.control("u"))
        app.type("Pull A")
        app.handle(.enter)
        #expect(app.screen.contains("Edit routine · Pull A"))
        #expect(app.screen.contains("No exercises yet: a adds one"))
        app.handle(.escape)
        guard case .routinePicker(let picker) = app.state.overlay else {
            Issue.record("Esc did not go back to the list")
            return
        }
        #expect(picker.routines.map(\.routine.name) == ["Pull A", "Push A"])
        #expect(picker.selected == 0, "the routine just made is selected")

        app.handle(.character("r"))
        app.handle(.control("u"))
        app.type("Pull B")
        app.handle(.enter)
        #expect(app.screen.contains("Renamed to Pull B"))
        #expect(try fixture.store.routines.all().map(\.routine.name) == ["Pull B", "Push A"])

        app.handle(.character("d"))
        #expect(app.screen.line(23).contains("Delete routine Pull B? Workouts started from it stay.  y yes  n no"))
        app.handle(.character("n"))
        #expect(app.screen.contains("Start routine"), "n goes back to the list")
        #expect(try fixture.store.routines.all().count == 2)
        app.handle(.character("d"))
        app.handle(.character("y"))
        #expect(try fixture.store.routines.all().map(\.routine.name) == ["Push A"])
        #expect(app.screen.contains("Deleted routine Pull B"))
        #expect(app.screen.contains("Start routine"))
    }
}

extension Overlay {
    /// The editor's open form, when there is one.
    var routineForm: RoutineRowForm? {
        guard case .routineEditor(let editor) = self else { return nil }
        return editor.form
    }
}

struct EditorTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

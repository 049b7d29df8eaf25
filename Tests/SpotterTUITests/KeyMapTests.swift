import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// The key map is the one place keys are bound: these check that the reducer reaches every
/// binding, that a bound key does something, and that help and the hints say what the keys do.
@Suite("One key map for the reducer, the hints and help")
struct KeyMapTests {
    /// One state per place keys are read, so every context is exercised.
    static func statesForEveryContext() -> [AppState] {
        let base = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date(timeIntervalSince1970: 0))
        var states = [base]
        var filter = base
        filter.filterInput = FilterInput(pane: .sets, field: TextField())
        states.append(filter)
        for overlay: Overlay in [
            .newWorkout(name: ""), .help, .history(HistoryView(exercise: "Squat (Barbell)")),
            .confirmDelete(.set(id: UUID(), description: "Squat")), .routinePicker(RoutinePicker()),
            .routineName(RoutineNameInput(purpose: .create)), .conflicts(ConflictsView()),
            .workoutEdit(WorkoutEditForm(workoutID: UUID(), name: "Push", notes: nil)),
            .workoutSummary(WorkoutSummaryView(name: "Push", lines: [])),
            .plates(PlatesInput(unit: .kg, current: [.kg: "20: 25,20"])),
            .bodyWeight(BodyWeightInput(unit: .kg, prefill: "81.4", last: "last: 81.4 kg, 2026-11-26 07:30")),
            .weighIns(WeighInsView(entries: [])),
        ] {
            var state = base
            state.overlay = overlay
            states.append(state)
        }
        // The routine editor: its rows, each field of its form, and the unsaved-changes question.
        let editor = RoutineEditor(routine: Routine(name: "Push A"))
        var editorStates = [editor]
        for field in RoutineRowForm.Field.allCases {
            var withForm = editor
            var form = RoutineRowForm(target: .newExercise(at: 0))
            form.focus = field
            withForm.form = form
            editorStates.append(withForm)
        }
        var asking = editor
        asking.confirmingDiscard = true
        editorStates.append(asking)
        for editor in editorStates {
            var state = base
            state.overlay = .routineEditor(editor)
            states.append(state)
        }
        for overlay in [
            Overlay.progress(ProgressView(exercise: "Squat (Barbell)")),
            .calendar(CalendarView(year: 2026, selected: base.now)), .muscleVolume(MuscleVolumeView()),
        ] {
            var state = base
            state.overlay = overlay
            states.append(state)
        }
        var calendarDay = CalendarView(year: 2026, selected: base.now)
        calendarDay.dayWorkouts = []
        var listing = base
        listing.overlay = .calendar(calendarDay)
        states.append(listing)
        var tooSmall = base
        tooSmall.columns = 79
        states.append(tooSmall)
        for field in SetForm.Field.allCases {
            var form = SetForm(purpose: .log(workoutID: nil, workoutName: nil))
            form.focus = field
            var state = base
            state.overlay = .setForm(form)
            states.append(state)
        }
        return states
    }

    @Test("no key is bound twice in one context")
    func noDuplicates() {
        var seen: [KeyContext: Set<Key>] = [:]
        for binding in KeyMap.bindings {
            for key in binding.keys {
                let inserted = seen[binding.context, default: []].insert(key).inserted
                #expect(inserted, "\(key) is bound twice in \(binding.context)")
            }
        }
    }

    @Test("every binding wins somewhere: the reducer's contexts reach each key of it, unshadowed")
    func everyBindingIsReachable() {
        let states = Self.statesForEveryContext()
        #expect(Set(states.flatMap(\.keyContexts)) == Set(KeyContext.allCases), "a context no state reads")
        for binding in KeyMap.bindings {
            for key in binding.keys {
                let reached = states.contains { state in
                    state.keyContexts.contains(binding.context)
                        && KeyMap.action(for: key, in: state.keyContexts) == binding.action
                }
                #expect(reached, "\(key) → \(binding.action) in \(binding.context) is never reached")
            }
        }
    }

    @Test("every key bound over the panes does something: it changes what is shown or asks for work")
    func everyBrowseKeyDoesSomething() throws {
        let fixture = try Fixture()
        let older = try fixture.store.workoutLog.createWorkout(
            name: "Older", startedAt: fixture.clock.now().addingTimeInterval(-86_400))
        try fixture.log("Row (Cable)", 50, 10, workout: older.id)
        for exercise in ["Squat (Barbell)", "Bench Press (Barbell)", "Deadlift (Barbell)"] {
            try fixture.log(exercise, 100, 5)
        }
        let app = fixture.controller()
        var start = app.state
        start.selectedSet = 1
        start.restEndsAt = start.now.addingTimeInterval(60)
        start.say("a message")
        var fromWorkouts = start
        fromWorkouts.focus = .workouts
        var withFilter = start
        withFilter.setFilter = "a"
        for binding in KeyMap.bindings where binding.context == .browse {
            for key in binding.keys {
                let acted = [start, fromWorkouts, withFilter].contains { before in
                    var after = before
                    let effects = after.reduce(key)
                    return after != before || !effects.isEmpty
                }
                #expect(acted, "\(key) (\(binding.action)) does nothing")
            }
        }
    }

    @Test("help lists every key bound over the panes, and the form's keys, whole", arguments: [80, 120])
    func helpListsTheBindings(columns: Int) throws {
        var state = AppState(columns: columns, rows: 24, syncAvailable: true, now: Date(timeIntervalSince1970: 0))
        _ = state.reduce(.character("?"))
        // Help scrolls at 24 rows: every page of it, one after the other (each line drawn whole).
        var screen = Renderer.render(state)
        var pages = [screen.text]
        for _ in 0..<40 {
            _ = state.reduce(.character("j"))
            let page = Renderer.render(state)
            if page.text == pages.last { break }
            pages.append(page.text)
        }
        screen = ScreenBuffer(width: columns, height: pages.count * 24)
        for (index, line) in pages.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            screen.put(String(line), x: 0, y: index)
        }
        for binding in KeyMap.bindings {
            if binding.context == .browse {
                #expect(binding.help != nil, "\(binding.keys) (\(binding.action)) is missing from help")
            }
            switch binding.help {
            case .line(let key, let text), .alternative(let key, let text), .also(let key, let text):
                #expect(screen.contains(key) && screen.contains(text), "help lacks \(key) \(text):\n\(screen)")
            case .fragment(let row, let text):
                let y = try #require(screen.row(containing: row))
                #expect(screen.line(y).contains(text), "help's \(row) line lacks \(text)")
            case .sameLine, nil:
                break
            }
        }
        #expect(screen.contains("r / x") && screen.contains("retry / discard a rejected set"))
        #expect(screen.contains("move;  g G  first / last;  PgDn PgUp  a page"))
        #expect(screen.contains("this help;  q  quit"))
        #expect(screen.contains("Enter saves, Tab/S-Tab move, ^U clears, Esc cancels"))
    }

    @Test("the hint bars are drawn from the key map, and every key they name is bound where they show")
    func hintsComeFromTheMap() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller(columns: 120)
        #expect(app.screen.line(23).hasPrefix(" " + KeyMap.hints(.browse)))
        #expect(fixture.controller().screen.line(23).hasPrefix(" " + KeyMap.hints(.browseNarrow)), "at 80 columns")
        #expect(
            KeyMap.hints(.browse)
                == "n log set  e edit  d delete  w workout  a airplane  f star  D debug  s sync  / filter  ? help  q quit"
        )
        app.handle(.character("n"))
        #expect(app.screen.contains(KeyMap.hints(.form)))
        #expect(KeyMap.hints(.form) == "Enter save  Tab next  ^U clear  ^F star  ^O history  Esc")
        for bar in HintBar.allCases {
            #expect(!KeyMap.hints(bar).isEmpty, "no binding shows in the \(bar) bar")
        }
        // A hint's first word names a key: it must be one of its binding's keys.
        let names: [String: Key] = [
            "Enter": .enter, "Tab": .tab, "Esc": .escape, "^U": .control("u"), "^F": .control("f"),
            "^O": .control("o"), "↓↑": .down, "j/k": .character("j"), "g/G": .character("g"), "J/K": .character("J"),
        ]
        for binding in KeyMap.bindings {
            for hint in binding.hints {
                let word = String(hint.text.split(separator: " ").first ?? "")
                let key = names[word] ?? word.first.map(Key.character)
                #expect(key.map(binding.keys.contains) == true, "'\(hint.text)' names a key \(binding.keys) lacks")
            }
        }
    }
}

@Suite("Below 80x24 only q acts")
struct TooSmallKeyTests {
    @Test("the notice says q quits, and q quits even over an open form; other keys act on nothing unseen")
    func qQuitsWhenTooSmall() {
        var state = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date(timeIntervalSince1970: 0))
        _ = state.reduce(.character("n"))
        state.columns = 60
        #expect(Renderer.render(state).contains("Enlarge the window, or press q to quit"))
        let before = state
        #expect(state.reduce(.character("j")).isEmpty && state == before, "j typed nothing into the hidden form")
        _ = state.reduce(.character("q"))
        #expect(state.shouldQuit)
    }
}

@Suite("Messages name keys from the key map")
struct KeyNameTests {
    @Test("the keys messages tell the lifter to press are the bound ones")
    func messagesNameBoundKeys() throws {
        #expect(KeyMap.name(of: .logSet) == "n" && KeyMap.name(of: .startWorkout) == "w")
        #expect(KeyMap.name(of: .toggleAirplane) == "a")
        #expect(KeyMap.name(of: .formHistory, in: .form) == "^O")
        #expect(KeyMap.name(of: .cancel, in: .form) == "Esc")
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120)
        #expect(app.screen.contains("No workouts yet. Press n to log a set, w to start a workout."))
        app.handle(.character("a"))
        app.handle(.character("s"))
        #expect(app.screen.line(23).contains("Airplane mode is on: press a to turn it off"))
    }
}

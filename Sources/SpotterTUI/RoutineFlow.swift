import Foundation
import SpotterCore
import SpotterStore

/// The "Start routine" list that `R` opens: the routines, one chosen with j/k and started with
/// Enter, or opened in the editor (`e`), renamed (`r`), deleted (`d`); `n` makes a new one.
public struct RoutinePicker: Sendable, Equatable {
    public var routines: [RoutineSummary] = []
    public var selected = 0
    /// False until the list is read (an empty list then says how to make one).
    public var loaded = false
    /// The routine to select once the list is read (back from the editor, a rename).
    public var pendingSelection: UUID?

    public init() {}
}

extension AppState {
    /// Rows of the sets pane: the logged sets, then the planned rows still to do (or skipped).
    public var setsPaneCount: Int { visibleSets.count + visiblePlanned.count }

    /// The selected planned row, when the selection is below the logged sets.
    public var currentPlanned: PlannedRow? {
        let index = selectedSet - visibleSets.count
        return focus == .sets && visiblePlanned.indices.contains(index) ? visiblePlanned[index] : nil
    }

    /// `S`: the selected workout's logged sets become a routine — the one it was started from,
    /// or a new one named after the workout.
    mutating func saveWorkoutAsRoutine() -> [AppEffect] {
        guard let workout = currentWorkout else {
            say("No workout selected: its sets would make the routine", isError: true)
            return []
        }
        guard !sets.isEmpty else {
            say("This workout has no sets yet: log some, then S saves them as a routine", isError: true)
            return []
        }
        return [
            .saveRoutine(workoutID: workout.id, routineID: planned.first?.routineID, name: workout.summary.workout.name)
        ]
    }

    /// `R`: the routine list.
    mutating func openRoutinePicker() -> [AppEffect] {
        overlay = .routinePicker(RoutinePicker())
        return [.loadRoutines]
    }

    mutating func reduceRoutinePicker(_ picker: RoutinePicker, _ action: KeyAction?) -> [AppEffect] {
        var picker = picker
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .moveDown:
            picker.selected = min(picker.selected + 1, max(0, picker.routines.count - 1))
        case .moveUp:
            picker.selected = max(0, picker.selected - 1)
        case .submit:
            guard picker.routines.indices.contains(picker.selected) else {
                say(
                    "No routine to start: \(KeyMap.name(of: .newRoutine, in: .routinePicker)) makes one, "
                        + "or S saves a workout as one", isError: true)
                return []
            }
            overlay = .none
            return [.startRoutine(id: picker.routines[picker.selected].routine.id)]
        case .editRoutine, .newRoutine, .renameRoutine, .deleteRoutine:
            return reduceRoutineListEdit(picker, action)
        default:
            return []
        }
        overlay = .routinePicker(picker)
        return []
    }

    /// Enter on a planned row: log it with its targets, through the same action as any set.
    mutating func logSelectedPlanned() -> [AppEffect] {
        guard let row = currentPlanned else { return [] }
        guard row.status == .planned else {
            say("This planned set was skipped: press x to bring it back", isError: true)
            return []
        }
        // A percentage set without an estimated 1RM has no weight to log: ask for it.
        if row.needsWeight { return openPlannedForm() }
        return [.logPlanned(id: row.id, weight: nil, reps: nil, rpe: nil, kind: nil)]
    }

    /// `e` on a planned row: the form, filled with its targets, to change them before logging.
    mutating func openPlannedForm() -> [AppEffect] {
        guard let row = currentPlanned else { return [] }
        guard row.status == .planned else {
            say("This planned set was skipped: press x to bring it back", isError: true)
            return []
        }
        var form = SetForm(purpose: .logPlanned(planID: row.id, exercise: row.exercise))
        form.exerciseInput = TextField(row.exercise)
        form.weightInput = TextField(row.needsWeight ? "" : Formatting.number(row.weight), selected: true)
        form.unit = row.unit
        form.repsInput = TextField(String(row.reps), selected: true)
        form.rpeInput = TextField(row.rpe.map(Formatting.number) ?? "", selected: true)
        form.kind = row.kind
        form.prefilledFrom = row.exercise
        form.prefillNote =
            "target \(row.repsMax.map { "\(row.reps) (range to \($0))" } ?? String(row.reps)) reps"
            + (row.hint.map { " · \(Formatting.weights(in: $0, shownIn: displayUnit))" } ?? "")
        form.focus = .weight
        form.targetWorkoutID = row.workoutID
        overlay = .setForm(form)
        return [.formContext(exercise: row.exercise)]
    }

    /// `x` on a planned row: skip it (nothing is logged), or bring a skipped one back.
    mutating func toggleSkipSelectedPlanned() -> [AppEffect] {
        guard let row = currentPlanned else { return [] }
        return [.toggleSkipPlanned(id: row.id)]
    }

    /// The status column of a planned row: "planned · +2.5 kg: all 3×5 done on Mon 16 Nov", its
    /// weights in the unit the lifter chose to see.
    public static func plannedStatus(_ row: PlannedRow, display: WeightUnit? = nil) -> String {
        switch row.status {
        case .skipped: "skipped"
        case .done: "done"
        case .planned: "planned" + (row.hint.map { " · \(Formatting.weights(in: $0, shownIn: display))" } ?? "")
        }
    }
}

extension SetForm.Purpose {
    /// Logging something new (a set, or a planned row), as opposed to editing a logged set.
    var logsNewSet: Bool {
        switch self {
        case .log, .logPlanned: true
        case .edit: false
        }
    }
}

extension AppController {
    /// The routine effects: the list, starting one, logging or skipping a planned row.
    func performRoutine(_ effect: AppEffect) throws {
        switch effect {
        case .loadRoutines:
            guard case .routinePicker(var picker) = state.overlay else { return }
            picker.routines = try store.routines.all()
            picker.loaded = true
            if let id = picker.pendingSelection, let index = picker.routines.firstIndex(where: { $0.routine.id == id })
            {
                picker.selected = index
            }
            picker.pendingSelection = nil
            picker.selected = min(picker.selected, max(0, picker.routines.count - 1))
            state.overlay = .routinePicker(picker)
        case .startRoutine(let id):
            let started = try store.routines.start(id.wireString)
            state.workoutFilter = ""
            state.setFilter = ""
            state.focus = .sets
            afterLocalWrite(selectWorkout: started.workout.id, selectPlanned: started.rows.first?.id)
            state.say(
                "\(started.resumed ? "Picked up today's" : "Started") \(started.workout.name): Enter logs a planned set, "
                    + "e edits it first, x skips")
        case .logPlanned(let id, let weight, let reps, let rpe, let kind):
            let before = state.planned
            let logged = try store.routines.logPlanned(
                id, weight: weight, reps: reps, rpe: rpe.map { .some($0) }, kind: kind)
            let row = before.first { $0.id == id }
            // The next planned row, in the routine's order (supersets alternate), is selected next.
            let ordinal = row?.ordinal ?? -1
            let next =
                before.first { $0.status == .planned && $0.ordinal > ordinal && $0.id != id }
                ?? before.first { $0.status == .planned && $0.id != id }
            if logged.set.kind == .warmup {
                state.restEndsAt = nil
            } else {
                let seconds =
                    row?.restSeconds ?? (try? store.preferences.restSeconds(exercise: logged.set.exercise))
                    ?? state.restSeconds
                state.restEndsAt = seconds > 0 ? clock.now().addingTimeInterval(TimeInterval(seconds)) : nil
                state.restAfterSet = logged.set.id
            }
            afterLocalWrite(selectWorkout: logged.workout.id, selectPlanned: next?.id)
            if next == nil, let index = state.visibleSets.firstIndex(where: { $0.set.id == logged.set.id }) {
                state.selectedSet = index
            }
            let described = state.describe(logged.set)
            switch state.sets.first(where: { $0.set.id == logged.set.id })?.record {
            case .oneRepMax: state.say("New PR! \(described) (est. 1RM record)")
            case .reps: state.say("New rep record! \(described)")
            case nil: state.say("Logged \(described)" + (next == nil ? " — every planned set is done" : ""))
            }
        case .saveRoutine(let workoutID, let routineID, let name):
            let saved: Routine
            if let routineID {
                saved = try store.routines.update(routineID.wireString, fromWorkout: workoutID)
            } else {
                saved = try store.routines.create(fromWorkout: workoutID, name: name)
            }
            afterLocalWrite()
            let sets = saved.exercises.reduce(0) { $0 + $1.sets.count }
            state.say(
                "\(routineID == nil ? "Saved routine" : "Updated routine") \(saved.name): "
                    + "\(Formatting.counted(saved.exercises.count, "exercise")), \(Formatting.counted(sets, "set")) (R starts it)"
            )
        case .toggleSkipPlanned(let id):
            let skipped = try store.routines.toggleSkipPlanned(id)
            afterLocalWrite(selectPlanned: id)
            state.say(skipped ? "Skipped: nothing is logged for it (x brings it back)" : "Planned again")
        case .createRoutine, .renameRoutine, .deleteRoutine, .saveRoutineEdits:
            try performRoutineEdit(effect)
        default:
            break
        }
    }

    /// The routine list's and editor's writes, each one store action (validated, queued, one
    /// transaction). A refusal changes nothing: it is said in the status line, and the dialog
    /// or editor it came from stays open with what was typed.
    private func performRoutineEdit(_ effect: AppEffect) throws {
        do {
            switch effect {
            case .createRoutine(let name):
                let routine = try store.routines.create(name: name)
                afterLocalWrite()
                state.overlay = .routineEditor(RoutineEditor(routine: routine))
                state.say(
                    "Made routine \(routine.name): \(KeyMap.name(of: .addExercise, in: .routineEditor)) adds an exercise"
                )
            case .renameRoutine(let id, let name):
                let routine = try store.routines.update(id.wireString) { $0.name = name }
                afterLocalWrite()
                _ = state.returnToRoutineList(selecting: id)
                try performRoutine(.loadRoutines)
                state.say("Renamed to \(routine.name)")
            case .deleteRoutine(let id):
                let name = try store.routines.routine(id.wireString).routine.name
                try store.routines.delete(id.wireString)
                afterLocalWrite()
                _ = state.returnToRoutineList(selecting: nil)
                try performRoutine(.loadRoutines)
                state.say("Deleted routine \(name) (workouts started from it stay)")
            case .saveRoutineEdits(let id, let exercises, let close):
                let saved = try store.routines.update(id.wireString) { $0.exercises = exercises }
                afterLocalWrite()
                if close {
                    _ = state.returnToRoutineList(selecting: id)
                    try performRoutine(.loadRoutines)
                } else if case .routineEditor(var editor) = state.overlay {
                    // The store's spelling of each exercise (the catalogue's) is what was saved.
                    editor.saved = saved
                    editor.routine = saved
                    editor.selected = min(editor.selected, max(0, editor.rows.count - 1))
                    state.overlay = .routineEditor(editor)
                }
                let sets = saved.exercises.reduce(0) { $0 + $1.sets.count }
                state.say(
                    "Saved \(saved.name): \(Formatting.counted(saved.exercises.count, "exercise")), \(Formatting.counted(sets, "set"))"
                )
            default:
                break
            }
        } catch let error as StoreError {
            refused(effect, error)
        }
    }

    /// Says why a routine write was refused, and gives back what was being typed.
    private func refused(_ effect: AppEffect, _ error: StoreError) {
        var reason = error.description
        switch effect {
        case .saveRoutineEdits(_, let exercises, _):
            if case .invalid(let invalid) = error { reason = RoutineEditor.explain(invalid, in: exercises) }
            if case .routineEditor(var editor) = state.overlay {
                editor.error = reason
                state.overlay = .routineEditor(editor)
            }
            state.say("Not saved: \(reason)", isError: true, seconds: 8)
        case .createRoutine(let name):
            state.overlay = .routineName(RoutineNameInput(purpose: .create, field: TextField(name), error: reason))
            state.say(reason, isError: true, seconds: 6)
        case .renameRoutine(let id, let name):
            let from = (try? store.routines.routine(id.wireString).routine.name) ?? name
            state.overlay = .routineName(
                RoutineNameInput(purpose: .rename(id: id, from: from), field: TextField(name), error: reason))
            state.say(reason, isError: true, seconds: 6)
        default:
            state.say(reason, isError: true, seconds: 6)
        }
    }
}

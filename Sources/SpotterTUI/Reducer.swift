import Foundation
import SpotterCore
import SpotterStore

/// Work the reducer asks for that needs the store or the engine. The reducer itself only
/// changes `AppState`; `AppController` runs these, so key handling is testable on its own.
public enum AppEffect: Sendable, Equatable {
    case loadSets(workoutID: UUID?)
    /// Load the next page of older workouts (the list was scrolled near its end).
    case loadMoreWorkouts
    /// Every workout (a workout filter looks through them all).
    case loadAllWorkouts
    /// Every workout, then the oldest selected (G / End with older ones not loaded yet).
    case loadAllWorkoutsSelectingOldest
    /// Fill the history view with the sessions of its exercise from `offset`.
    case loadHistory(exercise: String, offset: Int)
    case loadSuggestions(query: String)
    /// Fill the form's numbers from this exercise's last session (the set at the same place as
    /// the next one in `workoutID`), or clear them when it has none.
    case prefill(exercise: String, workoutID: UUID?)
    /// Show beside the form's numbers, without changing them, the plates per side and the
    /// exercise's last sessions (a planned set's form: its numbers are the plan's).
    case formContext(exercise: String)
    case logSet(LogSetInput)
    case editSet(id: UUID, changes: SetChanges)
    case deleteSet(id: UUID)
    case deleteWorkout(id: UUID)
    case createWorkout(name: String)
    /// `P`: read the bar and plates owned, to edit them.
    case loadPlates
    /// `B`: open the weigh-in prompt (it shows the last one).
    case loadBodyWeight
    /// `L`: the selected set's exercise in or out of a superset with the one before it.
    case toggleSuperset(setID: UUID)
    case saveBodyWeight(weight: Double, unit: WeightUnit, notes: String?)
    /// `W`: open the weigh-ins list (selecting `select` when given).
    case loadWeighIns(select: UUID?)
    case changeBodyWeight(id: UUID, weight: Double, unit: WeightUnit, notes: String?)
    case deleteBodyWeight(id: UUID)
    /// Save the bar and plates owned in `unit`, as typed ("20: 25,20,15").
    case savePlates(unit: WeightUnit, text: String)
    case setAirplane(Bool)
    case toggleFavorite(exercise: String)
    /// Keep the unit weights are shown in (nil: as logged).
    case setDisplayUnit(WeightUnit?)
    case syncNow
    case retry(entityType: EntityType, entityID: String)
    case discard(entityType: EntityType, entityID: String)
    /// Name what discarding would take and ask (`x`); `y` then discards.
    case askDiscard(entityType: EntityType, entityID: String)
    /// Fill the routine list (`R`).
    case loadRoutines
    /// Start today's workout from a routine.
    case startRoutine(id: UUID)
    /// `S`: the workout's sets become a routine: its own (started from one) or a new one.
    case saveRoutine(workoutID: UUID, routineID: UUID?, name: String)
    /// Log a planned row (nil values: its targets) through the one-transaction action.
    case logPlanned(id: UUID, weight: Double?, reps: Int?, rpe: Double?, kind: SetKind?)
    /// Plan the warm-up ramp before the work set the form holds, and the work set, as planned rows.
    case planWarmups(LogSetInput)
    /// Skip a planned row, or bring a skipped one back.
    case toggleSkipPlanned(id: UUID)
    /// `n` in the routine list: an empty routine, then opened in the editor.
    case createRoutine(name: String)
    case renameRoutine(id: UUID, name: String)
    case deleteRoutine(id: UUID)
    /// `s` in the editor: the routine's exercises become these (validated and queued by the
    /// store in one transaction); `close` goes back to the list once saved.
    case saveRoutineEdits(id: UUID, exercises: [RoutineExercise], close: Bool)
    case loadOutbox
    /// The terminal came back (focus-in, SIGCONT): an "app resumed" sync trigger.
    case resumed
    /// Take a conflict's overridden value back (a new edit), or dismiss the conflict.
    case takeConflict(id: UUID)
    case dismissConflict(id: UUID)
    /// A workout's name and notes, as the workout form left them.
    case editWorkout(id: UUID, name: String, notes: String)
    /// The workout ends now; its summary is shown.
    case finishWorkout(id: UUID)
    /// The note on one exercise of a workout (empty: removed).
    case noteExercise(workoutID: UUID, exercise: String, note: String)
    /// Take back this device's last action.
    case undo
    /// Open an exercise's progress (nil: the exercise with the most working sets).
    case loadProgress(exercise: String?, returnTo: ProgressReturn)
    /// Open (or move) the training calendar on `year`; a new streak goal is kept (nil: the kept one).
    case loadCalendar(year: Int, minimumPerWeek: Int?)
    /// List the workouts of the calendar's selected day.
    case loadCalendarDay(Date)
    /// Select a workout in the panes (loading older ones when it is not among them).
    case openWorkout(id: UUID)
    /// Open the weekly volume per muscle.
    case loadMuscleVolume
}

extension AppState {
    /// Where keys are read now, innermost first: `KeyMap` looks a key up in each in turn.
    public var keyContexts: [KeyContext] {
        if isTooSmall { return [.tooSmall] }
        return switch overlay {
        case .setForm(let form):
            switch form.focus {
            case .exercise: [.exerciseField, .textField, .form]
            case .kind: [.kindField, .form]
            case .weight, .reps, .rpe: [.textField, .form]
            }
        case .confirmDelete: [.confirmDelete]
        case .newWorkout: [.newWorkout, .textField]
        case .plates: [.plates, .textField]
        case .bodyWeight: [.bodyWeight, .textField]
        case .weighIns: [.weighIns]
        case .progress: [.progress]
        case .calendar: [.calendar]
        case .muscleVolume: [.muscleVolume]
        case .history: [.history]
        case .help: [.help]
        case .routinePicker: [.routinePicker]
        case .routineEditor(let editor):
            if editor.confirmingDiscard {
                [.confirmDiscard]
            } else if let form = editor.form {
                switch form.focus {
                case .exercise: [.exerciseField, .textField, .routineForm]
                case .kind, .unit, .progression: [.kindField, .routineForm]
                case .sets, .weight, .reps, .rpe, .increment, .rest, .superset: [.textField, .routineForm]
                }
            } else {
                [.routineEditor]
            }
        case .routineName: [.routineName, .textField]
        case .conflicts: [.conflicts]
        case .workoutEdit: [.workoutEdit, .textField]
        case .workoutSummary: [.workoutSummary]
        case .none: filterInput == nil ? [.browse] : [.filter, .textField]
        }
    }

    /// Applies one key press; returns the store and engine work it implies.
    public mutating func reduce(_ key: Key) -> [AppEffect] {
        if key == .focusIn { return [.resumed] }
        if key == .focusOut { return [] }
        let action = KeyMap.action(for: key, in: keyContexts)
        if isTooSmall {
            if action == .quit { shouldQuit = true }
            return []
        }
        switch overlay {
        case .setForm(var form):
            let effects = reduceForm(&form, key, action)
            if case .setForm = overlay { overlay = .setForm(form) }
            return effects
        case .confirmDelete(let target):
            return reduceConfirm(target, action)
        case .newWorkout(let name):
            return reduceNewWorkout(name, key, action)
        case .plates(let input):
            return reducePlates(input, key, action)
        case .bodyWeight(let input):
            return reduceBodyWeight(input, key, action)
        case .weighIns(let view):
            return reduceWeighIns(view, action)
        case .progress(let view):
            return reduceProgress(view, action)
        case .calendar(let view):
            return reduceCalendar(view, action)
        case .muscleVolume(let view):
            return reduceMuscleVolume(view, action)
        case .history(let view):
            return reduceHistory(view, action)
        case .help:
            reduceHelp(action)
            return []
        case .routinePicker(let picker):
            return reduceRoutinePicker(picker, action)
        case .routineEditor(let editor):
            return reduceRoutineEditor(editor, key, action)
        case .routineName(let input):
            return reduceRoutineName(input, key, action)
        case .conflicts(let view):
            return reduceConflicts(view, action)
        case .workoutEdit(let form):
            return reduceWorkoutEdit(form, key, action)
        case .workoutSummary:
            if action == .cancel { overlay = .none }
            return []
        case .none:
            break
        }
        if filterInput != nil { return reduceFilter(key, action) }
        guard let action else { return [] }
        return reduceBrowse(action)
    }

    // MARK: Browsing

    private mutating func reduceBrowse(_ action: KeyAction) -> [AppEffect] {
        switch action {
        case .quit:
            shouldQuit = true
        case .showHelp:
            overlay = .help
            helpScroll = 0
        case .showConflicts:
            overlay = .conflicts(ConflictsView())
        case .logSet:
            return openLogForm(intoSelected: false)
        case .logSetIntoSelected:
            return openLogForm(intoSelected: true)
        case .editSet:
            if focus == .workouts { return openWorkoutEdit() }
            if currentPlanned != nil { return openPlannedForm() }
            return openEditForm()
        case .finishWorkout:
            return finishWorkout()
        case .noteExercise:
            return openExerciseNote()
        case .undo:
            return [.undo]
        case .startRoutine:
            return openRoutinePicker()
        case .saveAsRoutine:
            return saveWorkoutAsRoutine()
        case .showExerciseHistory:
            // History of the selected set's exercise; from the workouts pane, h stays "left".
            guard focus == .sets, let exercise = currentSet?.set.exercise else {
                focus = .workouts
                return []
            }
            overlay = .history(HistoryView(exercise: exercise))
            return [.loadHistory(exercise: exercise, offset: 0)]
        case .deleteSelected:
            askToDelete()
        case .startWorkout:
            overlay = .newWorkout(TextField())
        case .editPlates:
            return [.loadPlates]
        case .logBodyWeight:
            return [.loadBodyWeight]
        case .showWeighIns:
            return [.loadWeighIns(select: nil)]
        case .showProgress:
            // The selected set's exercise; with none, the one logged most.
            let exercise = focus == .sets ? currentSet?.set.exercise : nil
            return [.loadProgress(exercise: exercise, returnTo: .browse)]
        case .showCalendar:
            let year = Calendar.current.component(.year, from: now)
            return [.loadCalendar(year: year, minimumPerWeek: nil)]
        case .showMuscleVolume:
            overlay = .muscleVolume(MuscleVolumeView())
            return [.loadMuscleVolume]
        case .toggleSuperset:
            guard focus == .sets, let row = currentSet else {
                say("Select a set: its exercise goes in a superset with the one before it", isError: true)
                return []
            }
            return [.toggleSuperset(setID: row.set.id)]
        case .toggleAirplane:
            airplane.toggle()
            say(airplane ? "Airplane mode on: changes stay queued on this device" : "Airplane mode off: syncing")
            return [.setAirplane(airplane)]
        case .toggleStar:
            guard let set = currentSet else {
                say("Select a set to star its exercise", isError: true)
                return []
            }
            return [.toggleFavorite(exercise: set.set.exercise)]
        case .cycleDisplayUnit:
            displayUnit =
                switch displayUnit {
                case nil: .kg
                case .kg: .lb
                case .lb: nil
                }
            say("Weights shown \(displayUnit.map { "in \($0.rawValue)" } ?? "as logged")")
            return [.setDisplayUnit(displayUnit)]
        case .skipRest:
            guard restEndsAt != nil else {
                say("No rest timer running", isError: true)
                return []
            }
            restEndsAt = nil
            say("Rest skipped")
        case .extendRest:
            guard let ends = restEndsAt else {
                say("No rest timer running", isError: true)
                return []
            }
            restEndsAt = ends.addingTimeInterval(30)
            say("Rest +30 s")
        case .toggleDebug:
            debugVisible.toggle()
            return debugVisible ? [.loadOutbox] : []
        case .syncNow:
            if !syncAvailable {
                say("Sync unavailable: no sync engine in this session", isError: true)
                return []
            }
            if airplane {
                say("Airplane mode is on: press \(KeyMap.name(of: .toggleAirplane)) to turn it off", isError: true)
                return []
            }
            say("Syncing now…")
            return [.syncNow]
        case .retryRejected:
            return resolveRejected(retry: true)
        case .discardRejected:
            if currentPlanned != nil { return toggleSkipSelectedPlanned() }
            return resolveRejected(retry: false)
        case .startFilter:
            filterInput = FilterInput(pane: focus, field: TextField(focus == .sets ? setFilter : workoutFilter))
        case .moveDown:
            return move(by: 1)
        case .moveUp:
            return move(by: -1)
        case .pageDown:
            return move(by: max(1, rows - 6))
        case .pageUp:
            return move(by: -max(1, rows - 6))
        case .moveToFirst:
            return move(by: -Int.max / 2)
        case .moveToLast:
            // The end is the oldest workout, not the oldest loaded so far.
            if focus == .workouts, moreWorkouts { return [.loadAllWorkoutsSelectingOldest] }
            return move(by: Int.max / 2)
        case .switchPane:
            focus = focus == .sets ? .workouts : .sets
        case .focusWorkouts:
            focus = .workouts
        case .focusSets:
            focus = .sets
        case .openWorkout:
            if focus == .workouts {
                focus = .sets
            } else if currentPlanned != nil {
                return logSelectedPlanned()
            }
        case .back:
            if debugVisible {
                debugVisible = false
            } else if !setFilter.isEmpty || !workoutFilter.isEmpty {
                setFilter = ""
                workoutFilter = ""
            } else {
                message = nil
            }
        default:
            break
        }
        return []
    }

    private mutating func move(by delta: Int) -> [AppEffect] {
        switch focus {
        case .sets:
            guard setsPaneCount > 0 else { return [] }
            selectedSet = Self.clamp(selectedSet, delta, count: setsPaneCount)
            return []
        case .workouts:
            guard !visibleWorkouts.isEmpty else { return [] }
            let before = selectedWorkout
            selectedWorkout = Self.clamp(selectedWorkout, delta, count: visibleWorkouts.count)
            var effects: [AppEffect] = []
            if moreWorkouts, delta > 0, selectedWorkout >= visibleWorkouts.count - max(1, rows - 6) {
                effects.append(.loadMoreWorkouts)
            }
            guard before != selectedWorkout else { return effects }
            selectedSet = 0
            return [.loadSets(workoutID: currentWorkout?.id)] + effects
        }
    }

    private static func clamp(_ index: Int, _ delta: Int, count: Int) -> Int {
        let target = delta > 0 ? (index > Int.max - delta ? Int.max : index + delta) : index + delta
        return min(max(0, target), count - 1)
    }

    private mutating func askToDelete() {
        switch focus {
        case .sets:
            guard let row = currentSet else {
                say("No set selected", isError: true)
                return
            }
            overlay = .confirmDelete(.set(id: row.set.id, description: describe(row.set)))
        case .workouts:
            guard let item = currentWorkout else {
                say("No workout selected", isError: true)
                return
            }
            overlay = .confirmDelete(
                .workout(
                    id: item.id, name: item.summary.workout.name,
                    // Counted when its sets were loaded (AppController.loadSets); else those loaded.
                    setCount: item.summary.setCount ?? sets.count))
        }
    }

    func describe(_ set: WorkoutSet) -> String {
        "\(set.exercise) \(Formatting.weight(set.weight, unit: set.unit, shownIn: displayUnit)) × \(set.reps)"
    }

    private mutating func resolveRejected(retry: Bool) -> [AppEffect] {
        let verb = retry ? "retry" : "discard"
        if focus == .workouts, let item = currentWorkout, item.summary.syncState == .rejected {
            return [
                retry
                    ? .retry(entityType: .workout, entityID: item.id.wireString)
                    : .askDiscard(entityType: .workout, entityID: item.id.wireString)
            ]
        }
        guard let row = currentSet, row.syncState == .rejected else {
            say("Nothing to \(verb): select a rejected (\(glyphs.rejected)) set", isError: true)
            return []
        }
        let id = row.set.id.wireString
        return [retry ? .retry(entityType: .set, entityID: id) : .askDiscard(entityType: .set, entityID: id)]
    }

    // MARK: Help

    /// The help box scrolls when the terminal is too short for it; its border stays whole.
    private mutating func reduceHelp(_ action: KeyAction?) {
        let page = max(1, helpRowsShown - 1)
        switch action {
        case .closeHelp: overlay = .none
        case .moveDown: helpScroll += 1
        case .moveUp: helpScroll -= 1
        case .pageDown: helpScroll += page
        case .pageUp: helpScroll -= page
        case .moveToFirst: helpScroll = 0
        case .moveToLast: helpScroll = helpScrollLimit
        default: break
        }
        helpScroll = min(max(0, helpScroll), helpScrollLimit)
    }

    // MARK: Filter

    private mutating func reduceFilter(_ key: Key, _ action: KeyAction?) -> [AppEffect] {
        guard var input = filterInput else { return [] }
        switch action {
        case .submit:
            // Enter keeps the highlighted suggestion (the filter becomes that name), or the typed
            // text when its own row is highlighted or nothing matched.
            let suggestions = filterSuggestions
            filterInput = nil
            guard
                let choice = TypeAhead.choice(
                    typed: input.text, suggestions: suggestions, highlighted: input.highlighted),
                !choice.isNew, choice.name != input.text
            else { return [] }
            input.field = TextField(choice.name)
        case .nextSuggestion:
            input.highlighted = TypeAhead.next(input.highlighted, typed: input.text, suggestions: filterSuggestions)
            filterInput = input
            return []
        case .previousSuggestion:
            input.highlighted = TypeAhead.previous(
                input.highlighted, typed: input.text, suggestions: filterSuggestions)
            filterInput = input
            return []
        case .cancel:
            filterInput = nil
            input.field = TextField()
        case .edit(let edit):
            guard input.field.apply(edit) else {
                filterInput = input
                return []
            }
            filterInput = input
        default:
            guard case .character(let character) = key else { return [] }
            guard input.field.insert(character, limit: Self.maxFilterLength) else {
                say("A filter holds at most \(Self.maxFilterLength) characters", isError: true)
                return []
            }
            filterInput = input
        }
        if filterInput != nil {
            // New text: the exact match, else the first suggestion, is highlighted again.
            input.highlighted = TypeAhead.defaultHighlight(
                typed: input.text, suggestions: filterSuggestions(typed: input.text, pane: input.pane))
            filterInput = input
        }
        let before = currentWorkout?.id
        if input.pane == .sets {
            setFilter = input.text
        } else {
            workoutFilter = input.text
            // The filter looks through every workout, not only the newest page loaded: "no
            // workout matches" must be true of the whole list.
            if moreWorkouts, !input.text.isEmpty { return [.loadAllWorkouts] }
            if currentWorkout?.id != before { return [.loadSets(workoutID: currentWorkout?.id)] }
        }
        return []
    }

    // MARK: History view

    /// Sessions per page of the history view.
    var historyPageSize: Int { max(1, rows - 8) }

    private mutating func reduceHistory(_ view: HistoryView, _ action: KeyAction?) -> [AppEffect] {
        let page = historyPageSize
        var offset = view.offset
        switch action {
        case .closeHistory:
            overlay = view.returnTo.map { .setForm($0) } ?? .none
            return []
        case .historyNextPage:
            offset = min(view.offset + page, max(0, view.total - 1))
        case .historyPreviousPage:
            offset = max(0, view.offset - page)
        case .historyFirstPage:
            offset = 0
        case .historyLastPage:
            offset = max(0, view.total - 1) / page * page
        case .showProgress:
            return [.loadProgress(exercise: view.exercise, returnTo: .history(view))]
        default:
            return []
        }
        guard offset != view.offset else { return [] }
        return [.loadHistory(exercise: view.exercise, offset: offset)]
    }

    // MARK: New workout and delete confirmation

    private mutating func reducePlates(_ input: PlatesInput, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var input = input
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .submit:
            do { _ = try PlateSet(text: input.field.text, unit: input.unit) } catch {
                say(error.message, isError: true)
                return []
            }
            overlay = .none
            return [.savePlates(unit: input.unit, text: input.field.text)]
        case .otherUnit:
            input.current[input.unit] = input.field.text
            input.unit = input.unit == .kg ? .lb : .kg
            input.field = TextField(input.current[input.unit] ?? "")
        case .edit(let edit):
            input.field.apply(edit)
        default:
            guard case .character(let character) = key else { break }
            guard input.field.insert(character, limit: 120) else {
                say("The plates line holds at most 120 characters", isError: true)
                return []
            }
        }
        overlay = .plates(input)
        return []
    }

    private mutating func reduceBodyWeight(_ input: BodyWeightInput, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var input = input
        switch action {
        case .cancel:
            // Esc on a change goes back to the list it came from.
            overlay = .none
            return input.editing.map { [.loadWeighIns(select: $0)] } ?? []
        case .submit:
            switch input.parsed() {
            case .failure(let problem):
                say(problem.message, isError: true)
                overlay = .bodyWeight(input)
                return []
            case .success(let entry):
                overlay = .none
                if let id = input.editing {
                    return [.changeBodyWeight(id: id, weight: entry.weight, unit: entry.unit, notes: entry.notes)]
                }
                return [.saveBodyWeight(weight: entry.weight, unit: entry.unit, notes: entry.notes)]
            }
        case .otherUnit:
            input.unit = input.unit == .kg ? .lb : .kg
        case .edit(let edit):
            input.field.apply(edit)
        default:
            guard case .character(let character) = key else { break }
            guard input.field.insert(character, limit: 200) else {
                say("A weigh-in and its note hold at most 200 characters", isError: true)
                return []
            }
        }
        overlay = .bodyWeight(input)
        return []
    }

    private mutating func reduceNewWorkout(_ name: TextField, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var name = name
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .submit:
            overlay = .none
            return [.createWorkout(name: name.text.trimmingCharacters(in: .whitespaces))]
        case .edit(let edit):
            name.apply(edit)
        default:
            guard case .character(let character) = key else { break }
            guard name.insert(character, limit: Validation.maxNameLength) else {
                say("A workout name holds at most \(Validation.maxNameLength) characters", isError: true)
                return []
            }
        }
        overlay = .newWorkout(name)
        return []
    }

    private mutating func reduceConfirm(_ target: DeleteTarget, _ action: KeyAction?) -> [AppEffect] {
        switch action {
        case .confirmDelete:
            overlay = .none
            switch target {
            case .set(let id, _): return [.deleteSet(id: id)]
            case .workout(let id, _, _): return [.deleteWorkout(id: id)]
            case .routine(let id, _): return [.deleteRoutine(id: id)]
            case .discard(let type, let id, _): return [.discard(entityType: type, entityID: id)]
            }
        case .keepItem:
            overlay = .none
            if case .routine(let id, _) = target { return returnToRoutineList(selecting: id) }
        default:
            break
        }
        return []
    }

    // MARK: The set form

    /// The longest `/` filter: an exercise name is at most this long.
    static let maxFilterLength = Validation.maxExerciseLength

    /// `n` logs into the workout in progress (started today, not ended) or starts one, whatever
    /// workout is selected; `N` logs into the selected workout on purpose (an old one too).
    private mutating func openLogForm(intoSelected: Bool) -> [AppEffect] {
        var form: SetForm
        if intoSelected {
            guard let workout = currentWorkout else {
                say("Select a workout to log into, or press \(KeyMap.name(of: .logSet))", isError: true)
                return []
            }
            let name =
                workout.isInProgress
                ? workout.summary.workout.name : "\(workout.summary.workout.name) (\(workout.longDateLabel))"
            form = SetForm(purpose: .log(workoutID: workout.id, workoutName: name))
            form.targetWorkoutID = workout.id
        } else if let workout = workoutInProgress {
            form = SetForm(purpose: .log(workoutID: nil, workoutName: workout.summary.workout.name))
            form.targetWorkoutID = workout.id
        } else {
            form = SetForm(purpose: .log(workoutID: nil, workoutName: "new workout"))
        }
        // Between sets the next one is most often the same exercise: start from the selected
        // (or last) set on screen, so `n` then Enter logs it again; in a routine's workout with
        // nothing logged yet, from the selected (or first open) planned row.
        var template =
            currentSet?.set.exercise ?? currentPlanned?.exercise ?? sets.last?.set.exercise
            ?? planned.first(where: { $0.status == .planned })?.exercise
        // In a superset the next set is the next exercise of the round, after the last set logged.
        if let last = currentSet ?? sets.last,
            last.set.id == sets.max(by: { $0.set.position < $1.set.position })?.set.id,
            let next = Self.supersetNext(after: last.set, in: sets)
        {
            template = next
        }
        if let template {
            form.exerciseInput = TextField(template, selected: true)
            form.focus = .weight
        }
        overlay = .setForm(form)
        var effects: [AppEffect] = [.loadSuggestions(query: form.exercise)]
        if let template {
            effects.append(.prefill(exercise: template, workoutID: form.targetWorkoutID))
        }
        return effects
    }

    /// The exercise after `set`'s in its superset's round (the first again after the last), from
    /// the workout's sets on screen; nil when it is in none.
    static func supersetNext(after set: WorkoutSet, in rows: [SetRow]) -> String? {
        guard let group = set.superset else { return nil }
        var first: [String: Int] = [:]
        for row in rows where row.set.superset == group && row.set.workoutID == set.workoutID {
            first[row.set.exercise] = min(first[row.set.exercise] ?? .max, row.set.position)
        }
        let order = first.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
        guard order.count > 1, let index = order.firstIndex(of: set.exercise) else { return nil }
        return order[(index + 1) % order.count]
    }

    private mutating func openEditForm() -> [AppEffect] {
        guard focus == .sets, let row = currentSet else {
            say("Select a set to edit", isError: true)
            return []
        }
        var form = SetForm(purpose: .edit(setID: row.set.id))
        form.exerciseInput = TextField(row.set.exercise, selected: true)
        form.weightInput = TextField(Formatting.number(row.set.weight), selected: true)
        form.unit = row.set.unit
        form.storedWeight = WeightAmount(weight: row.set.weight, unit: row.set.unit)
        form.repsInput = TextField(String(row.set.reps), selected: true)
        form.rpeInput = TextField(row.set.rpe.map(Formatting.number) ?? "", selected: true)
        form.kind = row.set.kind
        form.prefilledFrom = row.set.exercise
        form.focus = .weight
        overlay = .setForm(form)
        return [.loadSuggestions(query: form.exercise)]
    }

    private mutating func reduceForm(_ form: inout SetForm, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        form.error = nil
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .submit:
            var effects: [AppEffect] = []
            // Enter takes what is highlighted, as Tab does (never the bare text while a
            // suggestion is highlighted).
            if form.focus == .exercise {
                Self.takeChoice(&form)
            }
            // Choosing another exercise with Enter fills its numbers first (and moves to them);
            // the next Enter saves. Saving with the previous exercise's numbers would be wrong.
            if form.focus == .exercise, case .log = form.purpose,
                !form.exercise.trimmingCharacters(in: .whitespaces).isEmpty,
                form.prefilledFrom?.caseInsensitiveCompare(form.exercise) != .orderedSame
            {
                form.focus = .weight
                return [.prefill(exercise: form.exercise, workoutID: form.targetWorkoutID)]
            }
            // An edit that moves the set to a new custom exercise says so before saving, as the
            // log form does: the first Enter warns, the next saves.
            if case .edit = form.purpose, let new = form.newCustomExercise,
                form.warnedCustomExercise?.caseInsensitiveCompare(new) != .orderedSame
            {
                form.warnedCustomExercise = new
                form.error = "new custom exercise '\(new)': Enter saves it, Esc keeps the set as it was"
                if form.focus == .exercise { form.focus = .weight }
                return effects
            }
            switch Self.submission(of: form) {
            case .failure(let problem):
                form.error = problem.message
                form.focus = problem.field
                return effects
            case .success(let effect):
                // The form closes on the first Enter, so a second Enter cannot save twice.
                overlay = .none
                submittedForm = form
                effects.append(effect)
                return effects
            }
        case .nextField:
            return leave(&form, forward: true)
        case .previousField:
            return leave(&form, forward: false)
        case .nextSuggestion:
            form.highlighted = TypeAhead.next(form.highlighted, typed: form.exercise, suggestions: form.suggestions)
            form.browsedSuggestions = true
            return []
        case .previousSuggestion:
            form.highlighted = TypeAhead.previous(form.highlighted, typed: form.exercise, suggestions: form.suggestions)
            form.browsedSuggestions = true
            return []
        case .formHistory:
            // Ctrl-O: the chosen exercise's whole history; Esc comes back to the form.
            let exercise = form.exercise.trimmingCharacters(in: .whitespaces)
            guard !exercise.isEmpty else {
                form.error = "Choose an exercise to see its history"
                return []
            }
            overlay = .history(HistoryView(exercise: exercise, returnTo: form))
            return [.loadHistory(exercise: exercise, offset: 0)]
        case .showProgress:
            // Ctrl-G: the chosen exercise's chart; Esc comes back to the form.
            let exercise = form.exercise.trimmingCharacters(in: .whitespaces)
            guard !exercise.isEmpty else {
                form.error = "Choose an exercise to see its chart"
                return []
            }
            return [.loadProgress(exercise: exercise, returnTo: .form(form))]
        case .planWarmups:
            guard case .log = form.purpose else {
                form.error = "Warm-ups are planned from the form that logs a new set"
                return []
            }
            if form.focus == .exercise { Self.takeChoice(&form) }
            switch Self.submission(of: form) {
            case .failure(let problem):
                form.error = problem.message
                form.focus = problem.field
                return []
            case .success(let effect):
                guard case .logSet(let input) = effect else { return [] }
                overlay = .none
                submittedForm = form
                return [.planWarmups(input)]
            }
        case .starSuggestion:
            // Ctrl-F stars the highlighted suggestion without leaving the form.
            if form.focus == .exercise, form.suggestions.indices.contains(form.highlighted) {
                return [
                    .toggleFavorite(exercise: form.suggestions[form.highlighted]),
                    .loadSuggestions(query: form.exercise),
                ]
            }
            return []
        case .previousKind:
            form.kind = Self.cycle(form.kind, by: -1)
            return []
        case .nextKind:
            form.kind = Self.cycle(form.kind, by: 1)
            return []
        case .edit(let edit):
            let changed = form[input: form.focus].apply(edit)
            return Self.typed(&form, in: form.focus, changed: changed)
        default:
            break
        }
        guard case .character(let character) = key else { return [] }
        if form.focus == .kind {
            if let kind = SetKind.allCases.first(where: { $0.rawValue.first == Character(character.lowercased()) }) {
                form.kind = kind
            }
            return []
        }
        let field = form.focus
        let limit = SetForm.maxLength(field)
        // The first character typed into a filled-in field replaces it (a selected field).
        guard form[input: field].insert(character, limit: limit) else {
            form.error = "\(field.label) holds at most \(limit) characters; the rest was not typed"
            return []
        }
        return Self.typed(&form, in: field, changed: true)
    }

    /// After the text of `field` changed: the exercise asks for its type-ahead again; an edited
    /// weight is the lifter's, no longer the stored one it showed.
    private static func typed(_ form: inout SetForm, in field: SetForm.Field, changed: Bool) -> [AppEffect] {
        guard changed else { return [] }
        switch field {
        case .exercise:
            form.highlighted = 0
            form.browsedSuggestions = false
            return [.loadSuggestions(query: form.exercise)]
        case .weight:
            form.storedWeight = nil
            return []
        case .reps, .rpe, .kind:
            return []
        }
    }

    /// Enter, Tab or Shift-Tab on the exercise field: the highlighted row (`TypeAhead.choice`)
    /// written into the form; a new custom exercise is remembered, so the form can say so before
    /// anything is saved.
    static func takeChoice(_ form: inout SetForm) {
        if let choice = TypeAhead.choice(
            typed: form.exercise, suggestions: form.suggestions, highlighted: form.highlighted)
        {
            form.exercise = choice.name
            form.newCustomExercise = choice.isNew ? choice.name : nil
        }
        form.browsedSuggestions = false
    }

    private mutating func leave(_ form: inout SetForm, forward: Bool) -> [AppEffect] {
        var effects: [AppEffect] = []
        if form.focus == .exercise {
            Self.takeChoice(&form)
            if case .log = form.purpose, !form.exercise.isEmpty,
                form.prefilledFrom?.caseInsensitiveCompare(form.exercise) != .orderedSame
            {
                effects.append(.prefill(exercise: form.exercise, workoutID: form.targetWorkoutID))
            }
        }
        let fields = SetForm.Field.allCases
        let index = fields.firstIndex(of: form.focus) ?? 0
        form.focus = fields[(index + (forward ? 1 : fields.count - 1)) % fields.count]
        // Tabbing into a filled field selects it, as in any form: typing replaces, never appends
        // ("Deadlift (Barbell)x"); arrows or Backspace edit it.
        if !form[input: form.focus].isEmpty { form[input: form.focus].isSelected = true }
        return effects
    }

    private static func cycle(_ kind: SetKind, by step: Int) -> SetKind {
        let all = SetKind.allCases
        let index = all.firstIndex(of: kind) ?? 0
        return all[(index + step + all.count) % all.count]
    }

    /// A form problem to show beside the field it concerns.
    struct FormProblem: Error {
        var field: SetForm.Field
        var message: String
    }

    /// Turns the form into the store action it asks for, or says what is wrong.
    static func submission(of form: SetForm) -> Result<AppEffect, FormProblem> {
        let exercise = form.exercise.trimmingCharacters(in: .whitespaces)
        guard !exercise.isEmpty else { return .failure(FormProblem(field: .exercise, message: "Exercise is required")) }
        guard let typed = parseWeight(form.weight, defaultUnit: form.unit) else {
            return .failure(FormProblem(field: .weight, message: "Weight must be a number, like 100 or 225 lb"))
        }
        // Untouched: exactly what was stored.
        let weight = form.storedWeight?.weight ?? typed.weight
        let unit = form.storedWeight?.unit ?? typed.unit
        guard let reps = Int(form.reps.trimmingCharacters(in: .whitespaces)), reps >= 0 else {
            return .failure(FormProblem(field: .reps, message: "Reps must be a whole number"))
        }
        let rpeText = form.rpe.trimmingCharacters(in: .whitespaces)
        var rpe: Double?
        if !rpeText.isEmpty {
            guard let value = Validation.decimal(rpeText.replacingOccurrences(of: ",", with: ".")) else {
                return .failure(FormProblem(field: .rpe, message: "RPE must be a number from 1 to 10"))
            }
            rpe = value
        }
        switch form.purpose {
        case .log(let workoutID, _):
            return .success(
                .logSet(
                    LogSetInput(
                        exercise: exercise, weight: weight, unit: unit, reps: reps, rpe: rpe, kind: form.kind,
                        workout: workoutID.map { .existing($0) } ?? .current)))
        case .logPlanned(let planID, let planned):
            guard exercise.caseInsensitiveCompare(planned) == .orderedSame else {
                return .failure(
                    FormProblem(
                        field: .exercise,
                        message: "A planned set keeps its exercise (\(planned)); press n to log another one"))
            }
            return .success(.logPlanned(id: planID, weight: weight, reps: reps, rpe: rpe, kind: form.kind))
        case .edit(let setID):
            return .success(
                .editSet(
                    id: setID,
                    changes: SetChanges(
                        exercise: exercise, weight: weight, unit: unit, reps: reps, rpe: rpe, clearRPE: rpe == nil,
                        kind: form.kind)))
        }
    }

    /// "100", "100 kg", "102.5kg", "225 lb", "225 lbs", "" (bodyweight: 0).
    public static func parseWeight(_ text: String, defaultUnit: WeightUnit) -> WeightAmount? {
        var body = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: ",", with: ".")
        if body.isEmpty { return WeightAmount(weight: 0, unit: defaultUnit) }
        var unit = defaultUnit
        for (suffix, suffixUnit) in unitSuffixes where body.hasSuffix(suffix) {
            unit = suffixUnit
            body = String(body.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        guard let value = Validation.decimal(body) else { return nil }
        return WeightAmount(weight: value, unit: unit)
    }

    /// The units a typed weight may end with, longest spelling first.
    private static let unitSuffixes: KeyValuePairs<String, WeightUnit> = [
        "lbs": .lb, "lb": .lb, "kgs": .kg, "kg": .kg,
    ]
}

extension SetForm {
    /// Fills the numbers from a set of the exercise's last session (Strong's "previous"
    /// column), its weight in `display` when the lifter chose a unit; `note` says which set
    /// and when. The filled fields are selected: typing replaces them.
    /// - Parameter kind: the kind the new set starts as (normal unless a plan says otherwise: the
    ///   kind of the set the numbers came from is never copied).
    public mutating func prefill(
        from set: WorkoutSet, kind: SetKind = .normal, note: String?, display: WeightUnit? = nil
    ) {
        let shownUnit = display ?? set.unit
        // The number alone (the unit is shown beside it): Backspace edits digits, never "kg".
        weightInput = TextField(
            Formatting.number(Formatting.converted(set.weight, from: set.unit, to: shownUnit)), selected: true)
        unit = shownUnit
        storedWeight = WeightAmount(weight: set.weight, unit: set.unit)
        repsInput = TextField(String(set.reps), selected: true)
        rpeInput = TextField(set.rpe.map(Formatting.number) ?? "", selected: true)
        self.kind = kind
        prefilledFrom = set.exercise
        prefillNote = note
    }

    /// The exercise has no history: no numbers are better than another exercise's.
    public mutating func clearPrefill(exercise: String) {
        weightInput = TextField()
        repsInput = TextField()
        rpeInput = TextField()
        kind = .normal
        prefilledFrom = exercise
        prefillNote = nil
        storedWeight = nil
    }
}

import Foundation
import SpotterCore
import SpotterStore

/// `e` in the routine list: one routine's plan, changed here and saved as a whole with `s`.
/// Nothing reaches the store until then, so Esc can still throw the changes away (it asks).
public struct RoutineEditor: Sendable, Equatable {
    /// One line of the editor: an exercise, or one of its planned sets under it.
    public enum Row: Sendable, Equatable {
        case exercise(Int)
        case set(exercise: Int, set: Int)

        public var exercise: Int {
            switch self {
            case .exercise(let index), .set(let index, _): index
            }
        }
    }

    /// The routine as last saved: what the changes are measured against.
    public var saved: Routine
    /// The routine with the changes made so far.
    public var routine: Routine
    /// The selected row of `rows`.
    public var selected = 0
    /// The form open over the editor, if any.
    public var form: RoutineRowForm?
    /// Esc was pressed with changes not saved: the bottom bar asks what to do with them.
    public var confirmingDiscard = false
    /// Why the last save (or change) was refused, until the next key.
    public var error: String?

    public init(routine: Routine) {
        saved = routine
        self.routine = routine
    }

    /// Changes not saved yet (the editor changes only the exercises and their sets).
    public var isDirty: Bool { routine.exercises != saved.exercises }

    /// Every exercise followed by its planned sets, in the routine's order.
    public var rows: [Row] {
        routine.exercises.enumerated().flatMap { index, exercise in
            [Row.exercise(index)] + exercise.sets.indices.map { Row.set(exercise: index, set: $0) }
        }
    }

    public var currentRow: Row? {
        let rows = rows
        return rows.indices.contains(selected) ? rows[selected] : nil
    }

    /// Selects `row` (when it exists).
    mutating func select(_ row: Row) {
        if let index = rows.firstIndex(of: row) { selected = index }
    }

    /// A refusal of Validation.routine, said the way the lifter sees the routine:
    /// "Squat (Barbell) (exercise 2), set 2: reps: a planned set needs at least 1 rep".
    public static func explain(_ error: ValidationError, in exercises: [RoutineExercise]) -> String {
        Routine.readable(error, in: exercises).description
    }
}

/// The editor's form: one planned set's values, one exercise's settings, or a new exercise
/// with its sets. Its text fields edit as the set form's do (`TextField`, Tab between them).
public struct RoutineRowForm: Sendable, Equatable {
    /// What applying the form changes.
    public enum Target: Sendable, Equatable {
        case set(exercise: Int, set: Int)
        case exercise(Int)
        /// A new exercise, inserted at this index.
        case newExercise(at: Int)
    }

    /// The form's fields; each target shows some of them, in this order.
    public enum Field: Sendable, Hashable, CaseIterable {
        case exercise, sets, kind, weight, reps, rpe, unit, progression, increment, rest, superset

        public var label: String {
            switch self {
            case .exercise: "Exercise"
            case .sets: "Sets"
            case .kind: "Kind"
            case .weight: "Weight"
            case .reps: "Reps"
            case .rpe: "RPE"
            case .unit: "Unit"
            case .progression: "Progression"
            case .increment: "Increment"
            case .rest: "Rest"
            case .superset: "Superset"
            }
        }

        /// Chosen with ←/→ or an initial, not typed.
        public var isChoice: Bool { self == .kind || self == .unit || self == .progression }

        /// The field a wire name in a validation error stands for ("reps_max" is the reps range).
        init?(wireName: String) {
            switch wireName {
            case Routine.Field.exercise: self = .exercise
            case Routine.Field.sets: self = .sets
            case Routine.Field.kind: self = .kind
            case Routine.Field.weight, Routine.Field.percent: self = .weight
            case Routine.Field.reps, Routine.Field.repsMax: self = .reps
            case Routine.Field.rpe: self = .rpe
            case Routine.Field.unit: self = .unit
            case Routine.Field.progression: self = .progression
            case Routine.Field.increment: self = .increment
            case Routine.Field.restSeconds: self = .rest
            case Routine.Field.superset: self = .superset
            default: return nil
            }
        }

        /// The most a field holds, so a paste cannot grow it without bound.
        var maxLength: Int {
            switch self {
            case .exercise: Validation.maxExerciseLength
            case .weight: 16
            case .reps: 9
            case .rpe, .increment: 6
            case .rest: 8
            case .sets, .superset: 3
            case .kind, .unit, .progression: 0
            }
        }

        /// What the field takes, beside it.
        var hint: String {
            switch self {
            case .weight: "100 (its unit), 80% of e1RM; empty: none"
            case .reps: "5, or a range 8-12"
            case .rpe: "optional, 1-10"
            case .rest: "seconds or 2:00; empty: routine's"
            case .superset: "group 1-99; empty: none"
            case .sets: "1-\(Routine.maxSetsPerExercise)"
            case .increment: "added by linear/double"
            case .kind: "n/w/f/d or ←→"
            case .unit: "k/l or ←→ (numbers stay)"
            case .progression: "f/l/d or ←→"
            case .exercise: ""
            }
        }
    }

    public var target: Target
    public var fields: [Field]
    public var focus: Field
    public var inputs: [Field: TextField] = [:]
    public var kind: SetKind = .normal
    public var unit: WeightUnit = .kg
    public var progression: ProgressionRule = .fixed
    /// Type-ahead matches for the exercise field, as the set form's.
    public var suggestions: [String] = []
    public var highlighted = 0
    public var browsedSuggestions = false
    public var error: String?

    public init(target: Target) {
        self.target = target
        switch target {
        case .set: fields = [.kind, .weight, .reps, .rpe]
        case .exercise: fields = [.exercise, .unit, .progression, .increment, .rest, .superset]
        case .newExercise:
            fields = [.exercise, .sets, .weight, .reps, .rpe, .unit, .progression, .increment, .rest, .superset]
        }
        focus = fields[0]
    }

    /// The text field of `field` (a choice field has an empty one).
    public subscript(input field: Field) -> TextField {
        get { inputs[field] ?? TextField() }
        set { inputs[field] = newValue }
    }

    /// What a field shows: its text, or the choice made.
    public func value(_ field: Field) -> String {
        switch field {
        case .kind: kind.rawValue
        case .unit: unit.rawValue
        case .progression: progression.rawValue
        default: self[input: field].text
        }
    }

    public var title: String {
        switch target {
        case .set(_, let set): "Planned set \(set + 1)"
        case .exercise: "Exercise"
        case .newExercise: "Add exercise"
        }
    }

    /// A field filled from what is there, selected so typing replaces it.
    mutating func fill(_ field: Field, _ text: String) {
        inputs[field] = TextField(text, selected: true)
    }
}

/// The routine name dialog of `n` (a new routine) and `r` (a rename).
public struct RoutineNameInput: Sendable, Equatable {
    public enum Purpose: Sendable, Equatable {
        case create
        case rename(id: UUID, from: String)
    }

    public var purpose: Purpose
    public var field: TextField
    public var error: String?

    public init(purpose: Purpose, field: TextField = TextField(), error: String? = nil) {
        self.purpose = purpose
        self.field = field
        self.error = error
    }

    public var title: String {
        switch purpose {
        case .create: "New routine"
        case .rename(_, let from): "Rename \(from)"
        }
    }
}

// MARK: The routine list's keys

extension AppState {
    /// Back to the routine list, re-read, `id` selected.
    mutating func returnToRoutineList(selecting id: UUID?) -> [AppEffect] {
        var picker = RoutinePicker()
        picker.pendingSelection = id
        overlay = .routinePicker(picker)
        return [.loadRoutines]
    }

    /// e, n, r, d in the routine list.
    mutating func reduceRoutineListEdit(_ picker: RoutinePicker, _ action: KeyAction?) -> [AppEffect] {
        let chosen = picker.routines.indices.contains(picker.selected) ? picker.routines[picker.selected].routine : nil
        if action == .newRoutine {
            overlay = .routineName(RoutineNameInput(purpose: .create))
            return []
        }
        guard let chosen else {
            say("No routine yet: press \(KeyMap.name(of: .newRoutine, in: .routinePicker)) to make one", isError: true)
            return []
        }
        switch action {
        case .editRoutine:
            overlay = .routineEditor(RoutineEditor(routine: chosen))
        case .renameRoutine:
            overlay = .routineName(
                RoutineNameInput(purpose: .rename(id: chosen.id, from: chosen.name), field: TextField(chosen.name)))
        case .deleteRoutine:
            overlay = .confirmDelete(.routine(id: chosen.id, name: chosen.name))
        default:
            break
        }
        return []
    }

    mutating func reduceRoutineName(_ input: RoutineNameInput, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var input = input
        input.error = nil
        switch action {
        case .cancel:
            if case .rename(let id, _) = input.purpose { return returnToRoutineList(selecting: id) }
            return returnToRoutineList(selecting: nil)
        case .submit:
            let name = input.field.text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                input.error = "A routine needs a name"
                overlay = .routineName(input)
                return []
            }
            // Closed on the first Enter, so a second cannot make two; a refusal reopens it.
            overlay = .none
            switch input.purpose {
            case .create: return [.createRoutine(name: name)]
            case .rename(let id, _): return [.renameRoutine(id: id, name: name)]
            }
        case .edit(let edit):
            input.field.apply(edit)
        default:
            guard case .character(let character) = key else { break }
            if !input.field.insert(character, limit: Validation.maxNameLength) {
                input.error = "A routine name holds at most \(Validation.maxNameLength) characters"
            }
        }
        overlay = .routineName(input)
        return []
    }
}

// MARK: The editor's keys

extension AppState {
    mutating func reduceRoutineEditor(_ editor: RoutineEditor, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var editor = editor
        editor.error = nil
        var effects: [AppEffect] = []
        if editor.confirmingDiscard {
            effects = reduceDiscardPrompt(&editor, action)
        } else if var form = editor.form {
            effects = reduceRoutineForm(&editor, &form, key, action)
        } else {
            effects = reduceEditorRows(&editor, action)
        }
        if case .routineEditor = overlay { overlay = .routineEditor(editor) }
        return effects
    }

    private mutating func reduceDiscardPrompt(_ editor: inout RoutineEditor, _ action: KeyAction?) -> [AppEffect] {
        switch action {
        case .discardChanges:
            say("Changes to \(editor.routine.name) discarded")
            return returnToRoutineList(selecting: editor.routine.id)
        case .saveRoutine:
            editor.confirmingDiscard = false
            return save(&editor, close: true)
        case .keepEditing:
            editor.confirmingDiscard = false
        default:
            break
        }
        return []
    }

    private mutating func reduceEditorRows(_ editor: inout RoutineEditor, _ action: KeyAction?) -> [AppEffect] {
        let rowCount = editor.rows.count
        switch action {
        case .moveDown:
            editor.selected = min(editor.selected + 1, max(0, rowCount - 1))
        case .moveUp:
            editor.selected = max(0, editor.selected - 1)
        case .cancel:
            if editor.isDirty {
                editor.confirmingDiscard = true
                return []
            }
            return returnToRoutineList(selecting: editor.routine.id)
        case .saveRoutine:
            return save(&editor, close: false)
        case .editRoutineRow:
            guard let row = editor.currentRow else {
                say("No exercises yet: press \(KeyMap.name(of: .addExercise, in: .routineEditor)) to add one")
                return []
            }
            editor.form = Self.form(for: row, in: editor.routine)
        case .addExercise:
            guard editor.routine.exercises.count < Routine.maxExercises else {
                say("A routine holds at most \(Routine.maxExercises) exercises", isError: true)
                return []
            }
            let at = editor.currentRow.map { $0.exercise + 1 } ?? editor.routine.exercises.count
            var form = RoutineRowForm(target: .newExercise(at: at))
            form.fill(.sets, "3")
            form.fill(.reps, "5")
            form.fill(.increment, "2.5")
            form.unit = displayUnit ?? editor.routine.exercises.last?.unit ?? .kg
            editor.form = form
            return [.loadSuggestions(query: "")]
        case .addPlannedSet:
            addPlannedSet(&editor)
        case .removeRoutineRow:
            removeRow(&editor)
        case .moveExerciseDown:
            moveExercise(&editor, by: 1)
        case .moveExerciseUp:
            moveExercise(&editor, by: -1)
        default:
            break
        }
        return []
    }

    /// `s`: the changes, checked here first (nothing reaches the store when they are wrong),
    /// then saved by the store's one-transaction update (which checks them again).
    private mutating func save(_ editor: inout RoutineEditor, close: Bool) -> [AppEffect] {
        guard editor.isDirty else {
            if close { return returnToRoutineList(selecting: editor.routine.id) }
            say("No changes to save")
            return []
        }
        do {
            try Validation.routineExercises(editor.routine.exercises)
        } catch {
            let reason = RoutineEditor.explain(error, in: editor.routine.exercises)
            editor.error = reason
            say("Not saved: \(reason)", isError: true, seconds: 8)
            return []
        }
        return [.saveRoutineEdits(id: editor.routine.id, exercises: editor.routine.exercises, close: close)]
    }

    /// `+`: a copy of the selected set (or of the exercise's last one) after it.
    private mutating func addPlannedSet(_ editor: inout RoutineEditor) {
        guard let row = editor.currentRow else {
            say("Add an exercise first: press \(KeyMap.name(of: .addExercise, in: .routineEditor))", isError: true)
            return
        }
        let index = row.exercise
        var exercise = editor.routine.exercises[index]
        guard exercise.sets.count < Routine.maxSetsPerExercise else {
            say("An exercise holds at most \(Routine.maxSetsPerExercise) planned sets", isError: true)
            return
        }
        let after: Int
        if case .set(_, let set) = row { after = set } else { after = exercise.sets.count - 1 }
        let copy = exercise.sets.indices.contains(after) ? exercise.sets[after] : PlannedSet(reps: 5)
        exercise.sets.insert(copy, at: after + 1)
        editor.routine.exercises[index] = exercise
        editor.select(.set(exercise: index, set: after + 1))
    }

    /// `d`: the selected set, or the selected exercise with all its sets.
    private mutating func removeRow(_ editor: inout RoutineEditor) {
        switch editor.currentRow {
        case nil:
            say("Nothing to remove", isError: true)
            return
        case .exercise(let index):
            let name = editor.routine.exercises[index].exercise
            editor.routine.exercises.remove(at: index)
            say("Removed \(name) (s saves, Esc can still discard)")
        case .set(let index, let set):
            guard editor.routine.exercises[index].sets.count > 1 else {
                say("An exercise keeps at least one set: d on the exercise removes it", isError: true)
                return
            }
            editor.routine.exercises[index].sets.remove(at: set)
            // The selection stays on this exercise's sets: the next one, or the new last one.
            editor.select(.set(exercise: index, set: min(set, editor.routine.exercises[index].sets.count - 1)))
            return
        }
        editor.selected = min(editor.selected, max(0, editor.rows.count - 1))
    }

    /// `J` / `K`: the selected exercise (with its sets) one place down or up.
    private mutating func moveExercise(_ editor: inout RoutineEditor, by step: Int) {
        guard let row = editor.currentRow else { return }
        let from = row.exercise
        let to = from + step
        guard editor.routine.exercises.indices.contains(to) else {
            say(step > 0 ? "Already the last exercise" : "Already the first exercise")
            return
        }
        editor.routine.exercises.swapAt(from, to)
        switch row {
        case .exercise: editor.select(.exercise(to))
        case .set(_, let set): editor.select(.set(exercise: to, set: set))
        }
    }

    /// The form for a row, filled with what it holds.
    static func form(for row: RoutineEditor.Row, in routine: Routine) -> RoutineRowForm {
        switch row {
        case .set(let index, let set):
            let exercise = routine.exercises[index]
            let planned = exercise.sets[set]
            var form = RoutineRowForm(target: .set(exercise: index, set: set))
            form.kind = planned.kind
            form.unit = exercise.unit
            form.fill(.weight, weightText(planned))
            form.fill(.reps, planned.repsText)
            form.fill(.rpe, planned.rpe.map(Formatting.number) ?? "")
            form.focus = .reps
            return form
        case .exercise(let index):
            let exercise = routine.exercises[index]
            var form = RoutineRowForm(target: .exercise(index))
            form.fill(.exercise, exercise.exercise)
            form.unit = exercise.unit
            form.progression = exercise.progression
            form.fill(.increment, Formatting.number(exercise.increment))
            form.fill(.rest, exercise.restSeconds.map(String.init) ?? "")
            form.fill(.superset, exercise.superset.map(String.init) ?? "")
            // On the name (selected: typing replaces it), never on a choice field where typed
            // letters would pick a choice ("f" turning linear into fixed).
            form.focus = .exercise
            return form
        }
    }

    /// "100", "80%", or "" (no weight: bodyweight).
    static func weightText(_ set: PlannedSet) -> String {
        if let weight = set.weight { return Formatting.number(weight) }
        if let percent = set.percentOfOneRepMax { return Formatting.number(percent) + "%" }
        return ""
    }

    // MARK: The form

    private mutating func reduceRoutineForm(
        _ editor: inout RoutineEditor, _ form: inout RoutineRowForm, _ key: Key, _ action: KeyAction?
    ) -> [AppEffect] {
        form.error = nil
        var effects: [AppEffect] = []
        switch action {
        case .cancel:
            editor.form = nil
            return []
        case .submit:
            if form.focus == .exercise { takeSuggestion(&form) }
            switch Self.applied(form, to: editor.routine) {
            case .failure(let problem):
                form.error = problem.message
                if let field = problem.field, form.fields.contains(field) { form.focus = field }
            case .success(let (exercises, row)):
                editor.routine.exercises = exercises
                editor.form = nil
                editor.select(row)
                return []
            }
        case .nextField, .previousField:
            if form.focus == .exercise { takeSuggestion(&form) }
            let index = form.fields.firstIndex(of: form.focus) ?? 0
            let count = form.fields.count
            form.focus = form.fields[(index + (action == .nextField ? 1 : count - 1)) % count]
            // Tabbing into a filled field selects it: typing replaces, as in the set form.
            if !form[input: form.focus].isEmpty { form[input: form.focus].isSelected = true }
        case .nextSuggestion:
            form.highlighted = TypeAhead.next(
                form.highlighted, typed: form[input: .exercise].text, suggestions: form.suggestions)
            form.browsedSuggestions = true
        case .previousSuggestion:
            form.highlighted = TypeAhead.previous(
                form.highlighted, typed: form[input: .exercise].text, suggestions: form.suggestions)
            form.browsedSuggestions = true
        case .previousKind, .nextKind:
            cycleChoice(&form, by: action == .nextKind ? 1 : -1)
        case .edit(let edit):
            if form[input: form.focus].apply(edit), form.focus == .exercise {
                effects = typedExercise(&form)
            }
        default:
            guard case .character(let character) = key else { break }
            if form.focus.isChoice {
                pickChoice(&form, initial: Character(character.lowercased()))
            } else if !form[input: form.focus].insert(character, limit: form.focus.maxLength) {
                form.error = "\(form.focus.label) holds at most \(form.focus.maxLength) characters"
            } else if form.focus == .exercise {
                effects = typedExercise(&form)
            }
        }
        editor.form = form
        return effects
    }

    private func typedExercise(_ form: inout RoutineRowForm) -> [AppEffect] {
        form.highlighted = 0
        form.browsedSuggestions = false
        return [.loadSuggestions(query: form[input: .exercise].text)]
    }

    /// Leaving the exercise field takes the highlighted row (as the set form does), so "bench"
    /// and Enter is "Bench Press (Barbell)" when that is highlighted.
    private func takeSuggestion(_ form: inout RoutineRowForm) {
        if let choice = TypeAhead.choice(
            typed: form[input: .exercise].text, suggestions: form.suggestions, highlighted: form.highlighted)
        {
            form[input: .exercise].set(choice.name)
        }
        form.browsedSuggestions = false
    }

    private func cycleChoice(_ form: inout RoutineRowForm, by step: Int) {
        func next<T: CaseIterable & Equatable>(_ value: T) -> T {
            let all = Array(T.allCases)
            let index = all.firstIndex(of: value) ?? 0
            return all[(index + step + all.count) % all.count]
        }
        switch form.focus {
        case .kind: form.kind = next(form.kind)
        case .unit: form.unit = next(form.unit)
        case .progression: form.progression = next(form.progression)
        default: break
        }
    }

    private func pickChoice(_ form: inout RoutineRowForm, initial: Character) {
        switch form.focus {
        case .kind:
            if let kind = SetKind.allCases.first(where: { $0.rawValue.first == initial }) { form.kind = kind }
        case .unit:
            if let unit = WeightUnit.allCases.first(where: { $0.rawValue.first == initial }) { form.unit = unit }
        case .progression:
            if let rule = ProgressionRule.allCases.first(where: { $0.rawValue.first == initial }) {
                form.progression = rule
            }
        default:
            break
        }
    }

    /// A form problem: the message, and the field it concerns when one does.
    struct RoutineFormProblem: Error {
        var field: RoutineRowForm.Field?
        var message: String
    }

    /// The routine's exercises with the form applied, and the row to select; or what is wrong,
    /// by the same rules the store will check (Validation.routineExercises).
    static func applied(
        _ form: RoutineRowForm, to routine: Routine
    ) -> Result<([RoutineExercise], RoutineEditor.Row), RoutineFormProblem> {
        var exercises = routine.exercises
        let row: RoutineEditor.Row
        let checked: Int
        do {
            switch form.target {
            case .set(let index, let set):
                guard exercises.indices.contains(index), exercises[index].sets.indices.contains(set) else {
                    throw RoutineFormProblem(message: "This set is gone")
                }
                exercises[index].sets[set] = try plannedSet(form, unit: exercises[index].unit)
                row = .set(exercise: index, set: set)
                checked = index
            case .exercise(let index):
                guard exercises.indices.contains(index) else {
                    throw RoutineFormProblem(message: "This exercise is gone")
                }
                try applySettings(form, to: &exercises[index])
                row = .exercise(index)
                checked = index
            case .newExercise(let at):
                let count = try wholeNumber(form, .sets, in: 1...Routine.maxSetsPerExercise)
                var exercise = RoutineExercise(exercise: "", unit: form.unit, sets: [])
                try applySettings(form, to: &exercise)
                exercise.sets = Array(repeating: try plannedSet(form, unit: form.unit), count: count ?? 1)
                let index = min(max(0, at), exercises.count)
                exercises.insert(exercise, at: index)
                row = .exercise(index)
                checked = index
            }
            try Validation.routineExercises([exercises[checked]])
        } catch let problem as RoutineFormProblem {
            return .failure(problem)
        } catch let error as ValidationError {
            // Checked alone, the exercise's path is exercises[0]: named by the form's own fields.
            let field = error.field.split(separator: ".").last.map { name in
                String(name.prefix { $0 != "[" })
            }
            let formField = field.flatMap { RoutineRowForm.Field(wireName: $0) }
            return .failure(
                RoutineFormProblem(
                    field: formField,
                    message: ValidationError.sentence(formField?.label ?? error.field, error.message)))
        } catch {
            return .failure(RoutineFormProblem(message: "\(error)"))
        }
        return .success((exercises, row))
    }

    private static func applySettings(_ form: RoutineRowForm, to exercise: inout RoutineExercise) throws {
        let name = form[input: .exercise].text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw RoutineFormProblem(field: .exercise, message: "Exercise is required") }
        exercise.exercise = name
        exercise.unit = form.unit
        exercise.progression = form.progression
        guard let increment = number(form[input: .increment].text) else {
            throw RoutineFormProblem(field: .increment, message: "Increment must be a number, like 2.5")
        }
        exercise.increment = increment
        exercise.restSeconds = try restSeconds(form[input: .rest].text)
        exercise.superset = try wholeNumber(form, .superset, in: 1...99)
    }

    private static func plannedSet(_ form: RoutineRowForm, unit: WeightUnit) throws -> PlannedSet {
        var set = PlannedSet(kind: form.kind, reps: 0)
        let weight = form[input: .weight].text.trimmingCharacters(in: .whitespaces)
        if weight.hasSuffix("%") {
            guard let percent = number(String(weight.dropLast())) else {
                throw RoutineFormProblem(field: .weight, message: "A percentage of e1RM is a number, like 80%")
            }
            set.percentOfOneRepMax = percent
        } else if !weight.isEmpty {
            guard let typed = parseWeight(weight, defaultUnit: unit) else {
                throw RoutineFormProblem(
                    field: .weight,
                    message: "Weight must be a number in the exercise's unit (100), a percentage (80%) or empty")
            }
            guard typed.unit == unit else {
                // Converted, 225 lb is 102.06 kg: a weight no kg plates load, stored unseen.
                throw RoutineFormProblem(
                    field: .weight,
                    message: "This exercise is planned in \(unit.rawValue): type the weight in \(unit.rawValue)"
                        + " (or change its unit first)")
            }
            set.weight = Validation.keptWeight(typed.weight)
        }
        guard let reps = PlannedSet.reps(form[input: .reps].text) else {
            throw RoutineFormProblem(field: .reps, message: "Reps must be a whole number, or a range such as 8-12")
        }
        if let top = reps.repsMax, top < reps.reps {
            throw RoutineFormProblem(
                field: .reps, message: "A rep range goes low to high, like \(top)-\(reps.reps)")
        }
        set.reps = reps.reps
        set.repsMax = reps.repsMax
        let rpe = form[input: .rpe].text.trimmingCharacters(in: .whitespaces)
        if !rpe.isEmpty {
            guard let value = number(rpe) else {
                throw RoutineFormProblem(field: .rpe, message: "RPE must be a number from 1 to 10, or empty")
            }
            set.rpe = value
        }
        return set
    }

    private static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        return Validation.decimal(trimmed)
    }

    /// An optional whole number field (empty: nil) within `range`.
    private static func wholeNumber(
        _ form: RoutineRowForm, _ field: RoutineRowForm.Field, in range: ClosedRange<Int>
    ) throws -> Int? {
        let text = form[input: field].text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            if field == .sets { throw RoutineFormProblem(field: field, message: "Sets is required") }
            return nil
        }
        guard let value = Int(text), range.contains(value) else {
            throw RoutineFormProblem(
                field: field,
                message: "\(field.label) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// "90", "90s", "2:00"; empty: nil (the routine's rest).
    private static func restSeconds(_ text: String) throws -> Int? {
        var body = text.trimmingCharacters(in: .whitespaces).lowercased()
        if body.isEmpty { return nil }
        if body.hasSuffix("s") { body = String(body.dropLast()).trimmingCharacters(in: .whitespaces) }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        let seconds: Int?
        switch parts.count {
        case 1: seconds = parts[0]
        case 2:
            // "1:99" is a typo, not 2:39: the seconds of minutes:seconds are 0 to 59.
            guard let secondsPart = parts[1], (0...59).contains(secondsPart) else {
                throw RoutineFormProblem(
                    field: .rest, message: "Rest's seconds after ':' are 00 to 59, like 2:30")
            }
            seconds = parts[0].map { $0 * 60 + secondsPart }
        default: seconds = nil
        }
        guard let seconds, (0...Routine.maxRestSeconds).contains(seconds) else {
            throw RoutineFormProblem(
                field: .rest, message: "Rest must be seconds (90) or minutes:seconds (2:00), at most 60 minutes")
        }
        return seconds
    }
}

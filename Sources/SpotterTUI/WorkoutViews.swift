import Foundation
import SpotterCore
import SpotterStore

/// `e` on the workouts pane: the selected workout's name and notes, edited and synced like any
/// other edit.
public struct WorkoutEditForm: Sendable, Equatable {
    public enum Field: Sendable, Equatable { case name, notes }

    public var workoutID: UUID
    public var name: TextField
    public var notes: TextField
    public var focus: Field = .name
    public var error: String?
    /// `o`: the form holds one exercise's note (in `notes`), not the workout's name and notes.
    public var exercise: String?

    public init(workoutID: UUID, name: String, notes: String?) {
        self.workoutID = workoutID
        self.name = TextField(name, selected: true)
        self.notes = TextField(notes ?? "")
    }

    /// The note on `exercise` in the workout, to edit.
    public init(workoutID: UUID, workoutName: String, exercise: String, note: String?) {
        self.init(workoutID: workoutID, name: workoutName, notes: note)
        self.exercise = exercise
        self.notes = TextField(note ?? "", selected: true)
        focus = .notes
    }
}

/// What a finished workout came to, shown once it is finished (`F`).
public struct WorkoutSummaryView: Sendable, Equatable {
    public var name: String
    public var lines: [String]

    public init(name: String, lines: [String]) {
        self.name = name
        self.lines = lines
    }
}

extension AppState {
    mutating func openWorkoutEdit() -> [AppEffect] {
        guard let workout = currentWorkout else {
            say("Select a workout to rename or annotate", isError: true)
            return []
        }
        overlay = .workoutEdit(
            WorkoutEditForm(
                workoutID: workout.id, name: workout.summary.workout.name, notes: workout.summary.workout.notes))
        return []
    }

    /// `o`: the note on the selected set's exercise in its workout.
    mutating func openExerciseNote() -> [AppEffect] {
        guard focus == .sets, let row = currentSet, let workout = currentWorkout else {
            say("Select a set to note its exercise", isError: true)
            return []
        }
        let exercise = row.set.exercise
        overlay = .workoutEdit(
            WorkoutEditForm(
                workoutID: workout.id, workoutName: workout.summary.workout.name, exercise: exercise,
                note: workout.summary.workout.exerciseNotes?[exercise]))
        return []
    }

    /// `F`: the selected workout ends now (one in progress, or any not ended yet).
    mutating func finishWorkout() -> [AppEffect] {
        guard let workout = currentWorkout else {
            say("Select a workout to finish", isError: true)
            return []
        }
        guard workout.summary.workout.endedAt == nil else {
            say("\(workout.summary.workout.name) is finished already", isError: true)
            return []
        }
        return [.finishWorkout(id: workout.id)]
    }

    mutating func reduceWorkoutEdit(_ form: WorkoutEditForm, _ key: Key, _ action: KeyAction?) -> [AppEffect] {
        var form = form
        form.error = nil
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .submit where form.exercise != nil:
            // A note the store would refuse keeps the form open with the reason, the text as typed.
            if let scalar = Validation.controlCharacter(in: form.notes.text, singleLine: false) {
                form.error = "Note " + Validation.controlCharacterMessage(scalar)
                overlay = .workoutEdit(form)
                return []
            }
            overlay = .none
            return [.noteExercise(workoutID: form.workoutID, exercise: form.exercise ?? "", note: form.notes.text)]
        case .nextField where form.exercise != nil, .previousField where form.exercise != nil:
            break
        case .submit:
            let name = form.name.text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                form.error = "A workout needs a name"
                overlay = .workoutEdit(form)
                return []
            }
            // What the store would refuse is said here, and the form stays open with the text as
            // typed (a refused save used to close it and lose the text).
            do throws(ValidationError) {
                try Validation.workoutName(name)
                try Validation.notes(form.notes.text)
            } catch {
                form.error = ValidationError.sentence(error.field == "name" ? "Name" : "Notes", error.message)
                form.focus = error.field == "name" ? .name : .notes
                overlay = .workoutEdit(form)
                return []
            }
            overlay = .none
            let notes = form.notes.text
            return [.editWorkout(id: form.workoutID, name: name, notes: notes)]
        case .nextField, .previousField:
            form.focus = form.focus == .name ? .notes : .name
        case .edit(let edit):
            if form.focus == .name { form.name.apply(edit) } else { form.notes.apply(edit) }
        default:
            guard case .character(let character) = key else { break }
            let inserted =
                form.focus == .name
                ? form.name.insert(character, limit: Validation.maxNameLength)
                : form.notes.insert(
                    character, limit: form.exercise == nil ? Validation.maxNotesLength : ExerciseNotes.maxLength)
            if !inserted { form.error = "That field holds no more" }
        }
        overlay = .workoutEdit(form)
        return []
    }
}

extension AppController {
    func performWorkout(_ effect: AppEffect) throws {
        switch effect {
        case .editWorkout(let id, let name, let notes):
            try store.workoutLog.editWorkout(
                id: id, changes: WorkoutChanges(name: name, notes: notes.isEmpty ? "" : notes))
            state.say("Saved \(name)")
            afterLocalWrite(selectWorkout: id)
        case .noteExercise(let id, let exercise, let note):
            try store.workoutLog.editWorkout(id: id, changes: WorkoutChanges(exerciseNote: (exercise, note)))
            state.say(note.isEmpty ? "Removed the note on \(exercise)" : "Noted \(exercise)")
            afterLocalWrite(selectWorkout: id)
        case .finishWorkout(let id):
            // A workout left open for hours (yesterday's, never finished) ends at its last set,
            // not now: its duration is the session's, not days.
            let now = clock.now()
            let started = state.workouts.first { $0.id == id }?.summary.workout.startedAt ?? now
            let lastSet = try store.queries.sets(workoutID: id).map(\.set.performedAt).max()
            let lastActivity = max(started, lastSet ?? started)
            let endsAtLastSet = now.timeIntervalSince(lastActivity) > Self.staleWorkoutAge
            try store.workoutLog.editWorkout(
                id: id, changes: WorkoutChanges(endedAt: endsAtLastSet ? lastActivity : now))
            afterLocalWrite(selectWorkout: id)
            state.restEndsAt = nil
            var view = try summary(of: id)
            if endsAtLastSet {
                view.lines.insert(
                    "Ended at its \(lastSet == nil ? "start" : "last set"), \(finishTime(lastActivity)) (left open)",
                    at: 0)
            }
            state.overlay = .workoutSummary(view)
        default:
            break
        }
    }

    /// How long after its last set a workout still ends "now" when finished; past it, it ends at
    /// its last set.
    static let staleWorkoutAge: TimeInterval = 3 * 3600

    /// "Mon 21 Sep 14:05".
    private func finishTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.setLocalizedDateFormatFromTemplate("EEE d MMM HH:mm")
        return formatter.string(from: date)
    }

    /// "1 h 05 min · 18 sets (3 warm-up) · 7 850 kg · 2 records": what a finished workout came to.
    private func summary(of id: UUID) throws -> WorkoutSummaryView {
        let rows = try store.queries.sets(workoutID: id)
        let workout = state.workouts.first { $0.id == id }?.summary.workout
        let unit = state.displayUnit ?? rows.first?.set.unit ?? .kg
        let work = rows.filter { $0.set.kind != .warmup }
        let volume = work.reduce(0.0) {
            $0 + Formatting.converted($1.set.weight, from: $1.set.unit, to: unit) * Double($1.set.reps)
        }
        var lines: [String] = []
        if let workout, let ended = workout.endedAt {
            let minutes = max(0, Int(ended.timeIntervalSince(workout.startedAt) / 60))
            lines.append("Duration  " + (minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"))
        }
        let warmups = rows.count - work.count
        lines.append("Sets      \(rows.count)" + (warmups > 0 ? " (\(warmups) warm-up)" : ""))
        lines.append("Volume    \(Formatting.number(volume.rounded())) \(unit.rawValue)")
        let exercises = Set(rows.map(\.set.exercise))
        lines.append("Exercises \(exercises.count)")
        let records = rows.filter { $0.record != nil }
        lines.append(
            "Records   \(records.count)"
                + (records.isEmpty
                    ? ""
                    : ": "
                        + records.map { "\($0.set.exercise) \(Formatting.number($0.set.weight))×\($0.set.reps)" }
                        .joined(separator: ", ")))
        return WorkoutSummaryView(name: workout?.name ?? "Workout", lines: lines)
    }
}

extension Renderer {
    static func drawWorkoutEdit(_ form: WorkoutEditForm, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(72, state.columns - 4)
        let height = 7
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        if let exercise = form.exercise {
            drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: "Note", focused: true)
            let about = "\(exercise) \(g.middleDot) \(form.name.text)"
            buffer.put(about.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1, style: .bold)
            putEditing(
                form.notes, &buffer, x: x + 2, y: y + 2, style: CellStyle(underline: true),
                cursorStyle: CellStyle(reverse: true, underline: true), maxWidth: width - 4, ellipsis: g.ellipsis)
            if let error = form.error {
                buffer.put(
                    error.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 4,
                    style: .colored(.red, bold: true))
            }
            buffer.put(
                "Enter save  Esc cancel  (empty removes it)".clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2,
                y: y + 5, style: .dim)
            return
        }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: "Workout", focused: true)
        for (index, field) in [WorkoutEditForm.Field.name, .notes].enumerated() {
            let label = field == .name ? "Name  " : "Notes "
            let used = buffer.put(label, x: x + 2, y: y + 1 + index, style: .bold)
            let text = field == .name ? form.name : form.notes
            if form.focus == field {
                putEditing(
                    text, &buffer, x: x + 2 + used, y: y + 1 + index, style: CellStyle(underline: true),
                    cursorStyle: CellStyle(reverse: true, underline: true), maxWidth: width - 4 - used,
                    ellipsis: g.ellipsis)
            } else {
                buffer.put(
                    text.text.clipped(to: width - 4 - used, ellipsis: g.ellipsis), x: x + 2 + used, y: y + 1 + index)
            }
        }
        if let error = form.error {
            buffer.put(
                error.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 4,
                style: .colored(.red, bold: true))
        }
        buffer.put(
            KeyMap.hints(.workoutEdit).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 5, style: .dim)
    }

    static func drawWorkoutSummary(_ view: WorkoutSummaryView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(60, state.columns / 2), state.columns - 4)
        let height = view.lines.count + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(
            &buffer, g, x: x, y: y, width: width, height: height, title: "Finished \(g.middleDot) \(view.name)",
            focused: true)
        for (index, line) in view.lines.enumerated() {
            buffer.put(line.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1 + index)
        }
        buffer.put(
            KeyMap.hints(.workoutSummary).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2,
            y: y + height - 2, style: .dim)
    }
}

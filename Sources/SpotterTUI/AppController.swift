import Foundation
import Logging
import SpotterCore
import SpotterStore
import SpotterSync

/// Owns the app state on the UI thread: feeds it keys (through the reducer), engine events
/// and clock ticks, and runs the effects the reducer asks for against the store and the
/// engine. It never waits on the network: store calls are local SQLite, engine calls return at once.
public final class AppController {
    public internal(set) var state: AppState
    public let store: SpotterStore
    public let sync: (any SyncControlling)?
    let clock: any SpotterClock
    let logger: Logger
    /// How many workouts the list loads at a time (the newest first); scrolling near the end
    /// of the list loads the next page, so every workout is reachable.
    public static let workoutLimit = 200
    private var loadedWorkouts = AppController.workoutLimit
    /// Whether this run has said once that a bodyweight lift waits for a weigh-in.
    private var saidBodyWeightMissing = false
    /// The store's change token when the screen was last re-read: the database as the screen
    /// shows it. Another process's commit (a CLI command, a second UI, `spotter sync`) moves the
    /// token, and `followDatabase()` re-reads.
    private var shownChangeToken: Int?
    /// The undo journal's newest entry when this UI opened: `U` takes back this session's own
    /// actions only, never one made before it (a week ago, or from a script).
    private let undoMark: Int64
    private let calendar = Calendar.current
    private let weekdayFormatter: DateFormatter
    private let dayMonthFormatter: DateFormatter
    private let dayMonthYearFormatter: DateFormatter
    private let longFormatter: DateFormatter
    private let longYearFormatter: DateFormatter

    public init(
        store: SpotterStore, sync: (any SyncControlling)?, clock: any SpotterClock = SystemClock(), columns: Int,
        rows: Int,
        glyphs: Glyphs = .unicode, restSeconds: Int = 90,
        logger: Logger = Logger(label: "spotter.tui", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.sync = sync
        self.clock = clock
        self.logger = logger
        undoMark = (try? store.workoutLog.undoMark()) ?? Int64.max
        state = AppState(
            columns: columns, rows: rows, glyphs: glyphs, syncAvailable: sync != nil,
            restSeconds: restSeconds, now: clock.now())
        func formatter(_ template: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_GB")
            formatter.setLocalizedDateFormatFromTemplate(template)
            return formatter
        }
        weekdayFormatter = formatter("EEE")
        dayMonthFormatter = formatter("d MMM")
        dayMonthYearFormatter = formatter("d MMM yyyy")
        longFormatter = formatter("EEE d MMM")
        longYearFormatter = formatter("EEE d MMM yyyy")
        // Shown as the engine treats it: a switch that cannot be read is on.
        state.airplane = store.preferences.airplaneIsOn()
        state.restBell = (try? store.preferences.restBell) ?? true
        state.displayUnit = try? store.preferences.displayUnit
        reloadAll()
    }

    // MARK: Inputs

    /// One key press: reduce, then run what it asked for.
    public func handle(_ key: Key) {
        state.tick(now: clock.now())
        let effects = state.reduce(key)
        for effect in effects { run(effect) }
    }

    /// A key that arrived inside a bracketed paste: text for the field being typed into, and
    /// nothing where no text is typed. Pasted on the panes, "Legs" would otherwise pair a
    /// superset (L) and open an edit (e), and "dy" would delete a set; a paste that lands just
    /// after a form closed (its save refused) is dropped the same way.
    public func handlePaste(_ key: Key) {
        guard state.keyContexts.contains(.textField) else { return }
        handle(key)
    }

    /// A control character in a paste (U+0001, ESC, DEL, a Ctrl-C byte) is not typed into the
    /// field: the rest of the paste is, and the message says what was left out.
    public func leftOutOfPaste(_ value: UInt32) {
        guard state.keyContexts.contains(.textField) else { return }
        state.say(
            "Left out of the paste: its control characters (U+\(String(format: "%04X", value)) among them); the rest was typed",
            isError: true, seconds: 6)
    }

    /// Events the engine posted since the last drain, applied in one go (one re-read at most).
    public func handle(_ events: [SyncEvent]) {
        guard !events.isEmpty else { return }
        var dataChanged = false
        for event in events {
            switch event {
            case .outboxChanged(let pending, let failed, let gaveUp):
                state.counts.pending = pending
                state.counts.failed = failed
                state.counts.gaveUp = gaveUp
                dataChanged = true
            case .connectivity(let connectivity):
                state.connectivity = connectivity
                state.airplane = connectivity == .airplane
            case .syncing(let active):
                state.syncing = active
            case .opSucceeded, .pulled:
                dataChanged = true
            case .opFailed(_, let reason):
                dataChanged = true
                state.say("Rejected: \(reason)", isError: true, seconds: 6)
            case .notice(let text):
                state.say(text, seconds: 6)
            case .feedProblem(let problem):
                if let problem, state.feedProblem == nil {
                    state.say("Not all received: \(problem)", isError: true, seconds: 8)
                }
                state.feedProblem = problem
            }
        }
        if dataChanged { reloadAll() }
    }

    /// Names the account in the header; says what waits for another account, and how to send it.
    public func showAccount(_ label: String, strandedHint: String?) {
        state.account = label
        state.stranded = (try? store.accounts.strandedQueues()) ?? []
        let waiting = state.stranded.reduce(0) { $0 + $1.operations }
        if waiting > 0, let first = state.stranded.first {
            state.say(
                "\(waiting) operation(s) wait for \(first.owner)\(strandedHint.map { ": \($0)" } ?? "")", seconds: 15)
        }
    }

    /// The database may not be written: the header says so from now on, and a notice says why.
    public func showReadOnly(_ why: String) {
        state.readOnly = why
        state.say("Read-only database: \(why). You can look, not save.", isError: true, seconds: 20)
    }

    /// The terminal changed size.
    public func resize(columns: Int, rows: Int) {
        state.columns = columns
        state.rows = rows
    }

    /// Time passed: spinner, rest timer, message expiry; the debug pane's countdowns re-read.
    public func tick() {
        state.tick(now: clock.now())
        if state.debugVisible { loadOutbox() }
    }

    /// Re-reads the screen when anything committed to the database since it was last read, by
    /// whoever wrote it; returns whether it did. Cheap when nothing did (one pragma), so the
    /// input loop calls it several times a second. Operations another process queued are
    /// handed to the engine at once rather than at its next periodic run.
    @discardableResult
    public func followDatabase() -> Bool {
        guard let token = store.changeToken(), token != shownChangeToken else { return false }
        let pendingBefore = state.counts.pending
        let wasAirplane = state.airplane
        // Switched from the command line too (`spotter airplane on`): the badge says what holds.
        state.airplane = store.preferences.airplaneIsOn()
        if state.airplane {
            state.connectivity = .airplane
        } else if state.connectivity == .airplane {
            state.connectivity = nil
        }
        reloadAll()
        if wasAirplane, !state.airplane {
            sync?.trigger(.airplaneOff)
        } else if state.counts.pending > pendingBefore, !state.airplane {
            sync?.trigger(.enqueue)
        }
        return true
    }

    /// The process came back from a suspend (SIGCONT) or the terminal regained focus.
    public func resumed() {
        run(.resumed)
    }

    public var shouldQuit: Bool { state.shouldQuit }

    // MARK: Effects

    /// An effect that saves what a set form held.
    static func isSave(_ effect: AppEffect) -> Bool {
        switch effect {
        case .logSet, .planWarmups, .editSet, .logPlanned: true
        default: false
        }
    }

    /// An effect that changes a workout itself (its name, notes, end or an exercise's note).
    static func isWorkoutEdit(_ effect: AppEffect) -> Bool {
        switch effect {
        case .editWorkout, .finishWorkout, .noteExercise: true
        default: false
        }
    }

    func run(_ effect: AppEffect) {
        do {
            try perform(effect)
            if Self.isSave(effect) { state.submittedForm = nil }
        } catch let error as StoreError {
            logger.info("action refused: \(error.description)")
            if case .notFound(let what) = error, Self.isSave(effect) || Self.isWorkoutEdit(effect) {
                // Gone while a form was open (another device's delete, pulled meanwhile): said in
                // words, since its ids mean nothing here, and the screen drops it. A set form
                // reopens with it; a workout's rename, notes or finish says it in the status line.
                reloadAll()
                reopenFormIfRefused(
                    effect,
                    error:
                        "\(what.hasPrefix("set ") ? "Set" : "Workout") deleted (here or on another device): not saved")
            } else {
                reopenFormIfRefused(effect, error: error.description)
            }
        } catch {
            logger.error("action failed: \(error)")
            let refusal: String
            if state.readOnly != nil {
                refusal = "Not saved: the database is read-only"
            } else if StoreError.isDiskFull(error) {
                store.reclaimJournalSpace()  // the WAL's room goes back to the disk
                refusal = "Not saved: the disk is full. Free some space and save again"
            } else {
                state.say("Could not save: \(StoreError.oneLine(error))", isError: true, seconds: 6)
                return
            }
            // Whatever the screen already showed of the action (the airplane switch flips before
            // it is saved) is read back as it is on disk, and what was typed stays in its form.
            state.airplane = store.preferences.airplaneIsOn()
            reloadAll()
            reopenFormIfRefused(effect, error: refusal)
        }
    }

    private func perform(_ effect: AppEffect) throws {
        switch effect {
        case .loadSets(let workoutID):
            try loadSets(of: workoutID)
        case .loadMoreWorkouts:
            loadedWorkouts += Self.workoutLimit
            reloadAll()
        case .loadAllWorkouts:
            let before = state.currentWorkout?.id
            loadedWorkouts = max(loadedWorkouts, try store.queries.workoutCount())
            reloadAll()
            if state.currentWorkout?.id != before { state.selectedSet = 0 }
        case .loadAllWorkoutsSelectingOldest:
            loadedWorkouts = max(loadedWorkouts, try store.queries.workoutCount())
            reloadAll()
            state.selectedWorkout = max(0, state.visibleWorkouts.count - 1)
            state.selectedSet = 0
            try perform(.loadSets(workoutID: state.currentWorkout?.id))
        case .loadSuggestions(let query):
            if case .routineEditor(var editor) = state.overlay, var form = editor.form {
                form.suggestions = try store.queries.exercises(matching: query, limit: TypeAhead.rows)
                form.highlighted = Self.highlight(
                    form.highlighted, browsed: form.browsedSuggestions, typed: query, suggestions: form.suggestions)
                editor.form = form
                state.overlay = .routineEditor(editor)
                return
            }
            guard case .setForm(var form) = state.overlay else { return }
            form.suggestions = try store.queries.exercises(matching: query, limit: TypeAhead.rows)
            form.starred = Set(try store.queries.favorites().map { $0.lowercased() })
            form.highlighted = Self.highlight(
                form.highlighted, browsed: form.browsedSuggestions, typed: query, suggestions: form.suggestions)
            state.overlay = .setForm(form)
        case .prefill(let exercise, let workoutID):
            guard case .setForm(var form) = state.overlay else { return }
            // The lift's sets in this workout, read once: the prefill follows them, and a warm-up
            // ramp is offered before its first work set.
            let name = try store.queries.exerciseName(exercise)
            let today = try workoutID.map { try store.queries.sessionSets(exercise: name, workoutID: $0) } ?? []
            try prefill(&form, exercise: exercise, name: name, workoutID: workoutID, today: today)
            try showContext(
                &form, exercise: exercise, offerWarmup: !today.contains { $0.kind == .normal || $0.kind == .failure })
            state.overlay = .setForm(form)
        case .formContext(let exercise):
            guard case .setForm(var form) = state.overlay else { return }
            // A planned set's warm-ups are the plan's rows: no ramp is offered on top of them.
            try showContext(&form, exercise: exercise, offerWarmup: false)
            state.overlay = .setForm(form)
        case .loadHistory(let exercise, let offset):
            guard case .history(var view) = state.overlay else { return }
            view.total = try store.queries.exerciseSessionCount(exercise: exercise)
            view.offset = min(offset, max(0, view.total - 1))
            view.lines = try store.queries.exerciseSessions(
                exercise: exercise, limit: state.historyPageSize, offset: view.offset
            ).map { sessionLine($0, withName: true) }
            state.overlay = .history(view)
        case .logSet(let input):
            let logged = try store.workoutLog.logSet(input)
            // No rest after a warm-up (the work sets follow straight on), nor after a set added
            // to a past workout: nobody is between sets of last October.
            // Nor between the exercises of a superset's round: rest comes after the round.
            let midRound =
                try store.queries.supersetNext(after: logged.set.exercise, workoutID: logged.set.workoutID)
                .map { !$0.endsRound } ?? false
            if input.kind == .warmup || midRound || logged.set.performedAt < clock.now().addingTimeInterval(-60) {
                state.restEndsAt = nil
            } else {
                let seconds = (try? store.preferences.restSeconds(exercise: logged.set.exercise)) ?? state.restSeconds
                state.restEndsAt = seconds > 0 ? clock.now().addingTimeInterval(TimeInterval(seconds)) : nil
                state.restAfterSet = logged.set.id
            }
            afterLocalWrite(selectWorkout: logged.workout.id, selectSet: logged.set.id)
            let described = state.describe(logged.set)
            switch state.sets.first(where: { $0.set.id == logged.set.id })?.record {
            case .oneRepMax: state.say("New PR! \(described) (est. 1RM record)")
            case .reps: state.say("New rep record! \(described)")
            case nil:
                // `n` with the workout in progress ended elsewhere meanwhile: say where the set went.
                state.say(
                    logged.createdWorkout
                        ? "Logged \(described) in a new workout, \(logged.workout.name)" : "Logged \(described)")
            }
            // A bodyweight lift with no weigh-in before it ranks by reps alone: said once a run.
            if !saidBodyWeightMissing, try store.queries.loadType(of: logged.set.exercise).usesBodyWeight,
                try store.queries.bodyWeight(at: logged.set.performedAt) == nil
            {
                saidBodyWeightMissing = true
                // Said once, so it stays long enough to be read (another message replaces it).
                state.say(
                    "Logged \(described). No body weight logged: \(logged.set.exercise) ranks by reps until you log one (B)",
                    seconds: 30)
            }
        case .editSet(let id, let changes):
            try store.workoutLog.editSet(id: id, changes: changes)
            afterLocalWrite(selectSet: id)
            state.say("Saved")
        case .planWarmups(let input):
            let planned = try store.workoutLog.planWarmups(input)
            // A warm-up logged by hand before already stands for the ramp's first row.
            afterLocalWrite(
                selectWorkout: planned.workout.id, selectPlanned: planned.rows.first { $0.status == .planned }?.id)
            state.focus = .sets
            // Warm-ups first; the work set after them is the ramp's last row, or the routine's own.
            let ramp = planned.rows.filter { $0.kind == .warmup }.map { "\(Formatting.number($0.weight))×\($0.reps)" }
            let work = planned.rows.contains { $0.kind != .warmup } ? "the work set" : "the routine's work sets"
            state.say("Warm-ups \(ramp.joined(separator: ", ")), then \(work): Enter logs each")
        case .deleteSet(let id):
            try store.workoutLog.deleteSet(id: id)
            afterLocalWrite()
            state.say("Set deleted")
        case .deleteWorkout(let id):
            try store.workoutLog.deleteWorkout(id: id)
            afterLocalWrite()
            state.say("Workout deleted")
        case .loadPlates:
            var current: [WeightUnit: String] = [:]
            for unit in WeightUnit.allCases {
                current[unit] = try store.preferences.plateSet(unit: unit).text
            }
            state.overlay = .plates(PlatesInput(unit: state.displayUnit ?? .kg, current: current))
        case .loadProgress(let exercise, let returnTo):
            guard let name = try exercise ?? store.queries.mostLoggedExercise() else {
                state.say("No working sets yet: log one and its chart is here")
                return
            }
            var view = ProgressView(exercise: name, returnTo: returnTo)
            view.now = state.now
            view.unit = try state.displayUnit ?? store.queries.loggedUnit(exercise: name) ?? .kg
            view.samples = try store.queries.progressSamples(exercise: name)
            view.records = try store.queries.exerciseRecords(exercise: name)
            view.loaded = true
            state.overlay = .progress(view)
        case .loadCalendar(let year, let minimumPerWeek):
            var selected = state.now
            if case .calendar(let open) = state.overlay { selected = open.selected }
            if calendar.component(.year, from: selected) != year {
                // Moving to another year keeps the day and month where that year has them.
                var components = calendar.dateComponents([.month, .day], from: selected)
                components.year = year
                selected =
                    calendar.date(from: components) ?? calendar.date(from: DateComponents(year: year, month: 1, day: 1))
                    ?? selected
            }
            if let minimumPerWeek, minimumPerWeek != (try store.preferences.streakGoal) {
                try store.preferences.setStreakGoal(minimumPerWeek)
            }
            let goal = try store.preferences.streakGoal
            let weeks = try store.preferences.progressCalendar()
            var view = CalendarView(year: year, selected: selected)
            view.firstWeekday = weeks.firstWeekday
            view.days = try store.queries.trainingDays(year: year, calendar: weeks)
            view.minimumPerWeek = goal
            view.streak = TrainingCalendar.streakWeeks(
                workoutDates: try store.queries.workoutStarts(), minimumPerWeek: goal, now: state.now, calendar: weeks)
            view.loaded = true
            state.overlay = .calendar(view)
        case .loadCalendarDay(let day):
            guard case .calendar(var view) = state.overlay else { return }
            let all = try store.queries.workoutSummaries(limit: try store.queries.workoutCount(), countingSets: false)
            view.dayWorkouts = all.filter { calendar.isDate($0.workout.startedAt, inSameDayAs: day) }.reversed().map {
                (
                    id: $0.workout.id,
                    title: "\(Self.timeText($0.workout.startedAt, calendar: calendar))  \($0.workout.name)"
                )
            }
            view.dayWorkoutSelected = 0
            state.overlay = .calendar(view)
        case .openWorkout(let id):
            state.workoutFilter = ""
            if !state.workouts.contains(where: { $0.id == id }) {
                loadedWorkouts = max(loadedWorkouts, try store.queries.workoutCount())
            }
            reloadAll(selectWorkout: id)
            if state.currentWorkout?.id == id {
                state.focus = .sets
                state.selectedSet = 0
            } else {
                state.say("That workout is no longer here", isError: true)
            }
        case .loadMuscleVolume:
            state.overlay = .muscleVolume(
                MuscleVolumeView(
                    report: try store.queries.muscleVolume(weeks: 9, calendar: try store.preferences.progressCalendar())
                ))
        case .loadWeighIns(let select):
            let entries = try store.queries.bodyWeights(limit: 500)
            let index = select.flatMap { id in entries.firstIndex { $0.bodyWeight.id == id } } ?? 0
            state.overlay = .weighIns(WeighInsView(entries: entries, selected: index))
        case .changeBodyWeight(let id, let weight, let unit, let notes):
            let changed = try store.workoutLog.editBodyWeight(id, weight: weight, unit: unit, notes: .some(notes))
            afterLocalWrite()
            try perform(.loadWeighIns(select: id))
            state.say("Weigh-in changed: \(Formatting.weight(changed.weight, unit: changed.unit))")
        case .deleteBodyWeight(let id):
            try store.workoutLog.deleteBodyWeight(id)
            afterLocalWrite()
            try perform(.loadWeighIns(select: nil))
            state.say("Weigh-in deleted")
        case .toggleSuperset(let setID):
            let change = try store.workoutLog.toggleSuperset(setID: setID)
            afterLocalWrite(selectSet: setID)
            switch change {
            case .grouped(let group, let exercises):
                state.say(
                    "Superset \(Renderer.supersetLetter(group)): \(exercises.joined(separator: " + ")), rest after the round"
                )
            case .ungrouped(let exercise):
                state.say("\(exercise) is out of its superset")
            }
        case .loadBodyWeight:
            let last = try store.queries.bodyWeights(limit: 1).first?.bodyWeight
            let unit = last?.unit ?? state.displayUnit ?? .kg
            state.overlay = .bodyWeight(
                BodyWeightInput(
                    unit: unit, prefill: last.map { Formatting.number($0.weight) } ?? "",
                    last: last.map {
                        "last: \(Formatting.weight($0.weight, unit: $0.unit)), \(BodyWeightDate.shown($0.measuredAt))"
                    }))
        case .saveBodyWeight(let weight, let unit, let notes):
            let entry = try store.workoutLog.logBodyWeight(weight, unit: unit, notes: notes)
            afterLocalWrite()
            state.say("Body weight \(Formatting.weight(entry.weight, unit: entry.unit)) logged")
        case .savePlates(let unit, let text):
            do {
                let typed = try PlateSet(text: text, unit: unit)
                do {
                    try store.preferences.setPlates(unit: unit, bar: typed.bar, plates: typed.plates)
                    state.say("Plates (\(unit.rawValue)): \(try store.preferences.plateSet(unit: unit).summary)")
                } catch {
                    // Refused: the prompt again, with what was typed and why.
                    var current: [WeightUnit: String] = [:]
                    for other in WeightUnit.allCases {
                        current[other] = (try? store.preferences.plateSet(unit: other))?.text
                    }
                    var input = PlatesInput(unit: unit, current: current)
                    input.field = TextField(text)
                    state.overlay = .plates(input)
                    state.say("\(error)", isError: true)
                }
            } catch {
                state.say(error.message, isError: true)
            }
        case .createWorkout(let name):
            let workout = try store.workoutLog.createWorkout(
                name: name.isEmpty ? SpotterStore.timeOfDayName(clock.now()) : name)
            state.workoutFilter = ""
            afterLocalWrite(selectWorkout: workout.id)
            state.focus = .sets
            state.say("Started \(workout.name)")
        case .setAirplane(let on):
            // Saved here, before the engine (which saves it too, on its own queue) gets to it:
            // a re-read of the screen in between must not find the switch as it was.
            try store.preferences.setAirplane(on)
            sync?.setAirplane(on)
            state.airplane = on
            if !on, state.connectivity == .airplane { state.connectivity = nil }
        case .toggleFavorite(let exercise):
            let starred = try store.workoutLog.toggleFavorite(exercise: exercise)
            state.say(starred ? "Starred \(exercise): it comes first in the type-ahead" : "Unstarred \(exercise)")
            afterLocalWrite()
        case .setDisplayUnit(let unit):
            try store.preferences.setDisplayUnit(unit)
        case .syncNow:
            sync?.trigger(.manual)
        case .retry(let type, let id):
            guard let op = try store.queries.failedOperation(entityType: type, entityID: id) else {
                state.say("Nothing to retry for this \(type.rawValue)", isError: true)
                return
            }
            try store.queue.retry(opID: op.opID)
            afterLocalWrite()
            state.say("Queued again")
        case .askDiscard(let type, let id):
            guard let op = try store.queries.failedOperation(entityType: type, entityID: id) else {
                state.say("Nothing to discard for this \(type.rawValue)", isError: true)
                return
            }
            let preview = try store.queries.discardPreview(opID: op.opID)
            state.overlay = .confirmDelete(.discard(entityType: type, entityID: id, description: preview.summary))
        case .discard(let type, let id):
            guard let op = try store.queries.failedOperation(entityType: type, entityID: id) else {
                state.say("Nothing to discard for this \(type.rawValue)", isError: true)
                return
            }
            try store.queue.discard(opID: op.opID)
            afterLocalWrite()
            state.say("Discarded")
        case .loadRoutines, .startRoutine, .logPlanned, .toggleSkipPlanned, .saveRoutine, .createRoutine,
            .renameRoutine,
            .deleteRoutine, .saveRoutineEdits:
            try performRoutine(effect)
        case .loadOutbox:
            loadOutbox()
        case .resumed:
            sync?.trigger(.resumed)
        case .takeConflict, .dismissConflict:
            try performConflict(effect)
        case .editWorkout, .finishWorkout, .noteExercise:
            try performWorkout(effect)
        case .undo:
            if let undone = try store.workoutLog.undoLast(after: undoMark) {
                state.say(undone.message)
                if undone.notUndone == nil {
                    // The rest a set started is not owed once that set is taken back.
                    if state.restEndsAt != nil, let id = state.restAfterSet, try !store.queries.setIsLive(id: id) {
                        state.restEndsAt = nil
                        state.restAfterSet = nil
                    }
                    afterLocalWrite()
                }
            } else {
                state.say("Nothing more to undo in this session")
            }
        }
    }

    /// What stands beside a set form's numbers: the plates per side on the exercise's bar, the
    /// warm-up ramp ^W would plan (when `offerWarmup`), and the exercise's last sessions.
    private func showContext(_ form: inout SetForm, exercise: String, offerWarmup: Bool) throws {
        do {
            var plates: [WeightUnit: PlateSet] = [:]
            for unit in WeightUnit.allCases {
                plates[unit] = try store.preferences.barPlates(exercise, unit: unit)
            }
            form.plates = plates.isEmpty ? nil : plates
            form.warmupOffer = offerWarmup ? try store.preferences.warmupScheme() : nil
        } catch {
            form.plates = nil
            form.warmupOffer = nil
            form.error = "Plates: \(StoreError.oneLine(error))"
        }
        let sessions = try store.queries.exerciseSessions(exercise: exercise, limit: 12)
        form.history =
            sessions.isEmpty
            ? nil
            : FormHistory(
                exercise: exercise, lines: sessions.prefix(3).map { sessionLine($0, withName: false) },
                trend: sessions.reversed().compactMap(\.bestOneRepMaxKg))
    }

    /// "set 2/3 on Thu 9 Apr · Bench Press (Barbell)": which set filled the form, and when.
    /// The highlight once suggestions arrive: the row the lifter moved to while it is still shown,
    /// else the exact match, else the first suggestion.
    static func highlight(_ highlighted: Int, browsed: Bool, typed: String, suggestions: [String]) -> Int {
        browsed
            ? TypeAhead.kept(highlighted, typed: typed, suggestions: suggestions)
            : TypeAhead.defaultHighlight(typed: typed, suggestions: suggestions)
    }

    /// The form's numbers for the next set of `exercise` in `workoutID`, following the session:
    /// the routine's plan for it when one is open (its kind too); else the set just logged of it
    /// in this workout when that was a work set (after a drop set, the last work set before it);
    /// else the matching set of its last session — but never a warm-up of last session once
    /// today's sets have begun: then today's last work set, or last session's first one. The
    /// kind is `normal` unless the plan says otherwise: a warm-up or a drop set is never copied.
    /// Last session's set stays in the note, as Strong's "previous" column.
    private func prefill(
        _ form: inout SetForm, exercise: String, name: String, workoutID: UUID?, today: [WorkoutSet]
    ) throws {
        let previous = try store.queries.previousSet(exercise: exercise, workoutID: workoutID)
        let previousNote = previous.map { "previous: \(shortSet($0.set)) \(prefillNote($0))" }
        if let workoutID,
            let planned = try store.routines.plannedRows(workoutID: workoutID).first(where: {
                $0.status == .planned && $0.exercise.caseInsensitiveCompare(name) == .orderedSame
            })
        {
            var target = WorkoutSet(
                workoutID: workoutID, exercise: name, position: 0, kind: planned.kind, weight: planned.weight,
                unit: planned.unit, reps: planned.reps, rpe: planned.rpe, performedAt: clock.now())
            target.notes = nil
            form.prefill(
                from: target, kind: planned.kind,
                note: "planned: \(shortSet(target, repsMax: planned.repsMax))"
                    + (previousNote.map { " · \($0)" } ?? ""),
                display: state.displayUnit)
            return
        }
        let lastWork = today.last { $0.kind == .normal || $0.kind == .failure }
        if let justLogged = today.last {
            switch justLogged.kind {
            case .normal, .failure:
                form.prefill(
                    from: justLogged, kind: .normal,
                    note: "as your last set · " + (previousNote ?? "no earlier session"), display: state.displayUnit)
                return
            case .drop:
                // A drop set's reduced weight is not the next set's: the work set before it is.
                if let lastWork {
                    form.prefill(
                        from: lastWork, kind: .normal,
                        note: "as your last work set · " + (previousNote ?? "no earlier session"),
                        display: state.displayUnit)
                    return
                }
            case .warmup:
                if previous == nil {
                    form.prefill(
                        from: justLogged, kind: .normal, note: "as your last set · no earlier session",
                        display: state.displayUnit)
                    return
                }
            }
        }
        guard let previous else {
            form.clearPrefill(exercise: exercise)
            return
        }
        // Fewer warm-ups today than last session: the next set is a work set, so last session's
        // warm-up weight is not offered for it.
        if !today.isEmpty, previous.set.kind == .warmup, let work = lastWork ?? previous.sessionFirstWorkSet {
            let from = work.workoutID == workoutID ? "as your last work set" : "last session's first work set"
            form.prefill(
                from: work, kind: .normal,
                note: "\(from) · previous: \(shortSet(previous.set)) \(prefillNote(previous))",
                display: state.displayUnit)
            return
        }
        form.prefill(from: previous.set, kind: .normal, note: prefillNote(previous), display: state.displayUnit)
    }

    /// "100×5" in the lifter's display unit ("100 kg×5" when it differs from the form's).
    /// A planned set's rep range shows whole: "100 kg × 8–12".
    private func shortSet(_ set: WorkoutSet, repsMax: Int? = nil) -> String {
        let unit = state.displayUnit ?? set.unit
        let weight = Formatting.number(Formatting.converted(set.weight, from: set.unit, to: unit))
        let reps = repsMax.map { $0 > set.reps ? "\(set.reps)–\($0)" : String(set.reps) } ?? String(set.reps)
        return "\(weight) \(unit.rawValue) × \(reps)" + (set.kind == .normal ? "" : " (\(set.kind.rawValue))")
    }

    private func prefillNote(_ previous: PreviousSet) -> String {
        let day = day(previous.set.performedAt)
        if let ordinal = previous.ordinal, let count = previous.sessionSetCount {
            return "set \(ordinal)/\(count) on \(day) · \(previous.set.exercise)"
        }
        return "last set on \(day) · \(previous.set.exercise)"
    }

    /// "Thu 9 Apr  100×5 100×5 105×3  e1RM 116.7 kg  PR": one session of an exercise. Warm-ups
    /// carry a "w"; weights are in the unit the lifter chose (or the first set's).
    func sessionLine(_ session: ExerciseSession, withName: Bool) -> String {
        let unit = state.displayUnit ?? session.sets.first?.unit ?? .kg
        let sets = session.sets.map { set in
            (set.kind == .warmup ? "w" : "")
                + "\(Formatting.number(Formatting.converted(set.weight, from: set.unit, to: unit)))×\(set.reps)"
        }
        var line = day(session.date) + "  "
        if withName { line += session.workoutName + "  " }
        line += sets.joined(separator: " ")
        if let best = session.bestOneRepMaxKg {
            let shown = Formatting.converted(best, from: .kg, to: unit)
            line += "  e1RM \(Formatting.number((shown * 10).rounded() / 10)) \(unit.rawValue)"
        }
        if session.records.values.contains(.oneRepMax) {
            line += "  PR"
        } else if session.records.values.contains(.reps) {
            line += "  RR"
        }
        return line
    }

    /// "Thu 9 Apr", or "Thu 9 Apr 2025" for another year.
    private func day(_ date: Date) -> String {
        calendar.component(.year, from: date) == calendar.component(.year, from: clock.now())
            ? longFormatter.string(from: date) : longYearFormatter.string(from: date)
    }

    /// A refused save (validation the form could not see, a read-only database, a full disk)
    /// reopens its form as it closed, with the reason, so nothing typed or shown is lost.
    private func reopenFormIfRefused(_ effect: AppEffect, error: String) {
        guard let submitted = state.submittedForm, Self.isSave(effect) else {
            state.say(error, isError: true, seconds: 6)
            return
        }
        var form = submitted
        form.error = error
        state.submittedForm = nil
        state.overlay = .setForm(form)
    }

    /// After every local action: re-read what is on screen and tell the engine there is work.
    func afterLocalWrite(selectWorkout: UUID? = nil, selectSet: UUID? = nil, selectPlanned: UUID? = nil) {
        reloadAll(selectWorkout: selectWorkout, selectSet: selectSet, selectPlanned: selectPlanned)
        sync?.trigger(.enqueue)
    }

    // MARK: Loading

    /// Re-reads what the screen shows: the newest workouts, the selected workout's sets, the
    /// badge counts and (when open) the debug pane. Never the whole database.
    public func reloadAll(selectWorkout: UUID? = nil, selectSet: UUID? = nil, selectPlanned: UUID? = nil) {
        do {
            // Taken before reading: a commit that lands during the reads moves the token again,
            // so the next `followDatabase()` reads once more rather than keep a half-old screen.
            shownChangeToken = store.changeToken()
            let now = clock.now()
            state.now = now
            let previousWorkout = selectWorkout ?? state.currentWorkout?.id
            let previousSet = selectSet ?? state.currentSet?.set.id
            let previousPlanned = selectPlanned ?? (selectSet == nil ? state.currentPlanned?.id : nil)
            let summaries = try store.queries.workoutSummaries(limit: loadedWorkouts + 1, countingSets: false)
            state.moreWorkouts = summaries.count > loadedWorkouts
            let days = DayBoundaries(now: now, calendar: calendar)
            state.workouts = summaries.prefix(loadedWorkouts).map { item($0, days: days) }
            if let previousWorkout, let index = state.visibleWorkouts.firstIndex(where: { $0.id == previousWorkout }) {
                state.selectedWorkout = index
            } else if selectWorkout != nil, state.visibleWorkouts.isEmpty == false {
                state.selectedWorkout = 0
            }
            try loadSets(of: state.currentWorkout?.id)
            if let previousPlanned, let index = state.visiblePlanned.firstIndex(where: { $0.id == previousPlanned }) {
                state.selectedSet = state.visibleSets.count + index
            } else if let previousSet, let index = state.visibleSets.firstIndex(where: { $0.set.id == previousSet }) {
                state.selectedSet = index
            }
            // The badge is what the outbox holds now, not what the engine last said: another
            // process may have queued, sent or discarded since.
            state.counts = try store.queries.queueCounts()
            state.stranded = try store.accounts.strandedQueues()
            state.conflicts = try store.conflicts.list()
            state.nextRetryAt = try store.queue.nextRetryAt()
            refreshOpenLogForm()
            if state.debugVisible { loadOutbox() }
        } catch {
            logger.error("reload failed: \(error)")
            state.say("Could not read the database: \(error)", isError: true, seconds: 8)
        }
    }

    /// An open `n` form names the workout its set will go into: after a re-read that may be
    /// another one (the workout in progress was ended or deleted elsewhere: a new one is started).
    /// The store decides again when the set is saved; this keeps the title from promising otherwise.
    private func refreshOpenLogForm() {
        guard case .setForm(var form) = state.overlay, case .log(nil, let name) = form.purpose else { return }
        let current = state.workoutInProgress
        let shown = current?.summary.workout.name ?? "new workout"
        guard name != shown || form.targetWorkoutID != current?.id else { return }
        form.purpose = .log(workoutID: nil, workoutName: shown)
        form.targetWorkoutID = current?.id
        state.overlay = .setForm(form)
    }

    /// Loads a workout's sets into the sets pane, and counts them for the list's item: the one
    /// set count the UI shows (deleting a workout says how many sets go with it), so the list
    /// itself is read without counts.
    private func loadSets(of workoutID: UUID?) throws {
        guard let workoutID else {
            state.sets = []
            state.planned = []
            return
        }
        state.sets = try store.queries.sets(workoutID: workoutID)
        state.planned = try store.routines.plannedRows(workoutID: workoutID)
        let count = try store.queries.liveSetCount(workoutID: workoutID)
        if let index = state.workouts.firstIndex(where: { $0.id == workoutID }),
            state.workouts[index].summary.setCount != count
        {
            state.workouts[index].summary.setCount = count
        }
    }

    private func loadOutbox() {
        do {
            state.outbox = try store.queries.outbox(limit: 20)
            state.counts = try store.queries.queueCounts()
        } catch {
            logger.error("outbox read failed: \(error)")
        }
    }

    private func item(_ summary: WorkoutSummary, days: DayBoundaries) -> WorkoutItem {
        let started = summary.workout.startedAt
        let day: String
        let sameYear = days.isThisYear(started)
        if let ago = days.daysAgo(started) {
            day = ago == 0 ? "today" : ago == 1 ? "yesterday" : weekdayFormatter.string(from: started)
        } else if sameYear {
            day = dayMonthFormatter.string(from: started)
        } else {
            day = dayMonthYearFormatter.string(from: started)
        }
        return WorkoutItem(
            summary: summary, dayLabel: day,
            longDateLabel: (sameYear ? longFormatter : longYearFormatter).string(from: started),
            isInProgress: summary.workout.endedAt == nil && days.daysAgo(started) == 0)
    }

    /// Draws the current state (pure; see `Renderer`).
    public func render(into buffer: inout ScreenBuffer) {
        Renderer.render(state, into: &buffer)
    }
}

/// Where "today", the six days before it and this year begin and end, asked of the calendar once
/// per reload: placing each listed workout among them is then a few comparisons. (Asking the
/// calendar per workout — same day? how many days ago? which year? — was ten calendar
/// operations a row, two thousand for the 200 rows of the first screen: most of start-up.)
struct DayBoundaries {
    /// `starts[k]`: the start of the day k days before today (`starts[0]` is today's).
    let starts: [Date]
    /// The start of tomorrow: today is `starts[0]..<tomorrow`.
    let tomorrow: Date
    /// This calendar year, `year.start..<year.end`.
    let year: DateInterval

    init(now: Date, calendar: Calendar) {
        let today = calendar.startOfDay(for: now)
        starts = (0..<7).map { ago in
            ago == 0 ? today : calendar.startOfDay(for: calendar.date(byAdding: .day, value: -ago, to: today) ?? today)
        }
        tomorrow =
            calendar.date(byAdding: .day, value: 1, to: today).map { calendar.startOfDay(for: $0) }
            ?? today.addingTimeInterval(86_400)
        year = calendar.dateInterval(of: .year, for: now) ?? DateInterval(start: today, duration: 0)
    }

    /// How many calendar days before today `date` falls (0: today), when that is under a week;
    /// nil for older dates and for dates after today.
    func daysAgo(_ date: Date) -> Int? {
        guard date < tomorrow else { return nil }
        return starts.firstIndex { date >= $0 }
    }

    /// In this calendar year (DateInterval.contains would also take the next year's first instant).
    func isThisYear(_ date: Date) -> Bool { date >= year.start && date < year.end }
}

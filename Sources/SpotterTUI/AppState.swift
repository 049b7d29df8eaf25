import Foundation
import SpotterCore
import SpotterStore
import SpotterSync

/// A workout row ready to draw: its summary plus date labels worked out when it was loaded,
/// so rendering never formats dates (that needs a calendar and a clock, and is slow).
public struct WorkoutItem: Sendable, Equatable {
    public var summary: WorkoutSummary
    /// "today", "Sat", "12 Nov".
    public var dayLabel: String
    /// "Mon 23 Nov", for the header.
    public var longDateLabel: String
    /// Started today and not ended: where `n` logs (the store's "workout in progress").
    public var isInProgress: Bool

    public init(summary: WorkoutSummary, dayLabel: String, longDateLabel: String, isInProgress: Bool = false) {
        self.summary = summary
        self.dayLabel = dayLabel
        self.longDateLabel = longDateLabel
        self.isInProgress = isInProgress
    }

    public var id: UUID { summary.workout.id }
}

/// Which of the two list panes has the keyboard.
public enum Pane: Sendable, Equatable {
    case workouts, sets
}

/// The "Log set" / "Edit set" form: what the lifter has typed so far.
public struct SetForm: Sendable, Equatable {
    /// What saving the form does.
    public enum Purpose: Sendable, Equatable {
        /// Log a new set into this workout (nil: the workout in progress, or a new one).
        case log(workoutID: UUID?, workoutName: String?)
        case edit(setID: UUID)
        /// Log a planned row of a routine, its targets changed first (`e` on a planned row).
        case logPlanned(planID: UUID, exercise: String)
    }

    /// The form's fields, in Tab order.
    public enum Field: Int, Sendable, CaseIterable {
        case exercise, weight, reps, rpe, kind

        public var label: String {
            switch self {
            case .exercise: "Exercise"
            case .weight: "Weight"
            case .reps: "Reps"
            case .rpe: "RPE"
            case .kind: "Kind"
            }
        }
    }

    public var purpose: Purpose
    public var exerciseInput = TextField()
    /// As typed: "100", "100 kg", "225lb"; the unit defaults to `unit`.
    public var weightInput = TextField()
    public var unit: WeightUnit = .kg
    public var repsInput = TextField()
    public var rpeInput = TextField()
    public var kind: SetKind = .normal
    public var focus: Field = .exercise
    /// Type-ahead matches for `exercise`, starred first.
    public var suggestions: [String] = []
    public var starred: Set<String> = []
    public var highlighted: Int = 0
    /// The user moved through the suggestions with the arrows.
    public var browsedSuggestions = false
    /// The exercise chosen is a new custom one (typed, nothing highlighted): said before saving.
    public var newCustomExercise: String?
    /// An edit that changes the set's exercise to a new custom one was told so once ("new custom
    /// exercise 'x'"); the next Enter saves.
    public var warnedCustomExercise: String?
    /// The exercise whose last set filled the numbers, so they are refilled only when it changes.
    public var prefilledFrom: String?
    /// Where the numbers came from, with the date ("set 2 of your Bench Press (Barbell) on Thu 9 Apr");
    /// nil when the exercise has no history (the numbers were cleared).
    public var prefillNote: String?
    /// The workout the set goes into, when it exists: the prefill counts the exercise's sets there
    /// to pick the matching set of its last session.
    public var targetWorkoutID: UUID?
    /// The chosen exercise's last sessions and its e1RM trend, shown under the fields.
    public var history: FormHistory?
    /// The weight the numbers came from, exactly as stored: saved unchanged until the weight's
    /// text is edited, so showing 120 kg as 264.55 lb never stores 264.55 lb.
    public var storedWeight: WeightAmount?
    /// The bar and plates of the chosen exercise, per unit, when its weight is a bar and plates
    /// (nil: a dumbbell, machine or bodyweight lift): the form shows the plates per side.
    public var plates: [WeightUnit: PlateSet]?
    /// The lifter's warm-up scheme while a ramp is offered: the lift has no work set in the
    /// workout yet (^W plans it).
    public var warmupOffer: WarmupScheme?
    public var error: String?

    public init(purpose: Purpose) {
        self.purpose = purpose
    }

    /// The ramp ^W would plan before the weight being typed ("20×10 · 55×5 · 82.5×3 · 110×2"); nil
    /// when none is offered or the weight is light.
    public var warmupText: String? {
        guard let scheme = warmupOffer, let amount = AppState.parseWeight(weight, defaultUnit: unit), amount.weight > 0
        else { return nil }
        let ramp = scheme.ramp(to: amount.weight, on: plates?[amount.unit] ?? .offBar(amount.unit))
        guard !ramp.isEmpty else { return nil }
        return ramp.map { "\(Formatting.number($0.weight))×\($0.reps)" }.joined(separator: " · ")
    }

    /// The plates per side for the weight being typed ("20 + 2×25 + 10 per side"), or the loadable
    /// weights either side of one the plates cannot make; nil when the lift is not on a bar or the
    /// weight does not read as a number.
    public var platesText: String? {
        guard let plates, let amount = AppState.parseWeight(weight, defaultUnit: unit), amount.weight > 0,
            let set = plates[amount.unit]
        else { return nil }
        if let loading = Plates.load(amount.weight, on: set) { return loading.text }
        let unit = amount.unit.rawValue
        switch Plates.nearest(amount.weight, on: set) {
        case (let below?, let above?):
            return "can't load exactly: \(Formatting.number(below)) or \(Formatting.number(above)) \(unit)"
        case (let below?, nil): return "more than the plates can load (\(Formatting.number(below)) \(unit) at most)"
        case (nil, let above?): return "less than the bar (\(Formatting.number(above)) \(unit))"
        case (nil, nil): return nil
        }
    }

    /// The exercise's name as typed (setting it puts the cursor at its end).
    public var exercise: String {
        get { exerciseInput.text }
        set { exerciseInput.set(newValue) }
    }

    public var weight: String {
        get { weightInput.text }
        set { weightInput.set(newValue) }
    }

    public var reps: String {
        get { repsInput.text }
        set { repsInput.set(newValue) }
    }

    public var rpe: String {
        get { rpeInput.text }
        set { rpeInput.set(newValue) }
    }

    /// The text field of `field`; the kind, chosen and not typed, has none (an empty one).
    public subscript(input field: Field) -> TextField {
        get {
            switch field {
            case .exercise: exerciseInput
            case .weight: weightInput
            case .reps: repsInput
            case .rpe: rpeInput
            case .kind: TextField()
            }
        }
        set {
            switch field {
            case .exercise: exerciseInput = newValue
            case .weight: weightInput = newValue
            case .reps: repsInput = newValue
            case .rpe: rpeInput = newValue
            case .kind: break
            }
        }
    }

    public var title: String {
        switch purpose {
        case .log(_, let name): name.map { "Log set · \(DisplayText.standalone($0))" } ?? "Log set"
        case .edit: "Edit set"
        case .logPlanned(_, let exercise): "Log planned set · \(DisplayText.standalone(exercise))"
        }
    }

    /// The most a field holds: what the server accepts (see openapi.yaml), so a paste cannot grow a
    /// field (and the type-ahead query) without bound. Longer input is refused with a message.
    public static func maxLength(_ field: Field) -> Int {
        switch field {
        case .exercise: Validation.maxExerciseLength
        // "2000 kg", "4409.24 lb": a number and a unit; generous, but bounded.
        case .weight: 16
        case .reps: String(Validation.maxReps).count
        case .rpe: 4
        case .kind: 0
        }
    }
}

/// A weight and its unit: as a set stores it, or as the form's weight field reads.
public struct WeightAmount: Sendable, Equatable {
    public var weight: Double
    public var unit: WeightUnit

    public init(weight: Double, unit: WeightUnit) {
        self.weight = weight
        self.unit = unit
    }
}

/// The log form's glance at an exercise's history.
public struct FormHistory: Sendable, Equatable {
    public var exercise: String
    /// Its last sessions, newest first, as drawn: "Thu 9 Apr  100×5 100×5 105×3  e1RM 116.7 kg".
    public var lines: [String]
    /// Best estimated 1RM of each of its last twelve sessions, oldest first (the sparkline).
    public var trend: [Double]

    public init(exercise: String, lines: [String], trend: [Double]) {
        self.exercise = exercise
        self.lines = lines
        self.trend = trend
    }
}

/// The history view: every session of one exercise, a page at a time.
public struct HistoryView: Sendable, Equatable {
    public var exercise: String
    /// The sessions of the page on screen, newest first, as drawn.
    public var lines: [String]
    /// Sessions in all, and the index of the first one on screen.
    public var total: Int
    public var offset: Int
    /// The form the view was opened from, given back when it closes.
    public var returnTo: SetForm?

    public init(exercise: String, lines: [String] = [], total: Int = 0, offset: Int = 0, returnTo: SetForm? = nil) {
        self.exercise = exercise
        self.lines = lines
        self.total = total
        self.offset = offset
        self.returnTo = returnTo
    }
}

/// What a delete confirmation would delete.
public enum DeleteTarget: Sendable, Equatable {
    case set(id: UUID, description: String)
    case workout(id: UUID, name: String, setCount: Int)
    /// From the routine list (`d`); keeping it goes back to the list.
    case routine(id: UUID, name: String)
    /// `x` on a rejected set or workout: what discarding its failed operation takes, named.
    case discard(entityType: EntityType, entityID: String, description: String)
}

/// The modal layer over the panes; at most one at a time.
public enum Overlay: Sendable, Equatable {
    case none
    case setForm(SetForm)
    case confirmDelete(DeleteTarget)
    /// The new workout's name being typed.
    case newWorkout(TextField)
    case history(HistoryView)
    case help
    /// `R`: choose a routine to start today's workout from.
    case routinePicker(RoutinePicker)
    /// `e` in the routine list: one routine's plan being changed.
    case routineEditor(RoutineEditor)
    /// `n` / `r` in the routine list: a routine's name being typed.
    case routineName(RoutineNameInput)
    /// `C`: the values another device's edit replaced.
    case conflicts(ConflictsView)
    /// `e` on the workouts pane: the workout's name and notes.
    case workoutEdit(WorkoutEditForm)
    /// `F`: what the workout just finished came to.
    case workoutSummary(WorkoutSummaryView)
    /// `P`: the bar and plates owned, per unit.
    case plates(PlatesInput)
    /// `B`: a weigh-in being typed.
    case bodyWeight(BodyWeightInput)
    /// `W`: the weigh-ins.
    case weighIns(WeighInsView)
    /// `c`: an exercise's chart and records.
    case progress(ProgressView)
    /// `Y`: the training calendar.
    case calendar(CalendarView)
    /// `V`: weekly volume per muscle.
    case muscleVolume(MuscleVolumeView)

    /// The name dialog with `name` typed, the cursor at its end.
    public static func newWorkout(name: String) -> Overlay {
        .newWorkout(TextField(name))
    }
}

/// `P`: the bar and the plates owned, typed as "20: 25,20,15,10,5,2.5,1.25", one unit at a time.
public struct PlatesInput: Sendable, Equatable {
    public var unit: WeightUnit
    public var field: TextField
    /// What each unit holds now, as typed ("BAR: PLATES"): Tab shows the other one.
    public var current: [WeightUnit: String]

    public init(unit: WeightUnit, current: [WeightUnit: String]) {
        self.unit = unit
        self.current = current
        field = TextField(current[unit] ?? "", selected: false)
    }
}

/// `B`: a weigh-in typed as "81.4" or "81.4 after breakfast" (the weight, then an optional note),
/// in `unit` unless the weight says its own ("179.5lb").
public struct BodyWeightInput: Sendable, Equatable {
    public var unit: WeightUnit
    public var field: TextField
    /// The last weigh-in, as shown above the prompt ("last: 81.4 kg, 2026-11-26 07:30"); nil when none.
    public var last: String?
    /// The weigh-in being changed (from `W`); nil when a new one is logged.
    public var editing: UUID?

    public init(unit: WeightUnit, prefill: String = "", last: String? = nil) {
        self.unit = unit
        self.last = last
        field = TextField(prefill, selected: !prefill.isEmpty)
    }

    /// The weight and the note typed, or why they are not a weigh-in.
    public func parsed() -> Result<(weight: Double, unit: WeightUnit, notes: String?), BodyWeightInputProblem> {
        let text = field.text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, let amount = AppState.parseWeight(String(first), defaultUnit: unit) else {
            return .failure(BodyWeightInputProblem(message: "Type what you weighed, like 81.4 (and a note after it)"))
        }
        let notes = parts.count > 1 ? String(parts[1]) : nil
        // Only the weight and the note are checked here: the time is the store's to set.
        let entry = BodyWeight(
            measuredAt: Date(timeIntervalSince1970: 0), weight: amount.weight, unit: amount.unit, notes: notes)
        do { try Validation.bodyWeight(entry) } catch {
            return .failure(BodyWeightInputProblem(message: ValidationError.sentence(error.field, error.message)))
        }
        return .success((amount.weight, amount.unit, notes))
    }
}

public struct BodyWeightInputProblem: Error, Equatable {
    public var message: String
}

/// A line for the bottom bar that replaces the key hints for a while.
public struct StatusMessage: Sendable, Equatable {
    public var text: String
    public var isError: Bool
    public var expiresAt: Date

    public init(text: String, isError: Bool, expiresAt: Date) {
        self.text = text
        self.isError = isError
        self.expiresAt = expiresAt
    }
}

/// The `/` filter being typed, and the pane it narrows.
///
/// It is a type-ahead like the form's exercise field: the names the pane holds that contain the
/// typed text are offered, the highlighted one is what Enter keeps (the filter becomes that
/// name), and past the last suggestion a row keeps the typed text itself ("all matching 'x'"),
/// which is also what Enter keeps when nothing matched.
public struct FilterInput: Sendable, Equatable {
    public var pane: Pane
    public var field: TextField
    /// The highlighted suggestion; `TypeAhead.customRow` is the typed text itself.
    public var highlighted = TypeAhead.customRow

    public init(pane: Pane, field: TextField) {
        self.pane = pane
        self.field = field
    }

    public var text: String { field.text }
}

/// Everything the screen shows, as plain values. The reducer changes it in response to keys
/// and the controller fills it from the store and the engine's events; `Renderer` draws it.
public struct AppState: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    public var glyphs: Glyphs

    public var workouts: [WorkoutItem] = [] {
        didSet { applyWorkoutFilter() }
    }
    public private(set) var visibleWorkouts: [WorkoutItem] = []
    /// The list holds a page of the newest workouts and older ones exist: scrolling near its
    /// end loads the next page.
    public var moreWorkouts = false
    public var selectedWorkout = 0
    /// Sets of the selected workout (only those: the database may hold 100 000).
    public var sets: [SetRow] = [] {
        didSet { applySetFilter() }
    }
    public private(set) var visibleSets: [SetRow] = []
    /// Planned rows of the selected workout when it was started from a routine.
    public var planned: [PlannedRow] = [] {
        didSet { applySetFilter() }
    }
    /// The planned rows still shown (not yet logged: planned or skipped), after the logged sets.
    public private(set) var visiblePlanned: [PlannedRow] = []
    /// The selected row of the sets pane: a logged set, or past them a planned row.
    public var selectedSet = 0
    public var focus: Pane = .sets
    public var workoutFilter = "" {
        didSet { applyWorkoutFilter() }
    }
    public var setFilter = "" {
        didSet { applySetFilter() }
    }
    public var filterInput: FilterInput?

    public var counts = QueueCounts()
    /// The open conflicts (values another device's edit replaced), newest first.
    public var conflicts: [StoredConflict] = []
    /// Where this UI syncs, for the header: "alice@sync.example", "this device only".
    public var account = ""
    /// When the engine next retries (persisted), so "offline" can count down to it.
    public var nextRetryAt: Date?
    /// What waits for an account other than this one, with the command that sends it.
    public var stranded: [StrandedQueue] = []
    public var airplane = false
    public var connectivity: Connectivity?
    /// Why the last pull did not receive everything although the server answered: nothing is
    /// "Synced" meanwhile.
    public var feedProblem: String?
    public var syncing = false
    /// False when the UI runs without a sync engine: `s` says so and the badge does not pretend.
    public var syncAvailable: Bool
    /// Why the database may not be written (a read-only file or folder), when it may not: the
    /// header says "read-only" and every save is refused with this reason.
    public var readOnly: String?
    public var spinnerFrame = 0

    public var now: Date
    public var restEndsAt: Date?
    /// The set whose logging started the rest timer: undoing that log stops the timer too.
    public var restAfterSet: UUID?
    public var restSeconds: Int
    /// The unit every weight is shown in (`u` cycles it; `spotter config unit`); nil: as logged.
    public var displayUnit: WeightUnit?
    /// Ring the bell (and show "Rest over") when rest ends; off with `spotter config bell off`.
    public var restBell = true
    /// How many times the bell was asked for; the terminal rings once per increase.
    public var bellRequests = 0

    public var debugVisible = false
    public var outbox: [OutboxOperation] = []

    public var overlay: Overlay = .none
    /// The set form a save closed, until the save is answered: a refused save (a read-only
    /// database, a full disk) reopens it as it was, with its hint, plates and history.
    public var submittedForm: SetForm?
    /// The first help line shown when the help does not fit the terminal (j/k scroll it).
    public var helpScroll = 0
    public var message: StatusMessage?
    public var shouldQuit = false

    public init(
        columns: Int, rows: Int, glyphs: Glyphs = .unicode, syncAvailable: Bool,
        restSeconds: Int = 90, now: Date
    ) {
        self.columns = columns
        self.rows = rows
        self.glyphs = glyphs
        self.syncAvailable = syncAvailable
        self.restSeconds = restSeconds
        self.now = now
    }

    /// The smallest terminal the layout is drawn for (btop's "terminal size too small").
    public static let minimumColumns = 80
    public static let minimumRows = 24

    public var isTooSmall: Bool { columns < Self.minimumColumns || rows < Self.minimumRows }

    /// The workout `n` logs into: started today and not ended (nil: `n` starts one).
    public var workoutInProgress: WorkoutItem? {
        workouts.first { $0.isInProgress }
    }

    public var currentWorkout: WorkoutItem? {
        visibleWorkouts.indices.contains(selectedWorkout) ? visibleWorkouts[selectedWorkout] : nil
    }

    public var currentSet: SetRow? {
        visibleSets.indices.contains(selectedSet) ? visibleSets[selectedSet] : nil
    }

    /// Help lines the help box shows at once: all of them when the terminal is tall enough, else
    /// what fits between the header and the bottom bar with the box's borders and footer.
    public var helpRowsShown: Int { max(1, min(KeyMap.helpLines.count, rows - 6)) }

    /// The furthest the help scrolls: its last line then sits on the box's last row.
    public var helpScrollLimit: Int { max(0, KeyMap.helpLines.count - helpRowsShown) }

    /// The part of an id that tells rows apart, for the debug pane. Ids are version-7 UUIDs,
    /// whose leading digits are the time they were made (the same for every row of a burst) and
    /// whose last ones are random: the last 8 hex digits. Other ids (a favorite's exercise) whole.
    public static func distinctPart(of id: String) -> String {
        guard id.count == 36, UUID(uuidString: id) != nil else { return id }
        return String(id.suffix(8))
    }

    /// Seconds of rest left, nil when no rest timer runs.
    public var restRemaining: Int? {
        guard let restEndsAt else { return nil }
        let left = restEndsAt.timeIntervalSince(now)
        return left > 0 ? Int(left.rounded(.up)) : nil
    }

    /// Whether something on screen moves by itself (spinner, rest timer, message expiry,
    /// the debug pane's countdowns), so the input loop knows whether to wake on a timer.
    public var needsTicks: Bool {
        spinnerTurns || restRemaining != nil || message != nil || (debugVisible && counts.pending > 0)
    }

    /// Whether the sync badge's spinner turns: a sync runs, or something waits that the engine
    /// is sending (not in airplane mode, nor while the server refuses the token).
    public var spinnerTurns: Bool {
        syncing || (counts.pending > 0 && syncAvailable && !airplane && connectivity != .signInRequired)
    }

    /// What the filter being typed offers: the distinct names of the pane it narrows (exercises of
    /// the selected workout's sets and planned rows, or workout names) that contain the typed text,
    /// those that start with it first, each group in the pane's order.
    public var filterSuggestions: [String] {
        guard let input = filterInput else { return [] }
        return filterSuggestions(typed: input.text, pane: input.pane)
    }

    func filterSuggestions(typed: String, pane: Pane) -> [String] {
        let needle = typed.trimmingCharacters(in: .whitespaces).lowercased()
        guard !needle.isEmpty else { return [] }
        let names =
            pane == .sets
            ? sets.map(\.set.exercise) + planned.map(\.exercise) : workouts.map(\.summary.workout.name)
        var seen = Set<String>()
        var starting: [String] = []
        var containing: [String] = []
        for name in names {
            let folded = name.lowercased()
            guard folded.contains(needle), seen.insert(folded).inserted else { continue }
            if folded.hasPrefix(needle) { starting.append(name) } else { containing.append(name) }
        }
        return starting + containing
    }

    mutating func applyWorkoutFilter() {
        let needle = workoutFilter.lowercased()
        visibleWorkouts =
            needle.isEmpty ? workouts : workouts.filter { $0.summary.workout.name.lowercased().contains(needle) }
        selectedWorkout = min(max(0, selectedWorkout), max(0, visibleWorkouts.count - 1))
    }

    mutating func applySetFilter() {
        let needle = setFilter.lowercased()
        visibleSets = needle.isEmpty ? sets : sets.filter { $0.set.exercise.lowercased().contains(needle) }
        visiblePlanned = planned.filter {
            $0.status != .done && (needle.isEmpty || $0.exercise.lowercased().contains(needle))
        }
        selectedSet = min(max(0, selectedSet), max(0, visibleSets.count + visiblePlanned.count - 1))
    }

    /// Shows `text` in the bottom bar for a few seconds.
    public mutating func say(_ text: String, isError: Bool = false, seconds: TimeInterval = 4) {
        message = StatusMessage(text: text, isError: isError, expiresAt: now.addingTimeInterval(seconds))
    }

    /// Moves time forward: advances the spinner, expires the message and the rest timer.
    public mutating func tick(now: Date) {
        self.now = now
        spinnerFrame &+= 1
        if let message, message.expiresAt <= now { self.message = nil }
        if let restEndsAt, restEndsAt <= now {
            self.restEndsAt = nil
            if restBell {
                bellRequests &+= 1
                say("Rest over: time for the next set", seconds: 6)
            }
        }
    }
}

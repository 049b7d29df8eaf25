import Foundation
import Logging
import SpotterCore
import SpotterStore
import SpotterSync

/// Owns the app state on the UI thread: feeds it keys (through the reducer), engine events
/// and clock ticks, and runs the effects the reducer asks for against the store and the
/// engine. It never waits on the network: store calls are local SQLite, engine calls return at once.
public final class AppController {
    public private(set) var state: AppState
    public let store: SpotterStore
    public let sync: (any SyncControlling)?
    let clock: any SpotterClock
    let logger: Logger
    /// How many workouts the list loads (the newest); older ones are reached with `spotter workouts`.
    public static let workoutLimit = 200
    private let calendar = Calendar.current
    private let weekdayFormatter: DateFormatter
    private let dayMonthFormatter: DateFormatter
    private let longFormatter: DateFormatter

    public init(
        store: SpotterStore, sync: (any SyncControlling)?, clock: any SpotterClock = SystemClock(), columns: Int,
        rows: Int,
        glyphs: Glyphs = .unicode, colorEnabled: Bool = true, restSeconds: Int = 90,
        logger: Logger = Logger(label: "spotter.tui", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.sync = sync
        self.clock = clock
        self.logger = logger
        state = AppState(
            columns: columns, rows: rows, glyphs: glyphs, colorEnabled: colorEnabled, syncAvailable: sync != nil,
            restSeconds: restSeconds, now: clock.now())
        func formatter(_ template: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_GB")
            formatter.setLocalizedDateFormatFromTemplate(template)
            return formatter
        }
        weekdayFormatter = formatter("EEE")
        dayMonthFormatter = formatter("d MMM")
        longFormatter = formatter("EEE d MMM")
        state.airplane = (try? store.isAirplaneOn) ?? false
        reloadAll()
    }

    // MARK: Inputs

    /// One key press: reduce, then run what it asked for.
    public func handle(_ key: Key) {
        state.tick(now: clock.now())
        let effects = state.reduce(key)
        for effect in effects { run(effect) }
    }

    /// Events the engine posted since the last drain, applied in one go (one re-read at most).
    public func handle(_ events: [SyncEvent]) {
        guard !events.isEmpty else { return }
        var dataChanged = false
        for event in events {
            switch event {
            case .outboxChanged(let pending, let failed):
                state.counts.pending = pending
                state.counts.failed = failed
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
            }
        }
        if dataChanged { reloadAll() }
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

    /// The process came back from a suspend (SIGCONT) or the terminal regained focus.
    public func resumed() {
        run(.resumed)
    }

    public var shouldQuit: Bool { state.shouldQuit }

    // MARK: Effects

    func run(_ effect: AppEffect) {
        do {
            try perform(effect)
        } catch let error as StoreError {
            logger.info("action refused: \(error.description)")
            reopenFormIfRefused(effect, error: error.description)
        } catch {
            logger.error("action failed: \(error)")
            state.say("Could not save: \(error)", isError: true, seconds: 6)
        }
    }

    private func perform(_ effect: AppEffect) throws {
        switch effect {
        case .loadSets(let workoutID):
            state.sets = try workoutID.map { try store.sets(workoutID: $0) } ?? []
        case .loadSuggestions(let query):
            guard case .setForm(var form) = state.overlay else { return }
            form.suggestions = try store.exercises(matching: query, limit: 5)
            form.starred = Set(try store.favorites().map { $0.lowercased() })
            form.highlighted = min(form.highlighted, max(0, form.suggestions.count - 1))
            state.overlay = .setForm(form)
        case .prefill(let exercise):
            guard case .setForm(var form) = state.overlay else { return }
            if let last = try store.lastSet(exercise: exercise) {
                form.prefill(from: last)
            } else {
                form.prefilledFrom = exercise
            }
            state.overlay = .setForm(form)
        case .logSet(let input):
            let logged = try store.logSet(input)
            state.restEndsAt = clock.now().addingTimeInterval(TimeInterval(state.restSeconds))
            afterLocalWrite(selectWorkout: logged.workout.id, selectSet: logged.set.id)
            let described = AppState.describe(logged.set)
            state.say(logged.isPR ? "New PR! \(described) (est. 1RM record)" : "Logged \(described)")
        case .editSet(let id, let changes):
            try store.editSet(id: id, changes: changes)
            afterLocalWrite(selectSet: id)
            state.say("Saved")
        case .deleteSet(let id):
            try store.deleteSet(id: id)
            afterLocalWrite()
            state.say("Set deleted")
        case .deleteWorkout(let id):
            try store.deleteWorkout(id: id)
            afterLocalWrite()
            state.say("Workout deleted")
        case .createWorkout(let name):
            let workout = try store.createWorkout(name: name.isEmpty ? SpotterStore.timeOfDayName(clock.now()) : name)
            state.workoutFilter = ""
            afterLocalWrite(selectWorkout: workout.id)
            state.focus = .sets
            state.say("Started \(workout.name)")
        case .setAirplane(let on):
            if let sync {
                sync.setAirplane(on)
            } else {
                try store.setAirplane(on)
            }
            state.airplane = on
            if !on, state.connectivity == .airplane { state.connectivity = nil }
        case .toggleFavorite(let exercise):
            let starred = try store.toggleFavorite(exercise: exercise)
            state.say(starred ? "Starred \(exercise): it comes first in the type-ahead" : "Unstarred \(exercise)")
            afterLocalWrite()
        case .syncNow:
            sync?.trigger(.manual)
        case .retry(let type, let id):
            guard let op = try store.failedOperation(entityType: type, entityID: id) else {
                state.say("Nothing to retry for this \(type.rawValue)", isError: true)
                return
            }
            try store.retry(opID: op.opID)
            afterLocalWrite()
            state.say("Queued again")
        case .discard(let type, let id):
            guard let op = try store.failedOperation(entityType: type, entityID: id) else {
                state.say("Nothing to discard for this \(type.rawValue)", isError: true)
                return
            }
            try store.discard(opID: op.opID)
            afterLocalWrite()
            state.say("Discarded")
        case .loadOutbox:
            loadOutbox()
        case .resumed:
            sync?.trigger(.resumed)
        case .quit:
            break
        }
    }

    /// A refused save (validation the form could not see) reopens the form with the reason,
    /// so nothing typed is lost.
    private func reopenFormIfRefused(_ effect: AppEffect, error: String) {
        switch effect {
        case .logSet(let input):
            var form = SetForm(purpose: .log(workoutID: nil, workoutName: nil))
            if case .existing(let id) = input.workout {
                form.purpose = .log(
                    workoutID: id, workoutName: state.workouts.first { $0.id == id }?.summary.workout.name)
            }
            form.exercise = input.exercise
            form.weight = Formatting.weight(input.weight, unit: input.unit)
            form.unit = input.unit
            form.reps = String(input.reps)
            form.rpe = input.rpe.map(Formatting.number) ?? ""
            form.kind = input.kind
            form.prefilledFrom = input.exercise
            form.focus = .weight
            form.error = error
            state.overlay = .setForm(form)
        case .editSet(let id, let changes):
            var form = SetForm(purpose: .edit(setID: id))
            form.exercise = changes.exercise ?? ""
            form.weight = changes.weight.map { Formatting.weight($0, unit: changes.unit ?? .kg) } ?? ""
            form.unit = changes.unit ?? .kg
            form.reps = changes.reps.map(String.init) ?? ""
            form.rpe = changes.rpe.map(Formatting.number) ?? ""
            form.kind = changes.kind ?? .normal
            form.prefilledFrom = form.exercise
            form.focus = .weight
            form.error = error
            state.overlay = .setForm(form)
        default:
            state.say(error, isError: true, seconds: 6)
        }
    }

    /// After every local action: re-read what is on screen and tell the engine there is work.
    private func afterLocalWrite(selectWorkout: UUID? = nil, selectSet: UUID? = nil) {
        reloadAll(selectWorkout: selectWorkout, selectSet: selectSet)
        sync?.trigger(.enqueue)
    }

    // MARK: Loading

    /// Re-reads what the screen shows: the newest workouts, the selected workout's sets, the
    /// badge counts and (when open) the debug pane. Never the whole database.
    public func reloadAll(selectWorkout: UUID? = nil, selectSet: UUID? = nil) {
        do {
            let now = clock.now()
            state.now = now
            let previousWorkout = selectWorkout ?? state.currentWorkout?.id
            let previousSet = selectSet ?? state.currentSet?.set.id
            let summaries = try store.workoutSummaries(limit: Self.workoutLimit)
            state.workouts = summaries.map { item($0, now: now) }
            if let previousWorkout, let index = state.visibleWorkouts.firstIndex(where: { $0.id == previousWorkout }) {
                state.selectedWorkout = index
            } else if selectWorkout != nil, state.visibleWorkouts.isEmpty == false {
                state.selectedWorkout = 0
            }
            state.sets = try state.currentWorkout.map { try store.sets(workoutID: $0.id) } ?? []
            if let previousSet, let index = state.visibleSets.firstIndex(where: { $0.set.id == previousSet }) {
                state.selectedSet = index
            }
            state.counts = try store.queueCounts()
            if state.debugVisible { loadOutbox() }
        } catch {
            logger.error("reload failed: \(error)")
            state.say("Could not read the database: \(error)", isError: true, seconds: 8)
        }
    }

    private func loadOutbox() {
        do {
            state.outbox = try store.outbox(limit: 20)
            state.counts = try store.queueCounts()
        } catch {
            logger.error("outbox read failed: \(error)")
        }
    }

    private func item(_ summary: WorkoutSummary, now: Date) -> WorkoutItem {
        let started = summary.workout.startedAt
        let day: String
        if calendar.isDate(started, inSameDayAs: now) {
            day = "today"
        } else if let days = calendar.dateComponents(
            [.day], from: calendar.startOfDay(for: started), to: calendar.startOfDay(for: now)
        ).day,
            days > 0, days < 7
        {
            day = days == 1 ? "yesterday" : weekdayFormatter.string(from: started)
        } else {
            day = dayMonthFormatter.string(from: started)
        }
        return WorkoutItem(summary: summary, dayLabel: day, longDateLabel: longFormatter.string(from: started))
    }

    /// Draws the current state (pure; see `Renderer`).
    public func render(into buffer: inout ScreenBuffer) {
        Renderer.render(state, into: &buffer)
    }
}

import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

extension WeightUnit: ExpressibleByArgument {}
extension SetKind: ExpressibleByArgument {}

/// A number option read as a lifter writes it (`Validation.decimal`): "0x10", "nan" and "inf" are
/// refused with the reason instead of taken as 16, or as no number.
func decimalArgument(_ text: String) throws -> Double {
    guard let value = Validation.decimal(text.trimmingCharacters(in: .whitespaces)) else {
        throw ValidationError(
            "'\(DisplayText.replacingControls(String(text.prefix(30))))' is not a number (digits and a point)")
    }
    return value
}

/// A negative weight or rep count is a usage error with its reason, not "Missing value".
func refuseNegative(weight: Double?, reps: Int?) throws {
    if let weight, weight < 0 {
        throw CLIError("weights cannot be negative (--weight \(Formatting.number(weight)))", code: 2)
    }
    if let reps, reps < 0 { throw CLIError("reps cannot be negative (--reps \(reps))", code: 2) }
}

func parseID(_ text: String, what: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else { throw CLIError("\(what) must be a UUID, got '\(text)'", code: 2) }
    return id
}

/// `spotter log`: the same action as the UI's "Log set" form.
struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "log", abstract: "Log a set; prints its id.")

    @OptionGroup var global: GlobalOptions
    @Option(
        help:
            "Exercise name: a catalogue name (any case), an alias or a custom exercise; a part of a name that matches one lift takes it."
    )
    var exercise: String
    @Flag(help: "Make --exercise a new custom exercise, even where it matches catalogue lifts.") var custom = false
    // Unconditional: "-5" is the value (refused below with the reason), not an unknown flag.
    @Option(parsing: .unconditional, help: "Weight, in --unit.", transform: decimalArgument) var weight: Double
    @Option(parsing: .unconditional, help: "Repetitions.") var reps: Int
    @Option(help: "kg or lb.") var unit: WeightUnit = .kg
    @Option(help: "Rate of perceived exertion, 1 to 10 in steps of 0.5.", transform: decimalArgument) var rpe: Double?
    @Option(help: "normal, warmup, failure or drop.") var kind: SetKind = .normal
    @Option(help: "Notes for this set.") var notes: String?
    @Option(help: "Log into this workout (id).") var workout: String?
    @Option(name: .customLong("new-workout"), help: "Start a new workout with this name.") var newWorkout: String?
    @Flag(
        help:
            "Superset this exercise with the one logged just before it in the workout (their sets alternate, rest after the round)."
    )
    var superset = false

    func run() async throws {
        try refuseNegative(weight: weight, reps: reps)
        if workout != nil && newWorkout != nil {
            throw CLIError("use either --workout or --new-workout, not both", code: 2)
        }
        let choice: WorkoutChoice
        if let workout {
            choice = .existing(try parseID(workout, what: "--workout"))
        } else if let newWorkout {
            choice = .new(name: newWorkout)
        } else {
            choice = .current
        }
        let store = try global.openStore()
        let name = try ExerciseArgument.resolve(exercise, custom: custom, store: store)
        let logged = try store.workoutLog.logSet(
            LogSetInput(
                exercise: name, weight: weight, unit: unit, reps: reps, rpe: rpe, kind: kind, notes: notes,
                workout: choice, superset: superset))
        print(logged.set.id.wireString)
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter edit SET_ID …`
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change fields of a set.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The set's id.") var setID: String
    @Option(
        help:
            "Move the set to this exercise: taken as `log --exercise` takes it (a part of a name that matches several lifts is refused)."
    )
    var exercise: String?
    @Flag(help: "Make --exercise a new custom exercise, even where it matches catalogue lifts.") var custom = false
    @Option(parsing: .unconditional, transform: decimalArgument) var weight: Double?
    @Option var unit: WeightUnit?
    @Option(parsing: .unconditional) var reps: Int?
    @Option(transform: decimalArgument) var rpe: Double?
    @Flag(name: .customLong("clear-rpe"), help: "Remove the RPE.") var clearRPE = false
    @Option var kind: SetKind?
    @Option var notes: String?

    func run() async throws {
        let id = try parseID(setID, what: "SET_ID")
        try refuseNegative(weight: weight, reps: reps)
        if rpe != nil && clearRPE { throw CLIError("--rpe and --clear-rpe cannot go together", code: 2) }
        if custom && exercise == nil { throw CLIError("--custom goes with --exercise", code: 2) }
        var changes = SetChanges(
            exercise: exercise, weight: weight, unit: unit, reps: reps, rpe: rpe, clearRPE: clearRPE, kind: kind,
            notes: notes)
        if changes == SetChanges() {
            throw CLIError("nothing to change: give at least one of --weight, --reps, --rpe, …", code: 2)
        }
        let store = try global.openStore()
        if let exercise {
            changes.exercise = try ExerciseArgument.resolve(exercise, custom: custom, store: store)
        }
        try store.workoutLog.editSet(id: id, changes: changes)
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter delete SET_ID` / `spotter delete --workout ID`
struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a set, or a workout with its sets.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The set's id.") var setID: String?
    @Option(help: "Delete this workout and its sets instead.") var workout: String?

    func run() async throws {
        let store: SpotterStore
        switch (setID, workout) {
        case (let setID?, nil):
            let id = try parseID(setID, what: "SET_ID")
            store = try global.openStore()
            try store.workoutLog.deleteSet(id: id)
        case (nil, let workout?):
            let id = try parseID(workout, what: "--workout")
            store = try global.openStore()
            try store.workoutLog.deleteWorkout(id: id)
        default:
            throw CLIError("give either a SET_ID or --workout ID", code: 2)
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter sets`
struct SetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sets", abstract: "List sets, pending and rejected marked.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this workout's sets.") var workout: String?
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let workoutID = try workout.map { try parseID($0, what: "--workout") }
        let store = try global.openStore(readOnly: true)
        let rows = try store.queries.sets(workoutID: workoutID)
        if json {
            printJSON(.object(["sets": .array(rows.map(Render.setJSON))]))
            return
        }
        if rows.isEmpty {
            print("No sets yet. Log one with: spotter log --exercise \"Bench Press (Barbell)\" --weight 100 --reps 5")
        }
        let unit = try store.preferences.displayUnit
        for row in rows { print(Render.setLine(row, unit: unit)) }
        // Sets of another account are not listed here, but they are not forgotten: say so.
        for queue in try store.accounts.strandedQueues() {
            FileHandle.standardError.write(
                Data(
                    "spotter: \(queue.operations) operation(s) wait for \(queue.owner) (\(resolveHint(for: queue.owner)))\n"
                        .utf8))
        }
    }
}

/// `spotter workouts`
struct WorkoutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "workouts", abstract: "List workouts, newest first.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let rows = try store.queries.workoutSummaries(limit: 100_000)
        if json {
            printJSON(.object(["workouts": .array(rows.map(Render.workoutJSON))]))
            return
        }
        for row in rows { print(Render.workoutLine(row)) }
    }
}

func printJSON(_ value: JSONValue) {
    print(value.canonicalString)
}

/// An exercise named on the command line, taken as the UI's type-ahead takes it: a known name (the
/// catalogue's, an alias, a custom exercise) as it is; a part of a name that matches exactly one
/// lift, that lift; one that matches several is refused with the candidates (exit 2), so "bench"
/// never silently becomes a new lift; a name that matches nothing, or `--custom`, is a new custom
/// exercise, said on stderr.
enum ExerciseArgument {
    static func resolve(_ raw: String, custom: Bool, store: SpotterStore) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // The rules first: a pasted tab must not turn "Bench\tPress" into a lift by alias.
        do { try Validation.exercise(name) } catch { throw StoreError.invalid(error) }
        if let known = try store.queries.knownExercise(name) { return known }
        if custom {
            FileHandle.standardError.write(Data("spotter: new custom exercise '\(name)'\n".utf8))
            return name
        }
        let matches = try store.queries.exercises(matching: name, limit: 11)
        switch matches.count {
        case 0:
            FileHandle.standardError.write(
                Data("spotter: new custom exercise '\(name)' (no exercise matches it)\n".utf8))
            return name
        case 1:
            return matches[0]
        default:
            let listed = matches.prefix(10).joined(separator: "; ") + (matches.count > 10 ? "; …" : "")
            throw CLIError(
                "'\(name)' matches several exercises: \(listed). Name one, or pass --custom to make '\(name)' a new exercise",
                code: 2)
        }
    }
}

import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

extension ProgressionRule: ExpressibleByArgument {}

/// `spotter routine …`: plans to start a workout from, through the same actions as the UI.
struct RoutineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routine", abstract: "Routines: named plans of exercises and sets to start a workout from.",
        subcommands: [
            RoutineList.self, RoutineShow.self, RoutineCreate.self, RoutineAdd.self, RoutineRemove.self,
            RoutineRename.self, RoutineDelete.self, RoutineStart.self, RoutinePlan.self, RoutineDone.self,
            RoutineSkip.self,
        ])

    static func json(_ summary: RoutineSummary) -> JSONValue {
        var object = summary.routine.wireFields
        object["sync_state"] = .string(summary.syncState.rawValue)
        object["sync_error"] = JSONValue(summary.syncError)
        object["last_started_at"] = JSONValue(summary.lastStartedAt.map(Timestamp.format))
        return .object(object)
    }

    static func json(_ row: PlannedRow) -> JSONValue {
        .object([
            "id": .string(row.id.wireString), "workout_id": .string(row.workoutID.wireString),
            "exercise": .string(row.exercise), "kind": .string(row.kind.rawValue), "weight": .double(row.weight),
            "unit": .string(row.unit.rawValue), "reps": .int(Int64(row.reps)), "reps_max": JSONValue(row.repsMax),
            "rpe": JSONValue(row.rpe), "rest_s": JSONValue(row.restSeconds), "superset": JSONValue(row.superset),
            "hint": JSONValue(row.hint), "status": .string(row.status.rawValue),
            "set_id": JSONValue(row.setID?.wireString),
            "logged": row.logged.map { logged in
                .object([
                    "kind": .string(logged.kind.rawValue), "weight": .double(logged.weight),
                    "unit": .string(logged.unit.rawValue), "reps": .int(Int64(logged.reps)),
                ])
            } ?? .null,
        ])
    }

    /// "Bench Press (Barbell)  3 × 5 @ 100 kg  linear +2.5  rest 2:00  superset 1"
    static func exerciseLine(_ exercise: RoutineExercise, index: Int) -> String {
        var line = "\(index + 1). \(shownName(exercise.exercise))"
        for set in exercise.sets {
            var text = "\n     \(set.kind == .normal ? "" : "\(set.kind.rawValue) ")\(set.repsText) reps"
            if let weight = set.weight { text += " @ \(Formatting.weight(weight, unit: exercise.unit))" }
            if let percent = set.percentOfOneRepMax { text += " @ \(Formatting.number(percent)) % 1RM" }
            if let rpe = set.rpe { text += " RPE \(Formatting.number(rpe))" }
            line += text
        }
        var details = ["\(exercise.progression.rawValue)"]
        if exercise.progression != .fixed {
            details[0] += " +\(Formatting.weight(exercise.increment, unit: exercise.unit))"
        }
        if let rest = exercise.restSeconds { details.append("rest \(rest) s") }
        if let superset = exercise.superset { details.append("superset \(superset)") }
        return line + "\n     (" + details.joined(separator: ", ") + ")"
    }

    static func planLine(_ row: PlannedRow) -> String {
        var line =
            "\(row.id.wireString)  \(row.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) "
            + "\(row.exercise)  \(Formatting.weight(row.weight, unit: row.unit)) × "
            + PlannedSet.repsText(row.reps, row.repsMax)
        if let rpe = row.rpe { line += " @\(Formatting.number(rpe))" }
        // A done row says what was lifted when it was not the target.
        if let logged = row.logged, logged.weight != row.weight || logged.unit != row.unit || logged.reps != row.reps {
            line += "  (logged \(Formatting.weight(logged.weight, unit: logged.unit)) × \(logged.reps))"
        }
        if let superset = row.superset { line += "  [superset \(superset)]" }
        if let hint = row.hint { line += "  — \(hint)" }
        return line
    }
}

struct RoutineList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List routines.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let routines = try store.routines.all()
        if json {
            printJSON(.object(["routines": .array(routines.map(RoutineCommand.json))]))
            return
        }
        if routines.isEmpty { print("no routines yet (spotter routine create NAME)") }
        for summary in routines {
            let sets = summary.routine.exercises.reduce(0) { $0 + $1.sets.count }
            var line = "\(summary.routine.name)  \(summary.routine.exercises.count) exercises, \(sets) sets"
            if summary.syncState != .synced { line += "  [\(summary.syncState.rawValue)]" }
            if let error = summary.syncError { line += " \(error)" }
            print(shownName(line))
        }
    }
}

struct RoutineShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a routine's plan.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let summary = try store.routines.routine(routine)
        if json {
            printJSON(.object(["routine": RoutineCommand.json(summary)]))
            return
        }
        print(shownName("\(summary.routine.name)  (\(summary.routine.id.wireString), \(summary.syncState.rawValue))"))
        if let rest = summary.routine.restSeconds { print("rest \(rest) s") }
        if let notes = summary.routine.notes { print(notes) }
        if summary.routine.exercises.isEmpty { print("no exercises yet (spotter routine add NAME --exercise …)") }
        for (index, exercise) in summary.routine.exercises.enumerated() {
            print(RoutineCommand.exerciseLine(exercise, index: index))
        }
    }
}

struct RoutineCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Make a routine: empty (then routine add), or from a past workout (--from-workout ID --name NAME).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name.") var nameArgument: String?
    @Option(help: "The routine's name (with --from-workout).") var name: String?
    @Option(name: .customLong("from-workout"), help: "Copy the exercises and sets of this workout (id).")
    var fromWorkout: String?
    @Option(parsing: .unconditional, help: "Rest between sets, in seconds.") var rest: Int?
    @Option(help: "Notes.") var notes: String?

    func run() async throws {
        guard let name = name ?? nameArgument else {
            throw CLIError("give the routine a name: spotter routine create NAME", code: 2)
        }
        if name != nil && nameArgument != nil && name != nameArgument {
            throw CLIError("give the name once (either NAME or --name)", code: 2)
        }
        let store = try global.openStore()
        var routine: Routine
        if let fromWorkout {
            let workoutID = try parseID(fromWorkout, what: "--from-workout")
            routine = try store.routines.create(fromWorkout: workoutID, name: name)
            // A routine holds less than a long workout: say what was left out, never drop it quietly.
            let logged = try store.queries.sets(workoutID: workoutID).count
            let kept = routine.exercises.reduce(0) { $0 + $1.sets.count }
            if kept < logged {
                FileHandle.standardError.write(
                    Data(
                        ("kept the first \(kept) of the workout's \(logged) sets: a routine holds at most "
                            + "\(Routine.maxSetsPerExercise) sets per exercise, \(Routine.maxExercises) exercises and "
                            + "\(Routine.maxPlannedSets) sets in all\n").utf8))
            }
            if rest != nil || notes != nil {
                routine = try store.routines.update(routine.id.wireString) {
                    $0.restSeconds = rest
                    $0.notes = notes
                }
            }
        } else {
            routine = try store.routines.create(name: name, notes: notes, restSeconds: rest)
        }
        print(routine.id.wireString)
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an exercise with its planned sets to the end of a routine.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String
    @Option(
        help:
            "Exercise name: a catalogue name (any case), an alias or a custom exercise; a part of a name that matches one lift takes it."
    )
    var exercise: String
    @Flag(help: "Make --exercise a new custom exercise, even where it matches catalogue lifts.") var custom = false
    @Option(parsing: .unconditional, help: "How many planned sets.") var sets: Int = 3
    @Option(help: "Target reps, or a range such as 8-12.") var reps: String
    @Option(parsing: .unconditional, help: "Target weight, in --unit.", transform: decimalArgument) var weight: Double?
    @Option(
        parsing: .unconditional, help: "Target as a percentage of the exercise's estimated 1RM.",
        transform: decimalArgument)
    var percent: Double?
    @Option(help: "kg or lb.") var unit: WeightUnit = .kg
    @Option(help: "Target RPE, 1 to 10 in steps of 0.5.", transform: decimalArgument) var rpe: Double?
    @Option(help: "normal, warmup, failure or drop.") var kind: SetKind = .normal
    @Option(parsing: .unconditional, help: "Rest after each set, in seconds.") var rest: Int?
    @Option(parsing: .unconditional, help: "Superset group number: exercises of one group alternate.")
    var superset: Int?
    @Option(help: "fixed, linear or double.") var progression: ProgressionRule = .fixed
    @Option(
        parsing: .unconditional, help: "What linear and double progression add, in --unit.", transform: decimalArgument)
    var increment: Double = 2.5

    func run() async throws {
        guard let typed = PlannedSet.reps(reps) else {
            throw CLIError("--reps must be a whole number or a range such as 8-12, got '\(reps)'", code: 2)
        }
        let bottom = typed.reps
        guard (1...Routine.maxSetsPerExercise).contains(sets) else {
            throw CLIError("--sets must be from 1 to \(Routine.maxSetsPerExercise)", code: 2)
        }
        try refuseNegative(weight: weight, reps: bottom)
        let top = typed.repsMax
        let store = try global.openStore()
        let resolved = try ExerciseArgument.resolve(exercise, custom: custom, store: store)
        // A known name (catalogue, alias, custom) goes in as typed: the store takes it the same
        // way, and a refusal names the exercise as the lifter wrote it.
        let written = exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = try store.queries.knownExercise(written) != nil ? written : resolved
        let planned = RoutineExercise(
            exercise: name, unit: unit,
            sets: Array(
                repeating: PlannedSet(
                    kind: kind, weight: weight, percentOfOneRepMax: percent, reps: bottom, repsMax: top, rpe: rpe),
                count: sets),
            restSeconds: rest, superset: superset, progression: progression, increment: increment)
        let saved = try store.routines.update(routine) { $0.exercises.append(planned) }
        print(
            RoutineCommand.exerciseLine(
                saved.exercises[saved.exercises.count - 1], index: saved.exercises.count - 1))
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an exercise (by name or position) from a routine.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String
    @Option(help: "The exercise's name, or its position (1 is the first).") var exercise: String

    func run() async throws {
        let store = try global.openStore()
        try store.routines.update(routine) { routine in
            // The name as `add` stored it: "squat" is the catalogue's Squat (Barbell).
            let stored = try? store.queries.exerciseName(exercise)
            if let position = Int(exercise), routine.exercises.indices.contains(position - 1) {
                routine.exercises.remove(at: position - 1)
            } else if let index = routine.exercises.firstIndex(where: {
                $0.exercise.caseInsensitiveCompare(exercise) == .orderedSame || $0.exercise == stored
            }) {
                routine.exercises.remove(at: index)
            } else {
                throw CLIError("routine \"\(routine.name)\" has no exercise \(exercise)", code: 1)
            }
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give a routine a new name.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String
    @Argument(help: "The new name.") var name: String

    func run() async throws {
        let store = try global.openStore()
        try store.routines.update(routine) { $0.name = name }
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a routine (workouts started from it stay).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String

    func run() async throws {
        let store = try global.openStore()
        try store.routines.delete(routine)
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start today's workout from a routine; prints the workout id, then each planned set.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The routine's name (any case) or id.") var routine: String
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore()
        let started = try store.routines.start(routine)
        if started.resumed {
            FileHandle.standardError.write(
                Data("picked up today's unfinished \(started.workout.name) (its planned sets still wait)\n".utf8))
        }
        if json {
            printJSON(
                .object([
                    "workout_id": .string(started.workout.id.wireString),
                    "resumed": .bool(started.resumed),
                    "planned": .array(started.rows.map(RoutineCommand.json)),
                ]))
        } else {
            print(started.workout.id.wireString)
            for row in started.rows { print(shownName(RoutineCommand.planLine(row))) }
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutinePlan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "The planned sets of a workout started from a routine.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The workout's id.") var workoutID: String
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore()
        let rows = try store.routines.plannedRows(workoutID: try parseID(workoutID, what: "WORKOUT_ID"))
        if json {
            printJSON(.object(["planned": .array(rows.map(RoutineCommand.json))]))
            return
        }
        for row in rows { print(shownName(RoutineCommand.planLine(row))) }
    }
}

struct RoutineDone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Log a planned set as performed (its targets, or the values given); prints the set id.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The planned set's id.") var planID: String
    @Option(
        parsing: .unconditional, help: "The weight lifted, if not the target (in the plan's unit unless --unit).",
        transform: decimalArgument)
    var weight: Double?
    @Option(help: "kg or lb: the unit of --weight.") var unit: WeightUnit?
    @Option(parsing: .unconditional, help: "The reps done, if not the target.") var reps: Int?
    @Option(help: "RPE.", transform: decimalArgument) var rpe: Double?

    func run() async throws {
        try refuseNegative(weight: weight, reps: reps)
        let store = try global.openStore()
        let logged = try store.routines.logPlanned(
            try parseID(planID, what: "PLAN_ID"), weight: weight, unit: unit, reps: reps, rpe: rpe.map { .some($0) })
        print(logged.set.id.wireString)
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct RoutineSkip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip a planned set (nothing is logged), or bring a skipped one back.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The planned set's id.") var planID: String

    func run() async throws {
        let store = try global.openStore()
        let skipped = try store.routines.toggleSkipPlanned(try parseID(planID, what: "PLAN_ID"))
        print(skipped ? "skipped" : "planned again")
    }
}

import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

/// `spotter star NAME`: the UI's `f`, from a script.
struct Star: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "star",
        abstract: "Star an exercise: it comes first in the type-ahead (syncs like the UI's f).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise (catalogue names are matched case-insensitively).") var exercise: String

    func run() async throws {
        let store = try global.openStore()
        let name = try StarCommands.catalogueName(exercise, store: store)
        if try store.workoutLog.setStarred(name, true) {
            print(shownName("starred \(name)"))
        } else {
            print(shownName("\(name) is already starred"))
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter unstar NAME`
struct Unstar: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unstar", abstract: "Unstar an exercise (syncs like the UI's f).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise.") var exercise: String

    func run() async throws {
        let store = try global.openStore()
        let name = try StarCommands.catalogueName(exercise, store: store)
        if try store.workoutLog.setStarred(name, false) {
            print(shownName("unstarred \(name)"))
        } else {
            print(shownName("\(name) is not starred"))
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter stars [--json]`
struct Stars: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stars", abstract: "List starred exercises with their sync state.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON document on stdout: {\"stars\":[{\"exercise\",\"sync_state\"}]}.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let stars = try store.queries.starredExercises()
        if json {
            printJSON(
                .object([
                    "stars": .array(
                        stars.map {
                            .object(["exercise": .string($0.exercise), "sync_state": .string($0.syncState.rawValue)])
                        })
                ]))
            return
        }
        if stars.isEmpty { print("No starred exercises. Star one with: spotter star \"Bench Press (Barbell)\"") }
        for star in stars {
            print(
                shownName(star.syncState == .synced ? star.exercise : "\(star.exercise)  (\(star.syncState.rawValue))"))
        }
    }
}

enum StarCommands {
    /// The catalogue's spelling of `name`; an unknown name is refused with suggestions, so a typo
    /// does not become a starred custom exercise.
    static func catalogueName(_ name: String, store: SpotterStore) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= Validation.maxExerciseLength else {
            throw CLIError("the exercise name must be 1 to \(Validation.maxExerciseLength) characters", code: 2)
        }
        let matches = try store.queries.exercises(matching: trimmed, limit: 50)
        if let exact = matches.first(where: { $0.caseInsensitiveCompare(trimmed) == .orderedSame }) { return exact }
        if let starred = try store.queries.favorites().first(where: {
            $0.caseInsensitiveCompare(trimmed) == .orderedSame
        }) {
            return starred
        }
        throw CLIError(
            "no exercise named '\(trimmed)'"
                + (matches.isEmpty ? "" : "; did you mean: \(matches.prefix(3).joined(separator: ", "))?"),
            code: 2)
    }
}

/// `spotter exercises …`: the exercise list, and moving sets between exercises.
struct Exercises: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exercises",
        abstract:
            "List exercises; rename a custom exercise or merge one exercise's sets into another; show or set muscles.",
        subcommands: [ExercisesList.self, ExercisesRename.self, ExercisesMerge.self, ExercisesMuscles.self],
        defaultSubcommand: ExercisesList.self)
}

struct ExercisesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List exercises with their set counts.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Only custom exercises (names the catalogue does not have).") var custom = false
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let rows = try store.queries.exerciseList(customOnly: custom)
        if json {
            printJSON(
                .object([
                    "exercises": .array(
                        rows.map {
                            .object([
                                "name": .string($0.name), "custom": .bool($0.isCustom), "sets": .int(Int64($0.sets)),
                            ])
                        })
                ]))
            return
        }
        for row in rows {
            print(shownName("\(row.name)\(row.isCustom ? "  (custom)" : "")  \(row.sets) sets"))
        }
    }
}

struct ExercisesRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Rename a custom exercise; its sets follow as edits that sync.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise's current name.") var old: String
    @Argument(help: "The new name (must not exist yet; use merge for that).") var new: String

    func run() async throws {
        let store = try global.openStore()
        let move = try store.workoutLog.moveExercise(old, to: new, create: true)
        var line = "renamed \(move.from) to \(move.into): \(move.setsMoved) sets queued to sync"
        if move.routinesChanged > 0 { line += "; \(move.routinesChanged) routines now plan \(move.into)" }
        print(shownName(line))
        try await EagerSync.attempt(global: global, store: store)
    }
}

struct ExercisesMerge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Move every set of OLD into the existing exercise NEW (edits that sync); a custom OLD then goes.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise whose sets move.") var old: String
    @Argument(help: "The exercise they move to.") var new: String

    func run() async throws {
        let store = try global.openStore()
        let move = try store.workoutLog.moveExercise(old, to: new, create: false)
        var line = "merged \(move.from) into \(move.into): \(move.setsMoved) sets queued to sync"
        if move.removedCustom { line += "; \(move.from) removed from the list" }
        if move.movedStar { line += "; the star moved too" }
        if move.routinesChanged > 0 { line += "; \(move.routinesChanged) routines now plan \(move.into)" }
        print(shownName(line))
        try await EagerSync.attempt(global: global, store: store)
    }
}

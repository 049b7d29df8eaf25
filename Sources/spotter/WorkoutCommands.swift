import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

/// `spotter workout rename|notes|note|end`: the workout edits of the UI, queued like any other.
struct WorkoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout", abstract: "Rename, annotate or end a workout, or note one of its exercises.",
        subcommands: [Rename.self, Notes.self, Note.self, End.self])

    /// `spotter workout rename ID NAME`
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give a workout a new name.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The workout's id.") var workoutID: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            try await WorkoutCommand.edit(workoutID, global: global) { _ in WorkoutChanges(name: name) }
        }
    }

    /// `spotter workout notes ID TEXT`
    struct Notes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notes", abstract: "Set a workout's notes (empty text clears them).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The workout's id.") var workoutID: String
        @Argument(help: "The notes.") var text: String

        func run() async throws {
            try await WorkoutCommand.edit(workoutID, global: global) { _ in WorkoutChanges(notes: text) }
        }
    }

    /// `spotter workout note ID EXERCISE TEXT`
    struct Note: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "note",
            abstract: "Set the note on one exercise of a workout (empty text removes it).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The workout's id.") var workoutID: String
        @Argument(help: "An exercise the workout has sets of (any case).") var exercise: String
        @Argument(help: "The note.") var text: String

        func run() async throws {
            try await WorkoutCommand.edit(workoutID, global: global) { _ in
                WorkoutChanges(exerciseNote: (exercise, text))
            }
        }
    }

    /// `spotter workout end ID`
    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "end", abstract: "Mark a workout as finished now.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The workout's id.") var workoutID: String

        func run() async throws {
            // "Now" on the store's clock, as every other time the store writes.
            try await WorkoutCommand.edit(workoutID, global: global) { store in
                WorkoutChanges(endedAt: store.clock.now())
            }
        }
    }

    static func edit(
        _ workoutID: String, global: GlobalOptions, changes: (SpotterStore) -> WorkoutChanges
    ) async throws {
        let id = try parseID(workoutID, what: "WORKOUT_ID")
        let store = try global.openStore()
        try store.workoutLog.editWorkout(id: id, changes: changes(store))
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter undo`: takes back this device's last action (the UI's U); again, the one before.
struct Undo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back this device's last log, edit, delete, rename or finish (as edits that sync).")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let store = try global.openStore()
        // What another device did since is heard first (a moment, when online): an edit it
        // changed since is then refused instead of overwritten, and a workout it logged into is
        // not taken away with this device's last set.
        try await EagerSync.attempt(global: global, store: store)
        guard let undone = try store.workoutLog.undoLast() else {
            print("nothing to undo")
            return
        }
        if let why = undone.notUndone {
            // Nothing changed; the next undo goes on to the action before it.
            throw CLIError(
                "could not undo: \(undone.description) (\(why)); undo again takes back the one before", code: 1)
        }
        print(shownName("undid: \(undone.description)"))
        try await EagerSync.attempt(global: global, store: store)
    }
}

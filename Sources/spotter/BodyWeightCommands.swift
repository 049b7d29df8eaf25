import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI

/// `spotter bodyweight`: the weigh-ins, newest first; `log`, `edit` and `delete` change them,
/// each synced like a set.
struct BodyWeightCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bodyweight", abstract: "Your weigh-ins: list them, log, edit or delete one.",
        subcommands: [BodyWeightList.self, BodyWeightLog.self, BodyWeightEdit.self, BodyWeightDelete.self],
        defaultSubcommand: BodyWeightList.self)
}

/// `spotter bodyweight [list] [--json]`
struct BodyWeightList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the weigh-ins, newest first, pending and rejected marked.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let entries = try store.queries.bodyWeights()
        if json {
            printJSON(.object([BodyWeightList.jsonKey: .array(entries.map(Self.json))]))
            return
        }
        if entries.isEmpty { print("No weigh-ins yet. Log one with: spotter bodyweight log 81.4") }
        for entry in entries { print(Self.line(entry)) }
    }

    static let jsonKey = "body_weights"

    static func json(_ entry: BodyWeightEntry) -> JSONValue {
        var object = entry.bodyWeight.fieldValues
        object["sync_state"] = .string(entry.syncState.rawValue)
        if let error = entry.syncError { object["sync_error"] = .string(error) }
        return .object(object)
    }

    /// "2026-11-20 07:30  81.4 kg  after breakfast  [pending]  0199…"
    static func line(_ entry: BodyWeightEntry) -> String {
        var line = entry.summary
        switch entry.syncState {
        case .synced: break
        case .pending: line += "  [pending]"
        case .rejected: line += "  [rejected: \(DisplayText.replacingControls(entry.syncError ?? "refused"))]"
        }
        return line + "  \(entry.bodyWeight.id.wireString)"
    }
}

/// `spotter bodyweight log 81.4 [--unit kg] [--date 2026-11-20] [--notes …]`
struct BodyWeightLog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "log", abstract: "Log a weigh-in; prints its id.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What you weighed (\"81.4\", \"179.5lb\").") var weight: String
    @Option(help: "kg or lb (default: the display unit, else kg).") var unit: WeightUnit?
    @Option(help: "When: a day (2026-11-20: its start), 'today', 'yesterday' or an RFC 3339 time. Default: now.")
    var date: String?
    @Option(help: "A note (\"after breakfast\").") var notes: String?

    func run() async throws {
        let store = try global.openStore()
        let (amount, chosen) = try BodyWeightArgument.weight(weight, unit: unit, store: store)
        let measuredAt = try date.map { try BodyWeightDate.parse($0, now: Date()) }
        let logged = try store.workoutLog.logBodyWeight(amount, unit: chosen, at: measuredAt, notes: notes)
        print(logged.id.wireString)
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter bodyweight edit ID [--weight …] [--unit …] [--date …] [--notes …|--clear-notes]`
struct BodyWeightEdit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a weigh-in.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The weigh-in's id.") var id: String
    @Option(help: "The weight (\"81.4\", \"179.5lb\").") var weight: String?
    @Option(help: "kg or lb.") var unit: WeightUnit?
    @Option(help: "When (as `log --date` takes it).") var date: String?
    @Option(help: "A new note.") var notes: String?
    @Flag(name: .customLong("clear-notes"), help: "Remove the note.") var clearNotes = false

    func run() async throws {
        let entryID = try parseID(id, what: "ID")
        if notes != nil && clearNotes { throw CLIError("--notes and --clear-notes cannot go together", code: 2) }
        guard weight != nil || unit != nil || date != nil || notes != nil || clearNotes else {
            throw CLIError("nothing to change: give at least one of --weight, --unit, --date, --notes", code: 2)
        }
        let store = try global.openStore()
        var amount: Double?
        var chosen = unit
        if let weight {
            // A weight without a unit is in the weigh-in's own unit, as the set form reads one.
            let stored = try store.queries.bodyWeights().first { $0.bodyWeight.id == entryID }?.bodyWeight.unit
            let read = try BodyWeightArgument.weight(weight, unit: unit, defaultUnit: stored, store: store)
            amount = read.weight
            chosen = read.unit
        }
        let measuredAt = try date.map { try BodyWeightDate.parse($0, now: Date()) }
        let noteChange: String?? = clearNotes ? .some(nil) : notes.map { .some($0) }
        try store.workoutLog.editBodyWeight(
            entryID, weight: amount, unit: chosen, measuredAt: measuredAt, notes: noteChange)
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter bodyweight delete ID`
struct BodyWeightDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a weigh-in.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The weigh-in's id.") var id: String

    func run() async throws {
        let entryID = try parseID(id, what: "ID")
        let store = try global.openStore()
        try store.workoutLog.deleteBodyWeight(entryID)
        try await EagerSync.attempt(global: global, store: store)
    }
}

enum BodyWeightArgument {
    /// A weight as the set form reads one ("81.4", "81,4", "179.5lb"), in `unit` when given.
    static func weight(
        _ text: String, unit: WeightUnit?, defaultUnit stated: WeightUnit? = nil, store: SpotterStore
    )
        throws -> (weight: Double, unit: WeightUnit)
    {
        let defaultUnit = try unit ?? stated ?? store.preferences.displayUnit ?? .kg
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty,
            let read = AppState.parseWeight(text, defaultUnit: defaultUnit)
        else {
            throw CLIError("the weight must be a number, not '\(DisplayText.replacingControls(text))'", code: 2)
        }
        if let unit, read.unit != unit {
            throw CLIError("the weight says \(read.unit.rawValue) and --unit says \(unit.rawValue)", code: 2)
        }
        return (read.weight, read.unit)
    }
}

extension BodyWeightDate {
    /// `--date` as the commands take it, or exit 2 with what it takes.
    static func parse(_ text: String, now: Date) throws -> Date {
        guard let date = read(text, now: now) else {
            throw CLIError(
                "--date takes a day from 1900 on (2026-11-20), 'today', 'yesterday' or an RFC 3339 time, not '\(DisplayText.replacingControls(text))'",
                code: 2)
        }
        guard date <= now.addingTimeInterval(60) else {
            throw CLIError("--date cannot be in the future (\(BodyWeightDate.shown(date)))", code: 2)
        }
        return date
    }
}

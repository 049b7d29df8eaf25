import ArgumentParser
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// `spotter conflicts`: the values the server's merge overrode, and what to do about each.
struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Values an edit on another device replaced (or a delete dropped): list, take back, dismiss.",
        subcommands: [ConflictsList.self, ConflictsTake.self, ConflictsDismiss.self],
        defaultSubcommand: ConflictsList.self)

    static func json(_ conflict: StoredConflict) -> JSONValue {
        var fields = WireConflict(record: conflict.record, serverVersion: 0).json.objectValue ?? [:]
        fields.removeValue(forKey: WireConflict.Field.serverVersion)
        fields["status"] = .string(conflict.status.rawValue)
        fields["overridden_here"] = .bool(conflict.overriddenHere)
        fields["sentence"] = .string(conflict.sentence())
        return .object(fields)
    }

    static func line(_ conflict: StoredConflict) -> String {
        let status = conflict.status == .open ? "" : "  (\(conflict.status.rawValue))"
        return "\(conflict.record.id.wireString)  \(shownName(conflict.sentence()))\(status)"
    }
}

/// `spotter conflicts [list]`
struct ConflictsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The open conflicts, newest first (--all: taken and dismissed too).")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Taken and dismissed conflicts too.") var all = false
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let conflicts = try store.conflicts.list(includeSettled: all)
        if json {
            printJSON(.object(["conflicts": .array(conflicts.map(Conflicts.json))]))
            return
        }
        if conflicts.isEmpty {
            print(all ? "No conflicts." : "No open conflicts.")
            return
        }
        for conflict in conflicts { print(Conflicts.line(conflict)) }
        if !all {
            print("take one back: spotter conflicts take ID · dismiss: spotter conflicts dismiss ID (or --all)")
        }
    }
}

/// `spotter conflicts take ID`
struct ConflictsTake: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "take",
        abstract: "Take the overridden value back: a new edit that syncs (the UI's Enter on a conflict).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The conflict's id (or its first or last 8 characters or more).") var id: String

    func run() async throws {
        let store = try global.openStore()
        let taken = try store.conflicts.takeBack(id)
        let what = "\(StoredConflict.fieldName(taken.record.field)) \(StoredConflict.shown(taken.record.overridden))"
        print(shownName("took back \(what) for \(taken.record.label)"))
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter conflicts dismiss ID | --all`
struct ConflictsDismiss: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss", abstract: "Keep the value that won and stop listing the conflict.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The conflict's id (or its first or last 8 characters or more).") var id: String?
    @Flag(help: "Every open conflict.") var all = false

    func validate() throws {
        if (id == nil) == !all { throw ValidationError("name one conflict, or pass --all") }
    }

    func run() async throws {
        let store = try global.openStore()
        let count = try store.conflicts.dismiss(all ? nil : id)
        print("dismissed \(count) conflict\(count == 1 ? "" : "s")")
    }
}

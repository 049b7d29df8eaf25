import Foundation
import GRDB
import SpotterCore

/// What `discard` would take with it, named before anything goes: the entity and every
/// operation and entity that depends on it.
public struct DiscardPreview: Sendable, Equatable {
    /// One line: "discards the workout 'u11w' and 1 set logged into it: Bench Press 100 kg × 5".
    public var summary: String
    /// Each entity that goes (or, for a create that got no answer, each that stays queued).
    public var items: [String]
    /// The create gave up without an answer: it may exist on the server, so what depends on it is
    /// kept queued (sent once the server answers) instead of being deleted.
    public var keepsDependants: Bool
}

extension Queries {
    /// Names what discarding `opID` takes, without changing anything.
    public func discardPreview(opID: String) throws -> DiscardPreview {
        try writer.read { db in try store.discardPreview(opID: opID, db: db) }
    }
}

extension SpotterStore {
    func discardPreview(opID: String, db: Database) throws -> DiscardPreview {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ? AND user_id = ?"),
                arguments: [opID, userID])
        else { throw StoreError.notFound("operation \(opID)") }
        guard let op = try? OutboxOperation(row: row) else {
            return DiscardPreview(
                summary: "discards the unreadable operation \(opID); nothing is sent", items: [],
                keepsDependants: false)
        }
        let label = try describe(type: op.entityType, id: op.entityID, db: db)
        let name = Self.quoted(label, type: op.entityType)
        guard op.kind == .create else {
            let what = op.kind == .update ? "edit" : "delete"
            return DiscardPreview(
                summary:
                    "discards the queued \(what) of the \(name); it is not sent (the \(op.entityType.rawValue) stays as it is here)",
                items: [], keepsDependants: false)
        }
        // Sets that go with a workout (the row's delete takes its sets), and every operation of
        // another entity waiting on this one.
        var items: [String] = []
        var setCount = 0
        if op.entityType == .workout {
            let sets = try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT id, exercise, weight, unit, reps FROM sets WHERE workout_id = ? ORDER BY position, id"),
                arguments: [op.entityID])
            for set in sets {
                items.append(Self.setLabel(set) ?? "set \(set.cell("id", as: String.self)?.prefix(8) ?? "?")")
            }
            setCount = sets.count
        }
        var others: [String] = []
        for dependant in try Outbox.dependants(of: op.opID, db: db) {
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT entity_type, entity_id FROM outbox WHERE op_id = ?"),
                    arguments: [dependant]),
                let type = EntityType(rawValue: row["entity_type"])
            else { continue }
            let id: String = row["entity_id"]
            if type == .set, op.entityType == .workout,
                try String.fetchOne(
                    db.cachedStatement(sql: "SELECT workout_id FROM sets WHERE id = ?"), arguments: [id])
                    == op.entityID
            {
                continue  // counted with the workout's sets
            }
            others.append(try describe(type: type, id: id, db: db))
        }
        items += others
        let keeps = op.noAnswer && op.state == .failedPermanent
        var summary: String
        let setsText = setCount == 0 ? "" : " \(setCount) set\(setCount == 1 ? "" : "s") logged into it"
        let othersText =
            others.isEmpty ? "" : " \(others.count) other operation\(others.count == 1 ? "" : "s") waiting on it"
        let what = [setsText, othersText].filter { !$0.isEmpty }.joined(separator: " and")
        if keeps {
            summary =
                "stops sending the create of the \(name): it \(OutboxMachine.gaveUpPrefix), so it may exist on the server; the \(op.entityType.rawValue) stays here"
            if !what.isEmpty {
                summary +=
                    " and\(what) stay\(setCount + others.count == 1 ? "s" : "") queued, sent once the server answers"
            }
        } else {
            summary = "discards the \(name)" + (what.isEmpty ? "" : " and\(what)")
        }
        if !items.isEmpty { summary += ": " + items.joined(separator: ", ") }
        return DiscardPreview(summary: summary, items: items, keepsDependants: keeps)
    }

    /// "workout 'u11w'" from "workout u11w"; a set's label is already its description.
    static func quoted(_ label: String, type: EntityType) -> String {
        guard type == .workout || type == .routine, label.hasPrefix(type.rawValue + " ") else { return label }
        return "\(type.rawValue) '\(label.dropFirst(type.rawValue.count + 1))'"
    }
}

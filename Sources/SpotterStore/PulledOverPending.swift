import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    /// A change pulled for a set or workout that has edits queued here: the fields those edits do
    /// not touch take the server's value at once, decided by the server's own rule
    /// (`FieldMerge.decide`): a field this device changed carries its pending edit's stamp and is
    /// kept until that edit is answered (the server merges it then); a field it did not change is
    /// only the server's. The whole change still waits and is applied once the edits are answered.
    /// Returns whether a field changed here.
    func mergeUntouchedFields(_ entity: PulledEntity, db: Database) throws -> Bool {
        let type = entity.entityType
        let remote: [String: JSONValue]
        switch entity {
        case .set(let set, _): remote = set.wireFields
        case .workout(let workout, _): remote = workout.wireFields
        default: return false
        }
        let id = entity.entityID
        // Only edits: a queued create or delete owns the whole row.
        let queued = try Row.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT kind, payload, clock_stamp FROM outbox WHERE entity_type = ? AND entity_id = ? AND state IN \(Outbox.queuedStates)"
            ), arguments: [type.rawValue, id])
        guard !queued.isEmpty,
            queued.allSatisfy({ ($0["kind"] as String?) == OperationKind.update.rawValue })
        else { return false }
        var pendingClocks: [String: FieldClock] = [:]
        for row in queued {
            let stamp = (row["clock_stamp"] as String?).flatMap { ClockStamp($0) } ?? ClockStamp.origin
            for field in JSONValue.parse(row["payload"] as String? ?? "")?.objectValue?.keys ?? [:].keys {
                // Changed here after anything this device has seen: later than any base.
                pendingClocks[field] = FieldClock(stamp: stamp, version: .max)
            }
        }
        // A weight and its unit are one value (as the server merges them).
        if let clock = pendingClocks["weight"] ?? pendingClocks["unit"] {
            pendingClocks["weight"] = clock
            pendingClocks["unit"] = clock
        }
        guard let local = try EntityTable.wireFields(type, id: id, db: db) else { return false }
        var writes: [String: JSONValue] = [:]
        // A set moved to another workout waits whole: that workout may not be here yet.
        for field in EntityTable.columns(type) where field != "workout_id" {
            let outcome = FieldMerge.decide(
                incoming: remote[field] ?? .null, stamp: .origin, baseVersion: nil, stored: local[field] ?? .null,
                storedClock: pendingClocks[field])
            if outcome == .applied { writes[field] = remote[field] ?? .null }
        }
        guard !writes.isEmpty else { return false }
        try EntityTable.write(writes, type: type, id: id, db: db)
        return true
    }
}

import Foundation
import GRDB
import SpotterCore

/// An entity as the server's change feed describes it, in local terms.
public enum PulledEntity: Sendable, Equatable {
    /// Wire fields of a workout (`id`, `name`, `started_at`, … `server_version`, `updated_at`).
    case workout(fields: [String: JSONValue], deleted: Bool)
    case set(fields: [String: JSONValue], deleted: Bool)
}

extension SpotterStore {
    /// Merges a page of the change feed and stores the new cursor, in one transaction.
    /// An entity with no queued operation takes the server's row (a tombstone deletes it);
    /// one with queued operations keeps its local values — pending wins locally.
    /// - Returns: how many entities changed here.
    @discardableResult
    public func mergePulled(_ entities: [PulledEntity], cursor: String) throws -> Int {
        let now = self.now
        return try writer.write { db in
            var changed = 0
            for entity in entities {
                switch entity {
                case .workout(let fields, let deleted):
                    changed += try merge(type: .workout, fields: fields, deleted: deleted, db: db, now: now) ? 1 : 0
                case .set(let fields, let deleted):
                    changed += try merge(type: .set, fields: fields, deleted: deleted, db: db, now: now) ? 1 : 0
                }
            }
            try db.execute(
                sql:
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [MetaKey.pullCursor, cursor])
            return changed
        }
    }

    static let deletedElsewhere = "deleted on another device"

    func workoutHoldsUnresolvedSets(_ id: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM outbox o JOIN sets s ON s.id = o.entity_id
                    WHERE o.entity_type = 'set' AND s.workout_id = ? AND o.state != 'succeeded')
                """, arguments: [id]) ?? false
    }

    private func merge(
        type: EntityType, fields: [String: JSONValue], deleted: Bool, db: Database, now: Date
    ) throws -> Bool {
        guard let id = fields["id"]?.stringValue?.lowercased(), let table = EntityTable.table(type) else {
            return false
        }
        if try Outbox.hasQueued(db, type: type, id: id) { return false }
        if try Outbox.createNeverAccepted(db, type: type, id: id) { return false }
        let version = fields["server_version"]?.intValue
        let existing = try Row.fetchOne(
            db, sql: "SELECT server_version, deleted_at FROM \(table) WHERE id = ?", arguments: [id])
        if deleted {
            guard existing != nil else { return false }
            if type == .workout, try workoutHoldsUnresolvedSets(id, db: db) {
                // Deleting it here would silently take sets the user has not seen resolved
                // (rejected, blocked or still queued); keep it, say why, let them decide.
                try db.execute(
                    sql: "UPDATE workouts SET sync_error = ? WHERE id = ?", arguments: [Self.deletedElsewhere, id])
                return true
            }
            try db.execute(sql: "DELETE FROM \(table) WHERE id = ?", arguments: [id])
            return true
        }
        // The feed carries each entity's current row, so taking it whole is always right for an
        // entity with nothing queued — even when a success already stamped the same version
        // (an acknowledgement applies only the fields its operation touched).
        let updatedAt = fields["updated_at"]?.stringValue ?? Timestamp.format(now)
        if existing == nil {
            switch type {
            case .workout:
                try db.execute(
                    sql: """
                        INSERT INTO workouts (id, name, started_at, ended_at, notes, updated_at, server_version, sync_state)
                        VALUES (?, ?, ?, ?, ?, ?, ?, 'synced')
                        """,
                    arguments: [
                        id, fields["name"]?.stringValue ?? "Workout",
                        fields["started_at"]?.stringValue ?? Timestamp.format(now),
                        fields["ended_at"]?.stringValue, fields["notes"]?.stringValue, updatedAt, version,
                    ])
            case .set:
                guard let workoutID = fields["workout_id"]?.stringValue?.lowercased(),
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ?)", arguments: [workoutID]) == true
                else { return false }
                let exercise = try resolveExercise(fields["exercise"]?.stringValue ?? "Unknown", db: db)
                try db.execute(
                    sql: """
                        INSERT INTO sets (id, workout_id, exercise, position, kind, weight, unit, reps, performed_at,
                            updated_at, server_version, sync_state)
                        VALUES (?, ?, ?, 0, 'normal', 0, 'kg', 0, ?, ?, ?, 'synced')
                        """,
                    arguments: [
                        id, workoutID, exercise, fields["performed_at"]?.stringValue ?? Timestamp.format(now),
                        updatedAt, version,
                    ])
            case .favorite:
                return false
            }
        }
        var columns = fields
        columns["workout_id"] = nil
        try EntityTable.write(
            columns, type: type, id: id,
            extra: [
                "server_version": version.databaseValue, "updated_at": updatedAt.databaseValue, "deleted_at": .null,
                "sync_state": "synced".databaseValue, "sync_error": .null,
            ], db: db)
        if type == .set { try EntityTable.refreshOneRepMax(setID: id, db: db) }
        return true
    }
}

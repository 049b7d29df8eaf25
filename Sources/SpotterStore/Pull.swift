import Foundation
import GRDB
import SpotterCore

/// A workout as another device left it on the server (the change feed's row).
public struct PulledWorkout: Sendable, Equatable {
    public var id: String
    public var name: String
    public var startedAt: String
    public var endedAt: String?
    public var notes: String?
    public var updatedAt: String?
    public var serverVersion: Int64?
    public var deleted: Bool

    public init(
        id: String, name: String, startedAt: String, endedAt: String?, notes: String?, updatedAt: String?,
        serverVersion: Int64?, deleted: Bool
    ) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.notes = notes
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }
}

/// A set as the change feed describes it.
public struct PulledSet: Sendable, Equatable {
    public var id: String
    public var workoutID: String
    public var exercise: String
    public var position: Int
    public var kind: String
    public var weight: Double
    public var unit: String
    public var reps: Int
    public var rpe: Double?
    public var distanceM: Double?
    public var durationS: Double?
    public var notes: String?
    public var performedAt: String
    public var updatedAt: String?
    public var serverVersion: Int64?
    public var deleted: Bool

    public init(
        id: String, workoutID: String, exercise: String, position: Int, kind: String, weight: Double, unit: String,
        reps: Int, rpe: Double?, distanceM: Double?, durationS: Double?, notes: String?, performedAt: String,
        updatedAt: String?, serverVersion: Int64?, deleted: Bool
    ) {
        self.id = id
        self.workoutID = workoutID
        self.exercise = exercise
        self.position = position
        self.kind = kind
        self.weight = weight
        self.unit = unit
        self.reps = reps
        self.rpe = rpe
        self.distanceM = distanceM
        self.durationS = durationS
        self.notes = notes
        self.performedAt = performedAt
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }
}

/// One entry of the change feed, in local terms.
public enum PulledEntity: Sendable, Equatable {
    case workout(PulledWorkout)
    case set(PulledSet)
}

extension SpotterStore {
    static let deletedElsewhere = "deleted on another device"

    /// Merges a page of the change feed and stores the new cursor, in one transaction.
    /// An entity with no queued operation takes the server's row (a tombstone deletes it);
    /// one with queued operations keeps its local values — pending wins locally.
    /// - Returns: how many entities changed here.
    @discardableResult
    public func mergePulled(_ entities: [PulledEntity], cursor: String) throws -> Int {
        let now = Timestamp.format(self.now)
        return try writer.write { db in
            var changed = 0
            for entity in entities {
                switch entity {
                case .workout(let workout):
                    changed += try merge(workout, db: db, now: now) ? 1 : 0
                case .set(let set):
                    changed += try merge(set, db: db, now: now) ? 1 : 0
                }
            }
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [MetaKey.pullCursor, cursor])
            return changed
        }
    }

    /// Whether local state owns the entity: something is queued for it, or the server never accepted it.
    private func locallyOwned(_ type: EntityType, _ id: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM outbox WHERE entity_type = ? AND entity_id = ?
                        AND (state IN \(Outbox.queuedStates) OR (kind = 'create' AND state = 'failed_permanent')))
                    """), arguments: [type.rawValue, id]) ?? false
    }

    private func merge(_ workout: PulledWorkout, db: Database, now: String) throws -> Bool {
        let id = workout.id.lowercased()
        if try locallyOwned(.workout, id, db: db) { return false }
        if workout.deleted {
            if try workoutHoldsUnresolvedSets(id, db: db) {
                // Deleting it here would silently take sets the user has not seen resolved
                // (rejected, blocked or still queued); keep it, say why, let them decide.
                try db.execute(
                    sql: "UPDATE workouts SET sync_error = ? WHERE id = ?", arguments: [Self.deletedElsewhere, id])
                return true
            }
            try db.cachedStatement(sql: "DELETE FROM workouts WHERE id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
        // The feed carries each entity's current row, so taking it whole is right for an entity
        // with nothing queued — even when a success already stamped the same version (an
        // acknowledgement applies only the fields its operation touched).
        try db.cachedStatement(
            sql: """
                INSERT INTO workouts (id, name, started_at, ended_at, notes, updated_at, server_version, sync_state)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'synced')
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, started_at = excluded.started_at,
                    ended_at = excluded.ended_at, notes = excluded.notes, updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = 'synced', sync_error = NULL
                """
        ).execute(arguments: [
            id, workout.name, workout.startedAt, workout.endedAt, workout.notes, workout.updatedAt ?? now,
            workout.serverVersion,
        ])
        return true
    }

    private func merge(_ set: PulledSet, db: Database, now: String) throws -> Bool {
        let id = set.id.lowercased()
        if try locallyOwned(.set, id, db: db) { return false }
        if set.deleted {
            try db.cachedStatement(sql: "DELETE FROM sets WHERE id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
        let workoutID = set.workoutID.lowercased()
        guard
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ?)"), arguments: [workoutID])
                == true
        else { return false }  // its workout is gone here (discarded): nothing to hang it on
        let exercise = try resolveExercise(set.exercise, db: db)
        let unit = WeightUnit(rawValue: set.unit) ?? .kg
        let kind = SetKind(rawValue: set.kind) ?? .normal
        let e1rm = OneRepMax.epley(weight: set.weight * unit.kilograms, reps: set.reps)
        try db.cachedStatement(
            sql: """
                INSERT INTO sets (id, workout_id, exercise, position, kind, weight, unit, reps, rpe, distance_m,
                    duration_s, notes, performed_at, e1rm_kg, updated_at, server_version, sync_state)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'synced')
                ON CONFLICT(id) DO UPDATE SET workout_id = excluded.workout_id, exercise = excluded.exercise,
                    position = excluded.position, kind = excluded.kind, weight = excluded.weight, unit = excluded.unit,
                    reps = excluded.reps, rpe = excluded.rpe, distance_m = excluded.distance_m,
                    duration_s = excluded.duration_s, notes = excluded.notes, performed_at = excluded.performed_at,
                    e1rm_kg = excluded.e1rm_kg, updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = 'synced', sync_error = NULL
                """
        ).execute(arguments: [
            id, workoutID, exercise, set.position, kind.rawValue, set.weight, unit.rawValue, set.reps, set.rpe,
            set.distanceM, set.durationS, set.notes, set.performedAt, e1rm, set.updatedAt ?? now, set.serverVersion,
        ])
        return true
    }

    func workoutHoldsUnresolvedSets(_ id: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM outbox o JOIN sets s ON s.id = o.entity_id
                        WHERE o.entity_type = 'set' AND s.workout_id = ? AND o.state != 'succeeded')
                    """), arguments: [id]) ?? false
    }
}

import Foundation
import GRDB
import SpotterCore

/// The server's bookkeeping for a pulled row.
public struct ServerStamp: Sendable, Equatable {
    public var serverVersion: Int64?
    /// RFC 3339, as the server wrote it.
    public var updatedAt: String?

    public init(serverVersion: Int64?, updatedAt: String?) {
        self.serverVersion = serverVersion
        self.updatedAt = updatedAt
    }
}

/// One entry of the change feed, in local terms: an entity's current row, or its tombstone.
public enum PulledEntity: Sendable, Equatable {
    case workout(Workout, ServerStamp)
    case set(WorkoutSet, ServerStamp)
    case deletedWorkout(UUID)
    case deletedSet(UUID)
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
            var seen = PageLookups()
            // With nothing queued or refused locally (the usual case for a big pull), no row can be
            // locally owned: skip asking for each one.
            seen.anythingLocal =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM outbox WHERE state IN \(Outbox.queuedStates)
                            OR (kind = 'create' AND state = 'failed_permanent'))
                        """) ?? true
            for entity in entities {
                switch entity {
                case .workout(let workout, let stamp):
                    changed += try merge(workout, stamp: stamp, db: db, now: now) ? 1 : 0
                    seen.workouts[workout.id.wireString] = nil  // may exist now: ask again
                case .set(let set, let stamp):
                    changed += try merge(set, stamp: stamp, db: db, now: now, seen: &seen) ? 1 : 0
                case .deletedWorkout(let id):
                    changed += try mergeWorkoutTombstone(id.wireString, db: db) ? 1 : 0
                    seen.workouts[id.wireString] = nil
                case .deletedSet(let id):
                    let key = id.wireString
                    guard try !locallyOwned(.set, key, db: db) else { continue }
                    try db.cachedStatement(sql: "DELETE FROM sets WHERE id = ?").execute(arguments: [key])
                    changed += db.changesCount
                }
            }
            try db.cachedStatement(
                sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ).execute(arguments: [MetaKey.pullCursor, cursor])
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

    private func mergeWorkoutTombstone(_ id: String, db: Database) throws -> Bool {
        if try locallyOwned(.workout, id, db: db) { return false }
        if try workoutHoldsUnresolvedSets(id, db: db) {
            // Deleting it here would silently take sets the user has not seen resolved
            // (rejected, blocked or still queued); keep it, say why, let them decide.
            try db.cachedStatement(sql: "UPDATE workouts SET sync_error = ? WHERE id = ?").execute(arguments: [
                Self.deletedElsewhere, id,
            ])
            return true
        }
        try db.cachedStatement(sql: "DELETE FROM workouts WHERE id = ?").execute(arguments: [id])
        return db.changesCount > 0
    }

    private func merge(_ workout: Workout, stamp: ServerStamp, db: Database, now: String) throws -> Bool {
        let id = workout.id.wireString
        if try locallyOwned(.workout, id, db: db) { return false }
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
            id, workout.name, Timestamp.format(workout.startedAt), workout.endedAt.map(Timestamp.format), workout.notes,
            stamp.updatedAt ?? now, stamp.serverVersion,
        ])
        return true
    }

    /// Answers looked up once per page: a page carries many sets of few workouts and exercises.
    struct PageLookups {
        var anythingLocal = true
        var workouts: [String: Bool] = [:]
        var exercises: [String: String] = [:]
    }

    private func merge(
        _ set: WorkoutSet, stamp: ServerStamp, db: Database, now: String, seen: inout PageLookups
    ) throws
        -> Bool
    {
        let id = set.id.wireString
        if seen.anythingLocal, try locallyOwned(.set, id, db: db) { return false }
        let workoutID = set.workoutID.wireString
        let workoutExists: Bool
        if let known = seen.workouts[workoutID] {
            workoutExists = known
        } else {
            workoutExists =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ?)"),
                    arguments: [workoutID])
                ?? false
            seen.workouts[workoutID] = workoutExists
        }
        guard workoutExists else { return false }  // its workout is gone here (discarded): nothing to hang it on
        let exercise: String
        if let known = seen.exercises[set.exercise] {
            exercise = known
        } else {
            exercise = try resolveExercise(set.exercise, db: db)
            seen.exercises[set.exercise] = exercise
        }
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
            id, workoutID, exercise, set.position, set.kind.rawValue, set.weight, set.unit.rawValue, set.reps, set.rpe,
            set.distanceM, set.durationS, set.notes, Timestamp.format(set.performedAt), set.estimatedOneRepMaxKg,
            stamp.updatedAt ?? now, stamp.serverVersion,
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

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
    case deletedWorkout(UUID, ServerStamp)
    case deletedSet(UUID, ServerStamp)

    /// One feed entry (`{"workout": {…}}` or `{"set": {…}}`); nil when the server sent something unreadable.
    public init?(change: JSONValue) {
        if let row = change["workout"], row.objectValue != nil {
            self.init(.workout, row: row)
        } else if let row = change["set"], row.objectValue != nil {
            self.init(.set, row: row)
        } else {
            return nil
        }
    }

    /// An entity as the server shows it (a feed row, or the canonical body of a write); nil when
    /// it is not a whole, readable entity.
    public init?(_ type: EntityType, row: JSONValue) {
        guard let id = row["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else { return nil }
        let stamp = ServerStamp(
            serverVersion: row["server_version"]?.intValue.map(Int64.init), updatedAt: row["updated_at"]?.stringValue)
        let deleted = row["deleted"] == .bool(true)
        switch type {
        case .workout:
            if deleted {
                self = .deletedWorkout(id, stamp)
                return
            }
            guard let name = row["name"]?.stringValue,
                let started = row["started_at"]?.stringValue.flatMap(Timestamp.parse)
            else { return nil }
            self = .workout(
                Workout(
                    id: id, name: name, startedAt: started,
                    endedAt: row["ended_at"]?.stringValue.flatMap(Timestamp.parse), notes: row["notes"]?.stringValue),
                stamp)
        case .set:
            if deleted {
                self = .deletedSet(id, stamp)
                return
            }
            guard let workoutID = row["workout_id"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let exercise = row["exercise"]?.stringValue, let position = row["position"]?.intValue,
                let kind = row["kind"]?.stringValue.flatMap(SetKind.init(rawValue:)),
                let weight = row["weight"]?.doubleValue,
                let unit = row["unit"]?.stringValue.flatMap(WeightUnit.init(rawValue:)),
                let reps = row["reps"]?.intValue,
                let performed = row["performed_at"]?.stringValue.flatMap(Timestamp.parse)
            else { return nil }
            self = .set(
                WorkoutSet(
                    id: id, workoutID: workoutID, exercise: exercise, position: position, kind: kind, weight: weight,
                    unit: unit, reps: reps, rpe: row["rpe"]?.doubleValue, distanceM: row["distance_m"]?.doubleValue,
                    durationS: row["duration_s"]?.doubleValue, notes: row["notes"]?.stringValue,
                    performedAt: performed),
                stamp)
        case .favorite:
            return nil
        }
    }

    var entityType: EntityType {
        switch self {
        case .workout, .deletedWorkout: .workout
        case .set, .deletedSet: .set
        }
    }

    var entityID: String {
        switch self {
        case .workout(let workout, _): workout.id.wireString
        case .set(let set, _): set.id.wireString
        case .deletedWorkout(let id, _), .deletedSet(let id, _): id.wireString
        }
    }

    var stamp: ServerStamp {
        switch self {
        case .workout(_, let stamp), .set(_, let stamp), .deletedWorkout(_, let stamp), .deletedSet(_, let stamp):
            stamp
        }
    }

    /// The entry as the feed would carry it, to keep it while it waits.
    var change: JSONValue {
        var row: [String: JSONValue]
        switch self {
        case .workout(let workout, _): row = workout.wireFields
        case .set(let set, _): row = set.wireFields
        case .deletedWorkout(let id, _), .deletedSet(let id, _):
            row = ["id": .string(id.wireString), "deleted": .bool(true)]
        }
        if let version = stamp.serverVersion { row["server_version"] = .int(version) }
        if let updated = stamp.updatedAt { row["updated_at"] = .string(updated) }
        return .object([entityType.rawValue: .object(row)])
    }
}

extension SpotterStore {
    static let deletedElsewhere = "deleted on another device"

    /// Merges a page of the change feed and stores the new cursor, in one transaction.
    ///
    /// No change is ever dropped (SPEC section 4, merge rule): an entity with no queued
    /// operation takes the server's row (a tombstone deletes it); a change to one with queued
    /// operations waits, and is applied once they complete (or taken over by a newer answer of
    /// the server); a set whose workout has not arrived yet waits for it.
    /// - Returns: how many entities changed here.
    @discardableResult
    public func mergePulled(_ entities: [PulledEntity], cursor: String) throws -> Int {
        let now = Timestamp.format(self.now)
        return try writer.write { db in
            var seen = try PageLookups(db: db)
            var changed = 0
            for entity in entities {
                changed += try applyPulled(entity, db: db, now: now, seen: &seen) ? 1 : 0
            }
            try db.cachedStatement(
                sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ).execute(arguments: [pullCursorKey, cursor])
            return changed
        }
    }

    /// Answers looked up once per page: a page carries many sets of few workouts and exercises.
    struct PageLookups {
        /// Whether anything is queued or refused locally; when not (the usual case for a big
        /// pull), no row can be locally owned, so nothing asks for each one.
        var anythingLocal = true
        /// Whether changes wait here; when not, nothing looks for them.
        var anythingWaiting = true
        /// A workout here: true live, false deleted here (its delete still queued), absent unknown.
        var workouts: [String: Bool] = [:]
        var exercises: [String: String] = [:]

        /// Lookups that ask nothing: for an entity known to have nothing queued here.
        init(nothingLocal: Void) {
            anythingLocal = false
        }

        init(db: Database) throws {
            anythingLocal =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM outbox WHERE state IN \(Outbox.queuedStates)
                            OR (kind = \(OperationKind.create.sql) AND state = \(OperationState.failedPermanent.sql)))
                        """) ?? true
            anythingWaiting = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pulled_waiting)") ?? true
        }
    }

    /// Applies one server row here, or keeps it waiting. Returns whether anything changed here.
    func applyPulled(_ entity: PulledEntity, db: Database, now: String, seen: inout PageLookups) throws -> Bool {
        let id = entity.entityID
        if seen.anythingLocal, try locallyOwned(entity.entityType, id, db: db) {
            try keepWaiting(entity, parent: nil, db: db)
            seen.anythingWaiting = true
            return false
        }
        switch entity {
        case .workout(let workout, let stamp):
            try upsert(workout, stamp: stamp, db: db, now: now)
            seen.workouts[id] = true
            try forgetWaiting(.workout, id, db: db, seen: seen)
            if seen.anythingWaiting { try releaseChildren(of: id, db: db, now: now, seen: &seen) }
            return true
        case .set(let set, let stamp):
            let workoutID = set.workoutID.wireString
            guard try workoutIsLive(workoutID, db: db, seen: &seen) else {
                // Its workout has not arrived yet (the feed orders by version, and a renamed
                // workout comes after its sets), or is deleted here with the delete still queued:
                // the set waits for it rather than being lost.
                try keepWaiting(entity, parent: workoutID, db: db)
                seen.anythingWaiting = true
                return false
            }
            try upsert(set, stamp: stamp, db: db, now: now, seen: &seen)
            try forgetWaiting(.set, id, db: db, seen: seen)
            return true
        case .deletedWorkout:
            try settleGivenUpDeletes(.workout, id, db: db)
            try forgetWaiting(.workout, id, db: db, seen: seen)
            if seen.anythingWaiting {
                try db.cachedStatement(sql: "DELETE FROM pulled_waiting WHERE account = ? AND parent_id = ?").execute(
                    arguments: [userID, id])
            }
            seen.workouts[id] = nil
            return try mergeWorkoutTombstone(id, db: db)
        case .deletedSet:
            try settleGivenUpDeletes(.set, id, db: db)
            try forgetWaiting(.set, id, db: db, seen: seen)
            try db.cachedStatement(sql: "DELETE FROM sets WHERE id = ? AND \(visible())").execute(arguments: [id])
            return db.changesCount > 0
        }
    }

    /// A tombstone in the feed answers a delete here that gave up without an answer (its replies
    /// were dropped, the server was away): the machine settles it, so nothing says "failed" for an
    /// entity that is gone everywhere. A refused delete is left as it is: the machine refuses.
    private func settleGivenUpDeletes(_ type: EntityType, _ id: String, db: Database) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ? AND kind = \(OperationKind.delete.sql)
                        AND state = \(OperationState.failedPermanent.sql)
                    """), arguments: [type.rawValue, id])
        for row in rows {
            let op = try OutboxOperation(row: row)
            guard
                (try? OutboxMachine.apply(.seenDeletedOnServer, to: facts(of: op, for: .seenDeletedOnServer, db: db)))
                    != nil
            else { continue }
            try transition(op, .seenDeletedOnServer, db: db, now: now)
        }
    }

    /// Applies a waiting change of an entity once nothing local owns it any more. Called when an
    /// operation on it finished, or it was discarded.
    func settleWaiting(_ type: EntityType, _ id: String, db: Database) throws {
        guard type != .favorite, let entity = try waiting(type, id, db: db),
            try !locallyOwned(type, id, db: db)
        else { return }
        var seen = try PageLookups(db: db)
        _ = try applyPulled(entity, db: db, now: Timestamp.format(self.now), seen: &seen)
    }

    /// The change that waits for an entity, if any.
    func waiting(_ type: EntityType, _ id: String, db: Database) throws -> PulledEntity? {
        try String.fetchOne(
            db.cachedStatement(
                sql: "SELECT change FROM pulled_waiting WHERE account = ? AND entity_type = ? AND entity_id = ?"),
            arguments: [userID, type.rawValue, id]
        ).flatMap { JSONValue.parse($0) }.flatMap { PulledEntity(change: $0) }
    }

    func forgetWaiting(_ type: EntityType, _ id: String, db: Database, seen: PageLookups? = nil) throws {
        guard seen?.anythingWaiting ?? true else { return }
        try db.cachedStatement(
            sql: "DELETE FROM pulled_waiting WHERE account = ? AND entity_type = ? AND entity_id = ?"
        ).execute(arguments: [userID, type.rawValue, id])
    }

    /// Keeps the newest change of an entity until it can be applied (the feed only moves
    /// forward, so a later change replaces an earlier one).
    private func keepWaiting(_ entity: PulledEntity, parent: String?, db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO pulled_waiting (account, entity_type, entity_id, parent_id, server_version, change)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(account, entity_type, entity_id) DO UPDATE SET parent_id = excluded.parent_id,
                    server_version = excluded.server_version, change = excluded.change
                WHERE COALESCE(excluded.server_version, 0) >= COALESCE(pulled_waiting.server_version, 0)
                """
        ).execute(arguments: [
            userID, entity.entityType.rawValue, entity.entityID, parent, entity.stamp.serverVersion,
            entity.change.canonicalString,
        ])
    }

    /// Sets that waited for this workout to arrive.
    private func releaseChildren(of workoutID: String, db: Database, now: String, seen: inout PageLookups) throws {
        let children = try String.fetchAll(
            db.cachedStatement(
                sql: "SELECT change FROM pulled_waiting WHERE account = ? AND parent_id = ? ORDER BY server_version"),
            arguments: [userID, workoutID])
        for text in children {
            guard let entity = JSONValue.parse(text).flatMap({ PulledEntity(change: $0) }) else { continue }
            _ = try applyPulled(entity, db: db, now: now, seen: &seen)
        }
    }

    private func workoutIsLive(_ id: String, db: Database, seen: inout PageLookups) throws -> Bool {
        if let known = seen.workouts[id] { return known }
        let live = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT deleted_at IS NULL FROM workouts WHERE id = ?"), arguments: [id])
        if let live { seen.workouts[id] = live }
        return live ?? false
    }

    /// Whether local state owns the entity: something is queued for it, or the server never accepted it.
    func locallyOwned(_ type: EntityType, _ id: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM outbox WHERE entity_type = ? AND entity_id = ?
                        AND (state IN \(Outbox.queuedStates) OR (kind = \(OperationKind.create.sql) AND state = \(OperationState.failedPermanent.sql))))
                    """), arguments: [type.rawValue, id]) ?? false
    }

    private func mergeWorkoutTombstone(_ id: String, db: Database) throws -> Bool {
        if try workoutHoldsUnresolvedSets(id, db: db) {
            // Deleting it here would silently take sets the user has not seen resolved
            // (rejected, blocked or still queued); keep it, say why — and not as "synced": the
            // server no longer has it — let them decide.
            try db.cachedStatement(
                sql: "UPDATE workouts SET sync_state = \(SyncState.rejected.sql), sync_error = ? WHERE id = ?"
            ).execute(arguments: [Self.deletedElsewhere, id])
            return true
        }
        try db.cachedStatement(sql: "DELETE FROM workouts WHERE id = ? AND \(visible())").execute(arguments: [id])
        return db.changesCount > 0
    }

    /// Takes the server's row whole: right for an entity with nothing queued, since the row is
    /// the server's current state of every field.
    func upsert(_ workout: Workout, stamp: ServerStamp, db: Database, now: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO workouts (id, name, started_at, ended_at, notes, updated_at, server_version, sync_state,
                    account)
                VALUES (?, ?, ?, ?, ?, ?, ?, \(SyncState.synced.sql), ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, started_at = excluded.started_at,
                    ended_at = excluded.ended_at, notes = excluded.notes, updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                    sync_error = NULL, account = excluded.account
                WHERE \(visible("workouts."))
                """
        ).execute(arguments: [
            workout.id.wireString, workout.name, Timestamp.format(workout.startedAt),
            workout.endedAt.map(Timestamp.format), workout.notes, stamp.updatedAt ?? now, stamp.serverVersion, userID,
        ])
        if db.changesCount == 0 { reportHeldByAnotherAccount("workouts", workout.id) }
    }

    /// A pulled row whose id another account on this device already holds (both imported the same
    /// file: import ids come from content) cannot be stored beside it: said, never dropped silently.
    func reportHeldByAnotherAccount(_ table: String, _ id: UUID) {
        onUnreadable(
            UnreadableRow(
                table: table, id: id.wireString,
                reason:
                    "this id is held here by another account's data (the same file imported by both); "
                    + "it is kept on the server and shows on this account's other devices"))
    }

    func upsert(_ set: WorkoutSet, stamp: ServerStamp, db: Database, now: String, seen: inout PageLookups) throws {
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
                    duration_s, notes, performed_at, e1rm_kg, updated_at, server_version, sync_state, account)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(SyncState.synced.sql), ?)
                ON CONFLICT(id) DO UPDATE SET workout_id = excluded.workout_id, exercise = excluded.exercise,
                    position = excluded.position, kind = excluded.kind, weight = excluded.weight, unit = excluded.unit,
                    reps = excluded.reps, rpe = excluded.rpe, distance_m = excluded.distance_m,
                    duration_s = excluded.duration_s, notes = excluded.notes, performed_at = excluded.performed_at,
                    e1rm_kg = excluded.e1rm_kg, updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                    sync_error = NULL, account = excluded.account
                WHERE \(visible("sets."))
                """
        ).execute(arguments: [
            set.id.wireString, set.workoutID.wireString, exercise, set.position, set.kind.rawValue, set.weight,
            set.unit.rawValue, set.reps, set.rpe, set.distanceM, set.durationS, set.notes,
            Timestamp.format(set.performedAt), set.estimatedOneRepMaxKg, stamp.updatedAt ?? now, stamp.serverVersion,
            userID,
        ])
        if db.changesCount == 0 { reportHeldByAnotherAccount("sets", set.id) }
    }

    func workoutHoldsUnresolvedSets(_ id: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM outbox o JOIN sets s ON s.id = o.entity_id
                        WHERE o.entity_type = \(EntityType.set.sql) AND s.workout_id = ? AND o.state != \(OperationState.succeeded.sql))
                    """), arguments: [id]) ?? false
    }
}

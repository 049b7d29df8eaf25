import Foundation
import GRDB
import SpotterCore

/// Sets logged here into a workout another device deleted are the user's, and are never dropped
/// with that workout: they move into a restored copy of it (same name with " (restored)", a new
/// id), which syncs like any workout logged here. What was kept is said, once in the UI (a
/// notice) and once by `spotter sync`.
public struct Restorations: StorePart {
    let store: SpotterStore
}

extension SpotterStore {
    public var restorations: Restorations { Restorations(store: self) }
}

/// One workout deleted on another device whose sets this device kept.
public struct RestoredWorkout: Sendable, Equatable {
    /// The deleted workout's name, and the name of the copy made here.
    public var name: String
    public var restoredName: String
    public var restoredID: String
    /// Sets moved into the copy and not yet told by `spotter sync`.
    public var sets: Int

    /// "2 sets of 'Push' were kept in 'Push (restored)': the workout was deleted on another device".
    public var sentence: String { Self.sentence(sets: sets, name: name, restoredName: restoredName) }

    static func sentence(sets: Int, name: String, restoredName: String) -> String {
        let counted = sets == 1 ? "1 set of '\(name)' was" : "\(sets) sets of '\(name)' were"
        return "\(counted) kept in '\(restoredName)': the workout was deleted on another device"
    }
}

extension SpotterStore {
    static let restoredSuffix = " (restored)"

    /// Why a set's operation fails for good when the server refused it because its workout is
    /// gone and the set's row is no longer here to keep.
    static let setGoneWithItsWorkout =
        "the set is no longer on this device and its workout was deleted on another device"

    /// The name of the copy of a deleted workout: its name and " (restored)", within the limit.
    static func restoredName(_ name: String) -> String {
        if name.hasSuffix(restoredSuffix) { return name }
        let room = Validation.maxNameLength - restoredSuffix.unicodeScalars.count
        var base = String(String.UnicodeScalarView(name.unicodeScalars.prefix(room)))
        base = base.trimmingCharacters(in: .whitespaces)
        return (base.isEmpty ? "Workout" : base) + restoredSuffix
    }

    /// Keeps the sets of `workoutID`, which the server no longer has (another device deleted it),
    /// that the server never had either: their create never left this device (no try, or only
    /// tries that could not connect), or was refused because the workout is gone. They move into
    /// the workout's restored copy (made now, or the one made before), and each create goes out
    /// again naming the copy: unsent, the same operation rewritten; refused, a new operation with
    /// a new key. `answered` is a set's operation the server just refused because the workout is
    /// gone: it goes out again the same way (an edit as a new update).
    ///
    /// A create that was sent and has no answer yet may have landed before the delete (a dropped
    /// reply), and the device that deleted the workout may have seen the set and meant it to go.
    /// It stays queued under its own key, and its answer decides: the server's replay says it
    /// landed, and it goes with the workout as the server says; a refusal because the workout is
    /// gone comes back here as `answered`. (Sent again under a new key naming a copy, the server
    /// would only answer that the id is taken, and the copy would be left empty on every device.)
    ///
    /// Sets with nothing of theirs queued here were on the server and went with the workout
    /// there: they follow the tombstone. Sets the user deleted here stay deleted, and an imported
    /// set's id comes from its content: the server's tombstone answers it (see `Coalescing`).
    /// - Returns: what to tell the user.
    func keepSetsOfDeletedWorkout(
        _ workoutID: String, answered: OutboxOperation? = nil, db: Database, now: Date
    ) throws -> [StoreNotice] {
        let creates = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT o.* FROM outbox o JOIN sets s ON s.id = o.entity_id
                    WHERE o.entity_type = \(EntityType.set.sql) AND o.kind = \(OperationKind.create.sql)
                        AND s.workout_id = ? AND s.deleted_at IS NULL AND s.imported = 0 AND o.op_id != ?
                        AND ((o.first_sent_at IS NULL
                                AND (o.state IN \(OperationState.sqlList([.pending, .failedTransient, .blocked]))
                                    OR (o.state = \(OperationState.failedPermanent.sql) AND o.no_answer = 1)))
                            OR (o.state = \(OperationState.failedPermanent.sql)
                                AND o.last_status = 422 AND o.last_error LIKE 'workout_id%'))
                    ORDER BY o.seq
                    """), arguments: [workoutID, answered?.opID ?? ""]
        ).map(OutboxOperation.init(row:))
        var moving = creates
        if let answered { moving.append(answered) }
        guard !moving.isEmpty else { return [] }
        let restored = try restoredCopy(of: workoutID, holding: moving.map(\.entityID), user: moving[0].userID, db: db)
        let setIDs = Array(Set(moving.map(\.entityID)))
        try db.cachedStatement(
            sql: """
                UPDATE sets SET workout_id = ?, sync_state = \(SyncState.pending.sql), sync_error = NULL
                WHERE id IN (\(Placeholders.list(setIDs.count)))
                """
        ).execute(arguments: [restored.id] + StatementArguments(setIDs))
        for op in moving {
            switch op.kind {
            case .create:
                try sendCreateAgain(op, dependsOn: restored.createOp, sent: op.opID == answered?.opID, db: db, now: now)
            case .update:
                // The edit goes out again as a new update (a new key, a clock stamp of now), after
                // the copy's create: the same fields, naming the copy instead.
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
                var payload = op.payload
                payload["workout_id"] = .string(restored.id)
                _ = try Outbox.enqueue(
                    db, user: op.userID, type: .set, id: op.entityID, kind: .update, payload: payload,
                    before: op.before, dependency: restored.createOp, now: now)
                try Outbox.refreshSyncState(type: .set, id: op.entityID, db: db)
            case .delete:
                break
            }
        }
        try db.cachedStatement(sql: "UPDATE restored_workouts SET untold = untold + ? WHERE workout_id = ?")
            .execute(arguments: [setIDs.count, workoutID])
        if answered != nil { try dropWorkoutTheServerNeverHad(workoutID, db: db) }
        return [
            StoreNotice(
                RestoredWorkout.sentence(sets: setIDs.count, name: restored.name, restoredName: restored.restoredName))
        ]
    }

    /// A workout whose create was discarded here after it got no answer, now known never to have
    /// reached the server (a set of it was just refused because the workout is missing there):
    /// once its sets are kept in the copy, nothing of it is left to keep, and it would otherwise
    /// stay on this device forever, never sent. One the server had (a version), one with a set
    /// still in it, or one whose create is still on its way stays.
    private func dropWorkoutTheServerNeverHad(_ workoutID: String, db: Database) throws {
        try db.cachedStatement(
            sql: """
                DELETE FROM workouts WHERE id = ? AND server_version IS NULL
                    AND NOT EXISTS (SELECT 1 FROM sets WHERE workout_id = ? AND deleted_at IS NULL)
                    AND NOT EXISTS (SELECT 1 FROM outbox WHERE entity_type = \(EntityType.workout.sql)
                        AND entity_id = ? AND state != \(OperationState.succeeded.sql))
                """
        ).execute(arguments: [workoutID, workoutID, workoutID])
    }

    /// The copy that holds the kept sets of `workoutID`: the one made before, while it is still
    /// here, or a new one — the deleted workout's name with " (restored)", a new id, started when
    /// the earliest of `sets` was performed, its end and notes copied (an end before that start
    /// is left out) — queued as a create like any workout logged here.
    private func restoredCopy(
        of workoutID: String, holding sets: [String], user: String, db: Database
    ) throws -> (id: String, createOp: String?, name: String, restoredName: String) {
        if let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT r.restored_id, r.name, r.restored_name FROM restored_workouts r
                    JOIN workouts w ON w.id = r.restored_id AND w.deleted_at IS NULL
                    WHERE r.workout_id = ?
                    """), arguments: [workoutID])
        {
            // A row that does not read is said, never passed over: another copy would be a second
            // restored workout.
            guard let id = row.cell("restored_id", as: String.self), let name = row.cell("name", as: String.self),
                let restoredName = row.cell("restored_name", as: String.self)
            else { throw UnreadableRow(table: "restored_workouts", id: workoutID, reason: "a column does not read") }
            return (id, try unfinishedCreate(of: .workout, id, db: db), name, restoredName)
        }
        let deleted = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT name, ended_at, notes FROM workouts WHERE id = ?"), arguments: [workoutID])
        let name = deleted?.cell("name", as: String.self) ?? "Workout"
        let earliest = try String.fetchOne(
            db,
            sql: "SELECT MIN(performed_at) FROM sets WHERE id IN (\(Placeholders.list(sets.count)))",
            arguments: StatementArguments(sets))
        let startedAt = earliest.flatMap(Timestamp.parse) ?? now
        let endedAt = deleted?.cell("ended_at", as: String.self).flatMap(Timestamp.parse).flatMap {
            $0 >= startedAt ? $0 : nil
        }
        let copy = Workout(
            id: .timeOrdered(), name: Self.restoredName(name), startedAt: Timestamp.truncated(startedAt),
            endedAt: endedAt, notes: deleted?.cell("notes", as: String.self))
        try db.cachedStatement(
            sql: """
                INSERT INTO workouts (id, name, started_at, ended_at, notes, updated_at, sync_state, account)
                VALUES (?, ?, ?, ?, ?, ?, \(SyncState.pending.sql), ?)
                """
        ).execute(arguments: [
            copy.id.wireString, copy.name, Timestamp.format(copy.startedAt), copy.endedAt.map(Timestamp.format),
            copy.notes, Timestamp.format(now), userID,
        ])
        let (createOp, _) = try Outbox.appendCreate(
            db, user: user, type: .workout, id: copy.id.wireString, payload: copy.wireFields, dependency: nil, now: now)
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO restored_workouts (workout_id, restored_id, account, name, restored_name, untold)
                VALUES (?, ?, ?, ?, ?, 0)
                """
        ).execute(arguments: [workoutID, copy.id.wireString, userID, name, copy.name])
        return (copy.id.wireString, createOp, name, copy.name)
    }

    /// An entity's create that has not succeeded yet, if any.
    private func unfinishedCreate(of type: EntityType, _ id: String, db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT op_id FROM outbox WHERE entity_type = ? AND entity_id = ? AND kind = \(OperationKind.create.sql)
                        AND state != \(OperationState.succeeded.sql) ORDER BY seq DESC LIMIT 1
                    """), arguments: [type.rawValue, id])
    }

    /// A kept set's create, naming its new workout and waiting for that workout's create. One that
    /// never left is rewritten in place (nobody has seen its key), due as soon as the copy is (a
    /// wait from tries that could not connect is over: the server answers); one that was refused
    /// becomes a new operation with a new key in the same place in the queue, so what is queued
    /// after it still comes after it, and a late answer to the old one finds nothing.
    private func sendCreateAgain(
        _ op: OutboxOperation, dependsOn: String?, sent: Bool, db: Database, now: Date
    ) throws {
        guard let fields = try EntityTable.wireFields(.set, id: op.entityID, db: db) else { return }
        let payload = JSONValue.object(fields).canonicalString
        let stamp = now.timeIntervalSince1970
        if !sent && op.firstSentAt == nil && op.state != .failedPermanent {
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET payload = ?, depends_on = ?, state = \(OperationState.pending.sql),
                        next_attempt_at = NULL, last_error = NULL, updated_at = ?
                    WHERE op_id = ?
                    """
            ).execute(arguments: [payload, dependsOn, stamp, op.opID])
            return
        }
        let newOp = UUID.timeOrdered().wireString
        try db.cachedStatement(
            sql: """
                UPDATE outbox SET op_id = ?, idempotency_key = ?, payload = ?, depends_on = ?,
                    state = \(OperationState.pending.sql), attempt_count = 0, first_sent_at = NULL,
                    next_attempt_at = NULL, lease_expires_at = NULL, lease_owner = NULL, last_status = NULL,
                    last_error = NULL, completed_at = NULL, no_answer = 0, created_at = ?, updated_at = ?
                WHERE op_id = ?
                """
        ).execute(arguments: [
            newOp, UUID.timeOrdered().wireString, payload, dependsOn, stamp, stamp, op.opID,
        ])
        try db.cachedStatement(sql: "UPDATE outbox SET depends_on = ?, updated_at = ? WHERE depends_on = ?").execute(
            arguments: [newOp, stamp, op.opID])
        try releaseBlocked(behind: newOp, db: db, now: now)
    }
}

extension Restorations {
    /// Workouts deleted on another device whose sets were kept here and not yet told by
    /// `spotter sync`; they count as told once returned.
    public func takeUntold() throws -> [RestoredWorkout] {
        try writer.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, restored_name, restored_id, untold FROM restored_workouts
                    WHERE untold > 0 AND \(store.visible())
                    ORDER BY rowid
                    """)
            try db.execute(sql: "UPDATE restored_workouts SET untold = 0 WHERE untold > 0 AND \(store.visible())")
            // A row that does not read (a damaged file) is not told.
            return rows.compactMap { row in
                guard let name = row.cell("name", as: String.self),
                    let restoredName = row.cell("restored_name", as: String.self),
                    let restoredID = row.cell("restored_id", as: String.self)
                else { return nil }
                return RestoredWorkout(
                    name: name, restoredName: restoredName, restoredID: restoredID,
                    sets: row.cell("untold", as: Int.self) ?? 0)
            }
        }
    }
}

extension OutboxQueue {
    /// Sets whose create the server refused because their workout was gone, recorded so before
    /// this device kept such sets (they showed as rejected): they are kept now, as they would be
    /// today. Returns what to tell the user.
    public func keepSetsRefusedForDeletedWorkouts() throws -> [StoreNotice] {
        let any = try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (\(Self.refusedForDeletedWorkout))", arguments: [userID]) ?? false
        }
        guard any else { return [] }
        let now = self.now
        return try writer.write { db in
            let workouts = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT s.workout_id FROM (\(Self.refusedForDeletedWorkout)) o JOIN sets s ON s.id = o.entity_id
                    """, arguments: [userID])
            var notices: [StoreNotice] = []
            for workout in workouts {
                notices += try store.keepSetsOfDeletedWorkout(workout, db: db, now: now)
                try store.forgetWorkoutDeletedElsewhere(workout, db: db)
            }
            return notices
        }
    }

    private static let refusedForDeletedWorkout = """
        SELECT entity_id FROM outbox WHERE user_id = ? AND entity_type = \(EntityType.set.sql)
            AND kind = \(OperationKind.create.sql) AND state = \(OperationState.failedPermanent.sql)
            AND last_status = 422 AND last_error LIKE 'workout_id%'
        """
}

import Foundation
import GRDB
import SpotterCore

/// What the name a change feed's server gives its database says of the server this device syncs with.
public enum ServerIdentityCheck: Sendable, Equatable {
    /// The name seen before.
    case known
    /// The first name seen (a new device, or one that synced before servers named their
    /// database): kept, nothing else changes.
    case first
    /// Another name: the database this device synced with is gone (the server was reset, or
    /// its file replaced). The feed is read again from its start, and `resent` rows and stars
    /// this device calls synced were queued again, since the server no longer has them.
    case replaced(resent: Int)
}

extension SpotterStore {
    /// Where the name of the server's database last seen on the feed is kept, per account.
    var serverIdentityKey: String {
        userID == QueueOwner.deviceID ? MetaKey.serverIdentity : "\(MetaKey.serverIdentity)|\(userID)"
    }
}

extension MetaKey {
    static let serverIdentity = "server_identity"
}

extension PullMerge {
    /// The name of the server's database this device last saw on the change feed.
    public func knownServerIdentity() throws -> String? {
        try writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [store.serverIdentityKey])
        }
    }

    /// Compares `identity`, the name the change feed's server gives its database, with the one
    /// seen before, and keeps it.
    ///
    /// When it differs, what this device calls synced is not on that server: the cursor (which
    /// counts in the lost database's versions) is forgotten, and every live row of this account
    /// that is synced, with nothing of its own queued, gets a create again (a set after its
    /// workout's), as a login adopts the device's rows; so do the starred exercises. A server
    /// that already holds the same row (another device sent it again first) answers its create
    /// with the row. All in one transaction.
    public func checkServerIdentity(_ identity: String) throws -> ServerIdentityCheck {
        let now = self.now
        return try writer.write { db in
            let key = store.serverIdentityKey
            let known = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
            if known == identity { return .known }
            try db.execute(
                sql:
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, identity])
            guard known != nil else { return .first }
            return .replaced(resent: try resendAll(db: db, now: now))
        }
    }

    /// The server answered this device's cursor with a head below it: its database went back to
    /// an older copy (restored from a backup), under the same name. What this device calls synced
    /// may be missing there, as after a replacement: the same resend, in one transaction.
    /// Returns how many rows and stars were queued again.
    public func serverWentBack() throws -> Int {
        let now = self.now
        return try writer.write { db in try resendAll(db: db, now: now) }
    }

    /// Forgets the cursor and queues a create for every live row of this account the server had:
    /// synced with nothing of its own queued, or with only edits queued (they go in the create);
    /// a set after its workout's, and a set queued into such a workout waits for it too; and a
    /// star for every starred exercise.
    private func resendAll(db: Database, now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [store.pullCursorKey])
        var resent = 0
        var workoutCreates: [String: String] = [:]
        let orders: [(EntityType, String)] = [
            (.workout, "started_at, id"), (.set, "performed_at, position, id"), (.routine, "id"),
            (.bodyWeight, "measured_at, id"),
        ]
        for (type, order) in orders {
            guard let table = EntityTable.table(type) else { continue }
            // Live rows the server had: synced ones with nothing queued, and ones whose only
            // queued operations are edits (none on the wire): an edit of a row the server no
            // longer has would be refused and take the row away here, so it goes as a create of
            // the row as it is now, the edit in it.
            let edited = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT o.entity_id FROM outbox o JOIN \(table) AS row ON row.id = o.entity_id
                    WHERE o.user_id = ? AND o.entity_type = ? AND o.state != \(OperationState.succeeded.sql)
                    AND row.account = ? AND row.deleted_at IS NULL
                    GROUP BY o.entity_id
                    HAVING SUM(o.kind != \(OperationKind.update.sql)) = 0
                        AND SUM(o.state = \(OperationState.inFlight.sql)) = 0
                    """, arguments: [userID, type.rawValue, userID])
            for id in edited {
                try db.execute(
                    sql: """
                        DELETE FROM outbox WHERE user_id = ? AND entity_type = ? AND entity_id = ?
                        AND state != \(OperationState.succeeded.sql)
                        """, arguments: [userID, type.rawValue, id])
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM \(table) AS row WHERE account = ? AND deleted_at IS NULL
                    AND (sync_state = \(SyncState.synced.sql) OR row.id IN (SELECT value FROM json_each(?)))
                    AND NOT EXISTS (SELECT 1 FROM outbox WHERE entity_type = ? AND entity_id = row.id
                        AND state != \(OperationState.succeeded.sql))
                    ORDER BY \(order)
                    """,
                arguments: [userID, JSONValue.array(edited.map(JSONValue.string)).canonicalString, type.rawValue])
            for row in rows {
                var dependency: String?
                let payload: [String: JSONValue]
                switch type {
                case .workout: payload = try Workout(row: row).wireFields
                case .set:
                    let set = try WorkoutSet(row: row)
                    payload = set.wireFields
                    let workoutKey = set.workoutID.wireString
                    dependency =
                        try workoutCreates[workoutKey]
                        ?? SpotterStore.unfinishedWorkoutCreate(workoutKey, db: db)
                case .routine: payload = try Routine(row: row).wireFields
                case .bodyWeight: payload = try BodyWeight(row: row).wireFields
                case .favorite: continue
                }
                guard let id = payload["id"]?.stringValue else { continue }
                try db.execute(
                    sql: """
                        UPDATE \(table) SET server_version = NULL, sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ? AND account = ?
                        """, arguments: [id, userID])
                let created = try Outbox.appendCreate(
                    db, user: userID, type: type, id: id, payload: payload, dependency: dependency, now: now)
                if type == .workout {
                    workoutCreates[id] = created.opID
                    // A set logged into it and not sent yet waits for it now: sent first, the
                    // server would refuse it for a workout it does not have. (One on the wire has
                    // its answer ignored and comes back to the queue: it waits too.)
                    try db.execute(
                        sql: """
                            UPDATE outbox SET depends_on = ? WHERE user_id = ? AND entity_type = \(EntityType.set.sql)
                            AND kind = \(OperationKind.create.sql) AND depends_on IS NULL
                            AND state IN (\(OperationState.pending.sql), \(OperationState.failedTransient.sql),
                                \(OperationState.inFlight.sql))
                            AND entity_id IN (SELECT id FROM sets WHERE workout_id = ?)
                            """, arguments: [created.opID, userID, id])
                }
                resent += 1
            }
        }
        resent += try store.requeueServerFavorites(db: db, now: now)
        return resent
    }
}

import Foundation
import GRDB
import SpotterCore

/// Operations waiting for an owner other than the current one ("stranded").
public struct StrandedQueue: Sendable, Equatable {
    public var owner: QueueOwner
    /// Operations not yet succeeded (queued, failed or blocked).
    public var operations: Int

    public init(owner: QueueOwner, operations: Int) {
        self.owner = owner
        self.operations = operations
    }
}

/// What adopting the device's own data into an account did.
public struct Adoption: Sendable, Equatable {
    public var workouts = 0
    public var sets = 0
    /// Starred-exercise changes still to send.
    public var favorites = 0
    public var routines = 0
    public var bodyWeights = 0
    public var operations: Int { workouts + sets + favorites + routines + bodyWeights }
    public init() {}
}

extension SpotterStore {
    /// This store's owner, parsed.
    public var owner: QueueOwner { QueueOwner(storedID: userID) }

    /// SQL condition on a workouts/sets row: it is the current owner's, or the device's not yet
    /// adopted data. Every read that feeds a screen or a command's output filters by it, so one
    /// account never sees (or edits) another's data. The owner is spelled into the text (quoted),
    /// so cached statements stay per owner. `+` keeps SQLite off the account index here: a device
    /// holds one or two owners, so the list's own indexes (by start, by workout) stay the fast path;
    /// the account index is for moving an owner's rows.
    /// `visible`, plus the rows of `waitingOwners`: for listings only (never for edits).
    func listed(_ alias: String = "") -> String {
        guard !waitingOwners.isEmpty else { return visible(alias) }
        let owners = ([QueueOwner.deviceID, userID] + waitingOwners).map {
            "'" + $0.replacingOccurrences(of: "'", with: "''") + "'"
        }
        return "+\(alias)account IN (\(owners.joined(separator: ", ")))"
    }

    func visible(_ alias: String = "") -> String {
        let quoted = "'" + userID.replacingOccurrences(of: "'", with: "''") + "'"
        return "+\(alias)account IN ('\(QueueOwner.deviceID)', \(quoted))"
    }

    /// The meta key of the mark that the server refused this owner's token: each account's own,
    /// so another account's refusal (a mistyped --token) never shows on this one.
    public var authRequiredKey: String { "\(MetaKey.authRequired)|\(userID)" }

    /// The meta key of this owner's pull cursor: each account reads its own change feed from its
    /// own position (the device's data keeps the key older databases used).
    public var pullCursorKey: String {
        userID == QueueOwner.deviceID ? MetaKey.pullCursor : "\(MetaKey.pullCursor)|\(userID)"
    }

    static func tokenMetaPrefix(_ server: String) -> String { "token|\(server)|" }
}

extension Accounts {
    /// Queues of other owners that still have work: what waits for an account that is not the current one.
    public func strandedQueues() throws -> [StrandedQueue] {
        try writer.read { db in
            var queues = try Row.fetchAll(
                db,
                sql: """
                    SELECT user_id, COUNT(*) AS n FROM outbox WHERE user_id != ? AND state != \(OperationState.succeeded.sql)
                    GROUP BY user_id ORDER BY MIN(seq)
                    """, arguments: [userID]
            ).map { StrandedQueue(owner: QueueOwner(storedID: $0["user_id"]), operations: $0["n"]) }
            // Under an account, what was logged with none is not on the account's server, even
            // where the embedded server took it (then nothing of it is queued): it waits for the
            // login that adopts it, counted as the operations that adoption queues.
            guard userID != QueueOwner.deviceID else { return queues }
            let unadopted = try Self.unadoptedDeviceOperations(db)
            let place = queues.firstIndex { $0.owner == .device }
            queues.removeAll { $0.owner == .device }
            if unadopted > 0 {
                queues.insert(StrandedQueue(owner: .device, operations: unadopted), at: min(place ?? 0, queues.count))
            }
            return queues
        }
    }

    /// What `adoptDeviceData` would queue: a create for each live row logged with no account
    /// (workouts, sets, routines, weigh-ins), the starred-exercise changes still to send, and
    /// (when any of those) a star for each starred exercise the embedded server keeps.
    static func unadoptedDeviceOperations(_ db: Database) throws -> Int {
        let device = QueueOwner.deviceID
        var count = 0
        for table in ["workouts", "sets", "routines", BodyWeight.Column.table] {
            count +=
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM \(table) WHERE account = ? AND deleted_at IS NULL",
                    arguments: [device]) ?? 0
        }
        count +=
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM outbox WHERE user_id = ? AND entity_type = \(EntityType.favorite.sql)
                    AND state != \(OperationState.succeeded.sql)
                    """, arguments: [device]) ?? 0
        // With anything of the device's to adopt, the stars its embedded server keeps go too.
        if count > 0 {
            count +=
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM favorites f
                        WHERE NOT EXISTS (SELECT 1 FROM favorite_pending p WHERE p.exercise = f.exercise)
                        """) ?? 0
        }
        return count
    }

    /// Moves every row of `owners` — queue and data — to this store's owner. For owners that are
    /// this account under another name: a token queued before its user was known, a token the
    /// server refused (the user then corrected it), an older version's URL-and-token hash.
    /// Operations keep their idempotency keys: they may already have reached the server.
    @discardableResult
    public func reassign(from owners: [String]) throws -> Int {
        let others = owners.filter { $0 != userID }
        guard !others.isEmpty else { return 0 }
        return try writer.write { db in
            let marks = databaseQuestionMarks(count: others.count)
            let values = StatementArguments(others)
            try db.execute(
                sql:
                    "UPDATE outbox SET user_id = ? WHERE user_id IN (\(marks)) AND state != \(OperationState.succeeded.sql)",
                arguments: StatementArguments([userID]) + values)
            let moved = db.changesCount
            try db.execute(
                sql: "UPDATE outbox SET user_id = ? WHERE user_id IN (\(marks))",
                arguments: StatementArguments([userID]) + values)
            // The undo journal follows its rows: an action taken under the other name is still
            // this device's to take back. So do what was pulled under it: the conflicts it listed,
            // the changes waiting for their parent, the restored copies it made.
            for table in [
                "workouts", "sets", "routines", BodyWeight.Column.table, "undo_journal", "conflicts", "pulled_waiting",
                "restored_workouts",
            ] {
                try db.execute(
                    sql: "UPDATE \(table) SET account = ? WHERE account IN (\(marks))",
                    arguments: StatementArguments([userID]) + values)
            }
            // Files imported under those owners derived their ids from them: remember them, so a
            // second import of the same file still finds its workouts.
            let aliases = Array(Set(try store.importAliases(db: db) + others)).sorted()
            try db.execute(
                sql:
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [
                    SpotterStore.aliasesKey(userID), JSONValue.array(aliases.map { .string($0) }).canonicalString,
                ])
            return moved
        }
    }

    /// Operations waiting out a backoff after a 401 become due now: the token they were refused
    /// with was wrong or expired, and the server has just accepted this account's token (a
    /// corrected token syncs at once, not after the next try of a backoff meant for a server).
    public func releaseUnauthorizedBackoff() throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET next_attempt_at = NULL
                    WHERE user_id = ? AND state = \(OperationState.failedTransient.sql) AND last_status = 401
                    """, arguments: [userID])
        }
    }

    /// Owners whose rows belong to this account under another name: the unverified fingerprints
    /// of this server whose token the server refused (typos the user has since corrected), plus
    /// the given ones.
    public func refusedTokenOwners(server: String) throws -> [String] {
        try writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT key FROM meta WHERE substr(key, 1, length(?1)) = ?1 AND value = 'refused'",
                arguments: [SpotterStore.tokenMetaPrefix(server)]
            ).map { key in
                let fingerprint = String(key.dropFirst(SpotterStore.tokenMetaPrefix(server).count))
                return QueueOwner.unverified(server: server, tokenFingerprint: fingerprint).storedID
            }
        }
    }

    /// Remembers what the server said about a token (its user, or "refused"), by fingerprint.
    public func recordToken(server: String, fingerprint: String, user: String?) throws {
        try store.preferences.setMeta(
            SpotterStore.tokenMetaPrefix(server) + fingerprint, user.map { "user|\($0)" } ?? "refused")
    }

    /// The user a token was last verified as, when the server has said.
    public func knownUser(server: String, fingerprint: String) throws -> String? {
        guard let value = try store.preferences.meta(SpotterStore.tokenMetaPrefix(server) + fingerprint),
            value.hasPrefix("user|")
        else {
            return nil
        }
        return String(value.dropFirst("user|".count))
    }

    /// Adopts the device's own data into this store's account (the first login, or a login after
    /// data was logged with no account): every live workout and set of the device is queued as
    /// a create for this account — also those already synced with the embedded server, which the
    /// account's server has never seen — so the account's server ends with exactly what the
    /// user sees. Tombstones of the device's data are dropped (that server never had them).
    @discardableResult
    public func adoptDeviceData() throws -> Adoption {
        guard userID != QueueOwner.deviceID else { return Adoption() }
        let now = self.now
        let device = QueueOwner.deviceID
        return try writer.write { db in
            var adoption = Adoption()
            // Stars the embedded server keeps are the device's too: when there is anything of the
            // device's to adopt, they go to the account as well (the account's list replaces the
            // local one at its next pull, and would drop them).
            if try Self.unadoptedDeviceOperations(db) > 0 {
                adoption.favorites += try store.requeueServerFavorites(db: db, now: now)
            }
            // What the embedded server still had to do for the device is replaced by the creates below.
            try db.execute(
                sql: """
                    DELETE FROM outbox WHERE user_id = ? AND entity_type IN \(EntityType.sqlList([.workout, .set])) AND state != \(OperationState.succeeded.sql)
                    """, arguments: [device])
            try db.execute(
                sql: "DELETE FROM workouts WHERE account = ? AND deleted_at IS NOT NULL", arguments: [device])
            try db.execute(sql: "DELETE FROM sets WHERE account = ? AND deleted_at IS NOT NULL", arguments: [device])
            var workoutCreates: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM workouts WHERE account = ? ORDER BY started_at", arguments: [device])
            {
                let workout = try Workout(row: row)
                let id = workout.id.wireString
                try db.execute(
                    sql: """
                        UPDATE workouts SET account = ?, server_version = NULL, sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ?
                        """, arguments: [userID, id])
                workoutCreates[id] =
                    try Outbox.appendCreate(
                        db, user: userID, type: .workout, id: id, payload: workout.wireFields, dependency: nil, now: now
                    ).opID
                adoption.workouts += 1
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM sets WHERE account = ? ORDER BY performed_at, position", arguments: [device])
            {
                let set = try WorkoutSet(row: row)
                let id = set.id.wireString
                let workoutKey = set.workoutID.wireString
                let dependency =
                    try workoutCreates[workoutKey]
                    ?? String.fetchOne(
                        db,
                        sql: """
                            SELECT op_id FROM outbox WHERE entity_type = \(EntityType.workout.sql) AND entity_id = ? AND kind = \(OperationKind.create.sql)
                            AND state != \(OperationState.succeeded.sql) ORDER BY seq DESC LIMIT 1
                            """, arguments: [workoutKey])
                try db.execute(
                    sql: """
                        UPDATE sets SET account = ?, server_version = NULL, sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ?
                        """, arguments: [userID, id])
                _ = try Outbox.appendCreate(
                    db, user: userID, type: .set, id: id, payload: set.wireFields, dependency: dependency, now: now)
                adoption.sets += 1
            }
            try db.execute(
                sql:
                    "UPDATE outbox SET user_id = ? WHERE user_id = ? AND entity_type = \(EntityType.favorite.sql) AND state != \(OperationState.succeeded.sql)",
                arguments: [userID, device])
            adoption.favorites += db.changesCount
            adoption.routines = try store.adoptDeviceRoutines(db: db, now: now)
            adoption.bodyWeights = try store.adoptDeviceBodyWeights(db: db, now: now)
            // What was done before the login is still this device's to take back, now as the
            // account's edits.
            try db.execute(
                sql: "UPDATE undo_journal SET account = ? WHERE account = ? AND undone = 0",
                arguments: [userID, device])
            return adoption
        }
    }
}

import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    static let deletedElsewhere = "deleted on another device"

    /// Applies one server row here, or keeps it waiting. Returns whether anything changed here.
    func applyPulled(_ entity: PulledEntity, db: Database, now: String, seen: inout PageLookups) throws -> Bool {
        // A conflict is no entity of this device's: it is kept, whatever is queued here.
        if case .conflict(let record, _) = entity { return try saveConflict(record, db: db) }
        let id = entity.entityID
        if seen.anythingLocal, try locallyOwned(entity.entityType, id, db: db) {
            if case .deletedWorkout = entity {
                // The workout waits for what is queued for it; the sets logged into it here that
                // the server never had are kept now, in a restored copy.
                try writeHeldSets(db: db, seen: &seen)
                seen.notices += try keepSetsOfDeletedWorkout(id, db: db, now: self.now)
            }
            try keepWaiting(entity, parent: nil, db: db)
            seen.anythingWaiting = true
            // The fields no queued edit touches are shown at once.
            return try mergeUntouchedFields(entity, db: db)
        }
        switch entity {
        case .workout(let workout, let stamp):
            try upsert(workout, stamp: stamp, db: db, now: now, seen: &seen)
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
            // A tombstone deletes rows (its sets go with the workout): the sets held back are written first.
            try writeHeldSets(db: db, seen: &seen)
            try settleGivenUpDeletes(.workout, id, db: db)
            try forgetWaiting(.workout, id, db: db, seen: seen)
            if seen.anythingWaiting {
                try db.cachedStatement(sql: "DELETE FROM pulled_waiting WHERE account = ? AND parent_id = ?").execute(
                    arguments: [userID, id])
            }
            seen.workouts[id] = nil
            // Sets logged into it here that the server never had are kept, in a restored copy;
            // the rest go with it (or keep it, marked, while their fate is open).
            if seen.anythingLocal { seen.notices += try keepSetsOfDeletedWorkout(id, db: db, now: self.now) }
            return try mergeWorkoutTombstone(id, db: db)
        case .deletedSet:
            try writeHeldSets(db: db, seen: &seen)
            try settleGivenUpDeletes(.set, id, db: db)
            try forgetWaiting(.set, id, db: db, seen: seen)
            try db.cachedStatement(sql: "DELETE FROM sets WHERE id = ? AND \(visible())").execute(arguments: [id])
            return db.changesCount > 0
        case .routine(let routine, let stamp):
            try upsert(routine, stamp: stamp, db: db, now: now)
            try forgetWaiting(.routine, id, db: db, seen: seen)
            return true
        case .conflict:
            return false
        case .deletedRoutine:
            try settleGivenUpDeletes(.routine, id, db: db)
            try forgetWaiting(.routine, id, db: db, seen: seen)
            try db.cachedStatement(sql: "DELETE FROM routines WHERE id = ? AND \(visible())").execute(arguments: [id])
            return db.changesCount > 0
        case .bodyWeight(let entry, let stamp):
            try upsert(entry, stamp: stamp, db: db, now: now)
            try forgetWaiting(.bodyWeight, id, db: db, seen: seen)
            return true
        case .deletedBodyWeight:
            try settleGivenUpDeletes(.bodyWeight, id, db: db)
            try forgetWaiting(.bodyWeight, id, db: db, seen: seen)
            try db.cachedStatement(sql: "DELETE FROM body_weights WHERE id = ? AND \(visible())").execute(
                arguments: [id])
            guard db.changesCount > 0 else { return false }
            try Self.markBodyWeightLiftsDirty(db: db)
            return true
        }
    }

    /// A tombstone in the feed answers a delete here that gave up without an answer (its replies
    /// were dropped, the server was away), and an edit refused 404 because another device deleted
    /// the entity (the server listed it as a conflict): the machine settles them, so nothing says
    /// "failed" for an entity that is gone everywhere. A refused delete is left as it is.
    func settleGivenUpDeletes(_ type: EntityType, _ id: String, db: Database) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ?
                        AND kind IN (\(OperationKind.delete.sql), \(OperationKind.update.sql))
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
    /// Returns what to tell the user (sets kept from a workout deleted on another device).
    func settleWaiting(_ type: EntityType, _ id: String, db: Database) throws -> [StoreNotice] {
        guard type != .favorite, let entity = try waiting(type, id, db: db),
            try !locallyOwned(type, id, db: db)
        else { return [] }
        var seen = try PageLookups(db: db)
        _ = try applyPulled(entity, db: db, now: Timestamp.format(self.now), seen: &seen)
        return seen.notices
    }

    /// The change that waits for an entity, if any.
    func waiting(_ type: EntityType, _ id: String, db: Database) throws -> PulledEntity? {
        try String.fetchOne(
            db.cachedStatement(
                sql: "SELECT change FROM pulled_waiting WHERE account = ? AND entity_type = ? AND entity_id = ?"),
            arguments: [userID, type.rawValue, id]
        ).flatMap { readWaiting($0, entity: "\(type.rawValue) \(id)") }
    }

    /// A kept change, read back; one that cannot be read is reported (never guessed at) and the
    /// next pull of the whole feed brings it again.
    fileprivate func readWaiting(_ text: String, entity: String) -> PulledEntity? {
        do {
            return try JSONDecoder().decode(PulledEntity.self, from: Data(text.utf8))
        } catch {
            onUnreadable(UnreadableRow(table: "pulled_waiting", id: entity, reason: "\(error)"))
            return nil
        }
    }

    /// The store's text for a change that waits.
    fileprivate static func waitingText(_ entity: PulledEntity) throws -> String {
        String(decoding: try JSONEncoder().encode(entity), as: UTF8.self)
    }

    func forgetWaiting(_ type: EntityType, _ id: String, db: Database, seen: PageLookups? = nil) throws {
        guard seen?.anythingWaiting ?? true else { return }
        try db.cachedStatement(
            sql: "DELETE FROM pulled_waiting WHERE account = ? AND entity_type = ? AND entity_id = ?"
        ).execute(arguments: [userID, type.rawValue, id])
    }

    /// Keeps the newest change of an entity until it can be applied (the feed only moves
    /// forward, so a later change replaces an earlier one).
    fileprivate func keepWaiting(_ entity: PulledEntity, parent: String?, db: Database) throws {
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
            try Self.waitingText(entity),
        ])
    }

    /// Sets that waited for this workout to arrive.
    fileprivate func releaseChildren(of workoutID: String, db: Database, now: String, seen: inout PageLookups) throws {
        let children = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT entity_type, entity_id, change FROM pulled_waiting WHERE account = ? AND parent_id = ?
                    ORDER BY server_version
                    """),
            arguments: [userID, workoutID])
        for child in children {
            let label = "\(child["entity_type"] as String? ?? "?") \(child["entity_id"] as String? ?? "?")"
            guard let entity = readWaiting(child["change"], entity: label) else { continue }
            _ = try applyPulled(entity, db: db, now: now, seen: &seen)
        }
    }

    fileprivate func workoutIsLive(_ id: String, db: Database, seen: inout PageLookups) throws -> Bool {
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

    fileprivate func mergeWorkoutTombstone(_ id: String, db: Database) throws -> Bool {
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
    func upsert(_ workout: Workout, stamp: ServerStamp, db: Database, now: String, seen: inout PageLookups) throws {
        let statement: Statement
        if let prepared = seen.workoutUpsert {
            statement = prepared
        } else {
            statement = try db.makeStatement(
                sql: """
                    INSERT INTO workouts (\(Workout.Column.columnList), routine_id, updated_at, server_version,
                        sync_state, account)
                    VALUES (\(placeholders(Workout.Column.allCases.count)), ?, ?, ?, \(SyncState.synced.sql), ?)
                    ON CONFLICT(id) DO UPDATE SET \(Workout.Column.takeExcluded),
                        routine_id = excluded.routine_id,
                        updated_at = excluded.updated_at,
                        server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                        sync_error = NULL, account = excluded.account
                    WHERE \(visible("workouts."))
                    """)
            seen.workoutUpsert = statement
        }
        try statement.execute(
            arguments: StatementArguments(
                workout.columnArguments + [
                    workout.plan?.routineID.wireString.databaseValue ?? .null, (stamp.updatedAt ?? now).databaseValue,
                    stamp.serverVersion?.databaseValue ?? .null, userID.databaseValue,
                ]))
        if db.changesCount == 0 {
            reportHeldByAnotherAccount("workouts", workout.id)
        } else if let plan = workout.plan {
            try showPlan(plan, of: workout, db: db, now: now)
        }
    }

    /// A pulled row whose id another account on this device already holds (both imported the same
    /// file: import ids come from content) cannot be stored beside it: said, never dropped silently.
    func reportHeldByAnotherAccount(_ table: String, _ id: UUID) {
        onUnreadable(
            UnreadableRow(
                table: table, id: id.wireString,
                reason:
                    "this id is held here by another account's data (the same file imported by both, or one"
                    + " server signed in to at two addresses, such as localhost and 127.0.0.1); it is kept on the"
                    + " server and shows on this account's other devices"))
    }

    func upsert(_ set: WorkoutSet, stamp: ServerStamp, db: Database, now: String, seen: inout PageLookups) throws {
        // The exercise as the catalogue spells it when only the case differs; otherwise the
        // server's name as it is (aliases such as "squat" → Squat (Barbell) apply to what a user
        // types, never to what another device stored). A name the catalogue lacks becomes a
        // custom exercise here, as it would have there.
        let exercise: String
        if let known = seen.exercises[set.exercise] {
            exercise = known
        } else {
            exercise = try resolveExercise(set.exercise, followAliases: false, db: db)
            seen.exercises[set.exercise] = exercise
            // Once a page for each exercise: a new row has no trigger to mark it.
            try Self.markRecordsStale(exercise, db: db)
        }
        var stored = set
        stored.exercise = exercise
        let row = StatementArguments(
            stored.columnArguments + [
                set.estimatedOneRepMaxKg?.databaseValue ?? .null, (stamp.updatedAt ?? now).databaseValue,
                stamp.serverVersion?.databaseValue ?? .null, userID.databaseValue,
            ])
        guard seen.heldSets != nil else {
            try db.cachedStatement(sql: setUpsertSQL(rows: 1)).execute(arguments: row)
            try reportHeldSets([set.id], written: db.changesCount, db: db)
            return
        }
        seen.heldSets?.append(row, id: set.id)
        if seen.heldSets?.count ?? 0 >= HeldSets.rowsPerStatement { try writeHeldSets(db: db, seen: &seen) }
    }

    /// Writes the set rows a page held back, in the order they came.
    func writeHeldSets(db: Database, seen: inout PageLookups) throws {
        guard let held = seen.heldSets, held.count > 0 else { return }
        seen.heldSets = HeldSets()
        if held.count == HeldSets.rowsPerStatement, let statement = seen.fullSetUpsert {
            try statement.execute(arguments: held.arguments)
            try reportHeldSets(held.ids, written: db.changesCount, db: db)
            return
        }
        let statement = try db.makeStatement(sql: setUpsertSQL(rows: held.count))
        if held.count == HeldSets.rowsPerStatement { seen.fullSetUpsert = statement }
        try statement.execute(arguments: held.arguments)
        try reportHeldSets(held.ids, written: db.changesCount, db: db)
    }

    /// One statement for many rows: its trigger program, constraint checks and statement journal
    /// run once per statement rather than once per row. Rows apply in order, as one by one.
    private func setUpsertSQL(rows: Int) -> String {
        let values = Array(
            repeating: "(\(placeholders(WorkoutSet.Column.allCases.count)), ?, ?, ?, \(SyncState.synced.sql), ?)",
            count: rows)
        return """
            INSERT INTO sets (\(WorkoutSet.Column.columnList), e1rm_kg, updated_at, server_version, sync_state, account)
            VALUES \(values.joined(separator: ", "))
            ON CONFLICT(id) DO UPDATE SET \(WorkoutSet.Column.takeExcluded),
                e1rm_kg = excluded.e1rm_kg, updated_at = excluded.updated_at,
                server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                sync_error = NULL, account = excluded.account
            WHERE \(visible("sets."))
            """
    }

    /// Rows an upsert left alone are held here by another account (its WHERE refused them):
    /// those are named, as each row's own upsert would have.
    private func reportHeldSets(_ ids: [UUID], written: Int, db: Database) throws {
        guard written < ids.count else { return }
        let held = try String.fetchSet(
            db,
            sql: """
                SELECT id FROM sets WHERE id IN (\(Placeholders.list(ids.count)))
                    AND NOT \(visible())
                """, arguments: StatementArguments(ids.map(\.wireString)))
        for id in ids where held.contains(id.wireString) { reportHeldByAnotherAccount("sets", id) }
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

extension PullMerge {
    /// Merges a page of the change feed and stores the new cursor, in one transaction.
    ///
    /// No change is ever dropped: an entity with no queued
    /// operation takes the server's row (a tombstone deletes it); a change to one with queued
    /// operations waits, and is applied once they complete (or taken over by a newer answer of
    /// the server); a set whose workout has not arrived yet waits for it.
    /// - Returns: how many entities changed here.
    @discardableResult
    public func mergePulled(_ entities: [PulledEntity], cursor: String) throws -> Int {
        try mergePage(entities, cursor: cursor).changed
    }

    /// `mergePulled`, with what to tell the user: sets logged here into a workout another device
    /// deleted, kept in a restored copy of it.
    public func mergePage(
        _ entities: [PulledEntity], cursor: String
    ) throws -> (changed: Int, notices: [StoreNotice]) {
        let now = Timestamp.format(self.now)
        return try writer.writeWithoutTransaction { db in
            try Self.forBigPage(entities.count, db: db) {
                var changed = 0
                var notices: [StoreNotice] = []
                try db.inTransaction {
                    var seen = try PageLookups(db: db)
                    seen.heldSets = HeldSets()
                    for entity in entities {
                        changed += try store.applyPulled(entity, db: db, now: now, seen: &seen) ? 1 : 0
                    }
                    try store.writeHeldSets(db: db, seen: &seen)
                    notices = seen.notices
                    try db.cachedStatement(
                        sql:
                            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                    ).execute(arguments: [store.pullCursorKey, cursor])
                    return .commit
                }
                return (changed, notices)
            }
        }
    }

    /// Pages of the feed this big change thousands of SQLite pages in one transaction (random
    /// ids: every index leaf). With the defaults (a 2 MiB cache, a checkpoint once the WAL holds
    /// 1 000 pages) each such commit spilled dirty pages mid-transaction and was followed by a
    /// checkpoint, two fsyncs on the merging thread; a checkpoint every few pages writes each
    /// page once however many commits changed it. The writer connection keeps these settings
    /// only for the page's transaction. Durability is unchanged: the same commits, the same
    /// synchronous mode; only when the WAL is copied back (bounded, 32 MiB) moves.
    static func forBigPage<T>(_ count: Int, db: Database, _ body: () throws -> T) throws -> T {
        guard count >= bigPage else { return try body() }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        let autocheckpoint = try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 1000
        try db.execute(sql: "PRAGMA cache_size = -32768; PRAGMA wal_autocheckpoint = 8192")
        defer {
            try? db.execute(sql: "PRAGMA cache_size = \(cacheSize); PRAGMA wal_autocheckpoint = \(autocheckpoint)")
        }
        return try body()
    }

    /// Changes in a page from which the big-page settings pay.
    static let bigPage = 1_000

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
    /// Set rows waiting to be written together (a page's merge only; nil writes each at once).
    /// Only rows of sets whose workout is live here are held, and anything that deletes rows
    /// writes them first, so holding them changes nothing but the number of statements.
    var heldSets: HeldSets?
    /// Statements whose text names this account, made once per page.
    var workoutUpsert: Statement?
    var fullSetUpsert: Statement?
    /// What the merge has to tell the user (sets kept from a workout deleted on another device).
    var notices: [StoreNotice] = []

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

/// Set rows of a page held back to be upserted a statement at a time.
struct HeldSets {
    /// Rows a statement: the most whose values (a set's columns and four more) stay under
    /// SQLite's oldest limit of 999 parameters a statement.
    static let rowsPerStatement = 999 / (WorkoutSet.Column.allCases.count + 4)
    private(set) var arguments = StatementArguments()
    private(set) var ids: [UUID] = []
    var count: Int { ids.count }

    mutating func append(_ row: StatementArguments, id: UUID) {
        arguments += row
        ids.append(id)
    }
}

import Foundation
import GRDB
import SpotterCore

/// How one try of an operation ended, as the engine classified it.
public enum OperationResult: Sendable, Equatable {
    /// The server did what was asked; `row` is the entity it now holds, when it sent one.
    case succeeded(status: Int, row: PulledEntity?)
    /// Try again at `retryAt`.
    case transient(status: Int?, error: String, retryAt: Date)
    /// The server refused it (a definite 4xx): it will not be sent again.
    case permanent(status: Int?, error: String)
    /// The server refused a set's create or edit because the workout it names is gone (another
    /// device deleted it): the set is kept in a restored copy of that workout and sent again.
    case workoutGone(status: Int, error: String)
    /// The engine stopped trying without a definite answer (timeouts, no connection, 5xx): not a
    /// refusal; it goes back to the queue when the server next answers.
    case gaveUp(status: Int?, error: String)
}

/// How one try of one operation ended: what the engine hands the store to record.
public struct OperationOutcome: Sendable, Equatable {
    public var opID: String
    public var result: OperationResult
    /// The try never left this machine (no connection could be made): if it was the first try,
    /// the operation is still one the server cannot have seen.
    public var neverLeft: Bool

    public init(opID: String, result: OperationResult, neverLeft: Bool = false) {
        self.opID = opID
        self.result = result
        self.neverLeft = neverLeft
    }
}

/// Counts of the current user's operations by what they mean to the user.
public struct QueueCounts: Sendable, Equatable {
    /// Not yet succeeded, failed or blocked (pending, in flight and waiting to retry).
    public var pending = 0
    public var inFlight = 0
    /// Failed for good: refused by the server (a 4xx), or unreadable.
    public var failed = 0
    /// Given up without an answer: they go back to the queue when the server next answers.
    public var gaveUp = 0
    /// Blocked behind a refused (or unreadable) create.
    public var blocked = 0
    /// Blocked behind a create that gave up without an answer: they wait with it.
    public var blockedOnNoAnswer = 0
    public init() {}
}

extension SpotterStore {
    /// Default lease: long enough for a slow batch, short enough that a killed process's
    /// operations come back soon.
    public static let defaultLease: TimeInterval = 60

    /// The operation a row holds, or nil when it cannot be read: then it has failed for good
    /// (see `failUnreadable`) and is skipped, never sent and never the end of the caller's work.
    func operationOrFailUnreadable(
        _ row: Row, db: Database, now: Date, columns: [String: Int]? = nil
    ) throws -> OutboxOperation? {
        do {
            return try OutboxOperation(row: row, columns: columns)
        } catch let unreadable as UnreadableRow {
            try failUnreadable(row, unreadable, db: db, now: now)
            return nil
        }
    }

    /// An operation whose row cannot be read is never sent (it would go out with made-up
    /// fields): it fails for good with the reason, its entity says so, its dependants wait.
    fileprivate func failUnreadable(_ row: Row, _ unreadable: UnreadableRow, db: Database, now: Date) throws {
        onUnreadable(unreadable)
        let reason = "unreadable operation: \(unreadable.reason)"
        let seq = row["seq"] as DatabaseValue? ?? .null
        try db.cachedStatement(
            sql: """
                UPDATE outbox SET state = \(OperationState.failedPermanent.sql), last_error = ?, completed_at = ?, updated_at = ?,
                    lease_expires_at = NULL, next_attempt_at = NULL
                WHERE seq = ?
                """
        ).execute(arguments: [reason, now.timeIntervalSince1970, now.timeIntervalSince1970, seq])
        let cells = RowCells(row, table: "outbox", idColumn: "op_id")
        if let type = try? cells.enumeration("entity_type") as EntityType, let table = EntityTable.table(type),
            let entityID = try? cells.value("entity_id") as String
        {
            try db.cachedStatement(
                sql: "UPDATE \(table) SET sync_state = \(SyncState.rejected.sql), sync_error = ? WHERE id = ?"
            ).execute(arguments: [reason, entityID])
        }
        if let opID = try? cells.value("op_id") as String {
            try blockDependants(of: opID, reason: "waiting on an unreadable operation", db: db, now: now)
        }
    }

    /// The last queued operation of an entity succeeded: the entity takes the newest row the
    /// server has shown — this answer, or a change another device made that waited here while
    /// the operation was queued. A replayed answer can be older than that change; taking only
    /// the fields this device touched would lose the other device's fields for good.
    func reconcile(_ op: OutboxOperation, answer: PulledEntity?, db: Database) throws {
        let waiting = try waiting(op.entityType, op.entityID, db: db)
        if waiting == nil, case .set(let set, let stamp)? = answer, try takeStampOnly(of: set, stamp, db: db) {
            return
        }
        try forgetWaiting(op.entityType, op.entityID, db: db)
        let local = try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT server_version, deleted_at IS NOT NULL AS deleted FROM \(EntityTable.table(op.entityType)!) WHERE id = ?"
            ),
            arguments: [op.entityID])
        let newest = [answer, waiting].compactMap { $0 }.max {
            ($0.stamp.serverVersion ?? 0) < ($1.stamp.serverVersion ?? 0)
        }
        if let newest, local?.cell("deleted", as: Bool.self) != true,
            // None yet, or one that does not read (a hand edit): the server's answer is taken over it.
            (newest.stamp.serverVersion ?? 0) >= (local?.cell("server_version", as: Int64.self) ?? 0)
        {
            // Nothing is queued for this entity: it is not locally owned (and asking the whole outbox
            // whether anything is would scan it once per acknowledged operation).
            var seen = PageLookups(nothingLocal: ())
            _ = try applyPulled(newest, db: db, now: Timestamp.format(self.now), seen: &seen)
            return
        }
        // This copy is deleted here (its workout's delete still queued), or a newer row is already
        // here: the server's rounding of the touched fields, and its version.
        let canonical: [String: JSONValue]
        switch answer {
        case .workout(let workout, _): canonical = workout.wireFields
        case .set(let set, _): canonical = set.wireFields
        case .routine(let routine, _): canonical = routine.wireFields
        case .bodyWeight(let entry, _): canonical = entry.wireFields
        case .deletedWorkout, .deletedSet, .deletedRoutine, .deletedBodyWeight, .conflict, nil: return
        }
        let touched = canonical.filter { op.payload[$0.key] != nil && $0.key != "id" }
        var extra: [String: DatabaseValue] = [:]
        if let version = answer?.stamp.serverVersion { extra["server_version"] = version.databaseValue }
        if let updated = answer?.stamp.updatedAt { extra["updated_at"] = updated.databaseValue }
        try EntityTable.write(touched, type: op.entityType, id: op.entityID, extra: extra, db: db)
    }

    /// The answer to this device's own write of a set, when it holds exactly what the row here
    /// holds (the usual case: the server stored what was sent): only its stamp is new, so only the
    /// stamp is written. The full upsert would give the same row, but it rewrites every index of
    /// the set and runs the records trigger, which marks the lift's records for recounting.
    /// Returns false, writing nothing, when anything differs, or when the set's workout is deleted
    /// here (the answer then waits for that delete's fate): then the full merge runs.
    private func takeStampOnly(of set: WorkoutSet, _ stamp: ServerStamp, db: Database) throws -> Bool {
        guard let version = stamp.serverVersion else { return false }
        let exercise = try resolveExercise(set.exercise, followAliases: false, db: db)
        guard
            let local = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(AnsweredSet.columns())
                        FROM sets
                        WHERE id = ? AND deleted_at IS NULL AND COALESCE(server_version, 0) <= ? AND \(visible())
                            AND EXISTS (SELECT 1 FROM workouts WHERE id = sets.workout_id AND deleted_at IS NULL)
                        """), arguments: [set.id.wireString, version]),
            AnsweredSet.row(local, from: 0, holds: AnsweredSet.values(of: set, exercise: exercise))
        else { return false }
        try writeStamps([(set.id.wireString, stamp.updatedAt ?? Timestamp.format(now), version)], db: db)
        return true
    }

    /// Marks each set synced with the server's stamp, for this account, in one statement.
    func writeStamps(_ stamps: [(id: String, updatedAt: String, version: Int64)], db: Database) throws {
        var values = StatementArguments()
        for stamp in stamps { values += [stamp.id, stamp.updatedAt, stamp.version] }
        try db.cachedStatement(
            sql: """
                WITH answered(id, updated_at, server_version) AS (VALUES \(Placeholders.list(stamps.count, each: "(?, ?, ?)")))
                UPDATE sets SET updated_at = answered.updated_at, server_version = answered.server_version,
                    sync_state = \(SyncState.synced.sql), sync_error = NULL, account = ?
                FROM answered WHERE sets.id = answered.id
                """
        ).execute(arguments: values + [userID])
    }

    /// The entity is gone on the server: remove it here and drop what was queued for it.
    func discardLocally(type: EntityType, id: String, db: Database) throws {
        guard let table = EntityTable.table(type) else { return }
        try discardQueuedOperations(type: type, id: id, db: db)
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?").execute(arguments: [id])
    }

    /// Drops what is queued for an entity and not on its way (an answer still due is recorded).
    func discardQueuedOperations(type: EntityType, id: String, db: Database) throws {
        try db.cachedStatement(
            sql:
                """
                DELETE FROM outbox WHERE entity_type = ? AND entity_id = ?
                AND state IN \(OperationState.sqlList([.pending, .failedTransient, .blocked]))
                """
        ).execute(arguments: [type.rawValue, id])
    }

    func laterQueuedFields(after op: OutboxOperation, db: Database) throws -> Set<String> {
        let payloads = try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT payload FROM outbox WHERE entity_type = ? AND entity_id = ? AND seq > ?
                    AND state IN \(Outbox.queuedStates)
                    """), arguments: [op.entityType.rawValue, op.entityID, op.seq])
        var fields = Set<String>()
        for payload in payloads { fields.formUnion(JSONValue.parse(payload)?.objectValue?.keys ?? [:].keys) }
        return fields
    }

    /// "Squat (Barbell) 100 kg × 5" from a row with a set's exercise, weight, unit and reps; nil
    /// when a cell does not read (a hand edit, a BLOB): the caller names the set by its id, so a
    /// description never makes a unit up and never traps on a cell.
    static func setLabel(_ row: Row) -> String? {
        guard let exercise = row.cell("exercise", as: String.self), let weight = row.cell("weight", as: Double.self),
            let unit = row.cell("unit", as: String.self).flatMap(WeightUnit.init(rawValue:)),
            let reps = row.cell("reps", as: Int.self)
        else { return nil }
        return "\(exercise) \(Formatting.weight(weight, unit: unit)) × \(reps)"
    }

    func describe(type: EntityType, id: String, db: Database) throws -> String {
        switch type {
        case .set:
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT exercise, weight, unit, reps FROM sets WHERE id = ?"), arguments: [id])
            return "set \(row.flatMap(Self.setLabel) ?? String(id.prefix(8)))"
        case .workout:
            if let name = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM workouts WHERE id = ?"), arguments: [id])
            {
                return "workout \(name)"
            }
            return "workout \(id.prefix(8))"
        case .favorite:
            return "favorite \(id)"
        case .routine:
            return try routineLabel(id, db: db)
        case .bodyWeight:
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT weight, unit, measured_at FROM body_weights WHERE id = ?"),
                arguments: [id])
            {
                if let weight = row.cell("weight", as: Double.self),
                    let unit = row.cell("unit", as: String.self).flatMap(WeightUnit.init(rawValue:))
                {
                    let day = row.cell("measured_at", as: String.self).map { String($0.prefix(10)) } ?? ""
                    return "body weight \(Formatting.weight(weight, unit: unit)) on \(day)"
                }
            }
            return "body weight \(id.prefix(8))"
        }
    }

    func requeueNoAnswer(db: Database, now: Date) throws -> Int {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox WHERE user_id = ? AND state = \(OperationState.failedPermanent.sql)
                        AND no_answer = 1 ORDER BY seq
                    """),
            arguments: [userID])
        var count = 0
        for row in rows {
            guard let op = try operationOrFailUnreadable(row, db: db, now: now) else { continue }
            try transition(op, .noAnswerRequeue, db: db, now: now)
            count += 1
        }
        return count
    }

    fileprivate func retryFailed(_ op: OutboxOperation, db: Database, now: Date) throws {
        try transition(op, .retry, db: db, now: now)
    }

    /// A refusal retried: the same intent, as a new operation with a new key (resending the old
    /// key would only replay the refusal).
    func requeueAsNewIntent(_ op: OutboxOperation, db: Database, now: Date) throws {
        switch op.kind {
        case .create:
            try requeueCreate(of: op, db: db, now: now)
        case .update:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
            try applyEdit(type: op.entityType, id: op.entityID, patch: op.payload, db: db, now: now)
        case .delete:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
            if let table = EntityTable.table(op.entityType) {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET deleted_at = ?, sync_state = \(SyncState.pending.sql) WHERE id = ?"
                ).execute(arguments: [Timestamp.format(now), op.entityID])
            }
            _ = try Outbox.insert(
                db, user: op.userID, type: op.entityType, id: op.entityID, kind: .delete, payload: [:],
                before: op.before, dependsOn: nil, blocked: false, now: now)
        }
    }
}

extension OutboxQueue {
    /// Claims up to `limit` eligible operations of this user in one transaction: due, their
    /// dependency done, nothing earlier queued for the same entity, none of it in flight.
    ///
    /// - Parameter aheadOfInFlight: claim while another batch is still in flight, to send it the
    ///   moment that one is answered. Then the claim stops before the first operation that
    ///   waits on an operation in flight (same entity, or its dependency): everything claimed
    ///   comes before it in the queue, so the server still sees the operations in queue order.
    public func claimEligible(
        limit: Int, lease: TimeInterval = SpotterStore.defaultLease, aheadOfInFlight: Bool = false
    ) throws -> [OutboxOperation] {
        let now = clock.now()
        return try writer.write { db in
            try claim(limit: limit, lease: lease, aheadOfInFlight: aheadOfInFlight, db: db, now: now)
        }
    }

    /// Records a batch's results and claims the next batch, in ONE transaction (one flush): what
    /// the engine does between two batches of a drain.
    public func complete(
        _ results: [OperationOutcome], thenClaim limit: Int, lease: TimeInterval = SpotterStore.defaultLease,
        aheadOfInFlight: Bool
    ) throws -> (notices: [StoreNotice], claimed: [OutboxOperation]) {
        let now = clock.now()
        return try writer.write { db in
            let notices = try record(results, db: db, now: now)
            let claimed = try claim(limit: limit, lease: lease, aheadOfInFlight: aheadOfInFlight, db: db, now: now)
            return (notices, claimed)
        }
    }

    private func claim(
        limit: Int, lease: TimeInterval, aheadOfInFlight: Bool, db: Database, now: Date
    ) throws -> [OutboxOperation] {
        var cut = Int64.max
        if aheadOfInFlight {
            // The first queued operation held back by one in flight: its entity's earlier
            // operation, or the operation it depends on, has not been answered yet; or it is a
            // workout's delete while a set's operation is out (a set's create or edit sent before
            // it must reach the server first: the delete would refuse them); or it is a set's
            // whose workout has an operation out.
            // (A batch claimed ahead may travel beside the one in flight: see `batchesInFlight`.
            // CROSS JOIN and INDEXED BY keep SQLite starting from the few operations in flight, or
            // from the workouts' operations, never from the thousands of sets' queued: this runs
            // before every batch of a drain.)
            let queued = Outbox.claimableStates
            let inFlight = OperationState.inFlight.sql
            let held = try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MIN(seq) FROM (
                            SELECT MIN(q.seq) AS seq FROM outbox f
                            JOIN outbox q ON q.entity_type = f.entity_type AND q.entity_id = f.entity_id
                            WHERE f.user_id = ? AND f.state = \(inFlight) AND q.seq > f.seq AND q.state IN \(queued)
                            UNION ALL
                            SELECT MIN(q.seq) FROM outbox f JOIN outbox q ON q.depends_on = f.op_id
                            WHERE f.user_id = ? AND f.state = \(inFlight) AND q.state IN \(queued)
                            UNION ALL
                            SELECT MIN(q.seq) FROM outbox q INDEXED BY outbox_by_entity
                            WHERE q.entity_type = \(EntityType.workout.sql) AND q.kind = \(OperationKind.delete.sql)
                              AND q.user_id = ? AND q.state IN \(queued)
                              AND EXISTS (SELECT 1 FROM outbox f WHERE f.user_id = ? AND f.state = \(inFlight)
                                AND f.entity_type = \(EntityType.set.sql))
                            UNION ALL
                            SELECT MIN(q.seq) FROM outbox f CROSS JOIN sets s CROSS JOIN outbox q
                            WHERE f.user_id = ? AND f.state = \(inFlight) AND f.entity_type = \(EntityType.workout.sql)
                              AND s.workout_id = f.entity_id
                              AND q.entity_type = \(EntityType.set.sql) AND q.entity_id = s.id AND q.state IN \(queued)
                        )
                        """), arguments: [userID, userID, userID, userID, userID])
            if let held { cut = held }
        }
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT o.* FROM outbox o
                    WHERE o.user_id = ? AND o.state IN \(Outbox.claimableStates)
                      AND o.seq < ?
                      AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
                      AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.entity_type = o.entity_type
                            AND p.entity_id = o.entity_id AND p.seq < o.seq AND p.state IN \(Outbox.queuedStates))
                      AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.entity_type = o.entity_type
                            AND p.entity_id = o.entity_id AND p.state = \(OperationState.inFlight.sql))
                      AND NOT (o.kind = \(OperationKind.delete.sql)
                        AND EXISTS (SELECT 1 FROM outbox p WHERE p.entity_type = o.entity_type
                            AND p.entity_id = o.entity_id AND p.seq < o.seq AND \(Self.gaveUpAndWillReturn)))
                      AND NOT (o.entity_type = \(EntityType.workout.sql) AND o.kind = \(OperationKind.delete.sql)
                        AND EXISTS (SELECT 1 FROM sets s JOIN outbox p ON p.entity_type = \(EntityType.set.sql)
                                AND p.entity_id = s.id
                            WHERE s.workout_id = o.entity_id AND p.seq < o.seq
                              AND (p.state IN \(Self.setWorkBeforeDelete) OR \(Self.gaveUpAndWillReturn))))
                      AND (o.depends_on IS NULL OR NOT EXISTS (SELECT 1 FROM outbox d WHERE d.op_id = o.depends_on
                            AND NOT (d.state = \(OperationState.succeeded.sql)
                                OR (d.state = \(OperationState.failedPermanent.sql) AND d.kind != \(OperationKind.create.sql)))))
                    ORDER BY o.seq LIMIT ?
                    """), arguments: [userID, cut, now.timeIntervalSince1970, limit])
        var claimed: [OutboxOperation] = []
        claimed.reserveCapacity(rows.count)
        // The machine decides each claim; the usual one (start a try) is written for all of them
        // in one statement, and anything else goes through `transition` one by one.
        var started: [Int64] = []
        let columns = rows.first.map(RowCells.columnIndex(of:))
        for row in rows {
            guard var op = try store.operationOrFailUnreadable(row, db: db, now: now, columns: columns) else {
                continue
            }
            if (try? OutboxMachine.apply(.claimed, to: .init(kind: op.kind, state: op.state))) == Self.startedTry {
                started.append(op.seq)
            } else {
                try store.transition(op, .claimed, db: db, now: now, lease: lease)
            }
            op.state = .inFlight
            op.attemptCount += 1
            op.leaseExpiresAt = now.addingTimeInterval(lease)
            claimed.append(op)
        }
        try startTries(seqs: started, lease: lease, db: db, now: now)
        return claimed
    }

    /// What of a workout's sets, queued before the workout's delete, the delete waits for: a set's
    /// create or edit sent and waiting for its retry (or out now) must reach the server first, as
    /// the user made them first — after the delete the server would refuse the create (the
    /// workout is gone) and take the edit for another device's, lost to the delete. A blocked
    /// operation is not waited for: it waits on the user.
    static let setWorkBeforeDelete = OperationState.sqlList([.pending, .inFlight, .failedTransient])

    /// An operation `p` the engine gave up on without an answer: it goes back to the queue by
    /// itself when the server next answers, so a delete queued after it (of the same entity, or
    /// of its set's workout) waits for it as for one waiting for its retry. The pull's answer
    /// brings it back, so the wait ends as soon as the server is reachable.
    static let gaveUpAndWillReturn = "(p.state = \(OperationState.failedPermanent.sql) AND p.no_answer = 1)"

    /// The transition a claim of a queued operation makes.
    private static let startedTry = OutboxMachine.Transition(.inFlight, [.startTry])

    /// `startedTry` for many operations: what `SpotterStore.transition` writes for it (count the
    /// try, take the lease, note the first send), as one UPDATE per 500 operations.
    private func startTries(seqs: [Int64], lease: TimeInterval, db: Database, now: Date) throws {
        let stamp = now.timeIntervalSince1970
        for chunk in stride(from: 0, to: seqs.count, by: 500) {
            let part = seqs[chunk..<min(seqs.count, chunk + 500)]
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = \(OperationState.inFlight.sql), lease_expires_at = ?, lease_owner = ?,
                        attempt_count = attempt_count + 1, first_sent_at = COALESCE(first_sent_at, ?), updated_at = ?
                    WHERE seq IN (\(Placeholders.list(part.count)))
                    """
            ).execute(
                arguments: [stamp + lease, LeaseOwner.current, stamp, stamp] + StatementArguments(Array(part)))
        }
    }

    /// Returns operations whose lease ran out, or whose holder is a process that no longer runs
    /// (killed mid-send), to pending. They keep their keys: a retry replays what may have landed.
    @discardableResult
    public func releaseExpiredLeases() throws -> Int {
        let now = clock.now().timeIntervalSince1970
        // Where a lost lease leaves an operation, as the machine says (applied in bulk).
        let back = (try? OutboxMachine.apply(.leaseLost, to: .init(kind: .create, state: .inFlight)).state) ?? .pending
        return try writer.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = \(back.sql), lease_expires_at = NULL, lease_owner = NULL, updated_at = ?
                    WHERE state = \(OperationState.inFlight.sql) AND lease_expires_at < ?
                    """
            ).execute(arguments: [now, now])
            var released = db.changesCount
            let holders = try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT DISTINCT lease_owner FROM outbox
                        WHERE state = \(OperationState.inFlight.sql) AND lease_owner IS NOT NULL AND lease_owner != ?
                        """), arguments: [LeaseOwner.current])
            for holder in holders where !LeaseOwner.isAlive(holder) {
                try db.cachedStatement(
                    sql: """
                        UPDATE outbox SET state = \(back.sql), lease_expires_at = NULL, lease_owner = NULL, updated_at = ?
                        WHERE state = \(OperationState.inFlight.sql) AND lease_owner = ?
                        """
                ).execute(arguments: [now, holder])
                released += db.changesCount
            }
            return released
        }
    }

    /// Records how a try ended and applies it to the entity (reconciling
    /// success, permanent failure handling). Returns notices for the user.
    @discardableResult
    public func complete(opID: String, result: OperationResult) throws -> [StoreNotice] {
        try complete([OperationOutcome(opID: opID, result: result)])
    }

    /// Records the results of a whole batch in one transaction.
    @discardableResult
    public func complete(_ results: [OperationOutcome]) throws -> [StoreNotice] {
        let now = clock.now()
        return try writer.write { db in try record(results, db: db, now: now) }
    }

    private func record(_ results: [OperationOutcome], db: Database, now: Date) throws -> [StoreNotice] {
        if try recordInBulk(results, db: db, now: now) { return [] }  // the plain case: no notices
        var notices: [StoreNotice] = []
        for outcome in results {
            let (opID, result) = (outcome.opID, outcome.result)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ?"), arguments: [opID])
            else { continue }  // discarded meanwhile: nothing left to record
            let op = try OutboxOperation(row: row)
            let event: OutboxMachine.Event
            var answer: PulledEntity?
            switch result {
            case .succeeded(let status, let row):
                event = .succeeded(status: status)
                answer = row
            case .transient(let status, let error, let retryAt):
                event = .transient(status: status, error: error, retryAt: retryAt)
            case .permanent(let status, let error):
                event = .permanent(status: status, error: error)
            case .workoutGone(let status, let error):
                event = .workoutGone(status: status, error: error)
            case .gaveUp(let status, let error):
                event = .gaveUp(status: status, error: error)
            }
            guard (try? OutboxMachine.apply(event, to: .init(kind: op.kind, state: op.state))) != nil else {
                continue  // already answered (a late duplicate), or no longer waiting for one
            }
            notices += try store.transition(op, event, db: db, now: now, answer: answer)
            // `first_sent_at` says when the operation may first have reached the server; a try
            // that never left, and that set it when it was claimed, takes it back.
            if outcome.neverLeft, op.firstSendIsThisClaims {
                try db.cachedStatement(sql: "UPDATE outbox SET first_sent_at = NULL WHERE op_id = ?").execute(
                    arguments: [op.opID])
            }
        }
        return notices
    }

    /// Puts claimed operations back as if never claimed: they were not sent (airplane mode
    /// came on, or they did not fit the batch), or their answers could not be recorded (the disk
    /// was full: sent again, they are answered again from the server's stored answer), so the try
    /// must not count. Only this process's claims: one whose lease ran out and that another
    /// process claimed since is that process's to record.
    public func releaseUnsent(opIDs: [String]) throws {
        guard !opIDs.isEmpty else { return }
        let now = clock.now()
        try writer.write { db in
            for opID in opIDs {
                guard
                    let row = try Row.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT * FROM outbox
                                WHERE op_id = ? AND state = \(OperationState.inFlight.sql) AND lease_owner = ?
                                """),
                        arguments: [opID, LeaseOwner.current])
                else { continue }
                try store.transition(try OutboxOperation(row: row), .notSent, db: db, now: now)
            }
        }
    }

    /// New idempotency keys for `opIDs`: operations a server whose database was replaced answered,
    /// which this device did not take. Their old keys are stored there with those answers (a
    /// refusal for a workout it did not have yet), and would only replay them; under new keys
    /// they run again (a create it did take answers with the row it has).
    public func renewKeys(opIDs: [String]) throws {
        guard !opIDs.isEmpty else { return }
        try writer.write { db in
            for opID in opIDs {
                try db.cachedStatement(
                    sql:
                        "UPDATE outbox SET idempotency_key = ? WHERE op_id = ? AND state != \(OperationState.succeeded.sql)"
                ).execute(arguments: [UUID.timeOrdered().wireString, opID])
            }
        }
    }

    /// When the soonest waiting retry of this user comes due.
    public func nextRetryAt() throws -> Date? {
        try writer.read { db in
            try Double.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MIN(next_attempt_at) FROM outbox
                        WHERE user_id = ? AND state = \(OperationState.failedTransient.sql)
                        """),
                arguments: [userID]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Keeps the newest `keep` succeeded operations as history and deletes older ones.
    @discardableResult
    public func pruneSucceeded(keep: Int = 500) throws -> Int {
        try writer.write { db in
            try db.cachedStatement(
                sql: """
                    DELETE FROM outbox WHERE state = \(OperationState.succeeded.sql) AND seq NOT IN
                        (SELECT seq FROM outbox WHERE state = \(OperationState.succeeded.sql) ORDER BY seq DESC LIMIT ?)
                    """
            ).execute(arguments: [keep])
            try db.execute(
                sql:
                    "DELETE FROM sync_latency WHERE id NOT IN (SELECT id FROM sync_latency ORDER BY id DESC LIMIT 1000)"
            )
            return db.changesCount
        }
    }

    /// Sends a failed or blocked operation again. A refusal by the server (4xx) is retried as a
    /// new operation with a new key — resending the old key would only replay the refusal; an
    /// operation the engine gave up on keeps its key, since it may have reached the server.
    public func retry(opID: String) throws {
        let now = self.now
        try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ? AND user_id = ?"),
                    arguments: [opID, userID])
            else { throw StoreError.notFound("operation \(opID)") }
            try store.retryFailed(try OutboxOperation(row: row), db: db, now: now)
        }
    }

    /// Retries every failed operation of this user; returns how many.
    @discardableResult
    public func retryAllFailed() throws -> Int {
        let now = self.now
        return try writer.write { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM outbox WHERE user_id = ? AND state = \(OperationState.failedPermanent.sql) ORDER BY seq
                        """),
                arguments: [userID])
            for row in rows { try store.retryFailed(try OutboxOperation(row: row), db: db, now: now) }
            return rows.count
        }
    }

    /// Puts every operation of this user that gave up without an answer back in the queue
    /// (same key: it may have landed), with what waits on it: the server answers again, or
    /// airplane mode went off. Returns how many.
    @discardableResult
    public func requeueNoAnswer() throws -> Int {
        let now = self.now
        // Read first: the engine asks after every answer, and there is usually nothing to do.
        let any = try writer.read { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS(SELECT 1 FROM outbox WHERE user_id = ? AND state = \(OperationState.failedPermanent.sql)
                            AND no_answer = 1)
                        """), arguments: [userID]) ?? false
        }
        guard any else { return 0 }
        return try writer.write { db in try store.requeueNoAnswer(db: db, now: now) }
    }

    /// Gives up on a failed or blocked operation. A create the server never accepted takes its
    /// entity (and what depends on it) with it; nothing is sent.
    public func discard(opID: String) throws {
        let now = self.now
        try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ? AND user_id = ?"),
                    arguments: [opID, userID])
            else { throw StoreError.notFound("operation \(opID)") }
            let op: OutboxOperation
            do {
                op = try OutboxOperation(row: row)
            } catch is UnreadableRow {
                // Nothing of it can be trusted: the row goes, and with it nothing is sent.
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [opID])
                return
            }
            do {
                try store.transition(op, .discard, db: db, now: now)
            } catch StoreError.notAllowed {
                throw StoreError.notAllowed(
                    "operation \(opID) is \(op.state.rawValue); only failed or blocked operations can be discarded")
            }
        }
    }
}

extension Queries {
    /// The failed or blocked operation that explains a rejected entity, for `r` / `x` in the UI.
    public func failedOperation(entityType: EntityType, entityID: String) throws -> OutboxOperation? {
        try writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ?
                            AND state IN \(OperationState.sqlList([.failedPermanent, .blocked]))
                        ORDER BY CASE state WHEN \(OperationState.failedPermanent.sql) THEN 0 ELSE 1 END, seq LIMIT 1
                        """), arguments: [entityType.rawValue, entityID]
            ).map(OutboxOperation.init(row:))
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// A set this device wrote, as the server answered it, against the row here: the values the full
/// upsert (`upsert(_:stamp:db:now:seen:)`) would write, column by column — the set's fields, not
/// its stored estimate (`e1rm_kg`). That is this device's own: made from the compared fields and,
/// for a lift the body is part of, from the weigh-ins here (none before the set: no estimate),
/// and the records walk the upsert sets off would leave it as it is. Compared, it made every
/// answered pull-up differ and sent its whole batch down the one-by-one path, with a records
/// walk of the lift per set: the batched drain of the bench (a lift in five a pull-up) ran at
/// half its speed (`OutboxBulkTests.aBatchWithABodyWeightLiftIsRecordedInBulk`).
///
/// The list is written out rather than derived from `WorkoutSet.Column`: the drain compares every
/// answered set, and building the values through `WorkoutSet.value(_:)` cost about 6 % of the
/// batched drain (spotter-bench --only drain, three alternated release runs each: 9 436 against
/// 8 854 operations/s). `AnsweredSetTests` fails when a set's fields and this list part.
enum AnsweredSet {
    static let columnNames = [
        "workout_id", "exercise", "position", "kind", "weight", "unit", "reps", "rpe", "distance_m", "duration_s",
        "notes", "performed_at", "superset",
    ]

    /// The compared columns for a SELECT, in the order of `values(of:exercise:)`.
    static func columns(_ tableAlias: String = "") -> String {
        columnNames.map { tableAlias + $0 }.joined(separator: ", ")
    }

    /// What the upsert would write; `exercise` is the set's lift as resolved here.
    static func values(of set: WorkoutSet, exercise: String) -> [(any DatabaseValueConvertible)?] {
        [
            set.workoutID.wireString, exercise, set.position, set.kind.rawValue, set.weight, set.unit.rawValue,
            set.reps, set.rpe, set.distanceM, set.durationS, set.notes, Timestamp.format(set.performedAt),
            set.superset,
        ]
    }

    /// Whether `row`, from its column `offset` on, holds exactly `values`.
    static func row(_ row: Row, from offset: Int, holds values: [(any DatabaseValueConvertible)?]) -> Bool {
        values.enumerated().allSatisfy { index, value in
            (row[offset + index] as DatabaseValue? ?? .null) == (value?.databaseValue ?? .null)
        }
    }
}

/// SQL text for lists of bound values.
enum Placeholders {
    /// "?, ?, ?" for three values; with `each`, that many rows of it, such as "(?, ?), (?, ?)".
    static func list(_ count: Int, each: String = "?") -> String {
        Array(repeating: each, count: count).joined(separator: ", ")
    }
}

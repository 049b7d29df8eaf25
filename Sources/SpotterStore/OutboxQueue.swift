import Foundation
import GRDB
import SpotterCore

/// How one try of an operation ended, as the engine classified it.
public enum OperationResult: Sendable, Equatable {
    /// The server did what was asked; `body` is its canonical entity, when it sent one.
    case succeeded(status: Int, body: JSONValue?)
    /// Try again at `retryAt`.
    case transient(status: Int?, error: String, retryAt: Date)
    /// The server refused it (or the engine gave up): it will not be sent again.
    case permanent(status: Int?, error: String)
}

/// Counts of the current user's operations by what they mean to the user.
public struct QueueCounts: Sendable, Equatable {
    /// Not yet succeeded, failed or blocked (pending, in flight and waiting to retry).
    public var pending = 0
    public var inFlight = 0
    public var failed = 0
    public var blocked = 0
    public init() {}
}

extension SpotterStore {
    /// Default lease: long enough for a slow batch, short enough that a killed process's
    /// operations come back soon.
    public static let defaultLease: TimeInterval = 60

    /// Claims up to `limit` eligible operations of this user in one transaction: due, their
    /// dependency done, nothing earlier queued for the same entity, none of it in flight.
    public func claimEligible(limit: Int, lease: TimeInterval = SpotterStore.defaultLease) throws -> [OutboxOperation] {
        let now = clock.now()
        return try writer.write { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT o.* FROM outbox o
                        WHERE o.user_id = ? AND o.state IN ('pending','failed_transient')
                          AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
                          AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.entity_type = o.entity_type
                                AND p.entity_id = o.entity_id AND p.seq < o.seq AND p.state IN \(Outbox.queuedStates))
                          AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.entity_type = o.entity_type
                                AND p.entity_id = o.entity_id AND p.state = 'in_flight')
                          AND (o.depends_on IS NULL OR NOT EXISTS (SELECT 1 FROM outbox d WHERE d.op_id = o.depends_on
                                AND NOT (d.state = 'succeeded' OR (d.state = 'failed_permanent' AND d.kind != 'create'))))
                        ORDER BY o.seq LIMIT ?
                        """), arguments: [userID, now.timeIntervalSince1970, limit])
            var claimed: [OutboxOperation] = []
            claimed.reserveCapacity(rows.count)
            let claim = try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = 'in_flight', lease_expires_at = ?, attempt_count = attempt_count + 1,
                        first_sent_at = COALESCE(first_sent_at, ?), updated_at = ?
                    WHERE op_id = ?
                    """)
            for row in rows {
                var op = OutboxOperation(row: row)
                try claim.execute(arguments: [
                    now.addingTimeInterval(lease).timeIntervalSince1970, now.timeIntervalSince1970,
                    now.timeIntervalSince1970, op.opID,
                ])
                op.state = .inFlight
                op.attemptCount += 1
                op.leaseExpiresAt = now.addingTimeInterval(lease)
                claimed.append(op)
            }
            return claimed
        }
    }

    /// Returns operations whose lease ran out (their process died mid-send) to pending.
    @discardableResult
    public func releaseExpiredLeases() throws -> Int {
        let now = clock.now().timeIntervalSince1970
        return try writer.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = 'pending', lease_expires_at = NULL, updated_at = ?
                    WHERE state = 'in_flight' AND lease_expires_at < ?
                    """
            ).execute(arguments: [now, now])
            return db.changesCount
        }
    }

    /// Records how a try ended and applies it to the entity (SPEC section 4: reconciling
    /// success, permanent failure handling). Returns notices for the user.
    @discardableResult
    public func complete(opID: String, result: OperationResult) throws -> [StoreNotice] {
        try complete([(opID, result)])
    }

    /// Records the results of a whole batch in one transaction.
    @discardableResult
    public func complete(_ results: [(opID: String, result: OperationResult)]) throws -> [StoreNotice] {
        let now = clock.now()
        return try writer.write { db in
            var notices: [StoreNotice] = []
            for (opID, result) in results {
                guard
                    let row = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ?"), arguments: [opID])
                else { continue }  // discarded meanwhile: nothing left to record
                let op = OutboxOperation(row: row)
                guard op.state != .succeeded else { continue }
                switch result {
                case .succeeded(let status, let body):
                    try markSucceeded(op, status: status, body: body, db: db, now: now)
                case .transient(let status, let error, let retryAt):
                    try db.cachedStatement(
                        sql: """
                            UPDATE outbox SET state = 'failed_transient', next_attempt_at = ?, lease_expires_at = NULL,
                                last_status = ?, last_error = ?, updated_at = ?
                            WHERE op_id = ?
                            """
                    ).execute(arguments: [
                        retryAt.timeIntervalSince1970, status, error, now.timeIntervalSince1970, opID,
                    ])
                case .permanent(let status, let error):
                    notices += try markFailedPermanently(op, status: status, error: error, db: db, now: now)
                }
            }
            return notices
        }
    }

    /// Puts claimed operations back as if never claimed: they were not sent (airplane mode
    /// came on, or they did not fit the batch), so the try must not count.
    public func releaseUnsent(opIDs: [String]) throws {
        guard !opIDs.isEmpty else { return }
        let now = clock.now().timeIntervalSince1970
        try writer.write { db in
            for opID in opIDs {
                try db.cachedStatement(
                    sql: """
                        UPDATE outbox SET state = CASE WHEN attempt_count > 1 THEN 'failed_transient' ELSE 'pending' END,
                            first_sent_at = CASE WHEN attempt_count <= 1 THEN NULL ELSE first_sent_at END,
                            attempt_count = MAX(0, attempt_count - 1), lease_expires_at = NULL, updated_at = ?
                        WHERE op_id = ? AND state = 'in_flight'
                        """
                ).execute(arguments: [now, opID])
            }
        }
    }

    /// When the soonest waiting retry of this user comes due.
    public func nextRetryAt() throws -> Date? {
        try writer.read { db in
            try Double.fetchOne(
                db.cachedStatement(
                    sql: "SELECT MIN(next_attempt_at) FROM outbox WHERE user_id = ? AND state = 'failed_transient'"),
                arguments: [userID]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }

    private func markSucceeded(_ op: OutboxOperation, status: Int, body: JSONValue?, db: Database, now: Date) throws {
        try db.cachedStatement(
            sql: """
                UPDATE outbox SET state = 'succeeded', completed_at = ?, lease_expires_at = NULL, last_status = ?,
                    last_error = NULL, next_attempt_at = NULL, updated_at = ?
                WHERE op_id = ?
                """
        ).execute(arguments: [now.timeIntervalSince1970, status, now.timeIntervalSince1970, op.opID])
        try db.cachedStatement(sql: "INSERT INTO sync_latency (ms) VALUES (?)").execute(arguments: [
            max(0, now.timeIntervalSince(op.createdAt) * 1000)
        ])
        switch op.entityType {
        case .favorite:
            if op.kind == .create {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO favorites (exercise) VALUES (?)").execute(
                    arguments: [op.entityID])
            } else {
                try db.cachedStatement(sql: "DELETE FROM favorites WHERE exercise = ?").execute(arguments: [op.entityID]
                )
            }
            try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [op.opID])
        case .set, .workout:
            let table = EntityTable.table(op.entityType)!
            if op.kind == .delete {
                if try !Outbox.hasQueued(db, type: op.entityType, id: op.entityID) {
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ? AND deleted_at IS NOT NULL").execute(
                        arguments: [op.entityID])
                }
                return
            }
            let laterQueued = try Outbox.hasQueued(db, type: op.entityType, id: op.entityID)
            if let canonical = body?.objectValue, !laterQueued {
                // Only the fields this operation touched, and only when nothing later is queued:
                // the server's rounding wins, a newer local edit is never overwritten.
                let touched = canonical.filter { op.payload[$0.key] != nil && $0.key != "id" }
                var extra: [String: DatabaseValue] = [:]
                if let version = canonical["server_version"], !version.isNull {
                    extra["server_version"] = version.databaseValue
                }
                if let updated = canonical["updated_at"], !updated.isNull {
                    extra["updated_at"] = updated.databaseValue
                }
                try EntityTable.write(touched, type: op.entityType, id: op.entityID, extra: extra, db: db)
            }
            if !laterQueued {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET sync_state = 'synced', sync_error = NULL WHERE id = ?"
                ).execute(arguments: [op.entityID])
            }
        }
    }

    private func markFailedPermanently(
        _ op: OutboxOperation, status: Int?, error: String, db: Database, now: Date
    ) throws
        -> [StoreNotice]
    {
        try db.cachedStatement(
            sql: """
                UPDATE outbox SET state = 'failed_permanent', completed_at = ?, lease_expires_at = NULL, last_status = ?,
                    last_error = ?, next_attempt_at = NULL, updated_at = ?
                WHERE op_id = ?
                """
        ).execute(arguments: [now.timeIntervalSince1970, status, error, now.timeIntervalSince1970, op.opID])
        let label = try describe(type: op.entityType, id: op.entityID, db: db)
        switch (op.entityType, op.kind) {
        case (.favorite, _):
            try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [op.opID])
            return [StoreNotice("Starring \(op.entityID) failed: \(error)")]
        case (_, .create):
            let table = EntityTable.table(op.entityType)!
            if try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT deleted_at IS NOT NULL FROM \(table) WHERE id = ?"),
                arguments: [op.entityID]) == true
            {
                // The user deleted it meanwhile: it is gone either way.
                try discardEntity(type: op.entityType, id: op.entityID, db: db)
                return []
            }
            try db.cachedStatement(sql: "UPDATE \(table) SET sync_state = 'rejected', sync_error = ? WHERE id = ?")
                .execute(arguments: [error, op.entityID])
            try Outbox.blockDependants(of: op.opID, reason: "waiting on rejected \(label)", now: now, db: db)
            return [StoreNotice("\(label.capitalizedFirst) was rejected: \(error)")]
        case (_, .update):
            let table = EntityTable.table(op.entityType)!
            if status == 404 || status == 410 {
                try discardLocally(type: op.entityType, id: op.entityID, db: db)
                return [
                    StoreNotice("\(label.capitalizedFirst) was deleted on another device; your edit was not applied")
                ]
            }
            // Roll back each touched field unless a later queued operation changed it again.
            let laterFields = try laterQueuedFields(after: op, db: db)
            let rollback = op.before.filter { !laterFields.contains($0.key) }
            try EntityTable.write(rollback, type: op.entityType, id: op.entityID, db: db)
            try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            try db.cachedStatement(sql: "UPDATE \(table) SET sync_error = ? WHERE id = ?").execute(arguments: [
                "edit rolled back: \(error)", op.entityID,
            ])
            return [StoreNotice("Edit of \(label) was rejected and rolled back: \(error)")]
        case (_, .delete):
            let table = EntityTable.table(op.entityType)!
            let deletedAt = try String.fetchOne(
                db.cachedStatement(sql: "SELECT deleted_at FROM \(table) WHERE id = ?"), arguments: [op.entityID])
            try db.cachedStatement(sql: "UPDATE \(table) SET deleted_at = NULL, sync_error = ? WHERE id = ?").execute(
                arguments: ["delete rejected: \(error)", op.entityID])
            if op.entityType == .workout, let deletedAt {
                try db.cachedStatement(sql: "UPDATE sets SET deleted_at = NULL WHERE workout_id = ? AND deleted_at = ?")
                    .execute(arguments: [op.entityID, deletedAt])
            }
            try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            return [StoreNotice("Delete of \(label) was rejected; it is back: \(error)")]
        }
    }

    /// The entity is gone on the server: remove it here and drop what was queued for it.
    private func discardLocally(type: EntityType, id: String, db: Database) throws {
        guard let table = EntityTable.table(type) else { return }
        try db.cachedStatement(
            sql:
                "DELETE FROM outbox WHERE entity_type = ? AND entity_id = ? AND state IN ('pending','failed_transient','blocked')"
        ).execute(arguments: [type.rawValue, id])
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?").execute(arguments: [id])
    }

    private func laterQueuedFields(after op: OutboxOperation, db: Database) throws -> Set<String> {
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

    func describe(type: EntityType, id: String, db: Database) throws -> String {
        switch type {
        case .set:
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT exercise, weight, unit, reps FROM sets WHERE id = ?"), arguments: [id])
            {
                let weight = Formatting.weight(row["weight"], unit: WeightUnit(rawValue: row["unit"]) ?? .kg)
                return "set \(row["exercise"] as String) \(weight) × \(row["reps"] as Int)"
            }
            return "set \(id.prefix(8))"
        case .workout:
            if let name = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM workouts WHERE id = ?"), arguments: [id])
            {
                return "workout \(name)"
            }
            return "workout \(id.prefix(8))"
        case .favorite:
            return "favorite \(id)"
        }
    }

    /// Keeps the newest `keep` succeeded operations as history and deletes older ones.
    @discardableResult
    public func pruneSucceeded(keep: Int = 500) throws -> Int {
        try writer.write { db in
            try db.cachedStatement(
                sql: """
                    DELETE FROM outbox WHERE state = 'succeeded' AND seq NOT IN
                        (SELECT seq FROM outbox WHERE state = 'succeeded' ORDER BY seq DESC LIMIT ?)
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
            try retry(OutboxOperation(row: row), db: db, now: now)
        }
    }

    /// Retries every failed operation of this user; returns how many.
    @discardableResult
    public func retryAllFailed() throws -> Int {
        let now = self.now
        return try writer.write { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM outbox WHERE user_id = ? AND state = 'failed_permanent' ORDER BY seq"),
                arguments: [userID])
            for row in rows { try retry(OutboxOperation(row: row), db: db, now: now) }
            return rows.count
        }
    }

    private func retry(_ op: OutboxOperation, db: Database, now: Date) throws {
        guard op.state == .failedPermanent else {
            throw StoreError.notAllowed(
                "operation \(op.opID) is \(op.state.rawValue); only failed operations can be retried")
        }
        let refused = op.lastStatus.map { (400..<500).contains($0) } ?? false
        if !refused {
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = 'pending', attempt_count = 0, next_attempt_at = NULL, last_error = NULL,
                        created_at = ?, completed_at = NULL, updated_at = ?
                    WHERE op_id = ?
                    """
            ).execute(arguments: [now.timeIntervalSince1970, now.timeIntervalSince1970, op.opID])
            try releaseBlocked(behind: op.opID, db: db, now: now)
            if let table = EntityTable.table(op.entityType) {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET sync_state = 'pending', sync_error = NULL WHERE id = ?"
                ).execute(arguments: [op.entityID])
            }
            return
        }
        switch op.kind {
        case .create:
            try requeueCreate(of: op, db: db, now: now)
        case .update:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
            try applyEdit(type: op.entityType, id: op.entityID, patch: op.payload, db: db, now: now)
        case .delete:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
            if let table = EntityTable.table(op.entityType) {
                try db.cachedStatement(sql: "UPDATE \(table) SET deleted_at = ?, sync_state = 'pending' WHERE id = ?")
                    .execute(arguments: [Timestamp.format(now), op.entityID])
            }
            _ = try Outbox.insert(
                db, user: op.userID, type: op.entityType, id: op.entityID, kind: .delete, payload: [:],
                before: op.before,
                dependsOn: nil, blocked: false, now: now)
        }
    }

    /// Gives up on a failed or blocked operation. A create the server never accepted takes its
    /// entity (and what depends on it) with it; nothing is sent.
    public func discard(opID: String) throws {
        try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ? AND user_id = ?"),
                    arguments: [opID, userID])
            else { throw StoreError.notFound("operation \(opID)") }
            let op = OutboxOperation(row: row)
            guard op.state == .failedPermanent || op.state == .blocked else {
                throw StoreError.notAllowed(
                    "operation \(opID) is \(op.state.rawValue); only failed or blocked operations can be discarded")
            }
            if op.kind == .create {
                let workoutID =
                    op.entityType == .set
                    ? try String.fetchOne(
                        db.cachedStatement(sql: "SELECT workout_id FROM sets WHERE id = ?"), arguments: [op.entityID])
                    : nil
                try discardEntity(type: op.entityType, id: op.entityID, db: db)
                // A workout kept only because it held this set (it was deleted on another device) goes with it.
                if let workoutID,
                    try String.fetchOne(
                        db.cachedStatement(sql: "SELECT sync_error FROM workouts WHERE id = ?"), arguments: [workoutID])
                        == Self.deletedElsewhere,
                    try !workoutHoldsUnresolvedSets(workoutID, db: db)
                {
                    try db.cachedStatement(sql: "DELETE FROM workouts WHERE id = ?").execute(arguments: [workoutID])
                }
            } else {
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [opID])
                if op.entityType == .favorite {
                    try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [
                        opID
                    ])
                }
                try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            }
        }
    }

    /// The failed or blocked operation that explains a rejected entity, for `r` / `x` in the UI.
    public func failedOperation(entityType: EntityType, entityID: String) throws -> OutboxOperation? {
        try writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ? AND state IN ('failed_permanent','blocked')
                        ORDER BY CASE state WHEN 'failed_permanent' THEN 0 ELSE 1 END, seq LIMIT 1
                        """), arguments: [entityType.rawValue, entityID]
            ).map(OutboxOperation.init(row:))
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

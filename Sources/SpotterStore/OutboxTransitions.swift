import Foundation
import GRDB
import SpotterCore

/// Carries out what `OutboxMachine` decides. Nothing here chooses a state: it persists the
/// machine's transition and its effects on the entity and on the operations that wait.
extension OutboxOperation {
    fileprivate mutating func releaseLease() {
        leaseExpiresAt = nil
        leaseOwner = nil
    }

    /// Writes the columns a transition changed, compared with the row as read: one cached
    /// UPDATE per set of columns. (The drain makes thousands of these; GRDB's updateChanges would
    /// serialise the payload twice to find that it did not change.)
    fileprivate func saveTransition(_ db: Database, from old: OutboxOperation) throws {
        var assignments: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        func compare(_ column: Column, _ new: (any DatabaseValueConvertible)?, _ changed: Bool) {
            guard changed else { return }
            assignments.append("\(column.name) = ?")
            arguments.append(new)
        }
        compare(Columns.state, state.rawValue, state != old.state)
        compare(Columns.attemptCount, attemptCount, attemptCount != old.attemptCount)
        compare(
            Columns.nextAttemptAt, nextAttemptAt?.timeIntervalSince1970, nextAttemptAt != old.nextAttemptAt)
        compare(
            Columns.leaseExpiresAt, leaseExpiresAt?.timeIntervalSince1970, leaseExpiresAt != old.leaseExpiresAt)
        compare(Columns.leaseOwner, leaseOwner, leaseOwner != old.leaseOwner)
        compare(Columns.lastStatus, lastStatus, lastStatus != old.lastStatus)
        compare(Columns.lastError, lastError, lastError != old.lastError)
        compare(Columns.createdAt, createdAt.timeIntervalSince1970, createdAt != old.createdAt)
        compare(Columns.updatedAt, updatedAt.timeIntervalSince1970, updatedAt != old.updatedAt)
        compare(Columns.completedAt, completedAt?.timeIntervalSince1970, completedAt != old.completedAt)
        compare(Columns.firstSentAt, firstSentAt?.timeIntervalSince1970, firstSentAt != old.firstSentAt)
        compare(Columns.noAnswer, noAnswer ? 1 : 0, noAnswer != old.noAnswer)
        guard !assignments.isEmpty else { return }
        arguments.append(seq)
        try db.cachedStatement(
            sql:
                "UPDATE \(Self.databaseTableName) SET \(assignments.joined(separator: ", ")) WHERE \(Columns.seq.name) = ?"
        ).execute(arguments: StatementArguments(arguments))
    }
}

extension SpotterStore {
    /// What the machine needs to know of an operation for `event`, read in the same transaction
    /// (only what that event can depend on: claims and lease releases read nothing more).
    func facts(of op: OutboxOperation, for event: OutboxMachine.Event, db: Database) throws -> OutboxMachine.Facts {
        var facts = OutboxMachine.Facts(
            kind: op.kind, state: op.state, attemptCount: op.attemptCount, everSent: op.firstSentAt != nil,
            lastStatus: op.lastStatus, gaveUpWithoutAnswer: op.noAnswer)
        switch event {
        case .succeeded:
            facts.laterQueued = try Outbox.hasQueued(db, type: op.entityType, id: op.entityID, excluding: op.opID)
        case .permanent where op.kind == .create, .gaveUp where op.kind == .create,
            .workoutGone where op.kind == .create:
            if let table = EntityTable.table(op.entityType) {
                facts.entityDeletedLocally =
                    try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT deleted_at IS NOT NULL FROM \(table) WHERE id = ?"),
                        arguments: [op.entityID]) ?? false
            }
        default:
            break
        }
        return facts
    }

    /// Applies `event` to an operation: the machine decides, this persists. Returns notices for the user.
    @discardableResult
    func transition(
        _ op: OutboxOperation, _ event: OutboxMachine.Event, db: Database, now: Date, answer: PulledEntity? = nil,
        lease: TimeInterval = 0
    ) throws -> [StoreNotice] {
        let transition: OutboxMachine.Transition
        do {
            transition = try OutboxMachine.apply(event, to: try facts(of: op, for: event, db: db))
        } catch let refused as OutboxMachine.NotAllowed {
            throw StoreError.notAllowed("operation \(op.opID): \(refused)")
        }
        // The row's own changes: the record is changed as the effects say, and only the columns
        // that differ are written (one UPDATE; the drain makes thousands of these).
        var row = op
        row.updatedAt = now
        if let state = transition.state { row.state = state }
        var entityEffects: [OutboxMachine.Effect] = []
        for effect in transition.effects {
            switch effect {
            case .startTry:
                row.leaseExpiresAt = now.addingTimeInterval(lease)
                row.leaseOwner = LeaseOwner.current
                row.attemptCount += 1
                row.firstSentAt = row.firstSentAt ?? now
            case .undoTry:
                // The claim never left: it takes back the first send only if it was the one that
                // set it (a retried operation starts its count afresh but may have landed before).
                if op.firstSendIsThisClaims { row.firstSentAt = nil }
                row.attemptCount = max(0, row.attemptCount - 1)
                row.releaseLease()
            case .refundTry:
                row.attemptCount = max(0, row.attemptCount - 1)
            case .markNoAnswer:
                row.noAnswer = true
            case .startAfresh:
                row.noAnswer = false
                row.attemptCount = 0
                row.nextAttemptAt = nil
                row.completedAt = nil
                row.createdAt = now
            case .scheduleRetry(let at):
                row.nextAttemptAt = at
                row.releaseLease()
            case .dueNow:
                row.nextAttemptAt = nil
            case .recordAnswer(let status, let error):
                row.lastStatus = status
                row.lastError = error
            case .complete:
                row.completedAt = now
                row.nextAttemptAt = nil
                row.releaseLease()
            default:
                entityEffects.append(effect)
            }
        }
        if transition.state != nil { try row.saveTransition(db, from: op) }
        if case .succeeded = event {
            try db.cachedStatement(sql: "INSERT INTO sync_latency (ms) VALUES (?)").execute(arguments: [
                max(0, now.timeIntervalSince(op.createdAt) * 1000)
            ])
        }
        // A set's workout when it was deleted on another device and is kept only for what it
        // holds here: read before the effects may remove the set (no effect of a set's operation
        // marks a workout so; only the pull does).
        let workoutID =
            op.entityType == .set && !entityEffects.isEmpty
            ? try String.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT id FROM workouts
                        WHERE id = COALESCE((SELECT workout_id FROM sets WHERE id = ?), ?) AND sync_error = ?
                        """),
                arguments: [op.entityID, op.payload["workout_id"]?.stringValue, Self.deletedElsewhere]) : nil
        var notices: [StoreNotice] = []
        var resent = false
        for effect in entityEffects {
            if effect == .resendLaterEdits {
                resent = try resendLaterEdits(of: op, db: db, now: now)
                continue
            }
            // Edits going out again keep the local values until their own answer comes.
            if effect == .takeServerRow && resent { continue }
            notices += try carryOut(effect, of: op, event: event, db: db, now: now, answer: answer)
        }
        if let workoutID { try forgetWorkoutDeletedElsewhere(workoutID, db: db) }
        return notices
    }

    private func carryOut(
        _ effect: OutboxMachine.Effect, of op: OutboxOperation, event: OutboxMachine.Event, db: Database, now: Date,
        answer: PulledEntity?
    ) throws -> [StoreNotice] {
        let table = EntityTable.table(op.entityType)
        switch effect {
        case .startTry, .undoTry, .refundTry, .startAfresh, .scheduleRetry, .dueNow, .recordAnswer, .complete,
            .resendLaterEdits,
            .markNoAnswer:
            break  // the row's own changes, made in `transition`
        case .takeServerRow:
            if op.entityType == .favorite {
                try settleFavorite(op, db: db)
            } else if let table {
                try reconcile(op, answer: answer, db: db)
                // A workout the reconcile just marked deleted on another device (the newest row the
                // server has shown is its tombstone, and a set of it is still unresolved) keeps the
                // mark: it is what takes the workout away with its last such set.
                try db.cachedStatement(
                    sql: """
                        UPDATE \(table) SET sync_state = \(SyncState.synced.sql), sync_error = NULL
                        WHERE id = ? AND sync_error IS NOT ?
                        """
                ).execute(arguments: [op.entityID, Self.deletedElsewhere])
            }
        case .removeDeletedEntity:
            if op.entityType == .favorite {
                try settleFavorite(op, db: db)
            } else if let table {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ? AND deleted_at IS NOT NULL").execute(
                    arguments: [op.entityID])
                if db.changesCount > 0 {
                    try forgetWaiting(op.entityType, op.entityID, db: db)
                    if op.entityType == .workout {
                        try db.cachedStatement(sql: "DELETE FROM pulled_waiting WHERE account = ? AND parent_id = ?")
                            .execute(arguments: [userID, op.entityID])
                    }
                }
            }
        case .markEntityRejected(let reason):
            if op.entityType == .favorite {
                try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [op.opID]
                )
                if case .permanent = event { return [StoreNotice("Starring \(op.entityID) failed: \(reason)")] }
            } else if let table, op.kind == .create {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET sync_state = \(SyncState.rejected.sql), sync_error = ? WHERE id = ?"
                ).execute(arguments: [reason, op.entityID])
                if case .permanent = event {
                    let label = try describe(type: op.entityType, id: op.entityID, db: db)
                    return [StoreNotice("\(label.capitalizedFirst) was rejected: \(reason)")]
                }
            }
        case .markEntityWaiting(let reason):
            // Not refused: the entity stays pending and says why it has not gone yet.
            if let table, op.entityType != .favorite {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET sync_state = \(SyncState.pending.sql), sync_error = ? WHERE id = ?"
                ).execute(arguments: [reason, op.entityID])
            }
            if case .gaveUp = event {
                let label = try describe(type: op.entityType, id: op.entityID, db: db)
                return [
                    StoreNotice(
                        "\(label.capitalizedFirst): \(reason); it goes back to the queue when the server answers")
                ]
            }
        case .blockDependants(let reason):
            let label = try describe(type: op.entityType, id: op.entityID, db: db)
            if case .gaveUp = event {
                try blockDependants(
                    of: op.opID, reason: "waiting on \(label), which \(OutboxMachine.gaveUpPrefix)", noAnswer: true,
                    db: db, now: now)
            } else {
                let why = if case .permanent = event { "waiting on rejected \(label)" } else { reason }
                try blockDependants(of: op.opID, reason: why, db: db, now: now)
            }
        case .releaseDependants:
            try releaseBlocked(behind: op.opID, db: db, now: now)
            if let table {
                try db.cachedStatement(
                    sql: "UPDATE \(table) SET sync_state = \(SyncState.pending.sql), sync_error = NULL WHERE id = ?"
                ).execute(arguments: [op.entityID])
            }
        case .discardEntity:
            if op.entityType == .favorite {
                return try carryOut(.removeOperation, of: op, event: event, db: db, now: now, answer: nil)
            }
            try discardEntity(type: op.entityType, id: op.entityID, db: db)
        case .removeOperation:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op.opID])
            if op.entityType == .favorite {
                try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [op.opID]
                )
            } else {
                try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            }
        case .rollBack(let reason):
            // Each touched field returns to its before-image unless a later queued operation changed it again.
            let laterFields = try laterQueuedFields(after: op, db: db)
            let rollback = op.before.filter { !laterFields.contains($0.key) }
            try EntityTable.write(rollback, type: op.entityType, id: op.entityID, db: db)
            try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            if let table {
                try db.cachedStatement(sql: "UPDATE \(table) SET sync_error = ? WHERE id = ?").execute(arguments: [
                    "edit rolled back: \(reason)", op.entityID,
                ])
            }
            let label = try describe(type: op.entityType, id: op.entityID, db: db)
            return [StoreNotice("Edit of \(label) was rejected and rolled back: \(reason)")]
        case .removeEntityLocally:
            let label = try describe(type: op.entityType, id: op.entityID, db: db)
            // A workout this device already knows is deleted on the server — its tombstone was
            // pulled while a set of it was unresolved, so it stayed, marked; or it is no longer
            // here at all (it went with the last such set; a delete made here keeps the row until
            // it is answered): no later tombstone will come to settle this refused edit, so it is
            // settled now, as that would have.
            let markedError =
                op.entityType == .workout
                ? try String.fetchOne(
                    db.cachedStatement(sql: "SELECT COALESCE(sync_error, '') FROM workouts WHERE id = ?"),
                    arguments: [op.entityID])
                : ""
            let tombstoneSeen = markedError == nil || markedError == Self.deletedElsewhere
            // A workout's sets the server never had stay the user's: they move to a restored copy
            // before the workout goes here (its sets would go with it).
            let kept =
                op.entityType == .workout ? try keepSetsOfDeletedWorkout(op.entityID, db: db, now: now) : []
            if op.entityType == .workout, try workoutHoldsUnresolvedSets(op.entityID, db: db) {
                // A set whose create is on its way (sent, no answer yet) stays where it is until
                // its answer decides: landed, it goes with the workout; refused because the
                // workout is gone, it is kept in the restored copy. Deleting the workout now
                // would take that set's row with it, and its answer would find nothing to keep.
                // The workout stays, marked as deleted elsewhere, and goes with its last such set
                // (as a pulled tombstone leaves it; see `forgetWorkoutDeletedElsewhere`).
                try discardQueuedOperations(type: .workout, id: op.entityID, db: db)
                try db.cachedStatement(
                    sql: "UPDATE workouts SET sync_state = \(SyncState.rejected.sql), sync_error = ? WHERE id = ?"
                ).execute(arguments: [Self.deletedElsewhere, op.entityID])
            } else {
                try discardLocally(type: op.entityType, id: op.entityID, db: db)
            }
            if tombstoneSeen { try settleGivenUpDeletes(.workout, op.entityID, db: db) }
            return [StoreNotice("\(label.capitalizedFirst) was deleted on another device; your edit was not applied")]
                + kept
        case .keepInRestoredWorkout:
            guard
                let rowWorkout = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT workout_id FROM sets WHERE id = ?"), arguments: [op.entityID])
            else {
                // The set's row is no longer here (a damaged file, or a path that removed it):
                // nothing is left to keep but the operation. It fails for good, with its fields and
                // the reason in the outbox and on every status line, rather than staying on its way
                // for ever (its answer would change nothing, and its lease would send it again).
                return try transition(
                    op, .permanent(status: 422, error: Self.setGoneWithItsWorkout), db: db, now: now)
            }
            // The workout it named: a create's, or the one an edit moved it to.
            let named = op.payload["workout_id"]?.stringValue ?? rowWorkout
            return try keepSetsOfDeletedWorkout(named, answered: op, db: db, now: now)
        case .restoreEntity(let reason):
            guard let table else { return [] }
            let label = try describe(type: op.entityType, id: op.entityID, db: db)
            let deletedAt = try String.fetchOne(
                db.cachedStatement(sql: "SELECT deleted_at FROM \(table) WHERE id = ?"), arguments: [op.entityID])
            try db.cachedStatement(sql: "UPDATE \(table) SET deleted_at = NULL, sync_error = ? WHERE id = ?").execute(
                arguments: ["delete rejected: \(reason)", op.entityID])
            if op.entityType == .workout, let deletedAt {
                try db.cachedStatement(sql: "UPDATE sets SET deleted_at = NULL WHERE workout_id = ? AND deleted_at = ?")
                    .execute(arguments: [op.entityID, deletedAt])
            }
            try Outbox.refreshSyncState(type: op.entityType, id: op.entityID, db: db)
            return [StoreNotice("Delete of \(label) was rejected; it is back: \(reason)")]
        case .requeueAsNewIntent:
            try requeueAsNewIntent(op, db: db, now: now)
        case .keepDependantsQueued:
            try releaseBlocked(behind: op.opID, db: db, now: now)
            try db.cachedStatement(sql: "UPDATE outbox SET depends_on = NULL WHERE depends_on = ?").execute(
                arguments: [op.opID])
        case .settleWaitingChange:
            return try settleWaiting(op.entityType, op.entityID, db: db)
        case .settleEarlierFailures:
            try db.cachedStatement(
                sql: """
                    DELETE FROM outbox WHERE entity_type = ? AND entity_id = ? AND op_id != ?
                        AND state IN \(OperationState.sqlList([.failedPermanent, .blocked]))
                    """
            ).execute(arguments: [op.entityType.rawValue, op.entityID, op.opID])
        }
        return []
    }

    /// Queues the fields edited after a create as an update; returns whether there were any.
    private func resendLaterEdits(of op: OutboxOperation, db: Database, now: Date) throws -> Bool {
        let edited = op.payload.filter { op.before[$0.key] != nil && $0.key != "id" }
        guard !edited.isEmpty, op.entityType != .favorite else { return false }
        _ = try Outbox.enqueue(
            db, user: op.userID, type: op.entityType, id: op.entityID, kind: .update, payload: edited,
            before: op.before, now: now)
        return true
    }

    /// A favorite's call finished (either way): the server list follows it, and the pending
    /// entry leaves only when this call belongs to the latest toggle.
    private func settleFavorite(_ op: OutboxOperation, db: Database) throws {
        if op.kind == .create {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO favorites (exercise) VALUES (?)").execute(arguments: [
                op.entityID
            ])
        } else {
            try db.cachedStatement(sql: "DELETE FROM favorites WHERE exercise = ?").execute(arguments: [op.entityID])
        }
        try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE op_id = ?").execute(arguments: [op.opID])
    }

    /// A workout deleted on another device is kept here only while it holds sets whose fate the
    /// user has not seen (queued, rejected); once the last of them is resolved, it goes too.
    func forgetWorkoutDeletedElsewhere(_ workoutID: String, db: Database) throws {
        if try String.fetchOne(
            db.cachedStatement(sql: "SELECT sync_error FROM workouts WHERE id = ?"), arguments: [workoutID])
            == Self.deletedElsewhere,
            try !workoutHoldsUnresolvedSets(workoutID, db: db)
        {
            try db.cachedStatement(sql: "DELETE FROM workouts WHERE id = ?").execute(arguments: [workoutID])
        }
    }

    /// Marks every operation waiting on `opID`, directly or not, as blocked.
    func blockDependants(
        of opID: String, reason: String, noAnswer: Bool = false, db: Database, now: Date
    ) throws {
        var frontier = [opID]
        while let current = frontier.popLast() {
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM outbox WHERE depends_on = ?
                        AND state IN \(OperationState.sqlList([.pending, .failedTransient, .blocked]))
                        """), arguments: [current])
            for row in rows {
                // A dependant that cannot be read fails for good itself (and blocks its own
                // dependants) rather than aborting the claim that found its parent broken.
                guard let dependant = try operationOrFailUnreadable(row, db: db, now: now) else { continue }
                try transition(
                    dependant, noAnswer ? .dependencyGaveUp(reason: reason) : .dependencyFailed(reason: reason), db: db,
                    now: now)
                frontier.append(dependant.opID)
            }
        }
    }

    /// Returns blocked dependants of `opID` (transitively) to pending.
    func releaseBlocked(behind opID: String, db: Database, now: Date) throws {
        for dependant in try Outbox.dependants(of: opID, db: db) {
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT * FROM outbox WHERE op_id = ? AND state = \(OperationState.blocked.sql)"),
                    arguments: [dependant])
            else { continue }
            let op = try OutboxOperation(row: row)
            try transition(op, .dependencyRequeued, db: db, now: now)
            try db.cachedStatement(sql: "UPDATE outbox SET next_attempt_at = NULL WHERE op_id = ?").execute(
                arguments: [dependant])
            if let table = EntityTable.table(op.entityType) {
                try db.cachedStatement(
                    sql: """
                        UPDATE \(table) SET sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ? AND sync_state = \(SyncState.rejected.sql)
                        """
                ).execute(arguments: [op.entityID])
            }
        }
    }
}

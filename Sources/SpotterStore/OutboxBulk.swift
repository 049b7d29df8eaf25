import Foundation
import GRDB
import SpotterCore

/// The drain's usual answer, recorded for the whole batch at once.
///
/// A drain's batch is nearly always answered the same way: every operation is a set this device
/// wrote, the server stored it as sent, nothing else is queued for those sets and nothing from the
/// feed waits for them. Recorded one by one, each costs a dozen statements (read the operation,
/// ask the machine's facts, write its state, note the latency, read and stamp the set, …); here
/// the machine still decides each operation, and each kind of write is one statement for all.
///
/// Anything else — a failure, a workout, a later edit queued, a row that differs from the answer —
/// leaves the batch to the one-by-one path (`OutboxQueue.record`), which stays the reference: the
/// rows both paths leave are the same (`OutboxBulkTests`).
extension OutboxQueue {
    /// The most operations recorded in one bulk pass (the statements bind about three values each).
    static let bulkLimit = 500

    /// Records `results` in bulk and returns true, or returns false having changed nothing the
    /// one-by-one path would not (at most a custom exercise it would add too).
    func recordInBulk(_ results: [OperationOutcome], db: Database, now: Date) throws -> Bool {
        guard store.recordsInBulk, results.count > 1, results.count <= Self.bulkLimit else { return false }
        // Every answer a set row with its stamp. (A set answered twice makes `setIDs` longer than
        // the sets read below, which leaves the batch to the one-by-one path.)
        var answers: [String: (status: Int, setID: String)] = [:]
        var setsByID: [String: (set: WorkoutSet, version: Int64, updatedAt: String?)] = [:]
        var setIDs: [String] = []
        for outcome in results {
            guard case .succeeded(let status, let row) = outcome.result, case .set(let set, let stamp)? = row,
                let version = stamp.serverVersion, answers[outcome.opID] == nil
            else { return false }
            let setID = set.id.wireString
            answers[outcome.opID] = (status, setID)
            setsByID[setID] = (set, version, stamp.updatedAt)
            setIDs.append(setID)
        }
        let opIDs = results.map(\.opID)
        let marks = Placeholders.list(opIDs.count)

        // The operations (without their payloads): each a set's, each answer one the machine takes
        // the plain way — record it, complete it, take the server's row.
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT seq, op_id, entity_type, entity_id, kind, state, attempt_count, first_sent_at, last_status,
                        created_at
                    FROM outbox WHERE op_id IN (\(marks))
                    """), arguments: StatementArguments(opIDs))
        guard rows.count == opIDs.count else { return false }
        var seqsByStatus: [Int: [Int64]] = [:]
        var latencyByOp: [String: Double] = [:]
        for row in rows {
            guard let opID = row[1] as String?, let answer = answers[opID],
                (row[2] as String?) == EntityType.set.rawValue,
                (row[3] as String?) == answer.setID,
                let kind = OperationKind(rawValue: (row[4] as String?) ?? ""),
                let state = OperationState(rawValue: (row[5] as String?) ?? "")
            else { return false }
            let facts = OutboxMachine.Facts(
                kind: kind, state: state, attemptCount: (row[6] as Int?) ?? 0, everSent: (row[7] as Double?) != nil,
                lastStatus: row[8])
            let plain = OutboxMachine.Transition(
                .succeeded, [.recordAnswer(status: answer.status, error: nil), .complete, .takeServerRow])
            guard (try? OutboxMachine.apply(.succeeded(status: answer.status), to: facts)) == plain else {
                return false
            }
            seqsByStatus[answer.status, default: []].append(row[0])
            latencyByOp[opID] = max(0, now.timeIntervalSince1970 - (row[9] as Double? ?? 0)) * 1000
        }
        let latencies = opIDs.compactMap { latencyByOp[$0] }  // in the answers' order, as one by one

        // Nothing else queued for these sets (the machine would keep the local row), nothing of
        // the feed waiting for them (it may be newer than the answer).
        let setMarks = Placeholders.list(setIDs.count)
        guard
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM outbox WHERE entity_type = \(EntityType.set.sql)
                            AND entity_id IN (\(setMarks)) AND state IN \(Outbox.queuedStates) AND op_id NOT IN (\(marks)))
                        OR EXISTS (SELECT 1 FROM pulled_waiting WHERE account = ? AND entity_type = \(EntityType.set.sql)
                            AND entity_id IN (\(setMarks)))
                        """), arguments: StatementArguments(setIDs + opIDs + [userID] + setIDs)) == false
        else { return false }

        // Each set here, live in a live workout (not one deleted on another device), holds what
        // the server answered: only the stamp is new (see `takeStampOnly`).
        let locals = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT s.id, COALESCE(s.server_version, 0), \(AnsweredSet.columns("s."))
                    FROM sets s JOIN workouts w ON w.id = s.workout_id
                    WHERE s.id IN (\(setMarks)) AND s.deleted_at IS NULL AND \(store.visible("s."))
                        AND w.deleted_at IS NULL AND w.sync_error IS NOT ?
                    """), arguments: StatementArguments(setIDs + [SpotterStore.deletedElsewhere]))
        guard locals.count == setIDs.count else { return false }
        var exercises: [String: String] = [:]
        for local in locals {
            // A version that does not read (a hand edit) sends the set to the full merge, which
            // takes the server's answer over it.
            guard let id = local.cell(at: 0, as: String.self), let answer = setsByID[id],
                let version = local.cell(at: 1, as: Int64.self), version <= answer.version
            else { return false }
            let set = answer.set
            let exercise: String
            if let known = exercises[set.exercise] {
                exercise = known
            } else {
                exercise = try store.resolveExercise(set.exercise, followAliases: false, db: db)
                exercises[set.exercise] = exercise
            }
            guard AnsweredSet.row(local, from: 2, holds: AnsweredSet.values(of: set, exercise: exercise)) else {
                return false
            }
        }

        // The writes: each operation's transition, its latency, each set's stamp.
        let stamp = now.timeIntervalSince1970
        for (status, seqs) in seqsByStatus {
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET state = \(OperationState.succeeded.sql), last_status = ?, last_error = NULL,
                        completed_at = ?, next_attempt_at = NULL, lease_expires_at = NULL, lease_owner = NULL,
                        updated_at = ?
                    WHERE seq IN (\(Placeholders.list(seqs.count)))
                    """
            ).execute(arguments: [status, stamp, stamp] + StatementArguments(seqs))
        }
        try db.cachedStatement(
            sql: "INSERT INTO sync_latency (ms) VALUES \(Placeholders.list(latencies.count, each: "(?)"))"
        ).execute(arguments: StatementArguments(latencies))
        let fallback = Timestamp.format(now)
        try store.writeStamps(
            setIDs.compactMap { id in setsByID[id].map { (id, $0.updatedAt ?? fallback, $0.version) } }, db: db)
        return true
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// Text and JSON shapes of the CLI's listings (the JSON fields are part of the CLI's contract).
enum Render {
    static func date(_ seconds: Date?) -> JSONValue {
        seconds.map { .string(Timestamp.format($0)) } ?? .null
    }

    /// An owner for scripts: `{"name","server","user","verified"}` (server and user null for the device).
    static func ownerJSON(_ owner: QueueOwner) -> JSONValue {
        var user: String?
        if case .account(_, let name) = owner { user = name }
        var verified = false
        if case .account = owner { verified = true }
        return .object([
            "name": .string(owner.description), "server": JSONValue(owner.server), "user": JSONValue(user),
            "verified": .bool(verified),
        ])
    }

    /// Operations waiting for another owner: who, how many, and the command that sends them.
    static func strandedJSON(_ queue: StrandedQueue) -> JSONValue {
        .object([
            "account": ownerJSON(queue.owner), "operations": .int(Int64(queue.operations)),
            "resolve": .string(resolveHint(for: queue.owner)),
        ])
    }

    /// A set as the wire model writes it, with every optional field present (null when unset) and
    /// how it stands with the server.
    static func setJSON(_ row: SetRow) -> JSONValue {
        var fields = WireSet(row.set).json.objectValue ?? [:]
        for key in [WireSet.Field.rpe, WireSet.Field.distanceM, WireSet.Field.durationS, WireSet.Field.notes]
        where fields[key] == nil {
            fields[key] = .null
        }
        fields["sync_state"] = .string(row.syncState.rawValue)
        fields["sync_error"] = JSONValue(row.syncError)
        return .object(fields)
    }

    /// One set as `spotter sets` prints it, its weight in `unit` when the lifter chose one
    /// (`--json` always gives the stored weight and unit).
    static func setLine(_ row: SetRow, unit: WeightUnit? = nil) -> String {
        let set = row.set
        var line =
            "\(set.id.wireString)  \(set.exercise)  \(Formatting.weight(set.weight, unit: set.unit, shownIn: unit)) × \(set.reps)"
        if let rpe = set.rpe { line += " @\(Formatting.number(rpe))" }
        if set.kind != .normal { line += " [\(set.kind.rawValue)]" }
        switch row.record {
        case .oneRepMax: line += " PR"
        case .reps: line += " rep-PR"
        case nil: break
        }
        switch row.syncState {
        case .synced: break
        // Pending and saying why: it gave up without an answer (never "rejected"), or waits on one.
        case .pending: line += "  (\(row.syncError ?? "pending"))"
        case .rejected: line += "  (rejected: \(row.syncError ?? "unknown reason"))"
        }
        return line
    }

    static func workoutJSON(_ row: WorkoutSummary) -> JSONValue {
        var fields = WireWorkout(row.workout).json.objectValue ?? [:]
        for key in [WireWorkout.Field.endedAt, WireWorkout.Field.notes] where fields[key] == nil { fields[key] = .null }
        fields["set_count"] = JSONValue(row.setCount)
        fields["sync_state"] = .string(row.syncState.rawValue)
        // Why a workout is rejected ("deleted on another device"), as `sets --json` says of a set.
        fields["sync_error"] = JSONValue(row.syncError)
        return .object(fields)
    }

    static func workoutLine(_ row: WorkoutSummary) -> String {
        var line =
            "\(row.workout.id.wireString)  \(Timestamp.format(row.workout.startedAt).prefix(10))  \(row.workout.name)  \(row.setCount.map(String.init) ?? "?") sets"
        if row.syncState != .synced { line += "  (\(row.syncState.rawValue)\(row.syncError.map { ": \($0)" } ?? ""))" }
        return line
    }

    static func operationJSON(_ op: OutboxOperation) -> JSONValue {
        .object([
            "op_id": .string(op.opID), "entity_type": .string(op.entityType.rawValue),
            "entity_id": .string(op.entityID),
            "kind": .string(op.kind.rawValue), "state": .string(op.state.rawValue),
            "attempt_count": .int(Int64(op.attemptCount)), "next_attempt_at": date(op.nextAttemptAt),
            "last_status": JSONValue(op.lastStatus), "last_error": JSONValue(op.lastError),
            "no_answer": .bool(op.noAnswer),
            "idempotency_key": .string(op.idempotencyKey), "created_at": .string(Timestamp.format(op.createdAt)),
        ])
    }

    static func operationLine(_ op: OutboxOperation) -> String {
        var line =
            "\(op.opID)  \(op.kind.rawValue) \(op.entityType.rawValue) \(op.entityID)  \(op.noAnswer ? OutboxMachine.gaveUpPrefix : op.state.rawValue)"
        line += "  attempts \(op.attemptCount)"
        if let status = op.lastStatus { line += "  last \(status)" }
        if let error = op.lastError { line += "  \(error)" }
        return line
    }
}

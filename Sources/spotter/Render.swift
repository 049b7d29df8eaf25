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
        for key in WorkoutSet.Column.allCases.filter(\.isOptional).map(\.name) where fields[key] == nil {
            fields[key] = .null
        }
        fields["sync_state"] = .string(row.syncState.rawValue)
        fields["sync_error"] = JSONValue(row.syncError)
        return .object(fields)
    }

    /// Columns of the text listings, in display columns (`DisplayWidth`): fixed, so every line
    /// lines up with the others whatever its names hold. A name longer than its column is cut
    /// with an ellipsis; an id is never cut.
    enum Column {
        static let exercise = 34
        static let weight = 10  // "4409.25 lb": the 2000 kg limit shown in lb
        static let reps = 4
        static let rpe = 5  // "@9.5"
        static let kind = 9  // "[failure]"
        static let record = 6  // "rep-PR"
        static let workoutName = 40
        static let setCount = 5
        static let operation = 51  // "create workout " and an id
        static let state = 19  // "gave up (no answer)"
        static let attempts = 3
        static let lastStatus = 8  // "last 503"
    }

    /// `text` padded with spaces to `columns` display columns; longer text is kept whole (an id).
    static func pad(_ text: String, _ columns: Int) -> String {
        let width = DisplayWidth.of(text)
        return width >= columns ? text : text + String(repeating: " ", count: columns - width)
    }

    /// A name in a column: one line (controls as U+FFFD), each character in the terminal form it
    /// was measured in (as the UI draws it), cut with the locale's ellipsis, padded.
    static func nameColumn(_ name: String, _ columns: Int) -> String {
        DisplayText.terminalSafe(shownName(name)).padded(to: columns, ellipsis: terminalEllipsis)
    }

    /// A line of columns without the spaces its empty last columns leave.
    static func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    /// One set as `spotter sets` prints it, its weight in `unit` when the lifter chose one
    /// (`--json` always gives the stored weight and unit): id, exercise, weight × reps, RPE,
    /// kind, record, and how it stands with the server, in aligned columns.
    static func setLine(_ row: SetRow, unit: WeightUnit? = nil) -> String {
        let set = row.set
        var line = "\(set.id.wireString)  \(nameColumn(set.exercise, Column.exercise))  "
        line += Formatting.weight(set.weight, unit: set.unit, shownIn: unit).leftPadded(to: Column.weight)
        line += " × " + String(set.reps).leftPadded(to: Column.reps)
        line += "  " + pad(set.rpe.map { "@\(Formatting.number($0))" } ?? "", Column.rpe)
        line += " " + pad(set.kind == .normal ? "" : "[\(set.kind.rawValue)]", Column.kind)
        let record =
            switch row.record {
            case .oneRepMax: "PR"
            case .reps: "rep-PR"
            case nil: ""
            }
        line += " " + pad(record, Column.record)
        switch row.syncState {
        case .synced: break
        // Pending and saying why: it gave up without an answer (never "rejected"), or waits on one.
        case .pending: line += "  (\(shownName(row.syncError ?? "pending")))"
        case .rejected: line += "  (rejected: \(shownName(row.syncError ?? "unknown reason")))"
        }
        return trimmed(line)
    }

    static func workoutJSON(_ row: WorkoutSummary) -> JSONValue {
        var fields = WireWorkout(row.workout).json.objectValue ?? [:]
        // Every optional field but the plan, which only a workout started from a routine has.
        for key in Workout.Column.allCases.filter({ $0.isOptional && $0 != .plan }).map(\.name) where fields[key] == nil
        {
            fields[key] = .null
        }
        fields["set_count"] = JSONValue(row.setCount)
        fields["sync_state"] = .string(row.syncState.rawValue)
        // Why a workout is rejected ("deleted on another device"), as `sets --json` says of a set.
        fields["sync_error"] = JSONValue(row.syncError)
        return .object(fields)
    }

    /// One workout as `spotter workouts` prints it: id, day, name, sets, and its sync state.
    static func workoutLine(_ row: WorkoutSummary) -> String {
        var line = "\(row.workout.id.wireString)  \(ProgressCommands.day(row.workout.startedAt))  "
        line += nameColumn(row.workout.name, Column.workoutName) + "  "
        line += (row.setCount.map(String.init) ?? "?").leftPadded(to: Column.setCount) + " sets"
        if row.syncState != .synced {
            line += "  (\(row.syncState.rawValue)\(row.syncError.map { ": \(shownName($0))" } ?? ""))"
        }
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

    /// One operation as `spotter outbox` prints it: its id, what it does to which entity, its
    /// state, attempts, last HTTP status and last error, in aligned columns.
    static func operationLine(_ op: OutboxOperation) -> String {
        var line = "\(op.opID)  "
        line += pad("\(op.kind.rawValue) \(op.entityType.rawValue) \(shownName(op.entityID))", Column.operation) + "  "
        line += pad(op.noAnswer ? OutboxMachine.gaveUpPrefix : op.state.rawValue, Column.state)
        line += "  attempts " + String(op.attemptCount).leftPadded(to: Column.attempts)
        line += "  " + pad(op.lastStatus.map { "last \($0)" } ?? "", Column.lastStatus)
        if let error = op.lastError { line += "  \(shownName(error))" }
        return trimmed(line)
    }
}

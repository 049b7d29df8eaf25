import Foundation
import GRDB
import SpotterCore

/// What one undo did, for the message: "Undid: logged Squat (Barbell) 140 kg × 5"; or why the
/// newest action could not be taken back ("the set was deleted since"): then nothing changed, and
/// the next undo goes on to the action before it.
public struct UndoneAction: Sendable, Equatable {
    public var description: String
    /// Why the action could not be taken back; nil when it was.
    public var notUndone: String?

    public init(description: String, notUndone: String? = nil) {
        self.description = description
        self.notUndone = notUndone
    }

    /// "Undid: logged …", or "Could not undo: logged … (the set was deleted since)".
    public var message: String {
        notUndone.map { "Could not undo: \(description) (\($0))" } ?? "Undid: \(description)"
    }
}

/// A deleted workout as it was, with the sets it still had: what taking the delete back logs again.
struct DeletedWorkout: Codable {
    var workout: Workout
    var sets: [WorkoutSet]
    /// The planned rows of a workout started from a routine, column by column as stored (done,
    /// skipped or still to do): a workout never sent is removed outright, and its rows with it.
    /// Absent in images written before rows were kept.
    var planRows: [[String: JSONValue]]?

    /// The rows `workoutID` has in `routine_plans`, as kept in the image.
    static func planRows(of workoutID: String, db: Database) throws -> [[String: JSONValue]] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM routine_plans WHERE workout_id = ? ORDER BY ordinal"),
            arguments: [workoutID]
        ).map { row in
            var columns: [String: JSONValue] = [:]
            for (column, value) in row {
                switch value.storage {
                case .null: columns[column] = .null
                case .int64(let number): columns[column] = .int(number)
                case .double(let number): columns[column] = .double(number)
                case .string(let text): columns[column] = .string(text)
                case .blob: continue  // no column of the table holds one
                }
            }
            return columns
        }
    }
}

extension SpotterStore {
    enum JournalAction: String {
        case created, edited, deleted
    }

    /// Records an action of this device, in its transaction: what to put back to take it back.
    func journal(
        _ action: JournalAction, _ type: EntityType, id: String, before: [String: JSONValue]?,
        workoutCreated: String? = nil, description: String, db: Database, now: Date
    ) throws {
        try journal(
            action, type, id: id, beforeText: before.map { JSONValue.object($0).canonicalString },
            workoutCreated: workoutCreated, description: description, db: db, now: now)
    }

    /// Journals a log: the set as it was made (`after`), which undoing it checks the set still
    /// is, so a set another device edited since is not deleted with its edit.
    func journalLog(_ set: WorkoutSet, workoutCreated: String?, description: String, db: Database, now: Date) throws {
        try journal(
            .created, .set, id: set.id.wireString, beforeText: nil,
            afterText: JSONValue.object(set.wireFields).canonicalString, workoutCreated: workoutCreated,
            description: description, db: db, now: now)
    }

    func journal(
        _ action: JournalAction, _ type: EntityType, id: String, beforeText: String?, afterText: String? = nil,
        workoutCreated: String? = nil, description: String, db: Database, now: Date
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO undo_journal (account, action, entity_type, entity_id, before, after, workout_created,
                    description, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            userID, action.rawValue, type.rawValue, id, beforeText, afterText, workoutCreated, description,
            now.timeIntervalSince1970,
        ])
    }

    /// Journals an edit from `current` to `edited` (wire fields): the fields it changes as they
    /// were (`before`) and as it writes them, which is what undoing it checks each field still holds.
    func journalEdit(
        _ type: EntityType, id: String, from current: [String: JSONValue], to edited: [String: JSONValue],
        description: String, db: Database, now: Date
    ) throws {
        let before = Self.changedFields(current, edited)
        var after: [String: JSONValue] = [:]
        for field in before.keys { after[field] = edited[field] ?? .null }
        try journal(
            .edited, type, id: id, beforeText: JSONValue.object(before).canonicalString,
            afterText: JSONValue.object(after).canonicalString, description: description, db: db, now: now)
    }

    /// Whether two stored values of a field are the same value: numbers by value (`50` and
    /// `50.0`), times by the instant (a server may spell fractions otherwise), the rest exactly.
    static func sameStoredValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.string(let x), .string(let y)):
            guard let first = Timestamp.parse(x), let second = Timestamp.parse(y) else { return false }
            return first == second
        default: return false
        }
    }

    /// The fields an edit changes, as they were before it (null: absent, so a cleared note or a
    /// finish comes back as none): what undoing it writes back, and nothing else.
    static func changedFields(_ before: [String: JSONValue], _ after: [String: JSONValue]) -> [String: JSONValue] {
        var changed: [String: JSONValue] = [:]
        for field in Set(before.keys).union(after.keys) where before[field] != after[field] {
            changed[field] = before[field] ?? .null
        }
        return changed
    }

    /// "Squat (Barbell) 140 kg × 5", with its kind when it is not a work set
    /// ("… 60 kg × 5 (warm-up)"): an undo of a warm-up must not read like one of the work set.
    static func describe(_ set: WorkoutSet) -> String {
        let kind: String
        switch set.kind {
        case .normal: kind = ""
        case .warmup: kind = " (warm-up)"
        case .drop: kind = " (drop set)"
        case .failure: kind = " (to failure)"
        }
        return "\(set.exercise) \(Formatting.weight(set.weight, unit: set.unit)) × \(set.reps)\(kind)"
    }
}

extension WorkoutLog {
    /// The newest journal entry of this device: a UI session starts here, and its `U` never goes
    /// back past it.
    public func undoMark() throws -> Int64 {
        try writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM undo_journal WHERE account = ?", arguments: [userID]) ?? 0
        }
    }

    /// Takes back this device's newest action not taken back yet (only one newer than `mark`,
    /// when given: a UI session's own); nil when there is none.
    @discardableResult
    public func undoLast(after mark: Int64? = nil) throws -> UndoneAction? {
        let now = self.now
        return try writer.write { db -> UndoneAction? in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT * FROM undo_journal WHERE account = ? AND undone = 0 AND seq > ?
                            ORDER BY seq DESC LIMIT 1
                            """),
                    arguments: [userID, mark ?? 0])
            else { return nil }
            let seq: Int64 = row["seq"]
            try db.cachedStatement(sql: "UPDATE undo_journal SET undone = 1 WHERE seq = ?").execute(arguments: [seq])
            // Cells that do not read (a damaged file) refuse this entry by its description, or
            // by none: GRDB's subscript would stop the process.
            let description = row.cell("description", as: String.self) ?? "an action"
            func refused(_ why: String) -> UndoneAction { UndoneAction(description: description, notUndone: why) }
            guard let type = row.cell("entity_type", as: String.self).flatMap(EntityType.init(rawValue:)),
                let action = row.cell("action", as: String.self).flatMap(SpotterStore.JournalAction.init(rawValue:)),
                let table = EntityTable.table(type)
            else { return refused("this version cannot take it back") }
            guard let id = row.cell("entity_id", as: String.self) else {
                return refused("its entry does not read")
            }
            let what = type == .workout ? "the workout" : "the set"
            let live =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE id = ? AND deleted_at IS NULL)",
                    arguments: [id]) ?? false
            switch action {
            case .created:
                guard live else { return refused("\(what) was deleted since") }
                // Changed since it was logged (another device's edit, a merge): deleting it would
                // throw that edit away unseen, so nothing is deleted and the fields are named. Its
                // place, and the workout it is in (a workout deleted and brought back by undo is a
                // copy under a new id), are not what was lifted. (A log journalled before logs kept
                // their values has none to check.)
                if let text = row.cell("after", as: String.self) {
                    guard let made = JSONValue.parse(text)?.objectValue,
                        let current = try EntityTable.wireFields(type, id: id, db: db)
                    else { return refused("its values do not read") }
                    let fields = Set(made.keys).union(current.keys).subtracting(Self.notLifted)
                    if let shown = Self.changedSince(fields, now: current, then: made) {
                        return refused("changed since it was logged: \(shown)")
                    }
                }
                try deleteForUndo(type: type, id: id, db: db, now: now)
                // A planned row the set performed is to do again.
                try db.execute(
                    sql: "UPDATE routine_plans SET status = 'planned' WHERE set_id = ? AND status = 'done'",
                    arguments: [id])
                // A workout the log started goes with it, when nothing else is in it.
                // Only while its create was never sent: once the server has it, another device may
                // have logged into it unseen here, and its delete would take those sets too.
                if let workoutID = row.cell("workout_created", as: String.self),
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM sets WHERE workout_id = ? AND deleted_at IS NULL",
                        arguments: [workoutID]) == 0,
                    try Bool.fetchOne(
                        db,
                        sql: """
                            SELECT EXISTS(SELECT 1 FROM outbox WHERE entity_type = \(EntityType.workout.sql)
                                AND entity_id = ? AND kind = \(OperationKind.create.sql)
                                AND state = \(OperationState.pending.sql) AND attempt_count = 0)
                            """, arguments: [workoutID]) == true,
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL)",
                        arguments: [workoutID]) == true
                {
                    try deleteForUndo(type: .workout, id: workoutID, db: db, now: now)
                }
            case .edited:
                guard live else { return refused("\(what) was deleted since") }
                // The fields the edit changed, as they were before it: only those are written back,
                // so what another device changed in other fields since stays.
                guard let before = row.cell("before", as: String.self).flatMap({ JSONValue.parse($0)?.objectValue }),
                    let current = try EntityTable.wireFields(type, id: id, db: db)
                else { return refused("its earlier values were not kept") }
                // Only fields an edit can change, and at least one: anything else is a damaged
                // entry, refused rather than reported as undone with nothing written.
                guard !before.isEmpty, before.keys.allSatisfy(EntityTable.columns(type).contains) else {
                    return refused("its earlier values do not read")
                }
                // A field that no longer holds what this edit wrote was changed since (another
                // device's edit won, or a merge): writing the old value back would silently undo
                // that change, so nothing is written and the fields are named. (An entry journalled
                // before edits kept their values has none to check; one whose values do not read
                // is refused.)
                if let text = row.cell("after", as: String.self) {
                    guard let after = JSONValue.parse(text)?.objectValue else {
                        return refused("its values do not read")
                    }
                    if let shown = Self.changedSince(Set(before.keys), now: current, then: after) {
                        return refused("changed since it was made: \(shown)")
                    }
                }
                var restored = current
                for (field, value) in before { restored[field] = value.isNull ? nil : value }
                // What is written back must be a valid entity, as every edit is: a damaged image
                // (a weight of "x", an end before the start) is refused, never written.
                if let why = Self.invalid(type, restored) { return refused("its earlier values do not read (\(why))") }
                try store.applyChanges(type: type, id: id, from: current, to: restored, db: db, now: now)
            case .deleted:
                guard let text = row.cell("before", as: String.self) else {
                    return refused("its earlier values were not kept")
                }
                switch type {
                case .set:
                    // Logged again, under a new id: the server keeps the old one's tombstone.
                    guard var set = try? JSONDecoder().decode(WorkoutSet.self, from: Data(text.utf8)) else {
                        return refused("its earlier values were not kept")
                    }
                    do throws(ValidationError) { try Validation.set(set) } catch {
                        return refused("its earlier values do not read (\(error.field) \(error.message))")
                    }
                    guard
                        try Bool.fetchOne(
                            db, sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL)",
                            arguments: [set.workoutID.wireString]) == true
                    else { return refused("its workout was deleted since") }
                    let old = set.id
                    set.id = UUID.timeOrdered(at: now)
                    _ = try store.insertSet(set, db: db, now: now)
                    try renumber(old, to: set.id, db: db)
                case .workout:
                    // The workout and the sets it had, again, under new ids.
                    guard let deleted = try? JSONDecoder().decode(DeletedWorkout.self, from: Data(text.utf8)) else {
                        return refused("its earlier values were not kept")
                    }
                    do throws(ValidationError) {
                        try Validation.workout(deleted.workout)
                        for set in deleted.sets { try Validation.set(set) }
                    } catch {
                        return refused("its earlier values do not read (\(error.field) \(error.message))")
                    }
                    guard Set(deleted.sets.map(\.id)).count == deleted.sets.count,
                        deleted.sets.count <= Validation.maxPosition
                    else { return refused("its earlier values do not read (a set twice)") }
                    var workout = deleted.workout
                    workout.id = UUID.timeOrdered(at: now)
                    let sets = deleted.sets.sorted(by: { $0.position < $1.position })
                    var renamed: [UUID: UUID] = [:]
                    for set in sets { renamed[set.id] = UUID.timeOrdered() }
                    // A plan names the sets logged for its planned sets by their ids: the new ones.
                    if var plan = workout.plan {
                        for index in plan.entries.indices {
                            if let new = renamed[plan.entries[index].id] { plan.entries[index].id = new }
                        }
                        workout.plan = plan
                    }
                    try store.insertWorkout(workout, db: db, now: now)
                    try renumber(deleted.workout.id, to: workout.id, db: db)
                    for var set in sets {
                        let old = set.id
                        set.id = renamed[old] ?? UUID.timeOrdered()
                        set.workoutID = workout.id
                        _ = try store.insertSet(set, db: db, now: now)
                        try renumber(old, to: set.id, db: db)
                    }
                    // Its planned rows: still here when the workout had been sent (renumbered
                    // above), written again from the image when it was removed outright, and
                    // shown from the plan itself when neither (an image older than kept rows).
                    let planColumns = Set(try db.columns(in: "routine_plans").map(\.name))
                    for var columns in deleted.planRows ?? [] {
                        columns["workout_id"] = .string(workout.id.wireString)
                        if let old = columns["set_id"]?.stringValue.flatMap({ UUID(wire: $0) }), let new = renamed[old]
                        {
                            columns["set_id"] = .string(new.wireString)
                        }
                        let names = columns.keys.filter(planColumns.contains).sorted()
                        try db.execute(
                            sql: """
                                INSERT OR IGNORE INTO routine_plans (\(names.map { "\"\($0)\"" }.joined(separator: ", ")))
                                VALUES (\(databaseQuestionMarks(count: names.count)))
                                """,
                            arguments: StatementArguments(names.map { columns[$0]?.databaseValue ?? .null }))
                    }
                    if let plan = workout.plan {
                        try store.showPlan(plan, of: workout, db: db, now: Timestamp.format(now))
                    }
                default:
                    return refused("this version cannot take it back")
                }
            }
            try SpotterStore.refreshRecords(db)
            return UndoneAction(description: description)
        }
    }

    /// Why `fields` are not a valid set or workout (as every edit is checked), or nil.
    private static func invalid(_ type: EntityType, _ fields: [String: JSONValue]) -> String? {
        let data = JSONValue.object(fields).canonicalData
        do {
            switch type {
            case .set: try Validation.set(try JSONDecoder().decode(WorkoutSet.self, from: data))
            case .workout: try Validation.workout(try JSONDecoder().decode(Workout.self, from: data))
            default: return "this version cannot check it"
            }
        } catch let error as ValidationError {
            return "\(error.field) \(error.message)"
        } catch {
            return "a value of another type"
        }
        return nil
    }

    /// "reps is 7, notes is 'x'": the fields of `fields` whose value `now` is not the one `then`
    /// holds, as a person reads them, in name order; nil when none changed.
    private static func changedSince(
        _ fields: Set<String>, now current: [String: JSONValue], then: [String: JSONValue]
    ) -> String? {
        let changed = fields.sorted().filter { field in
            !SpotterStore.sameStoredValue(current[field] ?? .null, then[field] ?? .null)
        }
        guard !changed.isEmpty else { return nil }
        return changed.map { "\(StoredConflict.fieldName($0)) is \(shownNow($0, current))" }.joined(separator: ", ")
    }

    /// A set's fields that say where it is, not what was lifted.
    static let notLifted: Set<String> = [
        WorkoutSet.Column.id.name, WorkoutSet.Column.workoutID.name, WorkoutSet.Column.position.name,
    ]

    /// A field's value now, as a person reads it: a weight with its unit, as a conflict shows it.
    private static func shownNow(_ field: String, _ current: [String: JSONValue]) -> String {
        let weight = WorkoutSet.Column.weight.name, unit = WorkoutSet.Column.unit.name
        if field == weight, let value = current[weight], let unitValue = current[unit] {
            return StoredConflict.shown(.object([weight: value, unit: unitValue]))
        }
        return StoredConflict.shown(current[field] ?? .null)
    }

    /// A delete made by an undo: queued like any delete (removed outright when never sent).
    private func deleteForUndo(type: EntityType, id: String, db: Database, now: Date) throws {
        guard let table = EntityTable.table(type) else { return }
        if try !store.queueDelete(type: type, id: id, db: db, now: now) {
            try db.cachedStatement(
                sql: """
                    UPDATE \(table) SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql),
                        sync_error = NULL WHERE id = ?
                    """
            ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), id])
            if type == .workout {
                try db.cachedStatement(
                    sql: """
                        UPDATE sets SET deleted_at = ?, sync_state = \(SyncState.pending.sql)
                        WHERE workout_id = ? AND deleted_at IS NULL
                        """
                ).execute(arguments: [Timestamp.format(now), id])
            }
        }
    }

    /// An entity logged again under a new id: earlier actions on it (its log, its edits, a delete
    /// of a set in it) now mean the new one, and so do the planned rows of a routine workout (the
    /// workout's rows, and the row a set was logged for), so a routine workout comes back with
    /// its plan: what was done still done, what was left still to do.
    private func renumber(_ old: UUID, to new: UUID, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE routine_plans SET workout_id = ? WHERE workout_id = ?")
            .execute(arguments: [new.wireString, old.wireString])
        try db.cachedStatement(sql: "UPDATE routine_plans SET set_id = ? WHERE set_id = ?")
            .execute(arguments: [new.wireString, old.wireString])
        try db.cachedStatement(sql: "UPDATE undo_journal SET entity_id = ? WHERE entity_id = ? AND undone = 0")
            .execute(arguments: [new.wireString, old.wireString])
        try db.cachedStatement(
            sql: "UPDATE undo_journal SET workout_created = ? WHERE workout_created = ? AND undone = 0"
        ).execute(arguments: [new.wireString, old.wireString])
        // A deleted set keeps its workout's id in its image: spelled as the wire spells it, or
        // (an image an earlier version wrote) in the UUID's uppercase spelling.
        for spelled in [(old.wireString, new.wireString), (old.uuidString, new.uuidString)] {
            try db.cachedStatement(
                sql: """
                    UPDATE undo_journal SET before = replace(before, ?, ?)
                    WHERE undone = 0 AND action = 'deleted' AND instr(before, ?) > 0
                    """
            ).execute(arguments: [spelled.0, spelled.1, spelled.0])
        }
    }
}

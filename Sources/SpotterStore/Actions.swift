import Foundation
import GRDB
import SpotterCore

/// Which workout a new set goes into.
public enum WorkoutChoice: Sendable, Equatable {
    /// The workout in progress (started today, not ended), or a new one named after the time of day.
    case current
    case existing(UUID)
    case new(name: String)
}

/// Everything the "Log set" form (or `spotter log`) collects.
public struct LogSetInput: Sendable, Equatable {
    public var exercise: String
    public var weight: Double
    public var unit: WeightUnit
    public var reps: Int
    public var rpe: Double?
    public var kind: SetKind
    public var distanceM: Double?
    public var durationS: Double?
    public var notes: String?
    public var workout: WorkoutChoice
    public var performedAt: Date?
    /// Join the superset of the exercise logged just before it in the workout (`spotter log
    /// --superset`; one is made when that exercise is in none). Either way a set of an exercise
    /// already in a superset of the workout is in it too.
    public var superset = false

    public init(
        exercise: String, weight: Double, unit: WeightUnit = .kg, reps: Int, rpe: Double? = nil,
        kind: SetKind = .normal,
        distanceM: Double? = nil, durationS: Double? = nil, notes: String? = nil, workout: WorkoutChoice = .current,
        performedAt: Date? = nil, superset: Bool = false
    ) {
        self.superset = superset
        self.exercise = exercise
        self.weight = Validation.keptWeight(weight)
        self.unit = unit
        self.reps = reps
        self.rpe = rpe
        self.kind = kind
        self.distanceM = distanceM
        self.durationS = durationS
        self.notes = notes
        self.workout = workout
        self.performedAt = performedAt
    }
}

/// What logging a set produced.
public struct LoggedSet: Sendable, Equatable {
    public let set: WorkoutSet
    public let workout: Workout
    public let createdWorkout: Bool
    /// The set beats the best estimated 1RM ever logged for its exercise.
    public let isPR: Bool
    public let opID: String
}

/// Fields an edit changes; nil leaves a field as it is.
public struct SetChanges: Sendable, Equatable {
    public var exercise: String?
    public var weight: Double?
    public var unit: WeightUnit?
    public var reps: Int?
    public var rpe: Double?
    public var clearRPE = false
    public var kind: SetKind?
    public var notes: String?
    public var distanceM: Double?
    public var durationS: Double?

    public init(
        exercise: String? = nil, weight: Double? = nil, unit: WeightUnit? = nil, reps: Int? = nil, rpe: Double? = nil,
        clearRPE: Bool = false, kind: SetKind? = nil, notes: String? = nil, distanceM: Double? = nil,
        durationS: Double? = nil
    ) {
        self.exercise = exercise
        self.weight = weight.map(Validation.keptWeight)
        self.unit = unit
        self.reps = reps
        self.rpe = rpe
        self.clearRPE = clearRPE
        self.kind = kind
        self.notes = notes
        self.distanceM = distanceM
        self.durationS = durationS
    }
}

/// Fields a workout edit changes; nil leaves a field as it is.
public struct WorkoutChanges: Sendable, Equatable {
    public var name: String?
    public var notes: String?
    public var endedAt: Date?
    /// One exercise's note; an empty note removes it.
    public var exerciseNote: ExerciseNote?

    public struct ExerciseNote: Sendable, Equatable {
        public var exercise: String
        public var note: String
    }

    public init(
        name: String? = nil, notes: String? = nil, endedAt: Date? = nil,
        exerciseNote: (exercise: String, note: String)? = nil
    ) {
        self.name = name
        self.notes = notes
        self.endedAt = endedAt
        self.exerciseNote = exerciseNote.map { ExerciseNote(exercise: $0.exercise, note: $0.note) }
    }
}

extension SpotterStore {
    // MARK: Workouts

    static let insertWorkoutSQL = """
        INSERT INTO workouts (\(Workout.Column.columnList), routine_id, updated_at, sync_state, account)
        VALUES (\(placeholders(Workout.Column.allCases.count)), ?, ?, \(SyncState.pending.sql), ?)
        """

    func insertWorkout(_ workout: Workout, db: Database, now: Date) throws {
        try db.cachedStatement(sql: Self.insertWorkoutSQL).execute(
            arguments: StatementArguments(
                workout.columnArguments + [
                    workout.plan?.routineID.wireString.databaseValue ?? .null, Timestamp.format(now).databaseValue,
                    userID.databaseValue,
                ]))
        _ = try Outbox.appendCreate(
            db, user: userID, type: .workout, id: workout.id.wireString, payload: workout.wireFields, dependency: nil,
            now: now)
    }

    fileprivate func markWorkoutDeleted(_ key: String, db: Database, now: Date) throws {
        // The server deletes the sets with their workout; queued set intents that were never
        // sent are moot, and sets whose create never left the device were never there.
        // An imported set's create still goes out (its id comes from its content: the server's
        // tombstone must answer the same file imported on another device).
        let sets = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, imported FROM sets WHERE workout_id = ? AND deleted_at IS NULL"),
            arguments: [key])
        for row in sets {
            let setID: String = row["id"]
            let imported: Bool = row["imported"]
            let queued = try Outbox.newestQueued(db, type: .set, id: setID)
            if let queued, queued.isRewritable, !(imported && queued.kind == .create) {
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [queued.opID])
            }
        }
        try db.cachedStatement(
            sql:
                "UPDATE sets SET deleted_at = ?, sync_state = \(SyncState.pending.sql) WHERE workout_id = ? AND deleted_at IS NULL"
        ).execute(arguments: [Timestamp.format(now), key])
        try db.cachedStatement(
            sql:
                "UPDATE workouts SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql), sync_error = NULL WHERE id = ?"
        ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), key])
    }

    // MARK: Sets

    /// Inserts a new set row and enqueues its create (after its workout's create, when that is
    /// still queued); marks a new estimated-1RM record. Shared by logging and importing.
    func insertSet(_ set: WorkoutSet, db: Database, now: Date) throws -> (opID: String, isPR: Bool) {
        // A set logged now comes after every other: its record is known from indexed lookups.
        // Otherwise (an import, a back-dated set) the exercise is recomputed before the next read.
        let appended = try Self.appendedRecord(set, db: db)
        let record = appended ?? nil
        let isPR = record == .oneRepMax
        let setKey = set.id.wireString
        try insertSetRow(set, record: record, imported: false, db: db, now: now)
        if appended == nil { try Self.markRecordsStale(set.exercise, db: db) }
        let workoutCreate = try Self.unfinishedWorkoutCreate(set.workoutID.wireString, db: db)
        let (opID, blocked) = try Outbox.appendCreate(
            db, user: userID, type: .set, id: setKey, payload: set.wireFields, dependency: workoutCreate, now: now)
        if blocked { try Self.markWaiting(setKey, on: workoutCreate, db: db) }
        return (opID, isPR)
    }

    /// A set's row, as a log or an import writes it (`record`: the record it holds when known).
    /// The caller marks its exercise for a recompute when `record` is not known (no trigger
    /// does: see `markRecordsStale`).
    func insertSetRow(_ set: WorkoutSet, record: RecordKind?, imported: Bool, db: Database, now: Date) throws {
        try db.cachedStatement(sql: Self.insertSetSQL).execute(
            arguments: StatementArguments(
                set.columnArguments + [
                    set.estimatedOneRepMaxKg?.databaseValue ?? .null, (record?.rawValue ?? 0).databaseValue,
                    Timestamp.format(now).databaseValue, userID.databaseValue, imported.databaseValue,
                ]))
    }

    static let insertSetSQL = """
        INSERT INTO sets (\(WorkoutSet.Column.columnList), e1rm_kg, is_pr, updated_at, sync_state, account, imported)
        VALUES (\(placeholders(WorkoutSet.Column.allCases.count)), ?, ?, ?, \(SyncState.pending.sql), ?, ?)
        """

    /// The place of a workout's last set (0 when it has none). A place past the last a set may
    /// take (a row from a damaged file or a server that broke the rule) counts as the last: the
    /// next place is then refused with `positionsUsedUp`, never computed past `Int.max`.
    static func lastPosition(in workoutKey: String, db: Database) throws -> Int {
        let last =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(position) FROM sets WHERE workout_id = ?"), arguments: [workoutKey])
            ?? 0
        return min(max(last, 0), Validation.maxPosition)
    }

    static func positionsUsedUp(_ workoutName: String) -> StoreError {
        .notAllowed(
            "the workout \"\(workoutName)\" holds a set at the last place a set may take (\(Validation.maxPosition)):"
                + " log into a new workout")
    }

    /// The workout's create that has not succeeded yet, which its new sets wait on.
    static func unfinishedWorkoutCreate(_ workoutKey: String, db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT op_id FROM outbox WHERE entity_type = \(EntityType.workout.sql) AND entity_id = ? AND kind = \(OperationKind.create.sql)
                    AND state != \(OperationState.succeeded.sql) ORDER BY seq DESC LIMIT 1
                    """), arguments: [workoutKey])
    }

    /// A set queued behind a workout create that blocks it: behind a refused workout it is rejected
    /// too; behind one that gave up without an answer it only waits (that workout goes back to the
    /// queue by itself).
    static func markWaiting(_ setKey: String, on workoutCreate: String?, db: Database) throws {
        let noAnswer = try Outbox.waitsOnNoAnswer(workoutCreate, db: db)
        try db.cachedStatement(sql: "UPDATE sets SET sync_state = ?, sync_error = ? WHERE id = ?").execute(
            arguments: [
                (noAnswer ? SyncState.pending : .rejected).rawValue,
                noAnswer ? try Outbox.waitReason(workoutCreate, db: db) : "waiting on a rejected workout", setKey,
            ])
    }

    /// The first half of every delete: refuses an entity that is not there, removes outright one
    /// the server never had (a rejected create, or a never-sent create the delete cancels), and
    /// otherwise queues the delete. Returns true when the entity is already gone.
    func queueDelete(type: EntityType, id: String, db: Database, now: Date) throws -> Bool {
        guard let table = EntityTable.table(type),
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE id = ? AND deleted_at IS NULL AND \(visible()))"),
                arguments: [id])
                == true
        else { throw StoreError.notFound("\(type.rawValue) \(id)") }
        if try Outbox.createNeverAccepted(db, type: type, id: id) {
            try discardEntity(type: type, id: id, db: db)
            return true
        }
        if let gaveUp = try Outbox.rejectedCreate(db, type: type, id: id) {
            // The engine gave up on the create without a definite answer: it may exist on the
            // server, so the delete is sent, and it replaces the failed create as the intent.
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [gaveUp.opID])
            try releaseBlocked(behind: gaveUp.opID, db: db, now: now)
        }
        let imported =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT imported FROM \(table) WHERE id = ?"), arguments: [id]) ?? false
        let outcome = try Outbox.enqueue(
            db, user: userID, type: type, id: id, kind: .delete, payload: [:], before: ["deleted_at": .null],
            contentDerivedID: imported, now: now)
        if outcome == .cancelled {
            try discardEntity(type: type, id: id, db: db)
            return true
        }
        return false
    }

    /// Runs validation rules, turning a broken rule into the store's error.
    func checked(_ rules: () throws(ValidationError) -> Void) throws {
        do { try rules() } catch { throw StoreError.invalid(error) }
    }

    /// Queues the fields that differ between two wire images of an entity; a field that
    /// disappears (notes cleared, RPE removed) is sent as null. No difference, no operation.
    func applyChanges(
        type: EntityType, id: String, from old: [String: JSONValue], to new: [String: JSONValue], db: Database,
        now: Date
    ) throws {
        var patch = new.filter { old[$0.key] != $0.value }
        for cleared in old.keys where new[cleared] == nil { patch[cleared] = .null }
        guard !patch.isEmpty else { return }
        try applyEdit(type: type, id: id, patch: patch, db: db, now: now)
    }

    /// Writes a patch to an entity and queues it; a rejected create becomes a fresh create instead.
    func applyEdit(type: EntityType, id: String, patch: [String: JSONValue], db: Database, now: Date) throws {
        var patch = patch
        // A weight goes with its unit: sent alone, the server would read it in the unit it holds,
        // which another device may have changed since. The other member is sent as it stands here.
        let together = EntityTable.together(type)
        if together.contains(where: { patch[$0] != nil }) {
            let missing = together.filter { patch[$0] == nil }
            for (name, value) in try EntityTable.read(missing, type: type, id: id, db: db) { patch[name] = value }
        }
        let before = try EntityTable.read(patch.keys, type: type, id: id, db: db)
        var extra: [String: DatabaseValue] = [
            "updated_at": Timestamp.format(now).databaseValue,
            "sync_state": SyncState.pending.rawValue.databaseValue,
            "sync_error": .null,
        ]
        if type == .workout,
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT sync_error FROM workouts WHERE id = ?"), arguments: [id])
                == SpotterStore.deletedElsewhere
        {
            // Its tombstone was pulled while a set of it was unresolved: the server no longer has
            // it, and an edit does not bring it back. The mark stays, so the screen stays true
            // and the edit's refusal is settled at once (see `removeEntityLocally`).
            extra["sync_state"] = SyncState.rejected.rawValue.databaseValue
            extra["sync_error"] = SpotterStore.deletedElsewhere.databaseValue
        }
        try EntityTable.write(patch, type: type, id: id, extra: extra, db: db)
        if let rejected = try Outbox.rejectedCreate(db, type: type, id: id) {
            try requeueCreate(of: rejected, db: db, now: now)
            return
        }
        _ = try Outbox.enqueue(
            db, user: userID, type: type, id: id, kind: .update, payload: patch, before: before, now: now)
    }

    /// Replaces a rejected create by a new create (new key) carrying the entity's current fields,
    /// and releases the operations that were blocked behind it.
    func requeueCreate(of rejected: OutboxOperation, db: Database, now: Date) throws {
        let fields: [String: JSONValue]
        if rejected.entityType == .favorite {
            fields = rejected.payload
        } else {
            guard let current = try EntityTable.wireFields(rejected.entityType, id: rejected.entityID, db: db) else {
                return
            }
            fields = current
        }
        let stillBlocked = try Outbox.blocksDependants(rejected.dependsOn, db: db)
        // The row keeps its place in the queue (its seq), so operations queued behind the old
        // create still come after it; it becomes a new operation with a new key.
        let newOp = UUID.timeOrdered().wireString
        try db.cachedStatement(
            sql: """
                UPDATE outbox SET op_id = ?, idempotency_key = ?, payload = ?, state = ?, attempt_count = 0,
                    first_sent_at = NULL, next_attempt_at = NULL, lease_expires_at = NULL, last_status = NULL,
                    last_error = ?, completed_at = NULL, created_at = ?, updated_at = ?
                WHERE op_id = ?
                """
        ).execute(arguments: [
            newOp, UUID.timeOrdered().wireString, JSONValue.object(fields).canonicalString,
            (stillBlocked ? OperationState.blocked : .pending).rawValue,
            stillBlocked ? "waiting on a rejected operation" : nil,
            now.timeIntervalSince1970, now.timeIntervalSince1970, rejected.opID,
        ])
        try db.cachedStatement(sql: "UPDATE outbox SET depends_on = ?, updated_at = ? WHERE depends_on = ?").execute(
            arguments: [newOp, now.timeIntervalSince1970, rejected.opID])
        if !stillBlocked {
            try releaseBlocked(behind: newOp, db: db, now: now)
        }
        if let table = EntityTable.table(rejected.entityType) {
            try db.cachedStatement(sql: "UPDATE \(table) SET sync_state = ?, sync_error = ? WHERE id = ?").execute(
                arguments: [
                    (stillBlocked ? SyncState.rejected : .pending).rawValue,
                    stillBlocked ? "waiting on a rejected workout" : nil,
                    rejected.entityID,
                ])
        }
    }

    /// Removes an entity that the server never accepted, with every operation about it and
    /// (for a workout) its sets and theirs.
    func discardEntity(type: EntityType, id: String, db: Database) throws {
        var ops = try String.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT op_id FROM outbox WHERE entity_type = ? AND entity_id = ? AND state != \(OperationState.succeeded.sql)"
            ),
            arguments: [type.rawValue, id])
        if type == .workout {
            ops += try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT o.op_id FROM outbox o JOIN sets s ON s.id = o.entity_id
                        WHERE o.entity_type = \(EntityType.set.sql) AND s.workout_id = ? AND o.state != \(OperationState.succeeded.sql)
                        """), arguments: [id])
        }
        for op in ops {
            for dependant in try Outbox.dependants(of: op, db: db) {
                try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE op_id = ? AND state != \(OperationState.inFlight.sql)"
                ).execute(
                    arguments: [dependant])
            }
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [op])
        }
        if let table = EntityTable.table(type) {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?").execute(arguments: [id])
        }
    }

    /// The catalogue's spelling of an exercise; an unknown name becomes a custom exercise.
    /// The exercise as the catalogue spells it (a name that differs only in case is the same
    /// exercise); a name it lacks becomes a custom exercise.
    /// - Parameter followAliases: "squat" typed at the command line is the catalogue's Squat
    ///   (Barbell), as on import: a name of the apps' default lists never splits a history into a
    ///   custom exercise. A name another device stored is kept as it is (false).
    func resolveExercise(_ name: String, followAliases: Bool = true, db: Database) throws -> String {
        if let known = try String.fetchOne(
            db.cachedStatement(sql: "SELECT name FROM exercises WHERE name = ? COLLATE NOCASE"), arguments: [name])
        {
            return known
        }
        if let catalogue = Catalog.namesByKey[Catalog.aliasKey(name)] { return catalogue }
        if followAliases, let alias = Catalog.aliases[Catalog.aliasKey(name)],
            alias.caseInsensitiveCompare(name) != .orderedSame
        {
            return try resolveExercise(alias, db: db)
        }
        try db.cachedStatement(sql: "INSERT INTO exercises (name, is_custom) VALUES (?, 1)").execute(arguments: [name])
        return name
    }

    /// Why a workout or set that an action names is not there to act on. One that was deleted
    /// (here, or on another device and pulled) is said so by its name, for the form that was still
    /// open on it; an id that never was one stays "not found" with the id typed.
    static func missing(_ type: EntityType, key: String, db: Database) throws -> StoreError {
        // What names the row to its user (a workout's name, a set's exercise), and the sentence.
        let table: String
        let naming: String
        let said: (String) -> String
        switch type {
        case .workout:
            (table, naming) = ("workouts", "name")
            said = { "the workout \"\($0)\" was deleted (here or on another device): nothing was saved to it" }
        case .set:
            (table, naming) = ("sets", "exercise")
            said = { "this \($0) set was deleted (here or on another device): the edit was not saved" }
        default:
            return .notFound("\(type.rawValue) \(key)")
        }
        guard
            let name = try String.fetchOne(
                db.cachedStatement(sql: "SELECT \(naming) FROM \(table) WHERE id = ? AND deleted_at IS NOT NULL"),
                arguments: [key])
        else { return .notFound("\(type.rawValue) \(key)") }
        return .notAllowed(said(DisplayText.replacingControls(name)))
    }

    func resolveWorkout(_ choice: WorkoutChoice, db: Database, now: Date) throws -> (Workout, Bool) {
        switch choice {
        case .existing(let id):
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT * FROM workouts WHERE id = ? AND deleted_at IS NULL AND \(visible())"),
                    arguments: [id.wireString])
            else { throw try Self.missing(.workout, key: id.wireString, db: db) }
            return (try Workout(row: row), false)
        case .new(let name):
            let workout = Workout(name: name.trimmingCharacters(in: .whitespaces), startedAt: now)
            try insertWorkout(workout, db: db, now: now)
            return (workout, true)
        case .current:
            let startOfDay = Calendar.current.startOfDay(for: now)
            if let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM workouts WHERE deleted_at IS NULL AND ended_at IS NULL AND started_at >= ?
                        AND \(visible()) ORDER BY started_at DESC LIMIT 1
                        """), arguments: [Timestamp.format(startOfDay)])
            {
                return (try Workout(row: row), false)
            }
            let workout = Workout(name: Self.timeOfDayName(now), startedAt: now)
            try insertWorkout(workout, db: db, now: now)
            return (workout, true)
        }
    }

    /// When a set logged now was performed: now, in the workout in progress (started today, not
    /// ended); in a past workout (a set added later on purpose) just after that workout's last
    /// set, or at its start — so its date, records and weekly volume are that workout's.
    static func performedTime(in workout: Workout, now: Date, db: Database) throws -> Date {
        if workout.endedAt == nil && workout.startedAt >= Calendar.current.startOfDay(for: now) { return now }
        let last = try String.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(performed_at) FROM sets WHERE workout_id = ? AND deleted_at IS NULL"),
            arguments: [workout.id.wireString]
        ).flatMap(Timestamp.parse)
        return min(now, last.map { $0.addingTimeInterval(1) } ?? workout.startedAt)
    }

    /// "Morning Workout", "Afternoon Workout"…, as Strong names a workout nobody named.
    public static func timeOfDayName(_ date: Date) -> String {
        switch Calendar.current.component(.hour, from: date) {
        case 5..<12: "Morning Workout"
        case 12..<17: "Afternoon Workout"
        case 17..<22: "Evening Workout"
        default: "Night Workout"
        }
    }
}

extension WorkoutLog {
    /// Starts a workout: the row and its create operation in one transaction.
    @discardableResult
    public func createWorkout(name: String, startedAt: Date? = nil, id: UUID = .timeOrdered()) throws -> Workout {
        let now = self.now
        let workout = Workout(
            id: id, name: name.trimmingCharacters(in: .whitespaces), startedAt: Timestamp.truncated(startedAt ?? now))
        try store.checked { () throws(ValidationError) in try Validation.workout(workout) }
        return try writer.write { db in
            try store.insertWorkout(workout, db: db, now: now)
            return workout
        }
    }

    /// Renames, annotates or ends a workout.
    public func editWorkout(id: UUID, changes: WorkoutChanges) throws {
        let now = self.now
        let key = id.wireString
        try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT * FROM workouts WHERE id = ? AND deleted_at IS NULL AND \(store.visible())"),
                    arguments: [key])
            else { throw try SpotterStore.missing(.workout, key: key, db: db) }
            let current = try Workout(row: row)
            var workout = current
            if let name = changes.name { workout.name = name.trimmingCharacters(in: .whitespaces) }
            if let notes = changes.notes { workout.notes = notes.isEmpty ? nil : notes }
            if let endedAt = changes.endedAt { workout.endedAt = Timestamp.truncated(endedAt) }
            if let change = changes.exerciseNote {
                let name = try Self.exerciseOf(workout, named: change.exercise, removing: change.note.isEmpty, db: db)
                workout.exerciseNotes = ExerciseNotes.setting(change.note, on: name, in: workout.exerciseNotes)
            }
            try store.checked { () throws(ValidationError) in try Validation.workout(workout) }
            if current != workout {
                let what =
                    current.endedAt == nil && workout.endedAt != nil
                    ? "finished"
                    : current.name != workout.name
                        ? "renamed"
                        : current.exerciseNotes != workout.exerciseNotes
                            ? "noted \(changes.exerciseNote?.exercise ?? "an exercise") in" : "edited"
                try store.journalEdit(
                    .workout, id: key, from: current.wireFields, to: workout.wireFields,
                    description: "\(what) the workout '\(current.name)'", db: db, now: now)
            }
            try store.applyChanges(
                type: .workout, id: key, from: current.wireFields, to: workout.wireFields, db: db,
                now: now)
        }
    }

    /// The exercise a note is for, spelled as the workout's sets spell it ("bench press (barbell)"
    /// finds Bench Press (Barbell)); one the workout has no set of is refused, unless the note
    /// being removed is still kept under that name.
    static func exerciseOf(_ workout: Workout, named name: String, removing: Bool, db: Database) throws -> String {
        let trimmed = Validation.trimmed(name)
        if removing, workout.exerciseNotes?[trimmed] != nil { return trimmed }
        let logged = try String.fetchAll(
            db.cachedStatement(sql: "SELECT DISTINCT exercise FROM sets WHERE workout_id = ? AND deleted_at IS NULL"),
            arguments: [workout.id.wireString])
        if let exact = logged.first(where: { $0 == trimmed }) { return exact }
        let folded = trimmed.lowercased()
        if let match = logged.first(where: { $0.lowercased() == folded }) { return match }
        throw StoreError.invalid(
            ValidationError(
                field: ExerciseNotes.field,
                message:
                    "names '\(DisplayText.replacingControls(trimmed))', which '\(DisplayText.replacingControls(workout.name))' has no set of"
            ))
    }

    /// Deletes a workout with its sets.
    public func deleteWorkout(id: UUID) throws {
        let now = self.now
        let key = id.wireString
        try writer.write { db in
            // The workout as it was, with the sets it still has: what an undo logs again.
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM workouts WHERE id = ? AND deleted_at IS NULL"), arguments: [key]),
                let workout = try? Workout(row: row)
            {
                let sets = try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT * FROM sets WHERE workout_id = ? AND deleted_at IS NULL ORDER BY position"),
                    arguments: [key]
                ).compactMap { try? WorkoutSet(row: $0) }
                try store.journal(
                    .deleted, .workout, id: key,
                    beforeText: String(
                        decoding: try JSONEncoder().encode(
                            DeletedWorkout(
                                workout: workout, sets: sets, planRows: try DeletedWorkout.planRows(of: key, db: db))),
                        as: UTF8.self),
                    description: "deleted the workout '\(workout.name)' (\(sets.count) sets)", db: db, now: now)
            }
            if try !store.queueDelete(type: .workout, id: key, db: db, now: now) {
                try store.markWorkoutDeleted(key, db: db, now: now)
            }
            try SpotterStore.refreshRecords(db)
        }
    }

    /// Logs a set: validates, then writes the set and its outbox operation in one transaction.
    @discardableResult
    public func logSet(_ input: LogSetInput, id: UUID = .timeOrdered()) throws -> LoggedSet {
        let now = self.now
        _ = try input.validatedExercise()
        return try writer.write { db in
            let logged = try store.logValidatedSet(input, id: id, db: db, now: now)
            try store.journalLog(
                logged.set, workoutCreated: logged.createdWorkout ? logged.workout.id.wireString : nil,
                description: "logged \(SpotterStore.describe(logged.set))", db: db, now: now)
            return logged
        }
    }
}

extension SpotterStore {
    /// The write of `logSet`, inside the caller's transaction (a planned row logs through it too).
    func logValidatedSet(_ input: LogSetInput, id: UUID, db: Database, now: Date) throws -> LoggedSet {
        let exerciseName = input.exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        let store = self
        let exercise = try store.resolveExercise(exerciseName, db: db)
        let (workout, created) = try store.resolveWorkout(input.workout, db: db, now: now)
        let workoutKey = workout.id.wireString
        let position = try SpotterStore.lastPosition(in: workoutKey, db: db) + 1
        guard position <= Validation.maxPosition else { throw SpotterStore.positionsUsedUp(workout.name) }
        let performedAt = try input.performedAt ?? SpotterStore.performedTime(in: workout, now: now, db: db)
        let group =
            input.superset
            ? try store.joinSuperset(exercise: exercise, workoutID: workout.id, db: db, now: now)
            : try store.superset(of: exercise, workoutID: workout.id, db: db)
        let set = WorkoutSet(
            id: id, workoutID: workout.id, exercise: exercise, position: position, kind: input.kind,
            weight: input.weight, unit: input.unit, reps: input.reps, rpe: input.rpe, distanceM: input.distanceM,
            durationS: input.durationS, notes: input.notes,
            performedAt: Timestamp.truncated(performedAt), superset: group)
        var (opID, isPR) = try store.insertSet(set, db: db, now: now)
        if try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM records_dirty WHERE exercise = ?)"),
            arguments: [set.exercise]) == true
        {
            // Not the newest set of its exercise (or its records were stale): walk it now.
            try SpotterStore.recomputeRecords(exercise: set.exercise, db: db)
            try db.cachedStatement(sql: "DELETE FROM records_dirty WHERE exercise = ?").execute(arguments: [
                set.exercise
            ])
            isPR =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT is_pr FROM sets WHERE id = ?"), arguments: [set.id.wireString])
                == RecordKind.oneRepMax.rawValue
        }
        return LoggedSet(set: set, workout: workout, createdWorkout: created, isPR: isPR, opID: opID)
    }
}

extension WorkoutLog {

    /// Changes fields of a set. Editing a rejected set is "edit and retry": a new create with a new key.
    public func editSet(id: UUID, changes: SetChanges) throws {
        let now = self.now
        let key = id.wireString
        try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT * FROM sets WHERE id = ? AND deleted_at IS NULL AND \(store.visible())"),
                    arguments: [key])
            else { throw try SpotterStore.missing(.set, key: key, db: db) }
            let current = try WorkoutSet(row: row)
            var updated = current
            if let exercise = changes.exercise {
                try store.checked { () throws(ValidationError) in try Validation.exercise(exercise) }
                updated.exercise = try store.resolveExercise(
                    exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
            }
            if let weight = changes.weight { updated.weight = weight }
            if let unit = changes.unit { updated.unit = unit }
            if let reps = changes.reps { updated.reps = reps }
            if let rpe = changes.rpe { updated.rpe = rpe }
            if changes.clearRPE { updated.rpe = nil }
            if let kind = changes.kind { updated.kind = kind }
            if let notes = changes.notes { updated.notes = notes.isEmpty ? nil : notes }
            if let distance = changes.distanceM { updated.distanceM = distance }
            if let duration = changes.durationS { updated.durationS = duration }
            try store.checked { () throws(ValidationError) in try Validation.set(updated) }
            if current != updated {
                try store.journalEdit(
                    .set, id: key, from: current.wireFields, to: updated.wireFields,
                    description: "edited \(SpotterStore.describe(updated)) (back to \(SpotterStore.describe(current)))",
                    db: db, now: now)
            }
            try store.applyChanges(
                type: .set, id: key, from: current.wireFields, to: updated.wireFields, db: db, now: now)
            // Records follow at once: a reading command may open the file read-only and could not.
            try SpotterStore.refreshRecords(db)
        }
    }

    /// Deletes a set (a tombstone until the server confirms).
    public func deleteSet(id: UUID) throws {
        let now = self.now
        let key = id.wireString
        try writer.write { db in
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM sets WHERE id = ? AND deleted_at IS NULL"), arguments: [key]),
                let set = try? WorkoutSet(row: row)
            {
                try store.journal(
                    .deleted, .set, id: key,
                    beforeText: String(decoding: try JSONEncoder().encode(set), as: UTF8.self),
                    description: "deleted \(SpotterStore.describe(set))", db: db, now: now)
            }
            if try !store.queueDelete(type: .set, id: key, db: db, now: now) {
                try db.cachedStatement(
                    sql:
                        "UPDATE sets SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql), sync_error = NULL WHERE id = ?"
                ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), key])
            }
            try SpotterStore.refreshRecords(db)
        }
    }

    // MARK: Shared steps
}

extension LogSetInput {
    /// Checks the input by the rules every set obeys (the same for a log and a planned ramp);
    /// returns the exercise's name trimmed.
    func validatedExercise() throws(StoreError) -> String {
        let name = exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try Validation.exercise(name)
            try Validation.weight(weight, unit: unit)
            try Validation.reps(reps)
            try Validation.rpe(rpe)
            try Validation.nonNegative(distanceM, field: "distance_m")
            try Validation.nonNegative(durationS, field: "duration_s")
            try Validation.notes(notes)
            if case .new(let name) = workout { try Validation.workoutName(name) }
        } catch {
            throw StoreError.invalid(error)
        }
        return name
    }
}

import Foundation
import GRDB
import SpotterCore

/// Where a planned row stands. A row logged as a set that was deleted since is planned again:
/// the status shown never claims a set that is not there.
public enum PlanStatus: String, Sendable, Equatable, Codable {
    case planned, done, skipped
}

/// One planned set of a workout started from a routine, as the sets pane shows it.
public struct PlannedRow: Sendable, Equatable {
    public var id: UUID
    public var workoutID: UUID
    public var routineID: UUID
    public var ordinal: Int
    public var exerciseIndex: Int
    public var setIndex: Int
    public var exercise: String
    public var kind: SetKind
    public var weight: Double
    public var unit: WeightUnit
    public var reps: Int
    public var repsMax: Int?
    public var rpe: Double?
    public var restSeconds: Int?
    public var superset: Int?
    /// Why the targets are what they are ("+2.5 kg: all 3×5 done on Mon 16 Nov").
    public var hint: String?
    public var status: PlanStatus
    /// The set it was logged as (status done).
    public var setID: UUID?
    /// What that set holds now (status done): what was lifted, which may differ from the targets.
    public var logged: Logged?
    /// Came with a workout started on another device.
    public var pulled = false

    /// The hint of a percentage set when the exercise has no estimated 1RM yet: its weight is
    /// unknown (shown as 0), so it is never logged without one.
    public static func missingOneRepMaxHint(_ exercise: String) -> String {
        "no estimated 1RM for \(exercise) yet: enter the weight"
    }

    /// A percentage set planned before the exercise had an estimated 1RM: the lifter must say
    /// the weight; logging the placeholder 0 would record a set that was not lifted.
    public var needsWeight = false
}

/// A workout started from a routine, as its history reads it: when, the plan it was started
/// with, and its live sets (id, exercise, kind, weight, unit, reps).
struct PastWorkout {
    var date: Date
    var plan: WorkoutPlan
    var sets: [Row]
}

extension PlannedRow {
    /// What the set a planned row was logged as holds.
    public struct Logged: Sendable, Equatable {
        public var kind: SetKind
        public var weight: Double
        public var unit: WeightUnit
        public var reps: Int

        /// A set's cells, named with `prefix` ("logged_weight" in a join).
        init(_ cells: RowCells, prefix: String = "") throws {
            kind = try cells.enumeration(prefix + "kind")
            weight = try cells.value(prefix + "weight")
            unit = try cells.enumeration(prefix + "unit")
            reps = try cells.value(prefix + "reps")
        }
    }
}

/// A routine with its sync state, as lists show it.
public struct RoutineSummary: Sendable, Equatable {
    public var routine: Routine
    public var syncState: SyncState
    public var syncError: String?
    /// When a workout was last started from it (on any device of the account).
    public var lastStartedAt: Date?
}

/// What starting a routine produced: today's workout and its planned rows, in the order they are done.
public struct StartedRoutine: Sendable, Equatable {
    public var workout: Workout
    public var rows: [PlannedRow]
    /// Today's start of this routine still had sets to do: it was picked up, not made again.
    public var resumed = false
}

extension PlannedRow {
    init(row: Row) throws {
        let cells = RowCells(row, table: "routine_plans")
        let stored: PlanStatus = try cells.enumeration("status")
        let setLive: Bool = try cells.value("set_live") ?? false
        self.init(
            id: try cells.uuid("id"), workoutID: try cells.uuid("workout_id"), routineID: try cells.uuid("routine_id"),
            ordinal: try cells.value("ordinal"), exerciseIndex: try cells.value("exercise_index"),
            setIndex: try cells.value("set_index"), exercise: try cells.value("exercise"),
            kind: try cells.enumeration("kind"), weight: try cells.value("weight"), unit: try cells.enumeration("unit"),
            reps: try cells.value("reps"), repsMax: try cells.value("reps_max"), rpe: try cells.value("rpe"),
            restSeconds: try cells.value("rest_s"), superset: try cells.value("superset"),
            hint: try cells.value("hint"),
            status: setLive ? .done : stored == .done ? .planned : stored,
            setID: setLive ? try cells.uuid("logged_id") : nil)
        needsWeight = try cells.value("needs_weight")
        pulled = try cells.value("pulled")
        if setLive { logged = try Logged(cells, prefix: "logged_") }
    }

    /// The plan rows with `set_live` (whether the set a row was logged as is still there) and
    /// what that set holds. A row not logged here is done when a set with its id is here: it was
    /// logged on another device (the set first logged for a planned set takes its id).
    static let selectSQL = """
        SELECT p.*, s.id IS NOT NULL AS set_live, s.id AS logged_id, s.kind AS logged_kind,
            s.weight AS logged_weight, s.unit AS logged_unit, s.reps AS logged_reps
        FROM routine_plans p
        LEFT JOIN sets s ON s.id = CASE WHEN p.status = 'done' THEN p.set_id ELSE p.id END
            AND s.workout_id = p.workout_id AND s.deleted_at IS NULL
        """

    /// A workout's planned rows, in the order they are done. A row not logged here (by Enter)
    /// takes a set of its exercise the workout holds that no row claims — logged by hand, or on
    /// another device, where a set gets an id of its own — warm-ups for warm-ups, in order: the
    /// same rule the routine's history follows, so what a row shows is what progression counts.
    static func all(workoutID: UUID, db: Database) throws -> [PlannedRow] {
        var rows = try Row.fetchAll(
            db.cachedStatement(sql: selectSQL + " WHERE p.workout_id = ? ORDER BY p.ordinal"),
            arguments: [workoutID.wireString]
        ).map { try PlannedRow(row: $0) }
        // A lift renamed since the start shows (and is logged) under its name now; a set logged
        // under its old name (on a device that had not heard of the rename) is still that lift.
        var names: [String: String] = [:]
        if let routineID = rows.first?.routineID,
            let routine = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM routines WHERE id = ?"), arguments: [routineID.wireString]
            ).flatMap({ try? Routine(row: $0) })
        {
            names = routine.currentNames
            for index in rows.indices { rows[index].exercise = names[rows[index].exercise] ?? rows[index].exercise }
        }
        guard rows.contains(where: { $0.status == .planned }) else { return rows }
        let claimed = Set(rows.compactMap(\.setID))
        var unclaimed = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, exercise, kind, weight, unit, reps FROM sets
                    WHERE workout_id = ? AND deleted_at IS NULL ORDER BY position, performed_at, id
                    """), arguments: [workoutID.wireString]
        ).filter { row in
            // An id that does not read is an error naming the row, never a made-up id.
            guard let id = UUID(wire: row["id"] ?? "") else {
                throw UnreadableRow(table: "sets", id: row["id"] ?? "?", reason: "id is not a UUID")
            }
            return !claimed.contains(id)
        }
        let open = rows.indices.filter { rows[$0].status == .planned }
        let found = fillOpen(
            open.map {
                (
                    rows[$0].exercise, rows[$0].kind,
                    rows[$0].needsWeight ? nil : rows[$0].weight * rows[$0].unit.kilograms
                )
            },
            from: &unclaimed, names: names)
        for (index, set) in zip(open, found) {
            guard let set else { continue }
            let cells = RowCells(set, table: "sets")
            rows[index].status = .done
            rows[index].setID = try cells.uuid("id")
            rows[index].logged = try Logged(cells)
        }
        return rows
    }

    /// Takes from `pool` (a workout's sets no planned set claims, in order) the first one of
    /// `exercise` that can stand for a planned set of `kind`: warm-ups for warm-ups, drop sets
    /// for drop sets, working sets (normal or to failure) for working sets; with `at`, only one
    /// lifted at that weight (kg). The one rule planned rows and a routine's history share.
    static func takeUnclaimed(
        _ pool: inout [Row], exercise: String, kind: SetKind, at kilograms: Double? = nil,
        names: [String: String] = [:]
    ) -> Row? {
        func family(_ kind: SetKind?) -> Int {
            switch kind {
            case .warmup: 0
            case .drop: 1
            default: 2
            }
        }
        guard
            let index = pool.firstIndex(where: { set in
                // A cell that does not read (a damaged file) matches nothing; no unit is guessed.
                let name = set.cell("exercise", as: String.self) ?? ""
                guard (names[name] ?? name) == exercise,
                    family(set.cell("kind", as: String.self).flatMap(SetKind.init(rawValue:))) == family(kind)
                else { return false }
                guard let kilograms else { return true }
                guard let unit = set.cell("unit", as: String.self).flatMap(WeightUnit.init(rawValue:)),
                    let weight = set.cell("weight", as: Double.self)
                else { return false }
                return abs(weight * unit.kilograms - kilograms) < 0.01
            })
        else { return nil }
        return pool.remove(at: index)
    }

    /// Gives each open slot (planned sets without a set of their own, in order) a set from
    /// `pool`: first one lifted at the slot's target weight, then any left, in order. A top set
    /// and back-offs of one lift logged elsewhere each find their own sets this way.
    static func fillOpen(
        _ slots: [(exercise: String, kind: SetKind, kilograms: Double?)], from pool: inout [Row],
        names: [String: String] = [:]
    ) -> [Row?] {
        var taken = [Row?](repeating: nil, count: slots.count)
        for (index, slot) in slots.enumerated() where slot.kilograms != nil {
            taken[index] = takeUnclaimed(
                &pool, exercise: slot.exercise, kind: slot.kind, at: slot.kilograms, names: names)
        }
        for (index, slot) in slots.enumerated() where taken[index] == nil {
            taken[index] = takeUnclaimed(&pool, exercise: slot.exercise, kind: slot.kind, names: names)
        }
        return taken
    }

    /// One planned row, as its workout's rows show it; refused as not found when there is none.
    static func one(_ planID: UUID, db: Database) throws -> PlannedRow {
        guard
            let workout = try String.fetchOne(
                db.cachedStatement(sql: "SELECT workout_id FROM routine_plans WHERE id = ?"),
                arguments: [planID.wireString]),
            let workoutID = UUID(wire: workout),
            let row = try all(workoutID: workoutID, db: db).first(where: { $0.id == planID })
        else { throw StoreError.notFound("planned set \(planID.wireString)") }
        return row
    }
}

extension SpotterStore {
    /// Takes the server's routine whole (nothing is queued for it here).
    func upsert(_ routine: Routine, stamp: ServerStamp, db: Database, now: String) throws {
        _ = try upsertSynced(routine, id: routine.id, stamp: stamp, db: db, now: now)
    }

    /// Writes a row the server sent (the feed, or its answer to a write) whole, as synced, into
    /// its entity's table (`Column.table`), unless another account holds that id here (reported).
    /// Returns whether it was written.
    func upsertSynced<Entity: ColumnValues>(
        _ entity: Entity, id: UUID, stamp: ServerStamp, db: Database, now: String
    ) throws -> Bool {
        let table = Entity.Column.table
        try db.cachedStatement(
            sql: """
                INSERT INTO \(table) (\(Entity.Column.columnList), updated_at, server_version, sync_state, account)
                VALUES (\(placeholders(Entity.Column.allCases.count)), ?, ?, \(SyncState.synced.sql), ?)
                ON CONFLICT(id) DO UPDATE SET \(Entity.Column.takeExcluded), updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                    sync_error = NULL, account = excluded.account
                WHERE \(visible(table + "."))
                """
        ).execute(
            arguments: StatementArguments(
                entity.columnArguments + [
                    (stamp.updatedAt ?? now).databaseValue, stamp.serverVersion?.databaseValue ?? .null,
                    userID.databaseValue,
                ]))
        guard db.changesCount > 0 else {
            reportHeldByAnotherAccount(table, id)
            return false
        }
        return true
    }

    func routineLabel(_ id: String, db: Database) throws -> String {
        if let name = try String.fetchOne(
            db.cachedStatement(sql: "SELECT name FROM routines WHERE id = ?"), arguments: [id])
        {
            return "routine \(name)"
        }
        return "routine \(id.prefix(8))"
    }

    /// The live routine `text` names: its id, or its name (any case). Several of one name
    /// (made on two devices) are refused with their ids, never guessed between.
    func findRoutine(_ text: String, db: Database) throws -> Routine {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows: [Row]
        if let id = UUID(wire: trimmed) {
            rows = try Row.fetchAll(
                db, sql: "SELECT * FROM routines WHERE id = ? AND deleted_at IS NULL AND \(visible())",
                arguments: [id.wireString])
        } else {
            // Names compare as a lifter reads them: any case, in any alphabet, however the
            // accents were typed (composed or not). Routines are few: compared here, not in SQL.
            let key = Self.routineNameKey(trimmed)
            rows = try Row.fetchAll(
                db, sql: "SELECT * FROM routines WHERE deleted_at IS NULL AND \(visible())"
            ).filter { Self.routineNameKey($0.cell("name", as: String.self) ?? "") == key }
        }
        guard let first = rows.first else { throw StoreError.notFound("routine \"\(trimmed)\"") }
        guard rows.count == 1 else {
            let ids = try rows.map { try Routine(row: $0).id.wireString }.joined(separator: ", ")
            throw StoreError.notAllowed("several routines are named \"\(trimmed)\"; name one by its id: \(ids)")
        }
        return try Routine(row: first)
    }

    /// A routine that takes `name` must not share it with another live routine (any case).
    func ensureRoutineNameFree(_ name: String, except id: UUID?, db: Database) throws {
        let key = Self.routineNameKey(name)
        let taken = try Row.fetchAll(
            db, sql: "SELECT name FROM routines WHERE deleted_at IS NULL AND \(visible()) AND id != ?",
            arguments: [id?.wireString ?? ""]
        ).contains { Self.routineNameKey($0.cell("name", as: String.self) ?? "") == key }
        if taken { throw StoreError.notAllowed("a routine named \"\(name)\" already exists") }
    }

    /// A routine name as it is compared: composed (NFC) and case-folded in every alphabet.
    static func routineNameKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
    }

    /// The best estimated 1RM of an exercise, in `unit`; nil when none is known.
    func oneRepMax(_ exercise: String, unit: WeightUnit, db: Database) throws -> Double? {
        try Double.fetchOne(
            db,
            sql: """
                SELECT MAX(e1rm_kg) FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                AND \(visible()) AND reps <= \(OneRepMax.maxReps)
                """, arguments: [exercise]
        ).map { $0 / unit.kilograms }
    }

    /// The workouts started from a routine, oldest first, read from what every device of the
    /// account sees alike: each one's plan (the targets it was started with; a lift's former
    /// name read as its name now) and its live sets. Read once per start, for every exercise.
    func pastWorkouts(of routine: Routine, db: Database) throws -> [PastWorkout] {
        let names = routine.currentNames
        // Workouts started before plans travelled with them (no plan) keep their history on the
        // device that started them, from its planned rows.
        let workouts = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, plan, started_at FROM workouts
                    WHERE (routine_id = ? OR (plan IS NULL AND id IN (SELECT workout_id FROM routine_plans WHERE routine_id = ?)))
                      AND deleted_at IS NULL AND \(visible())
                    ORDER BY started_at, id
                    """), arguments: [routine.id.wireString, routine.id.wireString])
        var past: [PastWorkout] = []
        for row in workouts {
            // A plan that does not read is reported with the workout list; it is no history here.
            guard var plan = try? WorkoutPlan.stored(row["plan"] as String?) ?? localPlan(workoutID: row["id"], db: db)
            else { continue }
            // Started under a name the lift had before a rename: it is the lift by its name now.
            for index in plan.entries.indices {
                plan.entries[index].exercise = names[plan.entries[index].exercise] ?? plan.entries[index].exercise
            }
            let sets = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, exercise, kind, weight, unit, reps FROM sets
                        WHERE workout_id = ? AND deleted_at IS NULL
                        ORDER BY position, performed_at, id
                        """), arguments: [row["id"] as String])
            // A start that does not read is no history either (never dated "now": it would be
            // taken for the latest session); the workout list reports it.
            guard let started = row.cell("started_at", as: String.self).flatMap(Timestamp.parse) else {
                continue
            }
            past.append(PastWorkout(date: started, plan: plan, sets: sets))
        }
        return past
    }

    /// Earlier performances of one exercise of a routine, oldest first. A planned set's
    /// performance is the set logged for it (it has the planned set's id); planned sets without
    /// one take the exercise's other sets of that workout (logged by hand, on another device, or
    /// again after a delete) by the rule of `PlannedRow.fillOpen`. A lift planned twice in a
    /// routine (a top set, then back-offs) is told apart by its place: `occurrence` 0 is its
    /// first block. Weights are in `unit`; `names` maps former names to the lift's name now.
    static func pastPerformances(
        in workouts: [PastWorkout], exercise: String, occurrence: Int = 0, unit: WeightUnit,
        names: [String: String] = [:]
    ) -> [PastPerformance] {
        var performances: [PastPerformance] = []
        for workout in workouts {
            let plan = workout.plan
            let workoutSets = workout.sets
            // A block of the plan is this lift when it names it, or when a set logged for it is
            // this lift now (the exercise was renamed or merged since: its sets moved, the plan
            // keeps the name it was started with).
            func lift(_ set: Row) -> String {
                let name = set.cell("exercise", as: String.self) ?? ""
                return names[name] ?? name
            }
            let exerciseOf = Dictionary(
                workoutSets.map { ($0["id"] as String, lift($0)) }, uniquingKeysWith: { first, _ in first })
            let byBlock = Dictionary(grouping: plan.entries) { "\($0.exerciseIndex ?? 0)|\($0.exercise)" }
            let ofExercise = byBlock.values.filter { block in
                block[0].exercise == exercise || block.contains { exerciseOf[$0.id.wireString] == exercise }
            }.flatMap { $0 }
            // The blocks of this lift, in routine order; each block's sets in order.
            let blocks = Dictionary(grouping: ofExercise) { $0.exerciseIndex ?? 0 }.sorted { $0.key < $1.key }
                .map { $0.value.sorted { $0.set < $1.set } }
            guard blocks.indices.contains(occurrence) else { continue }
            // A set whose weight, unit or reps does not read (a hand edit) is no performance: the
            // set list names it; a unit is never guessed.
            func readable(_ set: Row) -> PerformedSet? {
                guard let weight = set.cell("weight", as: Double.self),
                    let from = set.cell("unit", as: String.self).flatMap(WeightUnit.init(rawValue:)),
                    let reps = set.cell("reps", as: Int.self)
                else { return nil }
                return PerformedSet(weight: Formatting.converted(weight, from: from, to: unit), reps: reps)
            }
            let sets = workoutSets.filter { lift($0) == exercise && readable($0) != nil }
            // Only rows of `sets` come here, each readable.
            func performed(_ set: Row) -> PerformedSet { readable(set) ?? PerformedSet(weight: 0, reps: 0) }
            let plannedIDs = Set(ofExercise.map(\.id.wireString))
            var byID: [String: Row] = [:]
            var unmatched: [Row] = []
            for set in sets {
                let id: String = set["id"]
                if plannedIDs.contains(id) { byID[id] = set } else { unmatched.append(set) }
            }
            // Every block takes its own sets first, then the sets left over, in block order.
            var done: [[PerformedSet?]] = blocks.map { $0.map { byID[$0.id.wireString].map(performed) } }
            let open = blocks.indices.flatMap { block in
                blocks[block].indices.filter { done[block][$0] == nil }.map { (block, $0) }
            }
            let found = PlannedRow.fillOpen(
                open.map { block, index in
                    let entry = blocks[block][index]
                    return (exercise, entry.kind, entry.weight.map { $0 * entry.unit.kilograms })
                }, from: &unmatched, names: names)
            for ((block, index), set) in zip(open, found) { done[block][index] = set.map(performed) }

            // A lift not logged at all in that workout is no performance of it.
            guard done[occurrence].contains(where: { $0 != nil }) else { continue }
            let entries = blocks[occurrence]
            func converted(_ weight: Double?, _ entry: WorkoutPlan.Entry) -> Double {
                Formatting.converted(weight ?? 0, from: entry.unit, to: unit)
            }
            let written =
                entries.allSatisfy { $0.writtenReps != nil }
                ? entries.map {
                    SetTarget(kind: $0.kind, weight: converted($0.writtenWeight, $0), reps: $0.writtenReps ?? 0)
                } : nil
            performances.append(
                PastPerformance(
                    date: workout.date,
                    targets: entries.map { SetTarget(kind: $0.kind, weight: converted($0.weight, $0), reps: $0.reps) },
                    performed: done[occurrence], written: written))
        }
        return performances
    }

    /// A workout's plan as its planned rows here hold it, for a workout started before plans
    /// travelled with workouts; a row logged as a set stands for that set's id.
    func localPlan(workoutID: String, db: Database) throws -> WorkoutPlan? {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM routine_plans WHERE workout_id = ? ORDER BY ordinal"),
            arguments: [workoutID])
        guard let first = rows.first, let routineID = UUID(wire: first["routine_id"] ?? "") else { return nil }
        return WorkoutPlan(
            routineID: routineID,
            entries: try rows.map { row in
                let cells = RowCells(row, table: "routine_plans")
                let logged = (row["status"] as String?) == PlanStatus.done.rawValue ? row["set_id"] as String? : nil
                return WorkoutPlan.Entry(
                    id: try logged.flatMap { UUID(wire: $0) } ?? cells.uuid("id"),
                    exercise: try cells.value("exercise"),
                    set: try cells.value("set_index"), kind: try cells.enumeration("kind"),
                    weight: try cells.value("weight"), unit: try cells.enumeration("unit"),
                    reps: try cells.value("reps"), exerciseIndex: try cells.value("exercise_index"))
            })
    }

    /// Targets for every planned set of `exercise` at this start, and why; `past` is
    /// `pastWorkouts(of: routine)` (read only when a rule needs it).
    func startTargets(
        _ routine: Routine, exerciseIndex: Int, past: [PastWorkout], db: Database
    ) throws -> ProgressionOutcome {
        let planned = routine.exercises[exerciseIndex]
        // A lift on a bar moves to weights the lifter's plates can load.
        let plates = try Preferences.barPlates(planned.exercise, unit: planned.unit, db: db)
        let percentBased = planned.sets.contains { $0.percentOfOneRepMax != nil }
        var written: [SetTarget] = []
        var hint: String?
        if percentBased {
            let max = try oneRepMax(planned.exercise, unit: planned.unit, db: db)
            for set in planned.sets {
                var weight = set.weight ?? 0
                if let percent = set.percentOfOneRepMax, let max {
                    weight =
                        plates.map { Plates.rounded(max * percent / 100, on: $0) }
                        ?? Progression.weight(percent: percent, ofOneRepMax: max, unit: planned.unit)
                }
                written.append(SetTarget(kind: set.kind, weight: weight, reps: set.reps))
            }
            let percents = Set(planned.sets.compactMap(\.percentOfOneRepMax)).sorted().map(Formatting.number)
            hint =
                if let max {
                    // The estimate as the stats and the charts give it (to 0.1), not rounded to
                    // plates: only the weights worked out from it are loaded.
                    "\(percents.joined(separator: "/")) % of e1RM \(Formatting.weight((max * 10).rounded() / 10, unit: planned.unit))"
                } else {
                    PlannedRow.missingOneRepMaxHint(planned.exercise)
                }
        } else {
            written = planned.sets.map { SetTarget(kind: $0.kind, weight: $0.weight ?? 0, reps: $0.reps) }
        }
        if let hint { return ProgressionOutcome(targets: written, hint: hint) }
        let occurrence = routine.exercises[..<exerciseIndex].filter { $0.exercise == planned.exercise }.count
        let history = Self.pastPerformances(
            in: past, exercise: planned.exercise, occurrence: occurrence, unit: planned.unit,
            names: routine.currentNames)
        return Progression.next(
            for: planned, written: written, history: history, plates: plates,
            loadType: try Self.loadType(planned.exercise, db: db))
    }

    /// A workout started from a routine on another device shows its planned sets here too, to
    /// carry on with: one planned row per entry of its plan (once), with the routine's rep
    /// ranges, RPE, rest and supersets when the routine is here. A row whose set was logged
    /// (on any device) shows as done, by the set's id.
    func showPlan(_ plan: WorkoutPlan, of workout: Workout, db: Database, now: String) throws {
        guard
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM routine_plans WHERE workout_id = ?)"),
                arguments: [workout.id.wireString]) == false
        else { return }
        let routine = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM routines WHERE id = ? AND deleted_at IS NULL"),
            arguments: [plan.routineID.wireString]
        ).flatMap { try? Routine(row: $0) }
        // Without the routine here, exercises are numbered in the order the plan first names them.
        var order: [String] = []
        for entry in plan.entries where !order.contains(entry.exercise) { order.append(entry.exercise) }
        for (ordinal, entry) in plan.entries.enumerated() {
            let index =
                entry.exerciseIndex.flatMap { index in
                    routine?.exercises.indices.contains(index) == true
                        && routine?.exercises[index].exercise == entry.exercise ? index : nil
                } ?? routine?.exercises.firstIndex { $0.exercise == entry.exercise }
            let written = index.flatMap { routine?.exercises[$0] }
            let set = written.flatMap { $0.sets.indices.contains(entry.set) ? $0.sets[entry.set] : nil }
            // A planned set's id another workout's row already has (only a client sending what it
            // likes makes one) gets a row id of its own here: the row still shows, by the rule
            // for sets that no planned set claims.
            let taken =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM routine_plans WHERE id = ?)"),
                    arguments: [entry.id.wireString]) ?? false
            try db.cachedStatement(
                sql: """
                    INSERT INTO routine_plans (id, workout_id, routine_id, ordinal, exercise_index, set_index,
                        exercise, kind, weight, unit, reps, reps_max, rpe, rest_s, superset, hint, status, created_at,
                        pulled, needs_weight)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'planned', ?, 1, ?)
                    """
            ).execute(arguments: [
                (taken ? UUID.timeOrdered() : entry.id).wireString, workout.id.wireString, plan.routineID.wireString,
                ordinal,
                entry.exerciseIndex ?? index ?? order.firstIndex(of: entry.exercise) ?? 0, entry.set,
                entry.exercise, entry.kind.rawValue, entry.weight ?? 0, entry.unit.rawValue, entry.reps,
                set?.repsMax.map { max($0, entry.reps) }, set?.rpe, index.flatMap { routine?.rest(forExercise: $0) },
                written?.superset,
                entry.weight == nil
                    ? PlannedRow.missingOneRepMaxHint(entry.exercise) : "planned on another device", now,
                entry.weight == nil,
            ])
        }
    }

    /// Writes a routine's whole new image and queues the fields that changed.
    func saveRoutineChanges(from old: Routine, to new: Routine, db: Database, now: Date) throws {
        try applyChanges(
            type: .routine, id: old.id.wireString, from: old.wireFields, to: new.wireFields, db: db, now: now)
    }

    /// Adopts the device's own routines into the account at first login, as workouts are adopted.
    func adoptDeviceRoutines(db: Database, now: Date) throws -> Int {
        try adoptDeviceRows(.routine, db: db, now: now) { try Routine(row: $0).wireFields }
    }

    /// Adopts the device's own rows of a flat entity (no parent to wait on) into the account at
    /// first login: what it deleted before is forgotten, each live row becomes the account's,
    /// pending, with a new create. `fields` reads a row's wire fields. Returns how many.
    func adoptDeviceRows(
        _ type: EntityType, db: Database, now: Date, fields: (Row) throws -> [String: JSONValue]
    ) throws -> Int {
        guard let table = EntityTable.table(type) else { return 0 }
        let device = QueueOwner.deviceID
        try db.execute(
            sql: """
                DELETE FROM outbox WHERE user_id = ? AND entity_type = \(type.sql) AND state != \(OperationState.succeeded.sql)
                """, arguments: [device])
        try db.execute(sql: "DELETE FROM \(table) WHERE account = ? AND deleted_at IS NOT NULL", arguments: [device])
        var count = 0
        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE account = ?", arguments: [device]) {
            let payload = try fields(row)
            guard let id = payload["id"]?.stringValue else { continue }
            try db.execute(
                sql: """
                    UPDATE \(table) SET account = ?, server_version = NULL, sync_state = \(SyncState.pending.sql), sync_error = NULL
                    WHERE id = ?
                    """, arguments: [userID, id])
            _ = try Outbox.appendCreate(
                db, user: userID, type: type, id: id, payload: payload, dependency: nil, now: now)
            count += 1
        }
        return count
    }
}

extension RoutineBook {
    /// Makes a routine (by hand: empty, or with exercises): the row and its create in one transaction.
    @discardableResult
    public func create(
        name: String, exercises: [RoutineExercise] = [], notes: String? = nil, restSeconds: Int? = nil,
        id: UUID = .timeOrdered()
    ) throws -> Routine {
        let now = self.now
        var routine = Routine(
            id: id, name: name.trimmingCharacters(in: .whitespacesAndNewlines), notes: notes,
            restSeconds: restSeconds, exercises: Self.keptWeights(exercises))
        try store.checked { () throws(ValidationError) in
            do throws(ValidationError) { try Validation.routine(routine) } catch { throw routine.readable(error) }
        }
        return try writer.write { db in
            for index in routine.exercises.indices {
                routine.exercises[index].exercise = try store.resolveExercise(
                    routine.exercises[index].exercise, db: db)
            }
            try store.ensureRoutineNameFree(routine.name, except: nil, db: db)
            try db.cachedStatement(
                sql: """
                    INSERT INTO routines (\(Routine.Column.columnList), updated_at, sync_state, account)
                    VALUES (\(placeholders(Routine.Column.allCases.count)), ?, \(SyncState.pending.sql), ?)
                    """
            ).execute(
                arguments: StatementArguments(
                    routine.columnArguments + [Timestamp.format(now).databaseValue, userID.databaseValue]))
            _ = try Outbox.appendCreate(
                db, user: userID, type: .routine, id: routine.id.wireString, payload: routine.wireFields,
                dependency: nil, now: now)
            return routine
        }
    }

    /// A routine from a past workout: its exercises in the order first done, each with its sets
    /// as planned sets (kind, weight, reps, RPE) in the order performed.
    @discardableResult
    public func create(fromWorkout workoutID: UUID, name: String, id: UUID = .timeOrdered()) throws -> Routine {
        try create(name: name, exercises: try exercises(fromWorkout: workoutID), id: id)
    }

    /// Makes a routine's exercises this workout's logged sets, in order (the UI's `S` on a
    /// workout started from it: what was done becomes the plan; an exercise added is added, one
    /// not done is dropped). An exercise the routine had keeps its progression rule, increment,
    /// rest, superset and notes; with a fixed rule its sets become the ones logged, with a
    /// progression rule its written targets stay (the rule works from what was done) and only
    /// the number of sets follows. Validated and queued like any edit.
    @discardableResult
    public func update(_ nameOrID: String, fromWorkout workoutID: UUID) throws -> Routine {
        let done = try blocks(fromWorkout: workoutID)
        return try update(nameOrID) { routine in
            let before = routine.exercises
            var used = Set<Int>()
            routine.exercises = done.map { block in
                let exercise = block.exercise
                // The block a planned set came from is that exercise of the routine; a lift added
                // in the gym matches the routine's first unused exercise of its name, if any.
                let oldIndex =
                    block.routineIndex.flatMap { before.indices.contains($0) ? $0 : nil }
                    ?? before.indices.first {
                        !used.contains($0) && before[$0].exercise.lowercased() == exercise.exercise.lowercased()
                    }
                guard let oldIndex, !used.contains(oldIndex) else { return exercise }
                used.insert(oldIndex)
                let old = before[oldIndex]
                var kept = old
                kept.sets = exercise.sets.enumerated().map { index, done in
                    // A progression rule sets its own targets from what was done: its written sets
                    // stay; only the number of sets follows the workout.
                    if old.progression != .fixed, old.sets.indices.contains(index) { return old.sets[index] }
                    var set = done
                    set.weight = set.weight.map { Formatting.converted($0, from: exercise.unit, to: old.unit) }
                    return set
                }
                return kept
            }
        }
    }

    /// A workout's logged sets as a routine's exercises, in the order they were done.
    private func exercises(fromWorkout workoutID: UUID) throws -> [RoutineExercise] {
        try blocks(fromWorkout: workoutID).map(\.exercise)
    }

    /// A workout's logged sets as a routine's exercises. Started from a routine, the sets of each
    /// planned exercise stay its own block, in the routine's order (a top set and back-offs of one
    /// lift stay two), with `routineIndex` naming it; a lift not planned follows, by name, in the
    /// order done. Otherwise one exercise per lift, in the order done.
    private func blocks(fromWorkout workoutID: UUID) throws -> [(routineIndex: Int?, exercise: RoutineExercise)] {
        let (sets, rows) = try writer.read { db in
            guard
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL AND \(store.visible()))",
                    arguments: [workoutID.wireString]) == true
            else { throw StoreError.notFound("workout \(workoutID.wireString)") }
            let live = WorkoutSet.filter(WorkoutSet.Column.workoutID == workoutID.wireString)
                .filter(sql: "deleted_at IS NULL")
            return (
                try live.order(WorkoutSet.Column.position, WorkoutSet.Column.performedAt).fetchAll(db),
                try PlannedRow.all(workoutID: workoutID, db: db)
            )
        }
        guard !sets.isEmpty else {
            throw StoreError.notAllowed("workout \(workoutID.wireString) has no sets to make a routine from")
        }
        var blockOfSet: [UUID: Int] = [:]
        var lastBlockOfLift: [String: Int] = [:]
        for row in rows {
            if let id = row.setID { blockOfSet[id] = row.exerciseIndex }
            lastBlockOfLift[row.exercise.lowercased()] = max(
                lastBlockOfLift[row.exercise.lowercased()] ?? 0, row.exerciseIndex)
        }
        var exercises: [(routineIndex: Int?, exercise: RoutineExercise)] = []
        var position: [String: Int] = [:]
        for set in sets {
            // An extra set of a planned lift joins its last block (the back-offs).
            let planned = blockOfSet[set.id] ?? lastBlockOfLift[set.exercise.lowercased()]
            let key = planned.map { "planned \($0)" } ?? "lift \(set.exercise.lowercased())"
            if position[key] == nil {
                position[key] = exercises.count
                exercises.append((planned, RoutineExercise(exercise: set.exercise, unit: set.unit, sets: [])))
            }
            let index = position[key]!
            let unit = exercises[index].exercise.unit
            exercises[index].exercise.sets.append(
                PlannedSet(
                    kind: set.kind, weight: Formatting.converted(set.weight, from: set.unit, to: unit), reps: set.reps,
                    rpe: set.rpe))
        }
        // Planned blocks in the routine's order, then the lifts added in the gym.
        let ordered =
            exercises.filter { $0.routineIndex != nil }.sorted { $0.routineIndex! < $1.routineIndex! }
            + exercises.filter { $0.routineIndex == nil }
        return trimmed(ordered)
    }

    /// Cut to what a routine holds: sets per exercise, exercises, planned sets in all.
    private func trimmed(
        _ blocks: [(routineIndex: Int?, exercise: RoutineExercise)]
    )
        -> [(routineIndex: Int?, exercise: RoutineExercise)]
    {
        var exercises = blocks.map(\.exercise)
        // More sets than a routine holds are cut to its limit rather than refused.
        for index in exercises.indices where exercises[index].sets.count > Routine.maxSetsPerExercise {
            exercises[index].sets = Array(exercises[index].sets.prefix(Routine.maxSetsPerExercise))
        }
        // … and to the planned sets a routine holds in all, keeping the first ones done.
        var room = Routine.maxPlannedSets
        var kept: [(routineIndex: Int?, exercise: RoutineExercise)] = []
        for (index, var exercise) in exercises.prefix(Routine.maxExercises).enumerated() where room > 0 {
            exercise.sets = Array(exercise.sets.prefix(room))
            room -= exercise.sets.count
            kept.append((blocks[index].routineIndex, exercise))
        }
        return kept
    }

    /// Changes a routine through `change` (rename, add an exercise, a new list); validates the
    /// result and queues what changed, in one transaction. Returns the routine as saved.
    @discardableResult
    /// Planned weights kept as a logged weight is (to 0.01), as the server keeps them: what a
    /// routine shows in the editor, in `routine show` and after a sync is the same number.
    static func keptWeights(_ exercises: [RoutineExercise]) -> [RoutineExercise] {
        exercises.map { exercise in
            var exercise = exercise
            for index in exercise.sets.indices {
                exercise.sets[index].weight = exercise.sets[index].weight.map(Validation.keptWeight)
            }
            return exercise
        }
    }

    public func update(_ nameOrID: String, _ change: (inout Routine) throws -> Void) throws -> Routine {
        let now = self.now
        return try writer.write { db in
            let current = try store.findRoutine(nameOrID, db: db)
            var routine = current
            try change(&routine)
            routine.exercises = Self.keptWeights(routine.exercises)
            routine.id = current.id
            routine.name = routine.name.trimmingCharacters(in: .whitespacesAndNewlines)
            try store.checked { () throws(ValidationError) in
                do throws(ValidationError) { try Validation.routine(routine) } catch { throw routine.readable(error) }
            }
            for index in routine.exercises.indices {
                routine.exercises[index].exercise = try store.resolveExercise(
                    routine.exercises[index].exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
            }
            if routine.name.caseInsensitiveCompare(current.name) != .orderedSame {
                try store.ensureRoutineNameFree(routine.name, except: routine.id, db: db)
            }
            try store.saveRoutineChanges(from: current, to: routine, db: db, now: now)
            return routine
        }
    }

    /// Deletes a routine (a tombstone until the server confirms). Workouts started from it stay.
    public func delete(_ nameOrID: String) throws {
        let now = self.now
        try writer.write { db in
            let routine = try store.findRoutine(nameOrID, db: db)
            let key = routine.id.wireString
            if try !store.queueDelete(type: .routine, id: key, db: db, now: now) {
                try db.cachedStatement(
                    sql: """
                        UPDATE routines SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ?
                        """
                ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), key])
            }
        }
    }

    /// Starts today's workout from a routine: a new workout named after it (queued like any), and
    /// one planned row per planned set, targets set by each exercise's progression rule. Nothing
    /// about the planned rows is queued: only the sets logged from them are.
    @discardableResult
    public func start(_ nameOrID: String) throws -> StartedRoutine {
        let now = self.now
        return try writer.write { db in
            let routine = try store.findRoutine(nameOrID, db: db)
            guard !routine.exercises.isEmpty else {
                throw StoreError.notAllowed(
                    "routine \"\(routine.name)\" has no exercises yet (spotter routine add \"\(routine.name)\" --exercise …)"
                )
            }
            // Started already today and not finished (a planned set still waits): pick it up
            // rather than make a second, empty workout of the same routine.
            let today = try Row.fetchAll(
                db,
                sql: """
                    SELECT w.* FROM workouts w
                    WHERE w.deleted_at IS NULL AND w.ended_at IS NULL AND w.started_at >= ? AND \(store.visible("w."))
                      AND EXISTS (SELECT 1 FROM routine_plans p WHERE p.workout_id = w.id AND p.routine_id = ?
                                    AND p.status = 'planned')
                    ORDER BY w.started_at DESC
                    """,
                arguments: [Timestamp.format(Calendar.current.startOfDay(for: now)), routine.id.wireString])
            for row in today {
                let workout = try Workout(row: row)
                let rows = try PlannedRow.all(workoutID: workout.id, db: db)
                if rows.contains(where: { $0.status == .planned }) {
                    return StartedRoutine(workout: workout, rows: rows, resumed: true)
                }
            }
            // The history is read once, and only when a rule other than `fixed` asks for it.
            let past =
                routine.exercises.contains { $0.progression != .fixed }
                ? try store.pastWorkouts(of: routine, db: db) : []
            var outcomes: [ProgressionOutcome] = []
            for index in routine.exercises.indices {
                outcomes.append(try store.startTargets(routine, exerciseIndex: index, past: past, db: db))
            }
            var workout = Workout(name: routine.name, startedAt: Timestamp.truncated(now))
            var rows: [PlannedRow] = []
            for (ordinal, step) in routine.performanceOrder.enumerated() {
                let planned = routine.exercises[step.exercise]
                let written = planned.sets[step.set]
                let target = outcomes[step.exercise].targets[step.set]
                let row = PlannedRow(
                    id: .timeOrdered(), workoutID: workout.id, routineID: routine.id, ordinal: ordinal,
                    exerciseIndex: step.exercise, setIndex: step.set, exercise: planned.exercise, kind: target.kind,
                    weight: target.weight, unit: planned.unit, reps: target.reps,
                    repsMax: written.repsMax.map { max($0, target.reps) }, rpe: written.rpe,
                    restSeconds: routine.rest(forExercise: step.exercise), superset: planned.superset,
                    hint: outcomes[step.exercise].hint, status: .planned, setID: nil,
                    needsWeight: written.percentOfOneRepMax != nil
                        && outcomes[step.exercise].hint == PlannedRow.missingOneRepMaxHint(planned.exercise))
                rows.append(row)
            }
            // The workout carries the targets to every device; the rows are this device's view.
            workout.plan = WorkoutPlan(
                routineID: routine.id,
                entries: rows.map { row in
                    let written = routine.exercises[row.exerciseIndex].sets[row.setIndex]
                    return WorkoutPlan.Entry(
                        id: row.id, exercise: row.exercise, set: row.setIndex, kind: row.kind,
                        weight: row.needsWeight ? nil : row.weight, unit: row.unit, reps: row.reps,
                        exerciseIndex: row.exerciseIndex, writtenWeight: written.weight, writtenReps: written.reps)
                })
            try store.insertWorkout(workout, db: db, now: now)
            for row in rows {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO routine_plans (id, workout_id, routine_id, ordinal, exercise_index, set_index, exercise,
                            kind, weight, unit, reps, reps_max, rpe, rest_s, superset, hint, status, created_at,
                            needs_weight)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'planned', ?, ?)
                        """
                ).execute(arguments: [
                    row.id.wireString, workout.id.wireString, routine.id.wireString, row.ordinal, row.exerciseIndex,
                    row.setIndex, row.exercise, row.kind.rawValue, row.weight, row.unit.rawValue, row.reps, row.repsMax,
                    row.rpe, row.restSeconds, row.superset, row.hint, Timestamp.format(now), row.needsWeight,
                ])
            }
            return StartedRoutine(workout: workout, rows: rows)
        }
    }

    /// Logs a planned row as performed — its targets, or the values given — through the same
    /// write as any set (set + outbox operation), and marks the row done, in one transaction.
    /// A row already logged or skipped is refused: each planned set is logged at most once.
    @discardableResult
    public func logPlanned(
        _ planID: UUID, weight: Double? = nil, unit: WeightUnit? = nil, reps: Int? = nil, rpe: Double?? = nil,
        kind: SetKind? = nil
    ) throws -> LoggedSet {
        let now = self.now
        return try writer.write { db in
            let plan = try PlannedRow.one(planID, db: db)
            switch plan.status {
            case .done: throw StoreError.notAllowed("this planned set is already logged")
            case .skipped: throw StoreError.notAllowed("this planned set was skipped (x brings it back)")
            case .planned: break
            }
            if weight == nil && plan.needsWeight {
                throw StoreError.notAllowed(
                    "no estimated 1RM for \(plan.exercise) yet, so this set has no target weight: give the weight "
                        + "(e in the UI, --weight with routine done)")
            }
            let input = LogSetInput(
                exercise: plan.exercise, weight: weight ?? plan.weight,
                unit: weight == nil ? plan.unit : unit ?? plan.unit,
                reps: reps ?? plan.reps,
                rpe: rpe ?? plan.rpe, kind: kind ?? plan.kind, workout: .existing(plan.workoutID))
            try store.checked { () throws(ValidationError) in
                try Validation.weight(input.weight, unit: input.unit)
                try Validation.reps(input.reps)
                try Validation.rpe(input.rpe)
            }
            // The first set logged for a planned set, on the device that started the workout, takes
            // the planned set's id: every device then knows which planned set it performed. Any
            // other set gets an id of its own: one logged again after a delete (the server keeps
            // the deleted id), or one logged on another device (two devices could both log it
            // offline; one id for two sets would make the server take one for the other).
            let everLogged = try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT set_id IS NOT NULL OR EXISTS(SELECT 1 FROM sets WHERE id = ?)
                        FROM routine_plans WHERE id = ?
                        """), arguments: [planID.wireString, planID.wireString])
            let logged = try store.logValidatedSet(
                input, id: plan.pulled || everLogged != false ? UUID.timeOrdered() : planID, db: db, now: now)
            try db.execute(
                sql: "UPDATE routine_plans SET status = 'done', set_id = ? WHERE id = ?",
                arguments: [logged.set.id.wireString, planID.wireString])
            // Undone like any log: the set goes, and the planned row is to do again.
            try store.journalLog(
                logged.set, workoutCreated: nil, description: "logged \(SpotterStore.describe(logged.set)) (planned)",
                db: db, now: now)
            return logged
        }
    }

    /// Skips a planned row (nothing is logged or queued), or brings a skipped one back.
    /// Returns whether it is skipped now.
    @discardableResult
    public func toggleSkipPlanned(_ planID: UUID) throws -> Bool {
        try writer.write { db in
            let plan = try PlannedRow.one(planID, db: db)
            switch plan.status {
            case .done: throw StoreError.notAllowed("this planned set is already logged")
            case .planned:
                try db.execute(
                    // set_id stays: a row once logged never gives its id to a set again.
                    sql: "UPDATE routine_plans SET status = 'skipped' WHERE id = ?",
                    arguments: [planID.wireString])
                return true
            case .skipped:
                try db.execute(
                    sql: "UPDATE routine_plans SET status = 'planned' WHERE id = ?", arguments: [planID.wireString])
                return false
            }
        }
    }
}

extension RoutineBook {
    /// Live routines by name, with their sync state.
    public func all() throws -> [RoutineSummary] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.*, (SELECT MAX(w.started_at) FROM workouts w
                        WHERE (w.routine_id = r.id OR w.id IN (SELECT workout_id FROM routine_plans WHERE routine_id = r.id))
                          AND w.deleted_at IS NULL AND \(store.visible("w."))) AS last_started
                    FROM routines r WHERE r.deleted_at IS NULL AND \(store.visible("r."))
                    ORDER BY r.name COLLATE NOCASE, r.id
                    """
            ).compactMap { row in
                try store.readable([row]) { row in
                    let cells = RowCells(row, table: "routines")
                    return RoutineSummary(
                        routine: try Routine(row: row), syncState: try cells.enumeration("sync_state"),
                        syncError: try cells.value("sync_error"),
                        lastStartedAt: (try cells.value("last_started") as String?).flatMap(Timestamp.parse))
                }.first
            }
        }
    }

    /// The routine `nameOrID` names (its id or its name, any case).
    public func routine(_ nameOrID: String) throws -> RoutineSummary {
        let routine = try writer.read { db in try store.findRoutine(nameOrID, db: db) }
        guard let summary = try all().first(where: { $0.routine.id == routine.id }) else {
            throw StoreError.notFound("routine \"\(nameOrID)\"")
        }
        return summary
    }

    /// The planned rows of a workout started from a routine, in the order they are done.
    public func plannedRows(workoutID: UUID) throws -> [PlannedRow] {
        try writer.read { db in try PlannedRow.all(workoutID: workoutID, db: db) }
    }
}

import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    /// Recomputes the records of every exercise whose sets changed since (marked in
    /// `records_dirty`: by triggers on a change or delete, by `markRecordsStale` on an insert): one walk per exercise, in the order the sets were performed
    /// (`PerformedOrder`: time, then workout, then position, then id — Hevy files list newest first,
    /// so file order means nothing; the id makes the order the same on every device). Called before sets are read; a read-only database keeps the stored marks.
    public func refreshRecords() throws {
        let dirty = try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM records_dirty)") ?? false
        }
        guard dirty else { return }
        try writer.write { db in try Self.refreshRecords(db) }
    }

    static func refreshRecords(_ db: Database) throws {
        let exercises = try String.fetchAll(db, sql: "SELECT exercise FROM records_dirty")
        for exercise in exercises { try recomputeRecords(exercise: exercise, db: db) }
        try db.execute(sql: "DELETE FROM records_dirty")
    }

    /// Walks one exercise's live sets in performed order and stores each one's record.
    static func recomputeRecords(exercise: String, db: Database) throws {
        let type = try loadType(exercise, db: db)
        if type.usesBodyWeight {
            try recomputeBodyWeightRecords(exercise: exercise, type: type, db: db)
            return
        }
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, weight, unit, reps, kind, is_pr FROM sets WHERE exercise = ? AND deleted_at IS NULL
                    ORDER BY \(PerformedOrder.sql)
                    """), arguments: [exercise])
        var tracker = RecordTracker()
        var changes: [RecordChange] = []
        while let row = try rows.next() {
            // A row that cannot be read takes no part in records (its read elsewhere reports it).
            // Cells by position, in the SELECT's order: a pull walks every set of an exercise.
            guard let id = row.cell(at: 0, as: String.self), let weight = row.cell(at: 1, as: Double.self),
                let unit = row.cell(at: 2, as: String.self).flatMap(WeightUnit.init(rawValue:)),
                let reps = row.cell(at: 3, as: Int.self),
                let kind = row.cell(at: 4, as: String.self).flatMap(SetKind.init(rawValue:))
            else { continue }
            let record = tracker.add(weightKg: weight * unit.kilograms, reps: reps, kind: kind)
            let stored = row.cell(at: 5, as: Int.self) ?? 0  // is_pr is NOT NULL
            let value = record?.rawValue ?? 0
            if stored != value { changes.append(RecordChange(setID: id, isPR: value)) }
        }
        let update = try db.cachedStatement(sql: "UPDATE sets SET is_pr = ? WHERE id = ?")
        for change in changes { try update.execute(arguments: [change.isPR, change.setID]) }
    }

    /// Marks an exercise for a recompute before its sets are next read.
    ///
    /// A new set's row marks its exercise here, by whoever inserts it (a log, an import, a pull);
    /// changes and deletes are marked by triggers. An insert trigger made every insert of a set
    /// journal each page it touched for the statement and, its NOT EXISTS reading the table it
    /// wrote, build and drop a temporary b-tree: most of what a 100 000-set import or pull cost
    /// beyond the rows themselves.
    static func markRecordsStale(_ exercise: String, db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO records_dirty (exercise) VALUES (?)").execute(
            arguments: [exercise])
    }

    /// The record a new set sets when it comes after every other set of its exercise (the
    /// usual case: logging now), from indexed lookups rather than a walk. Nil when it does not
    /// come last (a set of the same time may sort either side of it: the walk decides), or the exercise awaits a recompute anyway.
    static func appendedRecord(_ set: WorkoutSet, db: Database) throws -> RecordKind?? {
        // A bodyweight lift's load needs the weigh-in in force: the walk works it out.
        if try loadType(set.exercise, db: db).usesBodyWeight { return nil }
        let performed = Timestamp.format(set.performedAt)
        let pending =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM records_dirty WHERE exercise = ?)"),
                arguments: [set.exercise]) ?? true
        let later =
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL AND performed_at >= ?
                            AND id != ?)
                        """), arguments: [set.exercise, performed, set.id.wireString]) ?? true
        guard !pending, !later else { return nil }
        let weightKg = set.weight * set.unit.kilograms
        guard set.kind != .warmup, set.reps > 0, weightKg >= 0 else { return .some(nil) }
        // No live set of the exercise comes later, so "before it" is "all of them"; the
        // descending walk of sets_best_e1rm stops at the first row (older rows may hold an
        // estimate from more than 12 reps: skipped).
        if let estimate = set.estimatedOneRepMaxKg,
            let best = try Double.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT e1rm_kg FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                        AND e1rm_kg IS NOT NULL AND reps BETWEEN 1 AND \(OneRepMax.maxReps)
                        ORDER BY e1rm_kg DESC LIMIT 1
                        """), arguments: [set.exercise]),
            estimate > best + 1e-9
        {
            return .some(.oneRepMax)
        }
        let seen =
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                        AND reps > 0)
                        """), arguments: [set.exercise]) ?? false
        guard seen else { return .some(nil) }
        // Beaten by an earlier set with at least this weight and these reps? Such a set of at
        // most 12 reps has at least this estimate (Epley grows with both), so a range of
        // sets_best_e1rm holds it; one of more reps is in the small sets_high_reps index.
        let dominated: Bool
        if let estimate = set.estimatedOneRepMaxKg {
            dominated =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                                AND e1rm_kg >= ? AND reps >= ? AND \(Self.weightInKilogramsSQL) >= ?)
                            OR EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                                AND reps > \(OneRepMax.maxReps)
                                AND \(Self.weightInKilogramsSQL) >= ?)
                            """),
                    arguments: [
                        set.exercise, estimate - 1e-6, set.reps, weightKg - 1e-9, set.exercise, weightKg - 1e-9,
                    ]) ?? true
        } else {
            dominated =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                            AND reps >= ? AND \(Self.weightInKilogramsSQL) >= ?)
                            """), arguments: [set.exercise, set.reps, weightKg - 1e-9]) ?? true
        }
        return .some(dominated ? nil : .reps)
    }
}

extension SpotterStore {
    /// A set's weight in kilograms, in SQL (the `weight` and `unit` columns of `sets`).
    static let weightInKilogramsSQL =
        "weight * CASE unit WHEN \(WeightUnit.lb.sql) THEN \(WeightUnit.lb.kilograms) ELSE 1 END"
}

/// A set whose stored record mark (`is_pr`, a RecordKind raw value or 0) is out of date.
private struct RecordChange {
    let setID: String
    let isPR: Int
}

// MARK: Bodyweight lifts: records and estimates by the load moved

extension SpotterStore {
    /// What a lift's logged weight means (`LoadType`): from its catalogue equipment and its name.
    static func loadType(_ exercise: String, db: Database) throws -> LoadType {
        let equipment = try String.fetchOne(
            db.cachedStatement(sql: "SELECT equipment FROM exercises WHERE name = ?"), arguments: [exercise])
        return LoadType(equipment: equipment, name: exercise)
    }

    /// The walk for a lift the body is part of: each set's load is the weigh-in in force when it
    /// was performed (its account's), plus or minus what was logged, and its stored estimate
    /// (`e1rm_kg`, what `stats` and percentage targets read) is made from that load. A set with
    /// no weigh-in before it has no estimate and ranks by reps at what was added (nothing, for
    /// an assisted lift), so more assistance is never a record.
    static func recomputeBodyWeightRecords(exercise: String, type: LoadType, db: Database) throws {
        let weighIns = try weighInsByAccount(db: db)
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, weight, unit, reps, kind, is_pr, performed_at, account, e1rm_kg FROM sets
                    WHERE exercise = ? AND deleted_at IS NULL ORDER BY \(PerformedOrder.sql)
                    """), arguments: [exercise])
        var tracker = RecordTracker()
        var changes: [(id: String, isPR: Int, estimate: Double?)] = []
        while let row = try rows.next() {
            // Cells by position, in the SELECT's order (a lookup by name lower-cases every column
            // name on each call: a third of a 100 000-row import's recompute).
            guard let id = row.cell(at: 0, as: String.self), let weight = row.cell(at: 1, as: Double.self),
                let unit = row.cell(at: 2, as: String.self).flatMap(WeightUnit.init(rawValue:)),
                let reps = row.cell(at: 3, as: Int.self),
                let kind = row.cell(at: 4, as: String.self).flatMap(SetKind.init(rawValue:)),
                let performed = row.cell(at: 6, as: String.self).flatMap(Timestamp.parse)
            else { continue }
            let body = EffectiveLoad.bodyWeight(at: performed, in: weighIns[row.cell(at: 7) ?? ""] ?? [])
            let load = EffectiveLoad.load(logged: weight * unit.kilograms, unit: .kg, type: type, body: body)
            let record: RecordKind?
            if let load {
                record = tracker.add(weightKg: load, reps: reps, kind: kind)
            } else {
                record = tracker.add(
                    weightKg: type == .assisted ? 0 : weight * unit.kilograms, reps: reps, kind: kind, estimating: false
                )
            }
            let estimate = load.flatMap { OneRepMax.epley(weight: $0, reps: reps) }
            let storedRecord = row.cell(at: 5, as: Int.self) ?? 0
            let storedEstimate = row.cell(at: 8, as: Double.self)
            if storedRecord != (record?.rawValue ?? 0) || storedEstimate != estimate {
                changes.append((id, record?.rawValue ?? 0, estimate))
            }
        }
        let update = try db.cachedStatement(sql: "UPDATE sets SET is_pr = ?, e1rm_kg = ? WHERE id = ?")
        for change in changes { try update.execute(arguments: [change.isPR, change.estimate, change.id]) }
    }

    /// Every live weigh-in, by account, oldest first (what `EffectiveLoad.bodyWeight` searches).
    static func weighInsByAccount(db: Database) throws -> [String: [BodyWeight]] {
        var weighIns: [String: [BodyWeight]] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM body_weights WHERE deleted_at IS NULL ORDER BY measured_at, id"))
        {
            // An unreadable weigh-in takes no part (the list reports it when read).
            guard let entry = try? BodyWeight(row: row) else { continue }
            weighIns[row.cell("account", as: String.self) ?? "", default: []].append(entry)
        }
        return weighIns
    }

    /// Marks every lift the body is part of for a fresh walk: a weigh-in was logged, changed,
    /// deleted or pulled, so their loads (and records) may have moved.
    static func markBodyWeightLiftsDirty(db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT DISTINCT s.exercise, e.equipment FROM sets s LEFT JOIN exercises e ON e.name = s.exercise
                WHERE s.deleted_at IS NULL
                """)
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO records_dirty (exercise) VALUES (?)")
        for row in rows {
            guard let name = row.cell("exercise", as: String.self),
                LoadType(equipment: row.cell("equipment", as: String.self), name: name).usesBodyWeight
            else { continue }
            try insert.execute(arguments: [name])
        }
    }
}

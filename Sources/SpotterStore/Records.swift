import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    /// Recomputes the records of every exercise whose sets changed since (marked by the
    /// `records_dirty` triggers): one walk per exercise, in the order the sets were performed
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
            guard let id = try? row.decode(String.self, atIndex: 0),
                let weight = try? row.decode(Double.self, atIndex: 1),
                let unit = (try? row.decode(String.self, atIndex: 2)).flatMap(WeightUnit.init(rawValue:)),
                let reps = try? row.decode(Int.self, atIndex: 3),
                let kind = (try? row.decode(String.self, atIndex: 4)).flatMap(SetKind.init(rawValue:))
            else { continue }
            let record = tracker.add(weightKg: weight * unit.kilograms, reps: reps, kind: kind)
            let stored = (try? row.decode(Int?.self, atIndex: 5)) ?? 0
            let value = record?.rawValue ?? 0
            if stored != value { changes.append(RecordChange(setID: id, isPR: value)) }
        }
        let update = try db.cachedStatement(sql: "UPDATE sets SET is_pr = ? WHERE id = ?")
        for change in changes { try update.execute(arguments: [change.isPR, change.setID]) }
    }

    /// The record a new set sets when it comes after every other set of its exercise (the
    /// usual case: logging now), from indexed lookups rather than a walk. Nil when it does not
    /// come last (a set of the same time may sort either side of it: the walk decides), or the exercise awaits a recompute anyway.
    static func appendedRecord(_ set: WorkoutSet, db: Database) throws -> RecordKind?? {
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

import Foundation
import GRDB
import SpotterCore

/// An exercise's records, as `spotter stats` shows them.
public struct ExerciseStats: Sendable, Equatable {
    public var exercise: String
    public var sets: Int
    /// Best estimated 1RM (Epley), in kg, and the set that made it.
    public var bestOneRepMaxKg: Double?
    public var bestOneRepMaxSet: WorkoutSet?
    /// The heaviest weight lifted for at least one rep, in kg; nil for a lift the body is part
    /// of, whose logged weight is not what was lifted.
    public var heaviestKg: Double?
    /// What the logged weight means: the best set of an assisted lift logged its assistance.
    public var loadType: LoadType = .external
}

/// Training volume (weight × reps, in kg) of one ISO week.
public struct WeeklyVolume: Sendable, Equatable {
    public var weekStart: Date
    public var volumeKg: Double
    public var sets: Int
}

extension Queries {
    /// Records per exercise (all exercises, or one), warm-ups excluded, best first.
    public func exerciseStats(exercise: String? = nil) throws -> [ExerciseStats] {
        try writer.read { db in
            var sql = """
                SELECT exercise, COUNT(*) AS n, MAX(CASE WHEN reps <= \(OneRepMax.maxReps) THEN e1rm_kg END) AS best,
                    MAX(CASE WHEN reps > 0 THEN \(SpotterStore.weightInKilogramsSQL) END) AS heaviest
                FROM sets WHERE deleted_at IS NULL AND kind != \(SetKind.warmup.sql) AND \(store.visible())
                """
            var arguments: StatementArguments = []
            if let exercise {
                sql += " AND exercise = ?"
                arguments = [try SpotterStore.canonicalExercise(exercise, db: db)]
            }
            sql += " GROUP BY exercise ORDER BY best DESC NULLS LAST, exercise"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                // An exercise name that does not read (a damaged file) is left out.
                guard let name = row.cell("exercise", as: String.self) else { return nil }
                let loadType = try SpotterStore.loadType(name, db: db)
                // An unreadable best set is reported and left out, like every other read: one
                // mistyped cell never takes the whole of `stats` down.
                // A tie is held by the set performed first, on every device (`PerformedOrder`).
                let best = row.cell("best", as: Double.self)
                let bestSet = try best.flatMap { best in
                    try store.readable(
                        Row.fetchAll(
                            db,
                            sql: """
                                SELECT * FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                                AND \(store.visible()) AND reps <= \(OneRepMax.maxReps) AND e1rm_kg >= ?
                                ORDER BY \(PerformedOrder.sql) LIMIT 1
                                """, arguments: [name, best - 1e-9]), WorkoutSet.init(row:)
                    ).first
                }
                return ExerciseStats(
                    exercise: name, sets: row["n"], bestOneRepMaxKg: best, bestOneRepMaxSet: bestSet,
                    heaviestKg: loadType.usesBodyWeight ? nil : row.cell("heaviest", as: Double.self),
                    loadType: loadType)
            }
        }
    }

    /// Volume per week for the newest `weeks` weeks that have sets, newest first.
    public func weeklyVolume(exercise: String? = nil, weeks: Int = 8) throws -> [WeeklyVolume] {
        let samples: [VolumeSample] = try writer.read { db in
            var sql = """
                SELECT performed_at, exercise, account, reps,
                    weight * CASE unit WHEN 'lb' THEN 0.45359237 ELSE 1 END AS weight_kg
                FROM sets WHERE deleted_at IS NULL AND kind != \(SetKind.warmup.sql) AND \(store.visible())
                """
            var arguments: StatementArguments = []
            if let exercise {
                sql += " AND exercise = ?"
                arguments = [try SpotterStore.canonicalExercise(exercise, db: db)]
            }
            // A lift the body is part of moves the weigh-in in force, plus or minus what was
            // logged; with no weigh-in before it, what was logged (an assisted set: nothing).
            var loadTypes: [String: LoadType] = [:]
            var weighIns: [String: [BodyWeight]]?
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                guard let date = row.cell("performed_at", as: String.self).flatMap(Timestamp.parse) else { return nil }
                guard let exercise = row.cell("exercise", as: String.self) else { return nil }
                // A count or weight that does not read takes no part (never counted as zero).
                guard let reps = row.cell("reps", as: Int.self).map(Double.init),
                    let logged = row.cell("weight_kg", as: Double.self)
                else { return nil }
                let type = try loadTypes[exercise] ?? SpotterStore.loadType(exercise, db: db)
                loadTypes[exercise] = type
                guard type.usesBodyWeight else { return VolumeSample(performedAt: date, volumeKg: logged * reps) }
                if weighIns == nil { weighIns = try SpotterStore.weighInsByAccount(db: db) }
                let body = EffectiveLoad.bodyWeight(
                    at: date, in: weighIns?[row.cell("account", as: String.self) ?? ""] ?? [])
                let load =
                    EffectiveLoad.load(logged: logged, unit: .kg, type: type, body: body)
                    ?? (type == .assisted ? 0 : logged)
                return VolumeSample(performedAt: date, volumeKg: load * reps)
            }
        }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = .current
        var byWeek: [Date: WeeklyVolume] = [:]
        for sample in samples {
            guard let start = calendar.dateInterval(of: .weekOfYear, for: sample.performedAt)?.start else { continue }
            var week = byWeek[start] ?? WeeklyVolume(weekStart: start, volumeKg: 0, sets: 0)
            week.volumeKg += sample.volumeKg
            week.sets += 1
            byWeek[start] = week
        }
        return byWeek.values.sorted { $0.weekStart > $1.weekStart }.prefix(weeks).map { $0 }
    }
}

/// One working set's volume, in kilograms, at the time it was done.
private struct VolumeSample {
    let performedAt: Date
    let volumeKg: Double
}

import Foundation
import GRDB
import SpotterCore

/// The weekly muscle volume of the last weeks, and what could not be counted in it.
public struct MuscleVolumeReport: Sendable, Equatable {
    /// The week starts, this week's first.
    public var weeks: [Date]
    /// Each muscle trained in those weeks (`MuscleVolume.compute`).
    public var muscles: [MuscleVolume]
    /// Working sets in those weeks of exercises with no muscles known (a custom exercise none
    /// were set for), and those exercises by name.
    public var unassignedSets: Int
    public var unassignedExercises: [String]
}

extension Queries {
    /// Every working set of `exercise` (a name as `stats` takes it: any case, or an alias), in
    /// performed order, with the load it moved (`EffectiveLoad`): the rows of this account only,
    /// deleted sets and warm-ups left out.
    public func progressSamples(exercise: String) throws -> [ProgressSample] {
        try writer.read { db in
            let name = try SpotterStore.canonicalExercise(
                exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
            return try workingSets(db: db, exercise: name).map(\.sample)
        }
    }

    /// The records of `exercise` (`ExerciseRecords.compute` over `progressSamples`).
    public func exerciseRecords(exercise: String) throws -> ExerciseRecords {
        ExerciseRecords.compute(samples: try progressSamples(exercise: exercise))
    }

    /// Volume, sets and workouts per local day of `year` (the calendar's time zone decides
    /// the day), oldest first; a lift with no known load adds what was logged, as the weekly
    /// volume of `stats` does.
    public func trainingDays(year: Int, calendar: Calendar) throws -> [TrainingDay] {
        guard let first = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
            let next = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))
        else { return [] }
        let entries = try writer.read { db in
            try workingSets(db: db, from: first, before: next).map {
                TrainingCalendar.Entry(
                    date: $0.sample.performedAt, volumeKg: $0.volumeKg, workoutID: $0.sample.workoutID)
            }
        }
        return TrainingCalendar.days(entries: entries, calendar: calendar)
    }

    /// When each live workout of this account with a working set started, oldest first (for
    /// the weekly streak: a workout of warm-ups only, or with nothing logged, is no training day
    /// on the calendar, so it does not keep a streak either).
    public func workoutStarts() throws -> [Date] {
        try writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT started_at FROM workouts w WHERE w.deleted_at IS NULL AND \(store.visible("w."))
                    AND EXISTS (
                        SELECT 1 FROM sets s WHERE s.workout_id = w.id AND s.deleted_at IS NULL
                        AND s.kind != \(SetKind.warmup.sql))
                    ORDER BY started_at
                    """
            ).compactMap(Timestamp.parse)
        }
    }

    /// Sets and volume per muscle per week for the last `weeks` weeks (this week first, weeks
    /// starting on the calendar's first weekday): a primary muscle counts a set fully, a
    /// secondary one half (`MuscleVolume.compute`).
    public func muscleVolume(weeks: Int, calendar: Calendar) throws -> MuscleVolumeReport {
        let starts = MuscleVolume.weekStarts(weeks: weeks, now: now, calendar: calendar)
        guard let oldest = starts.last, let newest = starts.first,
            let end = calendar.date(byAdding: .day, value: 7, to: newest)
        else { return MuscleVolumeReport(weeks: [], muscles: [], unassignedSets: 0, unassignedExercises: []) }
        let (samples, unassigned) = try writer.read { db -> ([MuscleSample], [String: Int]) in
            var muscles: [String: ExerciseMuscles?] = [:]
            var samples: [MuscleSample] = []
            var unassigned: [String: Int] = [:]
            for set in try workingSets(db: db, from: oldest, before: end) {
                let known = try muscles[set.exercise] ?? SpotterStore.muscles(of: set.exercise, db: db)
                muscles[set.exercise] = known
                guard let known else {
                    unassigned[set.exercise, default: 0] += 1
                    continue
                }
                samples.append(
                    MuscleSample(performedAt: set.sample.performedAt, volumeKg: set.volumeKg, muscles: known))
            }
            return (samples, unassigned)
        }
        return MuscleVolumeReport(
            weeks: starts, muscles: MuscleVolume.compute(samples: samples, weeks: weeks, now: now, calendar: calendar),
            unassignedSets: unassigned.values.reduce(0, +), unassignedExercises: unassigned.keys.sorted())
    }

    /// The unit `exercise`'s newest working set was logged in: what "as logged" shows its
    /// progress in. Nil when it has none.
    public func loggedUnit(exercise: String) throws -> WeightUnit? {
        try writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT unit FROM sets
                    WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql) AND \(store.visible())
                    ORDER BY \(PerformedOrder.sql) DESC LIMIT 1
                    """, arguments: [try SpotterStore.canonicalExercise(exercise, db: db)]
            ).flatMap(WeightUnit.init(rawValue:))
        }
    }

    /// The exercise with the most working sets in this account; nil when there are none (the
    /// first to show when a chart is opened without one named). A tie goes to the first name.
    public func mostLoggedExercise() throws -> String? {
        try writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT exercise FROM sets
                    WHERE deleted_at IS NULL AND kind != \(SetKind.warmup.sql) AND \(store.visible())
                    GROUP BY exercise ORDER BY COUNT(*) DESC, exercise LIMIT 1
                    """)
        }
    }

    /// The working sets of this account (of one exercise, or performed in a window), in
    /// performed order, each with its effective load: a lift the body is part of moves the
    /// weigh-in in force (its account's) plus or minus what was logged, unknown without one.
    /// `volumeKg` is what the week's volume counts: the load × reps, or without a known load
    /// what was logged × reps (an assisted set: nothing).
    private func workingSets(
        db: Database, exercise: String? = nil, from: Date? = nil, before: Date? = nil
    ) throws -> [WorkingSet] {
        var sql = """
            SELECT id, workout_id, exercise, account, reps, performed_at,
                \(SpotterStore.weightInKilogramsSQL) AS weight_kg
            FROM sets WHERE deleted_at IS NULL AND kind != \(SetKind.warmup.sql) AND \(store.visible())
            """
        var arguments: StatementArguments = []
        if let exercise {
            sql += " AND exercise = ?"
            arguments += [exercise]
        }
        // A stored time may carry an offset: the text window is two days wider than asked, and
        // each time is checked once read.
        let margin: TimeInterval = 2 * 86_400
        if let from {
            sql += " AND performed_at >= ?"
            arguments += [Timestamp.format(from.addingTimeInterval(-margin))]
        }
        if let before {
            sql += " AND performed_at < ?"
            arguments += [Timestamp.format(before.addingTimeInterval(margin))]
        }
        sql += " ORDER BY \(PerformedOrder.sql)"
        var loadTypes: [String: LoadType] = [:]
        var weighIns: [String: [BodyWeight]]?
        var sets: [WorkingSet] = []
        for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
            // An unreadable time or weight takes no part, as in the weekly volume.
            guard let date = row.cell("performed_at", as: String.self).flatMap(Timestamp.parse) else { continue }
            if let from, date < from { continue }
            if let before, date >= before { continue }
            guard let name = row.cell("exercise", as: String.self), let setID = row.cell("id", as: String.self),
                let workoutID = row.cell("workout_id", as: String.self)
            else { continue }
            guard let reps = row.cell("reps", as: Int.self).map({ max(0, $0) }) else { continue }
            guard let logged = row.cell("weight_kg", as: Double.self), logged.isFinite else { continue }
            let type = try loadTypes[name] ?? SpotterStore.loadType(name, db: db)
            loadTypes[name] = type
            var load: Double? = logged
            if type.usesBodyWeight {
                if weighIns == nil { weighIns = try SpotterStore.weighInsByAccount(db: db) }
                let body = EffectiveLoad.bodyWeight(
                    at: date, in: weighIns?[row.cell("account", as: String.self) ?? ""] ?? [])
                load = EffectiveLoad.load(logged: logged, unit: .kg, type: type, body: body)
            }
            let counted = load ?? (type == .assisted ? 0 : logged)
            sets.append(
                WorkingSet(
                    sample: ProgressSample(
                        setID: setID, workoutID: workoutID, performedAt: date, loadKg: load, reps: reps),
                    exercise: name, volumeKg: counted * Double(reps)))
        }
        return sets
    }
}

/// A working set as the progress queries read it.
private struct WorkingSet {
    let sample: ProgressSample
    let exercise: String
    let volumeKg: Double
}

import Foundation
import GRDB
import SpotterCore

extension PlannedRow {
    /// The routine id the rows of a warm-up ramp carry: no routine has it, so no routine's history
    /// or progression ever reads them; they are this device's planned rows like a routine's,
    /// logged one key each.
    public static let warmupRoutineID = UUID(uuidString: "00000000-0000-8000-8000-00000000feed")!

    /// Whether this row was planned by a warm-up ramp.
    public var isWarmupRamp: Bool { routineID == Self.warmupRoutineID }
}

/// A warm-up ramp planned before a work set: the rows it added, warm-ups first, the work set last
/// (none when a routine plans the work sets).
public struct PlannedWarmups: Sendable, Equatable {
    public var workout: Workout
    public var rows: [PlannedRow]
    public var createdWorkout: Bool
}

extension WorkoutLog {
    /// Plans the warm-up sets before a work set of `input` (its exercise, weight, unit and reps),
    /// and the work set itself, as planned rows of the workout the set would go into (started
    /// like a log's when there is none): the lifter then logs each with one key, as a routine's.
    /// The ramp is the lifter's warm-up scheme, on the bar and plates when the lift is on a bar
    /// (else to the unit's usual step). In a routine workout that still plans the lift, only the
    /// warm-ups go in, before its first row still to do (the routine's rows are the work sets). A
    /// light work set has no ramp, and says so.
    public func planWarmups(_ input: LogSetInput) throws -> PlannedWarmups {
        let now = self.now
        let exercise = try store.catalogueSpelling(try input.validatedExercise())
        let preferences = store.preferences
        let barPlates = try preferences.barPlates(exercise, unit: input.unit)
        let onBar = barPlates != nil
        let plates = barPlates ?? .offBar(input.unit)
        let ramp = try preferences.warmupScheme().ramp(to: input.weight, on: plates)
        guard !ramp.isEmpty else {
            throw StoreError.notAllowed(
                "\(Formatting.weight(input.weight, unit: input.unit)) is light: no warm-up sets before it")
        }
        let work = "\(Formatting.weight(input.weight, unit: input.unit)) × \(input.reps)"
        return try writer.write { db in
            let (workout, created) = try store.resolveWorkout(input.workout, db: db, now: now)
            let key = workout.id.wireString
            // Before the lift's first row still to do, or after every row.
            let firstToDo = try Int.fetchOne(
                db,
                sql: """
                    SELECT MIN(ordinal) FROM routine_plans
                    WHERE workout_id = ? AND status = 'planned' AND exercise = ? COLLATE NOCASE
                    """, arguments: [key, exercise])
            // A routine that still plans the lift has its work sets: only the warm-ups go in,
            // before them. Elsewhere the work set is planned after the ramp.
            let count = ramp.count + (firstToDo == nil ? 1 : 0)
            let start: Int
            if let firstToDo {
                try db.execute(
                    sql: "UPDATE routine_plans SET ordinal = ordinal + ? WHERE workout_id = ? AND ordinal >= ?",
                    arguments: [count, key, firstToDo])
                start = firstToDo
            } else {
                start =
                    (try Int.fetchOne(
                        db, sql: "SELECT MAX(ordinal) FROM routine_plans WHERE workout_id = ?", arguments: [key])
                        ?? -1) + 1
            }
            var ids: [UUID] = []
            let targets =
                ramp
                + (firstToDo == nil
                    ? [
                        SetTarget(
                            kind: input.kind == .warmup ? .normal : input.kind, weight: input.weight, reps: input.reps)
                    ] : [])
            for (index, target) in targets.enumerated() {
                let id = UUID.timeOrdered()
                ids.append(id)
                let last = firstToDo == nil && index == targets.count - 1
                try db.execute(
                    sql: """
                        INSERT INTO routine_plans (id, workout_id, routine_id, ordinal, exercise_index, set_index,
                            exercise, kind, weight, unit, reps, rpe, hint, status, created_at, pulled, needs_weight)
                        VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, 'planned', ?, 0, 0)
                        """,
                    arguments: [
                        id.wireString, key, PlannedRow.warmupRoutineID.wireString, start + index, index, exercise,
                        target.kind.rawValue, target.weight, input.unit.rawValue, target.reps,
                        last ? input.rpe : nil,
                        last
                            ? "work set after \(ramp.count) warm-up\(ramp.count == 1 ? "" : "s")"
                            : "warm-up \(index + 1)/\(ramp.count) before \(work)"
                                + (onBar ? Plates.load(target.weight, on: plates).map { ": \($0.text)" } ?? "" : ""),
                        Timestamp.format(now),
                    ])
            }
            let rows = try PlannedRow.all(workoutID: workout.id, db: db).filter { ids.contains($0.id) }
            return PlannedWarmups(workout: workout, rows: rows, createdWorkout: created)
        }
    }
}

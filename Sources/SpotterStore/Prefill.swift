import Foundation
import GRDB
import SpotterCore

/// Where the log form's numbers come from: a set of the exercise's last session (Strong's
/// "previous" column), matched by its place among that exercise's sets.
public struct PreviousSet: Sendable, Equatable {
    /// The set whose weight, reps, RPE and kind fill the form.
    public var set: WorkoutSet
    /// Its place among the exercise's sets in its last session (from 1), and how many sets of
    /// the exercise that session had; nil when the form fell back to the exercise's last set.
    public var ordinal: Int?
    public var sessionSetCount: Int?
    /// The first work set (normal or to failure) of that session: what a work set is offered
    /// when the matching set was a warm-up the lifter has done without today.
    public var sessionFirstWorkSet: WorkoutSet?
}

extension Queries {
    /// The set of `exercise` to prefill the next one from. The next set is the exercise's n-th
    /// in `workoutID` (n = its sets there so far + 1); the answer is the n-th set of the
    /// exercise's last session before that workout. When that session had fewer sets (or there
    /// is none), it is the exercise's last set, wherever it was. Nil when it was never logged.
    public func previousSet(exercise: String, workoutID: UUID?) throws -> PreviousSet? {
        try writer.read { db in
            let name = try SpotterStore.canonicalExercise(exercise, db: db)
            let target = workoutID?.wireString ?? ""
            let done =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT COUNT(*) FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL"),
                    arguments: [target, name]) ?? 0
            // Before that workout: a set added to a workout of last October prefills from the
            // session before it, not from one after it.
            let before =
                try String.fetchOne(
                    db.cachedStatement(sql: "SELECT started_at FROM workouts WHERE id = ?"), arguments: [target])
                ?? "9999"
            if let session = try String.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT workout_id FROM sets WHERE exercise = ? AND deleted_at IS NULL AND workout_id != ?
                            AND performed_at < ?
                        ORDER BY performed_at DESC LIMIT 1
                        """), arguments: [name, target, before])
            {
                let sets = try WorkoutSet.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT * FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL
                            ORDER BY position, performed_at
                            """), arguments: [session, name])
                if done < sets.count {
                    return PreviousSet(
                        set: sets[done], ordinal: done + 1, sessionSetCount: sets.count,
                        sessionFirstWorkSet: sets.first { $0.kind == .normal || $0.kind == .failure })
                }
            }
            return try WorkoutSet.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM sets WHERE exercise = ? AND deleted_at IS NULL
                            AND (performed_at < ? OR workout_id = ?)
                        ORDER BY performed_at DESC, position DESC LIMIT 1
                        """
                ), arguments: [name, before, target]
            ).map { PreviousSet(set: $0, ordinal: nil, sessionSetCount: nil) }
        }
    }
}

extension Queries {
    /// The sets of `exercise` in `workoutID` so far, in the order they were done: what the next
    /// set's prefill follows.
    public func sessionSets(exercise: String, workoutID: UUID) throws -> [WorkoutSet] {
        try writer.read { db in
            try store.readable(
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT * FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL
                                AND \(store.visible())
                            ORDER BY position, performed_at
                            """),
                    arguments: [workoutID.wireString, try SpotterStore.canonicalExercise(exercise, db: db)])
            ) { try WorkoutSet(row: $0) }
        }
    }
}

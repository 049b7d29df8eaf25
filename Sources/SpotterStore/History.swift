import Foundation
import GRDB
import SpotterCore

/// One session of one exercise: the sets done in a workout, as the history shows them.
public struct ExerciseSession: Sendable, Equatable {
    public var workoutID: UUID
    public var workoutName: String
    public var date: Date
    /// The exercise's sets in that workout, in order (warm-ups included, marked by kind).
    public var sets: [WorkoutSet]
    /// The best estimated 1RM (kg) of its work sets; nil when none estimates one.
    public var bestOneRepMaxKg: Double?
    /// Records set in this session (worked out in performed order, as the sets pane does).
    public var records: [UUID: RecordKind]
}

extension Queries {
    /// The newest `limit` sessions of an exercise (`offset` skips newer ones), newest first.
    public func exerciseSessions(exercise: String, limit: Int, offset: Int = 0) throws -> [ExerciseSession] {
        store.refreshRecordsBeforeReading()
        return try writer.read { db in
            let name = try SpotterStore.canonicalExercise(exercise, db: db)
            let workouts = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT s.workout_id AS workout_id, MIN(s.performed_at) AS at, w.name AS name
                        FROM sets s JOIN workouts w ON w.id = s.workout_id
                        WHERE s.exercise = ? AND s.deleted_at IS NULL AND w.deleted_at IS NULL
                        GROUP BY s.workout_id ORDER BY at DESC LIMIT ? OFFSET ?
                        """), arguments: [name, limit, offset])
            return try workouts.compactMap { row -> ExerciseSession? in
                let workoutKey = row.cell("workout_id", as: String.self) ?? "?"
                guard let workoutID = UUID(uuidString: workoutKey) else {
                    throw UnreadableRow(table: "sets", id: workoutKey, reason: "workout_id is not a UUID")
                }
                guard let workoutName = row.cell("name", as: String.self) else {
                    throw UnreadableRow(table: "workouts", id: workoutKey, reason: "name does not read")
                }
                let sets = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT * FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL
                            ORDER BY position
                            """), arguments: [workoutKey, name]
                ).map(SpotterStore.setRow)
                let work = sets.map(\.set).filter { $0.kind != .warmup }
                // A session's date is its first set's time; one that does not read is an error
                // naming the workout, never a made-up 1970.
                guard let date = row.cell("at", as: String.self).flatMap(Timestamp.parse) ?? sets.first?.set.performedAt
                else {
                    throw UnreadableRow(table: "sets", id: workoutKey, reason: "performed_at is not a time")
                }
                return ExerciseSession(
                    workoutID: workoutID, workoutName: workoutName, date: date,
                    sets: sets.map(\.set), bestOneRepMaxKg: work.compactMap(\.estimatedOneRepMaxKg).max(),
                    records: Dictionary(
                        uniqueKeysWithValues: sets.compactMap { row in row.record.map { (row.set.id, $0) } }))
            }
        }
    }

    /// How many sessions an exercise has (for paging the history view).
    public func exerciseSessionCount(exercise: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db.cachedStatement(
                    sql: "SELECT COUNT(DISTINCT workout_id) FROM sets WHERE exercise = ? AND deleted_at IS NULL"),
                arguments: [try SpotterStore.canonicalExercise(exercise, db: db)]) ?? 0
        }
    }
}

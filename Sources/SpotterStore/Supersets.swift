import Foundation
import GRDB
import SpotterCore

/// Supersets in any workout: exercises of one workout done in turn, a set of each per round.
/// The group is a number on each set of its exercises (`superset`), synced with the set like any
/// field; a set logged of an exercise in a group is in it too.
extension SpotterStore {
    /// The superset `exercise` is in within the workout, or nil.
    func superset(of exercise: String, workoutID: UUID, db: Database) throws -> Int? {
        try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT superset FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL
                        AND superset IS NOT NULL
                    ORDER BY position DESC LIMIT 1
                    """), arguments: [workoutID.wireString, exercise])
    }

    /// The superset a new set of `exercise` joins: its own group when it has one; else that of
    /// the exercise logged just before it in the workout, which is made one when it had none.
    /// Nil when the workout has no other exercise yet (nothing to pair it with).
    func joinSuperset(exercise: String, workoutID: UUID, db: Database, now: Date) throws -> Int? {
        if let own = try superset(of: exercise, workoutID: workoutID, db: db) { return own }
        guard
            let previous = try String.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT exercise FROM sets WHERE workout_id = ? AND exercise != ? AND deleted_at IS NULL
                        ORDER BY position DESC LIMIT 1
                        """), arguments: [workoutID.wireString, exercise])
        else { return nil }
        if let theirs = try superset(of: previous, workoutID: workoutID, db: db) { return theirs }
        let group = try nextSuperset(in: workoutID, db: db)
        try setSuperset(group, exercise: previous, workoutID: workoutID, db: db, now: now)
        return group
    }

    /// A number no superset of the workout has.
    func nextSuperset(in workoutID: UUID, db: Database) throws -> Int {
        let highest =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(superset) FROM sets WHERE workout_id = ? AND deleted_at IS NULL"),
                arguments: [workoutID.wireString]) ?? 0
        return min(highest + 1, Validation.maxSuperset)
    }

    /// Puts every live set of `exercise` in the workout in `group` (nil: in none), each an edit
    /// that syncs.
    func setSuperset(_ group: Int?, exercise: String, workoutID: UUID, db: Database, now: Date) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT * FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL AND \(visible())"),
            arguments: [workoutID.wireString, exercise])
        for row in rows {
            let old = try WorkoutSet(row: row)
            guard old.superset != group else { continue }
            var new = old
            new.superset = group
            try applyChanges(
                type: .set, id: old.id.wireString, from: old.wireFields, to: new.wireFields, db: db, now: now)
        }
    }
}

/// What grouping did: the exercises now in the group, or the exercise taken out of one.
public enum SupersetChange: Sendable, Equatable {
    case grouped(group: Int, exercises: [String])
    case ungrouped(exercise: String)
}

extension WorkoutLog {
    /// The UI's `G` on a set: its exercise joins the superset of the exercise done just before it
    /// in the workout (made one when it had none); an exercise already in a superset leaves it
    /// (and a superset left with one exercise is none).
    @discardableResult
    public func toggleSuperset(setID: UUID) throws -> SupersetChange {
        let now = self.now
        return try writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT * FROM sets WHERE id = ? AND deleted_at IS NULL AND \(store.visible())"),
                    arguments: [setID.wireString])
            else { throw StoreError.notFound("set \(setID.wireString)") }
            let set = try WorkoutSet(row: row)
            if let group = try store.superset(of: set.exercise, workoutID: set.workoutID, db: db) {
                try store.setSuperset(nil, exercise: set.exercise, workoutID: set.workoutID, db: db, now: now)
                let left = try Queries.supersetOrder(group, workoutID: set.workoutID, db: db)
                if left.count == 1 {
                    try store.setSuperset(nil, exercise: left[0], workoutID: set.workoutID, db: db, now: now)
                }
                return .ungrouped(exercise: set.exercise)
            }
            // The exercise before this one: the last other exercise logged before its first set.
            guard
                let previous = try String.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT exercise FROM sets WHERE workout_id = ? AND exercise != ? AND deleted_at IS NULL
                                AND position < (SELECT MIN(position) FROM sets WHERE workout_id = ? AND exercise = ?
                                    AND deleted_at IS NULL)
                            ORDER BY position DESC LIMIT 1
                            """),
                    arguments: [set.workoutID.wireString, set.exercise, set.workoutID.wireString, set.exercise])
            else {
                throw StoreError.notAllowed(
                    "\(set.exercise) is the first exercise of its workout: select a later one to pair it with the one before"
                )
            }
            let group =
                try store.superset(of: previous, workoutID: set.workoutID, db: db)
                ?? store.nextSuperset(in: set.workoutID, db: db)
            try store.setSuperset(group, exercise: previous, workoutID: set.workoutID, db: db, now: now)
            try store.setSuperset(group, exercise: set.exercise, workoutID: set.workoutID, db: db, now: now)
            return .grouped(group: group, exercises: try Queries.supersetOrder(group, workoutID: set.workoutID, db: db))
        }
    }
}

extension Queries {
    /// A superset's exercises in the order of a round: by each one's first set in the workout.
    static func supersetOrder(_ group: Int, workoutID: UUID, db: Database) throws -> [String] {
        try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT exercise FROM sets WHERE workout_id = ? AND superset = ? AND deleted_at IS NULL
                    GROUP BY exercise ORDER BY MIN(position)
                    """), arguments: [workoutID.wireString, group])
    }

    /// The exercise after `exercise` in its superset's round within the workout (the first
    /// again after the last), and whether `exercise` ends the round; nil when it is in none.
    public func supersetNext(after exercise: String, workoutID: UUID) throws -> (next: String, endsRound: Bool)? {
        try writer.read { db in
            guard let group = try store.superset(of: exercise, workoutID: workoutID, db: db) else { return nil }
            let order = try Self.supersetOrder(group, workoutID: workoutID, db: db)
            guard order.count > 1, let index = order.firstIndex(of: exercise) else { return nil }
            let next = (index + 1) % order.count
            return (order[next], next == 0)
        }
    }
}

import Foundation
import GRDB
import SpotterCore

/// What renaming or merging an exercise did.
public struct ExerciseMove: Sendable, Equatable {
    /// The catalogue spelling of the exercise the sets left, and of the one they went to.
    public var from: String
    public var into: String
    /// Sets whose exercise changed; each is a queued update that syncs like an edit.
    public var setsMoved: Int
    /// The custom exercise `from` was removed from the local list (it has no sets left).
    public var removedCustom: Bool
    /// `from` was starred: the star moved to `into`.
    public var movedStar: Bool
    /// Routines that planned `from` and now plan `into` (each a queued routine update).
    public var routinesChanged = 0
}

extension WorkoutLog {
    /// Moves every set of `old` to `new`, each as an ordinary set edit (a queued update), so the
    /// change reaches the server and other devices with no new server operation. `create` lets
    /// `new` be a name not yet known (a rename); otherwise it must exist (a merge). A custom
    /// `old` left without sets leaves the exercise list; a star moves with it.
    public func moveExercise(_ old: String, to new: String, create: Bool) throws -> ExerciseMove {
        let now = self.now
        let oldName = old.trimmingCharacters(in: .whitespacesAndNewlines)
        let newName = new.trimmingCharacters(in: .whitespacesAndNewlines)
        try store.checked { () throws(ValidationError) in
            try Validation.exercise(oldName)
            try Validation.exercise(newName)
        }
        var move = try writer.write { db -> ExerciseMove in
            let from = try SpotterStore.canonicalExercise(oldName, db: db)
            let known =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS(SELECT 1 FROM exercises WHERE name = ?)
                                OR EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL)
                            """), arguments: [from, from]) ?? false
            guard known else { throw StoreError.notFound("exercise '\(oldName)'") }
            let existing = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM exercises WHERE name = ? COLLATE NOCASE"),
                arguments: [newName])
            if existing == nil, !create {
                throw StoreError.notFound("exercise '\(newName)' (merge moves sets into an existing exercise)")
            }
            if create, let existing, existing.caseInsensitiveCompare(from) != .orderedSame {
                throw StoreError.notAllowed(
                    "'\(existing)' already exists: use `spotter exercises merge` to move the sets into it")
            }
            let into = existing ?? newName
            guard into != from else { throw StoreError.notAllowed("'\(from)' is already called that") }
            let isCustom =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT is_custom FROM exercises WHERE name = ?"), arguments: [from])
                ?? true
            if create, !isCustom, existing == nil {
                throw StoreError.notAllowed(
                    "'\(from)' is a catalogue exercise and keeps its name: merge its sets into another with `spotter exercises merge`"
                )
            }
            if existing == nil {
                if from.caseInsensitiveCompare(into) == .orderedSame {
                    // Only the case changes: rename the list entry in place.
                    try db.cachedStatement(sql: "UPDATE exercises SET name = ? WHERE name = ?").execute(arguments: [
                        into, from,
                    ])
                } else {
                    try db.cachedStatement(sql: "INSERT INTO exercises (name, is_custom) VALUES (?, 1)").execute(
                        arguments: [into])
                }
                // The muscles set for a custom exercise follow its new name.
                try db.execute(
                    sql: "UPDATE OR IGNORE exercise_muscles SET exercise = ? WHERE exercise = ?",
                    arguments: [into, from])
            }
            let setIDs = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM sets WHERE exercise = ? AND deleted_at IS NULL ORDER BY id"),
                arguments: [from])
            for id in setIDs {
                try store.applyEdit(type: .set, id: id, patch: ["exercise": .string(into)], db: db, now: now)
            }
            try SpotterStore.refreshRecords(db)  // the merged history has records of its own
            // Routines follow the lift: planned under its old name, it would be a lift with no
            // history (and a custom exercise made again on the next start).
            var routinesChanged = 0
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM routines WHERE deleted_at IS NULL AND \(store.visible())")
            {
                let routine = try Routine(row: row)
                guard routine.exercises.contains(where: { $0.exercise == from }) else { continue }
                var renamed = routine
                for index in renamed.exercises.indices where renamed.exercises[index].exercise == from {
                    renamed.exercises[index].rename(to: into)
                }
                try store.saveRoutineChanges(from: routine, to: renamed, db: db, now: now)
                routinesChanged += 1
            }
            var removed = false
            if isCustom, from.caseInsensitiveCompare(into) != .orderedSame {
                try db.cachedStatement(sql: "DELETE FROM exercises WHERE name = ? AND is_custom = 1").execute(
                    arguments: [from])
                removed = db.changesCount > 0
                if removed { try db.execute(sql: "DELETE FROM exercise_muscles WHERE exercise = ?", arguments: [from]) }
            }
            return ExerciseMove(
                from: from, into: into, setsMoved: setIDs.count, removedCustom: removed, movedStar: false,
                routinesChanged: routinesChanged)
        }
        if try store.queries.favorites().contains(where: { $0.caseInsensitiveCompare(move.from) == .orderedSame }),
            move.from.caseInsensitiveCompare(move.into) != .orderedSame
        {
            try setStarred(move.from, false)
            try setStarred(move.into, true)
            move.movedStar = true
            if move.removedCustom {
                // Unstarring went through the catalogue lookup, which lists the name again.
                try writer.write { db in
                    try db.execute(
                        sql: "DELETE FROM exercises WHERE name = ? AND is_custom = 1", arguments: [move.from])
                }
            }
        }
        return move
    }
}

extension Queries {
    /// Exercises with the number of live sets of each; custom ones only when `customOnly`.
    public func exerciseList(customOnly: Bool) throws -> [ExerciseListing] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.name AS name, e.is_custom AS is_custom,
                        (SELECT COUNT(*) FROM sets s WHERE s.exercise = e.name AND s.deleted_at IS NULL) AS n
                    FROM exercises e \(customOnly ? "WHERE e.is_custom = 1" : "") ORDER BY e.name COLLATE NOCASE
                    """
            ).compactMap { row in
                // A name that does not read (a damaged file) is left out; a flag that does not
                // read counts as the catalogue's.
                row.cell("name", as: String.self).map {
                    ExerciseListing(
                        name: $0, isCustom: row.cell("is_custom", as: Bool.self) ?? false,
                        sets: row.cell("n", as: Int.self) ?? 0)
                }
            }
        }
    }
}

/// An exercise as `spotter exercises` lists it.
public struct ExerciseListing: Sendable, Equatable {
    public var name: String
    public var isCustom: Bool
    /// Live sets logged of it.
    public var sets: Int
}

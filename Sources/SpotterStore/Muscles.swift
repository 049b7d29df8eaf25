import Foundation
import GRDB
import SpotterCore

/// An exercise's muscles, and whether they are the catalogue's or set on this device.
public struct ExerciseMuscleInfo: Sendable, Equatable {
    /// The exercise's name as the list spells it.
    public var exercise: String
    /// Nil for a custom exercise no muscles were set for.
    public var muscles: ExerciseMuscles?
    public var isCustom: Bool
}

extension SpotterStore {
    /// The muscles of `exercise` (its stored spelling): the catalogue's for a catalogue lift,
    /// those set on this device for a custom one; nil when neither knows any.
    static func muscles(of exercise: String, db: Database) throws -> ExerciseMuscles? {
        if let listed = Catalog.muscles[Catalog.aliasKey(exercise)] { return listed }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT primary_muscles, secondary_muscles FROM exercise_muscles WHERE exercise = ?"),
                arguments: [exercise])
        else { return nil }
        func read(_ text: String?) -> [Muscle] {
            (text ?? "").split(separator: ",").compactMap { Muscle(rawValue: String($0)) }
        }
        let primary = read(row.cell("primary_muscles", as: String.self))
        // A row someone else wrote with no known primary muscle (or one that does not read) is as
        // good as none.
        return primary.isEmpty
            ? nil : ExerciseMuscles(primary: primary, secondary: read(row.cell("secondary_muscles", as: String.self)))
    }

    /// The list's spelling of an exercise that exists (in the list, or in this account's sets),
    /// and whether it is custom; nil for a name nothing knows.
    static func existingExercise(_ name: String, db: Database) throws -> (name: String, isCustom: Bool)? {
        let canonical = try canonicalExercise(name, db: db)
        if let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT name, is_custom FROM exercises WHERE name = ? COLLATE NOCASE"),
            arguments: [canonical])
        {
            if let listed = row.cell("name", as: String.self) {
                return (listed, row.cell("is_custom", as: Bool.self) ?? false)
            }
        }
        let logged =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM sets WHERE exercise = ? AND deleted_at IS NULL)"),
                arguments: [canonical]) ?? false
        return logged ? (canonical, Catalog.muscles[Catalog.aliasKey(canonical)] == nil) : nil
    }
}

extension Queries {
    /// The muscles of an exercise named as `stats` takes it (any case, or an alias).
    public func muscles(of exercise: String) throws -> ExerciseMuscleInfo {
        let name = exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        return try writer.read { db in
            guard let existing = try SpotterStore.existingExercise(name, db: db) else {
                throw StoreError.notFound("exercise '\(name)'")
            }
            return ExerciseMuscleInfo(
                exercise: existing.name, muscles: try SpotterStore.muscles(of: existing.name, db: db),
                isCustom: existing.isCustom)
        }
    }
}

extension WorkoutLog {
    /// Sets the muscles a custom exercise works, on this device only (they do not sync). A
    /// catalogue exercise keeps the catalogue's; an exercise nothing knows is not made.
    @discardableResult
    public func setMuscles(_ muscles: ExerciseMuscles, exercise: String) throws -> ExerciseMuscleInfo {
        let name = exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        try store.checked { () throws(ValidationError) in
            try Validation.exercise(name)
            guard !muscles.primary.isEmpty else {
                throw ValidationError(
                    field: "muscles", message: "name at least one primary muscle; the muscles are: \(Muscle.vocabulary)"
                )
            }
        }
        return try writer.write { db in
            guard let existing = try SpotterStore.existingExercise(name, db: db) else {
                throw StoreError.notFound("exercise '\(name)'")
            }
            guard existing.isCustom, Catalog.muscles[Catalog.aliasKey(existing.name)] == nil else {
                throw StoreError.notAllowed(
                    "'\(existing.name)' is a catalogue exercise: its muscles are the catalogue's")
            }
            try db.execute(
                sql: """
                    INSERT INTO exercise_muscles (exercise, primary_muscles, secondary_muscles) VALUES (?, ?, ?)
                    ON CONFLICT(exercise) DO UPDATE SET primary_muscles = excluded.primary_muscles,
                        secondary_muscles = excluded.secondary_muscles
                    """,
                arguments: [
                    existing.name, muscles.primary.map(\.rawValue).joined(separator: ","),
                    muscles.secondary.map(\.rawValue).joined(separator: ","),
                ])
            return ExerciseMuscleInfo(exercise: existing.name, muscles: muscles, isCustom: true)
        }
    }
}

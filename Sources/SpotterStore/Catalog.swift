import Foundation
import GRDB
import SpotterAssets
import SpotterCore

/// One exercise of the catalogue.
public struct Exercise: Sendable, Equatable, Decodable {
    public var name: String
    public var category: String?
    public var equipment: String?
    public var isCustom: Bool = false

    enum CodingKeys: String, CodingKey { case name, category, equipment }

    public init(name: String, category: String?, equipment: String?, isCustom: Bool) {
        self.name = name
        self.category = category
        self.equipment = equipment
        self.isCustom = isCustom
    }
}

/// The shipped exercise catalogue (`Assets/exercises.json`), seeded on first open.
enum Catalog {
    private struct File: Decodable {
        var exercises: [Exercise]
        /// Names other apps use (Strong, Hevy and FitNotes default lists) → the catalogue's name.
        var aliases: [String: String]?
    }

    /// One exercise's muscles as the file names them (`Muscle` raw values).
    struct MuscleEntry: Decodable {
        var name: String
        var primary: [String]?
        var secondary: [String]?
    }

    private struct MuscleFile: Decodable {
        var exercises: [MuscleEntry]
    }

    /// Every catalogue exercise's muscles as written in the file; empty when the file is missing.
    static func bundledMuscles() -> [MuscleEntry] {
        guard let url = SpotterAssets.exercisesURL, let data = try? Data(contentsOf: url),
            let file = try? JSONDecoder().decode(MuscleFile.self, from: data)
        else { return [] }
        return file.exercises
    }

    /// The muscles of each catalogue exercise, keyed by `aliasKey` of its name; a name the
    /// vocabulary does not have is left out (the catalogue's test keeps there being none).
    static let muscles: [String: ExerciseMuscles] = {
        var table: [String: ExerciseMuscles] = [:]
        for entry in bundledMuscles() {
            let primary = (entry.primary ?? []).compactMap(Muscle.init(rawValue:))
            let secondary = (entry.secondary ?? []).compactMap(Muscle.init(rawValue:))
            guard !primary.isEmpty else { continue }
            table[aliasKey(entry.name)] = ExerciseMuscles(primary: primary, secondary: secondary)
        }
        return table
    }()

    /// The alias table, keyed by `aliasKey`; empty when the file is missing (import then keeps names as they are).
    static let aliases: [String: String] = {
        guard let url = SpotterAssets.exercisesURL, let data = try? Data(contentsOf: url),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [:] }
        var table: [String: String] = [:]
        for (alias, name) in file.aliases ?? [:] { table[aliasKey(alias)] = name }
        return table
    }()

    /// Case and spacing do not matter: "Barbell  squat" is "Barbell Squat".
    static func aliasKey(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func bundled() throws -> [Exercise] {
        guard let url = SpotterAssets.exercisesURL else {
            throw StoreError.catalogMissing
        }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).exercises
    }

    static func seed(_ db: Database) throws {
        for exercise in try bundled() {
            try db.execute(
                sql: "INSERT OR IGNORE INTO exercises(name, category, equipment, is_custom) VALUES (?, ?, ?, 0)",
                arguments: [exercise.name, exercise.category, exercise.equipment])
        }
    }
}

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

    /// Case, spacing and characters that only look like others do not matter: "Barbell  squat" is
    /// "Barbell Squat", and so it is with a no-break space for a space, full-width letters
    /// ("Ｂarbell"), or a word joiner, zero-width space or emoji variation selector between its
    /// letters (compatibility forms folded, invisible format characters dropped).
    static func aliasKey(_ name: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in name.precomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .format { continue }
            if (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value) { continue }
            kept.append(scalar)
        }
        return String(kept).lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The catalogue's names by `aliasKey`: a name that only looks like one of them is that one,
    /// never a custom exercise that reads the same on screen.
    static let namesByKey: [String: String] = {
        var table: [String: String] = [:]
        for exercise in (try? bundled()) ?? [] { table[aliasKey(exercise.name)] = exercise.name }
        return table
    }()

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

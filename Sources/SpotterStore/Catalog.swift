import Foundation
import GRDB
import SpotterAssets

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

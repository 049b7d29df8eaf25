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
    private struct File: Decodable { var exercises: [Exercise] }

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

import Foundation

/// A coding key by its text: a synced entity's coding keys are its columns' names
/// (`FieldKey(column.name)`), the same names as on the wire and in every schema.
public struct FieldKey: CodingKey, Hashable, Sendable {
    public let stringValue: String

    public init(_ name: String) {
        stringValue = name
    }

    public init?(stringValue: String) {
        self.init(stringValue)
    }

    public var intValue: Int? { nil }

    public init?(intValue: Int) {
        nil
    }
}

/// A synced entity whose `Codable` form is its wire object: its `Column` cases are its coding
/// keys and each value is what `value(_:)` gives (ids lower-case, times RFC 3339, a plan or a
/// routine's exercises their wire documents). What the device keeps as JSON of its own (the undo
/// journal's images, a pulled change that waits for its parent) is then written exactly as the
/// server sends the entity, and read by the same `init(reading:)` as a row or a wire object.
///
/// Images written before this form (Swift's synthesized one: property names as keys, times as
/// seconds since 2001, a plan in its own shape) still read: an image that holds a key only that
/// form writes (`isEarlierImage`) is read under its property names (`earlierDocument` gives an
/// entity's documents). One that holds none reads the same either way.
public protocol EntityCodable: ColumnValues, Codable {
    init(reading cells: some ColumnReader) throws

    /// Whether `container` holds an image in the synthesized form.
    static func isEarlierImage(_ container: KeyedDecodingContainer<FieldKey>) -> Bool

    /// A document column as an earlier image kept it (the Swift value's synthesized form), as
    /// its wire document; nil when absent.
    static func earlierDocument(
        _ column: Column, in container: KeyedDecodingContainer<FieldKey>, key: FieldKey
    ) throws -> JSONValue?
}

extension EntityCodable {
    /// A column whose property is named otherwise (`workoutID` for `workout_id`) under the
    /// property's name.
    public static func isEarlierImage(_ container: KeyedDecodingContainer<FieldKey>) -> Bool {
        Column.allCases.contains { column in
            let property = String(describing: column)
            return property != column.name && container.contains(FieldKey(property))
        }
    }

    public static func earlierDocument(
        _ column: Column, in container: KeyedDecodingContainer<FieldKey>, key: FieldKey
    ) throws -> JSONValue? {
        try container.decodeIfPresent(JSONValue.self, forKey: key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for column in Column.allCases {
            if let value = value(column) { try container.encode(value, forKey: FieldKey(column.name)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        try self.init(reading: CodedCells<Self>(container: container, earlier: Self.isEarlierImage(container)))
    }
}

/// An entity's fields as a keyed container holds them: under their column names, or (`earlier`)
/// under their Swift property names with times as seconds since 2001.
struct CodedCells<Entity: EntityCodable>: ColumnReader {
    let container: KeyedDecodingContainer<FieldKey>
    let earlier: Bool

    private func key(_ column: String) -> FieldKey {
        guard earlier, let field = Entity.Column(rawValue: column) else { return FieldKey(column) }
        // A column's case is named after the property it holds, which is what Swift's
        // synthesized form keyed it by.
        return FieldKey(String(describing: field))
    }

    private func read<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        do { return try container.decodeIfPresent(type, forKey: key(column)) } catch {
            throw unreadable(column, expected: "\(T.self)")
        }
    }

    func text(_ column: String) throws -> String? {
        // Only a time (its column ends in `_at`) was written as a number by that form; a number
        // in any other text column is unreadable, not a date.
        if earlier, column.hasSuffix("_at"),
            let seconds = try? container.decodeIfPresent(Double.self, forKey: key(column))
        {
            // A time that no timestamp can spell (1e300 in a damaged image) is unreadable, never
            // held at some year.
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            guard Timestamp.isSpellable(date) else { throw unreadable(column, expected: "a time") }
            return Timestamp.format(date)
        }
        return try read(String.self, column)
    }

    func integer(_ column: String) throws -> Int64? { try read(Int64.self, column) }
    func real(_ column: String) throws -> Double? { try read(Double.self, column) }

    func document(_ column: String) throws -> JSONValue? {
        guard earlier, let field = Entity.Column(rawValue: column) else { return try read(JSONValue.self, column) }
        return try Entity.earlierDocument(field, in: container, key: key(column))
    }

    func unreadable(_ column: String, expected: String) -> any Error {
        DecodingError.dataCorrupted(
            .init(
                codingPath: container.codingPath + [FieldKey(column)],
                debugDescription: "\(Entity.Column.table).\(column) is not \(expected)"))
    }
}

extension WorkoutSet: EntityCodable {}
extension BodyWeight: EntityCodable {}
extension Favorite: EntityCodable {}

extension Workout: EntityCodable {
    public static func earlierDocument(
        _ column: Column, in container: KeyedDecodingContainer<FieldKey>, key: FieldKey
    ) throws -> JSONValue? {
        switch column {
        case .plan: try container.decodeIfPresent(WorkoutPlan.self, forKey: key)?.json
        case .exerciseNotes:
            try container.decodeIfPresent([String: String].self, forKey: key).map {
                .object($0.mapValues(JSONValue.string))
            }
        default: try container.decodeIfPresent(JSONValue.self, forKey: key)
        }
    }
}

extension Routine: EntityCodable {
    /// A routine's rest is optional, so its image may hold no top-level key of the synthesized
    /// form; its exercises then tell: that form always wrote `formerly` (the wire only when it is
    /// not empty) and named `restSeconds`, `repsMax` and `percentOfOneRepMax` so.
    public static func isEarlierImage(_ container: KeyedDecodingContainer<FieldKey>) -> Bool {
        if container.contains(FieldKey(String(describing: Column.restSeconds))) { return true }
        guard
            case .array(let exercises)? = try? container.decodeIfPresent(JSONValue.self, forKey: FieldKey("exercises"))
        else { return false }
        let earlierKeys: Set<String> = ["restSeconds", "repsMax", "percentOfOneRepMax"]
        return exercises.contains { exercise in
            guard let fields = exercise.objectValue else { return false }
            if case .array(let names)? = fields["formerly"], names.isEmpty { return true }
            if fields.keys.contains(where: earlierKeys.contains) { return true }
            guard case .array(let sets)? = fields["sets"] else { return false }
            return sets.contains { $0.objectValue?.keys.contains(where: earlierKeys.contains) == true }
        }
    }

    public static func earlierDocument(
        _ column: Column, in container: KeyedDecodingContainer<FieldKey>, key: FieldKey
    ) throws -> JSONValue? {
        switch column {
        case .exercises: try container.decodeIfPresent([RoutineExercise].self, forKey: key).map(exercisesJSON)
        default: try container.decodeIfPresent(JSONValue.self, forKey: key)
        }
    }
}

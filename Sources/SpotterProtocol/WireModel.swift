import Foundation
import SpotterCore

/// A field of a wire document that is missing or not what the contract says it is.
public struct WireError: Error, Equatable, CustomStringConvertible {
    public let field: String
    public let expected: String

    public init(field: String, expected: String) {
        self.field = field
        self.expected = expected
    }

    public var description: String { "\(field): expected \(expected)" }
}

/// Reads the fields of one JSON object by their wire names, as typed values: ids are UUIDs,
/// times RFC 3339, kinds and units their enums. Every reader of the wire model goes through it,
/// so a field is checked one way everywhere.
struct WireFields {
    let fields: [String: JSONValue]

    init(_ json: JSONValue, _ what: String) throws(WireError) {
        guard let fields = json.objectValue else { throw WireError(field: what, expected: "an object") }
        self.fields = fields
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = fields[key], !value.isNull else { return nil }
        return value
    }

    /// Any JSON value; nil when absent or null.
    func optionalValue(_ key: String) -> JSONValue? { present(key) }

    func string(_ key: String) throws(WireError) -> String {
        guard let value = try optionalString(key) else { throw WireError(field: key, expected: "a string") }
        return value
    }

    func optionalString(_ key: String) throws(WireError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw WireError(field: key, expected: "a string") }
        return text
    }

    func uuid(_ key: String) throws(WireError) -> UUID {
        guard let id = UUID(wire: try string(key)) else { throw WireError(field: key, expected: "a UUID") }
        return id
    }

    func date(_ key: String) throws(WireError) -> Date {
        guard let date = try optionalDate(key) else { throw WireError(field: key, expected: "an RFC 3339 time") }
        return date
    }

    func optionalDate(_ key: String) throws(WireError) -> Date? {
        guard let text = try optionalString(key) else { return nil }
        guard let date = Timestamp.parse(text) else { throw WireError(field: key, expected: "an RFC 3339 time") }
        return date
    }

    func int(_ key: String) throws(WireError) -> Int {
        guard let value = present(key)?.intValue else { throw WireError(field: key, expected: "an integer") }
        return value
    }

    func optionalInt64(_ key: String) throws(WireError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let int = value.intValue else { throw WireError(field: key, expected: "an integer") }
        return Int64(int)
    }

    func double(_ key: String) throws(WireError) -> Double {
        guard let value = try optionalDouble(key) else { throw WireError(field: key, expected: "a number") }
        return value
    }

    func optionalDouble(_ key: String) throws(WireError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let number = value.doubleValue else { throw WireError(field: key, expected: "a number") }
        return number
    }

    func optionalBool(_ key: String) throws(WireError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else { throw WireError(field: key, expected: "true or false") }
        return flag
    }

    func enumeration<Value: RawRepresentable>(_ key: String) throws(WireError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: try string(key)) else {
            throw WireError(field: key, expected: "one of the known values")
        }
        return value
    }
}

extension WireFields: ColumnReader {
    func text(_ column: String) throws -> String? { try optionalString(column) }
    func integer(_ column: String) throws -> Int64? { try optionalInt64(column) }
    func real(_ column: String) throws -> Double? { try optionalDouble(column) }
    func document(_ column: String) throws -> JSONValue? { optionalValue(column) }
    func unreadable(_ column: String, expected: String) -> any Error { WireError(field: column, expected: expected) }
}

/// Writes a wire object: nil fields are left out, as the contract's optional fields are.
struct WireObject {
    /// Room for every field of the largest wire type (a set has 16): filled without rehashing,
    /// which a page of thousands of rows paid four times a row.
    var fields = [String: JSONValue](minimumCapacity: 16)

    mutating func set(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
    mutating func set(_ key: String, _ value: UUID) { fields[key] = .string(value.wireString) }
    mutating func set(_ key: String, _ value: Date?) { if let value { fields[key] = .string(Timestamp.format(value)) } }
    mutating func set(_ key: String, _ value: Double?) { if let value { fields[key] = .double(value) } }
    mutating func set(_ key: String, _ value: Int) { fields[key] = .int(Int64(value)) }
    mutating func set(_ key: String, _ value: Int64?) { if let value { fields[key] = .int(value) } }
    mutating func set(_ key: String, _ value: Bool?) { if let value { fields[key] = .bool(value) } }

    var json: JSONValue { .object(fields) }
}

extension WireCodable {
    /// What a `ColumnReader` over `WireFields` threw, which is always a `WireError`.
    static func wireError(_ error: any Error) -> WireError {
        error as? WireError ?? WireError(field: "\(Self.self)", expected: "\(error)")
    }
}

/// A wire type reads and writes itself through `JSONValue` (`init(json:)` and `json`), spelled
/// once; `Codable` goes through the same two, so `JSONEncoder`/`JSONDecoder` and the parsed-JSON
/// hot path (a batch's results, a feed page of thousands of rows) cannot disagree.
public protocol WireCodable: Codable, Sendable {
    init(json: JSONValue) throws(WireError)
    var json: JSONValue { get }
}

extension WireCodable {
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        do {
            try self.init(json: value)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

/// A row as the server keeps and sends it: the entity's fields and the server's stamp
/// (`ServerStampColumn`) — when and in which change it last wrote it, and whether it is a tombstone.
public protocol StampedRow {
    var updatedAt: Date? { get }
    var serverVersion: Int64? { get }
    var deleted: Bool? { get }
}

extension StampedRow {
    /// The stamp as the server stores it, in `ServerStampColumn` order (a row not stamped yet:
    /// no time, version 0, not deleted).
    public var stampValues: [JSONValue] {
        ServerStampColumn.allCases.map { column in
            switch column {
            case .updatedAt: .string(updatedAt.map(Timestamp.format) ?? "")
            case .serverVersion: .int(serverVersion ?? 0)
            case .deleted: .bool(deleted ?? false)
            }
        }
    }
}

extension WireWorkout: StampedRow {}
extension WireSet: StampedRow {}
extension WireRoutine: StampedRow {}
extension WireBodyWeight: StampedRow {}

/// A workout on the wire: the client's workout, and the server's stamp on what the server sends.
/// Its fields are the workout's own (`wire.name` reads `workout.name`): a field added to
/// `Workout` travels without a line here.
@dynamicMemberLookup
public struct WireWorkout: WireCodable, Equatable {
    public var workout: Workout
    public var updatedAt: Date?
    public var serverVersion: Int64?
    public var deleted: Bool?

    /// The wire names: the entity's columns (`Workout.Column`) and the server's stamp.
    public typealias Field = Workout.Column
    typealias Stamp = ServerStampColumn

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<Workout, Value>) -> Value {
        get { workout[keyPath: field] }
        set { workout[keyPath: field] = newValue }
    }

    public init(
        id: UUID, name: String, startedAt: Date, endedAt: Date? = nil, notes: String? = nil,
        plan: WorkoutPlan? = nil, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil
    ) {
        self.init(
            Workout(id: id, name: name, startedAt: startedAt, endedAt: endedAt, notes: notes, plan: plan),
            updatedAt: updatedAt, serverVersion: serverVersion, deleted: deleted)
    }

    public init(_ workout: Workout, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil) {
        self.workout = workout
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "workout")
        do { workout = try Workout(reading: fields) } catch { throw Self.wireError(error) }
        updatedAt = try fields.optionalDate(Stamp.updatedAt.name)
        serverVersion = try fields.optionalInt64(Stamp.serverVersion.name)
        deleted = try fields.optionalBool(Stamp.deleted.name)
    }

    public var json: JSONValue {
        var object = WireObject(fields: workout.fieldValues)
        object.set(Stamp.updatedAt.name, updatedAt)
        object.set(Stamp.serverVersion.name, serverVersion)
        object.set(Stamp.deleted.name, deleted)
        return object.json
    }
}

/// A set on the wire: the client's set and the server's stamp; its fields are the set's own.
@dynamicMemberLookup
public struct WireSet: WireCodable, Equatable {
    public var set: WorkoutSet
    public var updatedAt: Date?
    public var serverVersion: Int64?
    public var deleted: Bool?

    /// The wire names: the entity's columns (`WorkoutSet.Column`) and the server's stamp.
    public typealias Field = WorkoutSet.Column
    typealias Stamp = ServerStampColumn

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<WorkoutSet, Value>) -> Value {
        get { set[keyPath: field] }
        set { set[keyPath: field] = newValue }
    }

    public init(
        id: UUID, workoutID: UUID, exercise: String, position: Int, kind: SetKind, weight: Double, unit: WeightUnit,
        reps: Int, rpe: Double? = nil, distanceM: Double? = nil, durationS: Double? = nil, notes: String? = nil,
        performedAt: Date, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil
    ) {
        self.init(
            WorkoutSet(
                id: id, workoutID: workoutID, exercise: exercise, position: position, kind: kind, weight: weight,
                unit: unit, reps: reps, rpe: rpe, distanceM: distanceM, durationS: durationS, notes: notes,
                performedAt: performedAt),
            updatedAt: updatedAt, serverVersion: serverVersion, deleted: deleted)
    }

    public init(_ set: WorkoutSet, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil) {
        self.set = set
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "set")
        do { set = try WorkoutSet(reading: fields) } catch { throw Self.wireError(error) }
        updatedAt = try fields.optionalDate(Stamp.updatedAt.name)
        serverVersion = try fields.optionalInt64(Stamp.serverVersion.name)
        deleted = try fields.optionalBool(Stamp.deleted.name)
    }

    public var json: JSONValue {
        var object = WireObject(fields: set.fieldValues)
        object.set(Stamp.updatedAt.name, updatedAt)
        object.set(Stamp.serverVersion.name, serverVersion)
        object.set(Stamp.deleted.name, deleted)
        return object.json
    }
}

/// One entry of the change feed: the entity's whole current row, tombstones included.
public enum WireChange: WireCodable, Equatable {
    case workout(WireWorkout)
    case set(WireSet)
    case routine(WireRoutine)
    case bodyWeight(WireBodyWeight)
    /// A value the merge overrode (`WireConflict`).
    case conflict(WireConflict)

    static let entityTypeField = "entity_type"
    /// The `entity_type` and key of a conflict entry.
    public static let conflictKey = "conflict"

    public init(json: JSONValue) throws(WireError) {
        if let row = json[EntityType.workout.rawValue], !row.isNull {
            self = .workout(try WireWorkout(json: row))
        } else if let row = json[EntityType.set.rawValue], !row.isNull {
            self = .set(try WireSet(json: row))
        } else if let row = json[EntityType.routine.rawValue], !row.isNull {
            self = .routine(try WireRoutine(json: row))
        } else if let row = json[EntityType.bodyWeight.rawValue], !row.isNull {
            self = .bodyWeight(try WireBodyWeight(json: row))
        } else if let row = json[Self.conflictKey], !row.isNull {
            self = .conflict(try WireConflict(json: row))
        } else {
            throw WireError(field: "change", expected: "a workout, a set, a routine, a body weight or a conflict")
        }
    }

    public var json: JSONValue {
        switch self {
        case .workout(let workout):
            .object([
                Self.entityTypeField: .string(EntityType.workout.rawValue), EntityType.workout.rawValue: workout.json,
            ])
        case .set(let set):
            .object([Self.entityTypeField: .string(EntityType.set.rawValue), EntityType.set.rawValue: set.json])
        case .routine(let routine):
            .object([
                Self.entityTypeField: .string(EntityType.routine.rawValue), EntityType.routine.rawValue: routine.json,
            ])
        case .bodyWeight(let entry):
            .object([
                Self.entityTypeField: .string(EntityType.bodyWeight.rawValue),
                EntityType.bodyWeight.rawValue: entry.json,
            ])
        case .conflict(let conflict):
            .object([Self.entityTypeField: .string(Self.conflictKey), Self.conflictKey: conflict.json])
        }
    }

    /// The entry in local terms: the client's row and the server's stamp, or a tombstone.
    public var pulled: PulledEntity {
        switch self {
        case .workout(let row):
            let stamp = ServerStamp(serverVersion: row.serverVersion, updatedAt: row.updatedAt.map(Timestamp.format))
            return row.deleted == true ? .deletedWorkout(row.id, stamp) : .workout(row.workout, stamp)
        case .set(let row):
            let stamp = ServerStamp(serverVersion: row.serverVersion, updatedAt: row.updatedAt.map(Timestamp.format))
            return row.deleted == true ? .deletedSet(row.id, stamp) : .set(row.set, stamp)
        case .routine(let row):
            return row.pulled
        case .bodyWeight(let row):
            return row.pulled
        case .conflict(let row):
            return .conflict(row.record, ServerStamp(serverVersion: row.serverVersion, updatedAt: nil))
        }
    }

    /// The server's canonical answer to a write of `type` (the entity it now holds), read as a
    /// change; nil when the body is not a whole entity of that type.
    public static func answer(_ type: EntityType, body: JSONValue) -> PulledEntity? {
        switch type {
        case .workout: (try? WireWorkout(json: body)).map { Self.workout($0).pulled }
        case .set: (try? WireSet(json: body)).map { Self.set($0).pulled }
        case .routine: (try? WireRoutine(json: body)).map(\.pulled)
        case .bodyWeight: (try? WireBodyWeight(json: body)).map(\.pulled)
        case .favorite: nil
        }
    }
}

/// A page of `GET /v1/changes`. Entries that cannot be read are kept apart with why, so the
/// client counts and reports them instead of failing the whole page.
public struct WireChangesPage: WireCodable, Equatable {
    public var changes: [WireChange]
    /// Entries of the page that did not read as a workout or a set, with the reason.
    public var unreadable: [WireError]
    public var cursor: String
    public var hasMore: Bool

    public enum Field {
        public static let changes = "changes"
        public static let cursor = "cursor"
        public static let hasMore = "has_more"
    }

    public init(changes: [WireChange], cursor: String, hasMore: Bool) {
        self.changes = changes
        self.unreadable = []
        self.cursor = cursor
        self.hasMore = hasMore
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "page")
        guard case .array(let entries)? = fields.fields[Field.changes] else {
            throw WireError(field: Field.changes, expected: "an array")
        }
        cursor = try fields.string(Field.cursor)
        hasMore = try fields.optionalBool(Field.hasMore) ?? false
        changes = []
        changes.reserveCapacity(entries.count)
        unreadable = []
        for entry in entries {
            do { changes.append(try WireChange(json: entry)) } catch { unreadable.append(error) }
        }
    }

    public var json: JSONValue {
        .object([
            Field.changes: .array(changes.map(\.json)), Field.cursor: .string(cursor), Field.hasMore: .bool(hasMore),
        ])
    }
}

extension Problem {
    /// The wire names, written once.
    public enum Field {
        public static let type = "type"
        public static let title = "title"
        public static let status = "status"
        public static let detail = "detail"
        public static let field = "field"
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "problem")
        self.init(
            type: try fields.string(Field.type), title: try fields.string(Field.title),
            status: try fields.int(Field.status), detail: try fields.optionalString(Field.detail) ?? "",
            field: try fields.optionalString(Field.field))
    }

    public var json: JSONValue {
        var object = WireObject()
        object.set(Field.type, type)
        object.set(Field.title, title)
        object.set(Field.status, status)
        object.set(Field.detail, detail)
        object.set(Field.field, field)
        return object.json
    }
}

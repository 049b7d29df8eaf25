import Foundation
import GRDB
import SpotterCore

/// A problem with a local action, worded for the person who asked for it.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case invalid(ValidationError)
    case notFound(String)
    case notAllowed(String)
    case catalogMissing

    public var description: String {
        switch self {
        case .invalid(let error): "invalid \(error.field): \(error.message)"
        case .notFound(let what): "not found: \(what)"
        case .notAllowed(let why): why
        case .catalogMissing: "the exercise catalogue (exercises.json) is missing from the installation"
        }
    }
}

/// Something the user should be told about a change that did not come from them
/// (a rejected edit rolled back, a set deleted on another device).
public struct StoreNotice: Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The local database: every write the app makes goes through this type, one transaction
/// per user action, so an entity change and its outbox operation are never apart.
public struct SpotterStore: Sendable {
    public let writer: any DatabaseWriter
    /// The user whose operations this store enqueues and claims.
    public let userID: String
    public let clock: any SpotterClock

    /// Opens (creating if needed) a database file in WAL mode and migrates it.
    public static func open(
        path: String, userID: String, clock: any SpotterClock = SystemClock()
    ) throws
        -> SpotterStore
    {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        let pool = try DatabasePool(path: path, configuration: configuration)
        return try SpotterStore(writer: pool, userID: userID, clock: clock)
    }

    /// Wraps an open database (tests pass a queue on a temporary file) and migrates it.
    public init(writer: any DatabaseWriter, userID: String, clock: any SpotterClock = SystemClock()) throws {
        self.writer = writer
        self.userID = userID
        self.clock = clock
        try Schema.migrator.migrate(writer)
    }

    private init(sharing other: SpotterStore, userID: String) {
        writer = other.writer
        self.userID = userID
        clock = other.clock
    }

    /// The same database acting for another user: their queue, not this one's.
    public func forUser(_ userID: String) -> SpotterStore {
        SpotterStore(sharing: self, userID: userID)
    }

    var now: Date { Timestamp.truncated(clock.now()) }
}

// MARK: - Row and value helpers

extension JSONValue {
    /// The SQLite value a wire field is stored as (columns mirror wire names and types).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .bool(let value): (value ? 1 : 0).databaseValue
        case .int(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .string(let value): value.databaseValue
        case .array, .object: canonicalString.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .blob: self = .null
        }
    }
}

enum EntityTable {
    /// Columns a wire patch may write, per entity; anything else in a payload is ignored.
    static let setColumns: Set<String> = [
        "workout_id", "exercise", "position", "kind", "weight", "unit", "reps", "rpe", "distance_m",
        "duration_s", "notes", "performed_at",
    ]
    static let workoutColumns: Set<String> = ["name", "started_at", "ended_at", "notes"]

    static func table(_ type: EntityType) -> String? {
        switch type {
        case .set: "sets"
        case .workout: "workouts"
        case .favorite: nil
        }
    }

    static func columns(_ type: EntityType) -> Set<String> {
        type == .set ? setColumns : type == .workout ? workoutColumns : []
    }

    /// Writes wire fields into an entity's columns.
    static func write(
        _ fields: [String: JSONValue], type: EntityType, id: String, extra: [String: DatabaseValue] = [:], db: Database
    ) throws {
        guard let table = table(type) else { return }
        let allowed = columns(type)
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where allowed.contains(key) {
            assignments.append("\(key) = ?")
            arguments.append(value.databaseValue)
        }
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) {
            assignments.append("\(key) = ?")
            arguments.append(value)
        }
        guard !assignments.isEmpty else { return }
        arguments.append(id.databaseValue)
        // The same field set recurs (every create of a set touches the same fields), so the
        // prepared statement is cached by its text.
        try db.cachedStatement(sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE id = ?")
            .execute(arguments: StatementArguments(arguments))
        if type == .set, fields.keys.contains(where: { $0 == "weight" || $0 == "unit" || $0 == "reps" }) {
            try refreshOneRepMax(setID: id, db: db)
        }
    }

    /// Reads the current values of wire fields, for a before-image.
    static func read(
        _ fields: some Sequence<String>, type: EntityType, id: String, db: Database
    ) throws -> [String: JSONValue] {
        guard let table = table(type) else { return [:] }
        let wanted = fields.filter { columns(type).contains($0) || $0 == "deleted_at" }
        guard !wanted.isEmpty,
            let row = try Row.fetchOne(
                db, sql: "SELECT \(wanted.joined(separator: ", ")) FROM \(table) WHERE id = ?", arguments: [id])
        else { return [:] }
        var image: [String: JSONValue] = [:]
        for name in wanted { image[name] = JSONValue(row[name] as DatabaseValue) }
        return image
    }

    static func refreshOneRepMax(setID: String, db: Database) throws {
        guard
            let row = try Row.fetchOne(db, sql: "SELECT weight, unit, reps FROM sets WHERE id = ?", arguments: [setID])
        else {
            return
        }
        let unit = WeightUnit(rawValue: row["unit"]) ?? .kg
        let e1rm = OneRepMax.epley(weight: (row["weight"] as Double) * unit.kilograms, reps: row["reps"])
        try db.cachedStatement(sql: "UPDATE sets SET e1rm_kg = ? WHERE id = ?").execute(arguments: [e1rm, setID])
    }
}

extension WorkoutSet {
    init(row: Row) {
        self.init(
            id: UUID(uuidString: row["id"]) ?? UUID(), workoutID: UUID(uuidString: row["workout_id"]) ?? UUID(),
            exercise: row["exercise"], position: row["position"], kind: SetKind(rawValue: row["kind"]) ?? .normal,
            weight: row["weight"], unit: WeightUnit(rawValue: row["unit"]) ?? .kg, reps: row["reps"], rpe: row["rpe"],
            distanceM: row["distance_m"], durationS: row["duration_s"], notes: row["notes"],
            performedAt: Timestamp.parse(row["performed_at"]) ?? Date(timeIntervalSince1970: 0))
    }

    /// The client-owned fields as a create sends them (wire names; nil fields omitted).
    var wireFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "id": .string(id.wireString),
            "workout_id": .string(workoutID.wireString),
            "exercise": .string(exercise),
            "position": .int(Int64(position)),
            "kind": .string(kind.rawValue),
            "weight": .double(weight),
            "unit": .string(unit.rawValue),
            "reps": .int(Int64(reps)),
            "performed_at": .string(Timestamp.format(performedAt)),
        ]
        if let rpe { fields["rpe"] = .double(rpe) }
        if let distanceM { fields["distance_m"] = .double(distanceM) }
        if let durationS { fields["duration_s"] = .double(durationS) }
        if let notes { fields["notes"] = .string(notes) }
        return fields
    }
}

extension Workout {
    init(row: Row) {
        self.init(
            id: UUID(uuidString: row["id"]) ?? UUID(), name: row["name"],
            startedAt: Timestamp.parse(row["started_at"]) ?? Date(timeIntervalSince1970: 0),
            endedAt: (row["ended_at"] as String?).flatMap(Timestamp.parse), notes: row["notes"])
    }

    var wireFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "id": .string(id.wireString),
            "name": .string(name),
            "started_at": .string(Timestamp.format(startedAt)),
        ]
        if let endedAt { fields["ended_at"] = .string(Timestamp.format(endedAt)) }
        if let notes { fields["notes"] = .string(notes) }
        return fields
    }
}

import Foundation

/// How a field is kept in each of the three schemas that hold it: the device's SQLite, the
/// server's SQLite and PostgreSQL. JSON documents (a workout's plan, a routine's exercises) and
/// times (RFC 3339) are text everywhere; ids are text.
public enum ColumnType: Sendable, Equatable {
    case text, integer, real, flag

    /// The declared type in a SQLite `CREATE TABLE` (the device's and the server's file).
    public var sqliteDeclaration: String {
        switch self {
        case .text: "TEXT"
        case .integer, .flag: "INTEGER"
        case .real: "REAL"
        }
    }

    /// `information_schema.columns.data_type` in PostgreSQL.
    public var postgresDataType: String {
        switch self {
        case .text: "text"
        case .integer: "bigint"
        case .real: "double precision"
        case .flag: "boolean"
        }
    }
}

/// The fields of one synced entity, named once: each case's raw value is the field's key on the
/// wire and its column in every schema, with the column's type and whether it may be null. The
/// wire model, the stores' column lists and the server's merge read their names from here, and
/// a test compares every schema with it, so a field added to one place and not another fails.
public protocol EntityColumn: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// The table that holds the entity, on the device and on the server.
    static var table: String { get }
    var type: ColumnType { get }
    var isOptional: Bool { get }
    /// Fields that are one value (a weight and its unit): an edit of one sends them all, and
    /// the server merges them as one, so no device ever ends with one's weight in another's unit.
    static var together: [Self] { get }
}

extension EntityColumn {
    public var name: String { rawValue }

    public static var together: [Self] { [] }

    /// Every column's name, in declaration order: a statement's column list.
    public static var names: [String] { allCases.map(\.rawValue) }
}

/// What the server adds to every synced row it keeps and sends: when and in which change it
/// last wrote it, and whether it is a tombstone.
public enum ServerStampColumn: String, EntityColumn {
    case updatedAt = "updated_at"
    case serverVersion = "server_version"
    case deleted

    public static let table = ""

    public var type: ColumnType {
        switch self {
        case .updatedAt: .text
        case .serverVersion: .integer
        case .deleted: .flag
        }
    }

    public var isOptional: Bool { false }
}

extension Workout {
    public enum Column: String, EntityColumn {
        case id
        case name
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case notes
        /// The routine's targets it was started with (a JSON document); set by its create only.
        case plan
        /// A note on each exercise, by name (a JSON object of strings).
        case exerciseNotes = "exercise_notes"

        public static let table = "workouts"

        public var type: ColumnType { .text }

        public var isOptional: Bool {
            switch self {
            case .id, .name, .startedAt: false
            case .endedAt, .notes, .plan, .exerciseNotes: true
            }
        }
    }
}

extension WorkoutSet {
    public enum Column: String, EntityColumn {
        case id
        case workoutID = "workout_id"
        case exercise
        case position
        case kind
        case weight
        case unit
        case reps
        case rpe
        case distanceM = "distance_m"
        case durationS = "duration_s"
        case notes
        case performedAt = "performed_at"
        /// The superset its exercise is in within the workout (1-999), or none.
        case superset

        public static let table = "sets"
        public static let together: [Self] = [.weight, .unit]

        public var type: ColumnType {
            switch self {
            case .id, .workoutID, .exercise, .kind, .unit, .notes, .performedAt: .text
            case .position, .reps, .superset: .integer
            case .weight, .rpe, .distanceM, .durationS: .real
            }
        }

        public var isOptional: Bool {
            switch self {
            case .rpe, .distanceM, .durationS, .notes, .superset: true
            case .id, .workoutID, .exercise, .position, .kind, .weight, .unit, .reps, .performedAt: false
            }
        }
    }
}

extension Routine {
    public enum Column: String, EntityColumn {
        case id
        case name
        case notes
        case restSeconds = "rest_s"
        /// The ordered planned exercises, one JSON document (edited and synced as one field).
        case exercises

        public static let table = "routines"

        public var type: ColumnType { self == .restSeconds ? .integer : .text }

        public var isOptional: Bool { self == .notes || self == .restSeconds }
    }
}

/// A starred exercise: its name is its whole state.
public struct Favorite: Sendable, Equatable, Hashable {
    public var exercise: String

    public init(exercise: String) {
        self.exercise = exercise
    }

    public enum Column: String, EntityColumn {
        case exercise

        public static let table = "favorites"

        public var type: ColumnType { .text }
        public var isOptional: Bool { false }
    }
}

// MARK: Values, as the wire and every schema keep them

extension Workout {
    /// One field's value as it is sent and stored (ids lower-case, times RFC 3339, the plan a JSON
    /// document); nil when unset.
    public func value(_ column: Column) -> JSONValue? {
        switch column {
        case .id: .string(id.wireString)
        case .name: .string(name)
        case .startedAt: .string(Timestamp.format(startedAt))
        case .endedAt: endedAt.map { .string(Timestamp.format($0)) }
        case .notes: notes.map(JSONValue.string)
        case .plan: plan?.json
        case .exerciseNotes: exerciseNotes.map { .object($0.mapValues(JSONValue.string)) }
        }
    }
}

extension WorkoutSet {
    /// One field's value as it is sent and stored; nil when unset.
    public func value(_ column: Column) -> JSONValue? {
        switch column {
        case .id: .string(id.wireString)
        case .workoutID: .string(workoutID.wireString)
        case .exercise: .string(exercise)
        case .position: .int(Int64(position))
        case .kind: .string(kind.rawValue)
        case .weight: .double(weight)
        case .unit: .string(unit.rawValue)
        case .reps: .int(Int64(reps))
        case .rpe: rpe.map(JSONValue.double)
        case .distanceM: distanceM.map(JSONValue.double)
        case .durationS: durationS.map(JSONValue.double)
        case .notes: notes.map(JSONValue.string)
        case .performedAt: .string(Timestamp.format(performedAt))
        case .superset: superset.map { .int(Int64($0)) }
        }
    }
}

/// An entity whose every field reads through `value(_:)`: its wire object and the values its
/// rows store derive from that one switch.
public protocol ColumnValues {
    associatedtype Column: EntityColumn
    func value(_ column: Column) -> JSONValue?
}

extension ColumnValues {
    /// Every field that is set, by name: what a create sends.
    public var fieldValues: [String: JSONValue] {
        var fields = [String: JSONValue](minimumCapacity: 16)  // a set's fields and the stamp, without rehashing
        for column in Column.allCases {
            if let value = value(column) { fields[column.name] = value }
        }
        return fields
    }

    /// Every column's value in `Column.allCases` order (null when unset): the arguments of a
    /// statement whose column list is `Column.names`. A document (a plan, a routine's exercises)
    /// is stored as its canonical text.
    public var columnValues: [JSONValue] { Column.allCases.map { value($0) ?? .null } }
}

extension Routine {
    /// One field's value as it is sent and stored (its exercises one JSON document); nil when unset.
    public func value(_ column: Column) -> JSONValue? {
        switch column {
        case .id: .string(id.wireString)
        case .name: .string(name)
        case .notes: notes.map(JSONValue.string)
        case .restSeconds: restSeconds.map { .int(Int64($0)) }
        case .exercises: Self.exercisesJSON(exercises)
        }
    }

    /// Reads a routine's fields, whoever holds them; exercises that do not read as a routine's
    /// are unreadable, with the rule they break.
    public init(reading cells: some ColumnReader) throws {
        let document = try cells.document(Column.exercises.name) ?? .array([])
        let exercises: [RoutineExercise]
        do { exercises = try Self.exercises(from: document) } catch {
            throw cells.unreadable(Column.exercises.name, expected: "a valid routine (\(error.field) \(error.message))")
        }
        self.init(
            id: try cells.uuid(Column.id), name: try cells.string(Column.name),
            notes: try cells.optionalString(Column.notes),
            restSeconds: try cells.integer(Column.restSeconds.name).map { Int(clamping: $0) }, exercises: exercises)
    }
}

extension Favorite {
    public func value(_ column: Column) -> JSONValue? {
        switch column {
        case .exercise: .string(exercise)
        }
    }

    /// Reads a starred exercise's name, whoever holds it.
    public init(reading cells: some ColumnReader) throws {
        self.init(exercise: try cells.string(Column.exercise))
    }
}

extension Workout: ColumnValues {}
extension Favorite: ColumnValues {}
extension WorkoutSet: ColumnValues {}
extension Routine: ColumnValues {}

/// `?, ?, ?` for `count` values.
public func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

// MARK: Reading, the same way from a device row, a server row and a wire object

/// One entity's cells by column name, wherever they come from (a device row, a server row, a
/// wire object): nil for NULL or absent, a throw when a cell holds another type. How a row
/// becomes a workout or a set is written once, on top of these (`init(reading:)`).
public protocol ColumnReader {
    func text(_ column: String) throws -> String?
    func integer(_ column: String) throws -> Int64?
    func real(_ column: String) throws -> Double?
    /// A JSON document (a workout's plan): the stored text parsed, or the wire's value itself.
    func document(_ column: String) throws -> JSONValue?
    /// The error for a cell that is absent or unreadable where the column needs `expected`.
    func unreadable(_ column: String, expected: String) -> any Error
}

extension ColumnReader {
    func string<C: EntityColumn>(_ column: C) throws -> String {
        guard let text = try text(column.name) else { throw unreadable(column.name, expected: "a string") }
        return text
    }

    func optionalString<C: EntityColumn>(_ column: C) throws -> String? { try text(column.name) }

    func uuid<C: EntityColumn>(_ column: C) throws -> UUID {
        guard let id = UUID(wire: try string(column)) else { throw unreadable(column.name, expected: "a UUID") }
        return id
    }

    func date<C: EntityColumn>(_ column: C) throws -> Date {
        guard let date = try optionalDate(column) else {
            throw unreadable(column.name, expected: "an RFC 3339 time")
        }
        return date
    }

    func optionalDate<C: EntityColumn>(_ column: C) throws -> Date? {
        guard let text = try text(column.name) else { return nil }
        guard let date = Timestamp.parse(text) else { throw unreadable(column.name, expected: "an RFC 3339 time") }
        return date
    }

    func int<C: EntityColumn>(_ column: C) throws -> Int {
        guard let value = try integer(column.name), let narrowed = Int(exactly: value) else {
            throw unreadable(column.name, expected: "an integer")
        }
        return narrowed
    }

    func double<C: EntityColumn>(_ column: C) throws -> Double {
        guard let value = try real(column.name) else { throw unreadable(column.name, expected: "a number") }
        return value
    }

    func optionalDouble<C: EntityColumn>(_ column: C) throws -> Double? { try real(column.name) }

    func enumeration<C: EntityColumn, Value: RawRepresentable>(_ column: C) throws -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: try string(column)) else {
            throw unreadable(column.name, expected: "one of the known values")
        }
        return value
    }
}

extension Workout {
    /// Reads a workout's fields, whoever holds them.
    public init(reading cells: some ColumnReader) throws {
        var plan: WorkoutPlan?
        if let document = try cells.document(Column.plan.name) {
            do { plan = try WorkoutPlan(json: document) } catch {
                throw cells.unreadable(Column.plan.name, expected: "a valid plan (\(error.field) \(error.message))")
            }
        }
        var exerciseNotes: [String: String]?
        if let document = try cells.document(Column.exerciseNotes.name) {
            do { exerciseNotes = try ExerciseNotes.read(document) } catch {
                throw cells.unreadable(Column.exerciseNotes.name, expected: "notes by exercise (\(error.message))")
            }
        }
        self.init(
            id: try cells.uuid(Column.id), name: try cells.string(Column.name),
            startedAt: try cells.date(Column.startedAt), endedAt: try cells.optionalDate(Column.endedAt),
            notes: try cells.optionalString(Column.notes), plan: plan, exerciseNotes: exerciseNotes)
    }
}

extension WorkoutSet {
    /// Reads a set's fields, whoever holds them.
    public init(reading cells: some ColumnReader) throws {
        self.init(
            id: try cells.uuid(Column.id), workoutID: try cells.uuid(Column.workoutID),
            exercise: try cells.string(Column.exercise), position: try cells.int(Column.position),
            kind: try cells.enumeration(Column.kind), weight: try cells.double(Column.weight),
            unit: try cells.enumeration(Column.unit), reps: try cells.int(Column.reps),
            rpe: try cells.optionalDouble(Column.rpe), distanceM: try cells.optionalDouble(Column.distanceM),
            durationS: try cells.optionalDouble(Column.durationS), notes: try cells.optionalString(Column.notes),
            performedAt: try cells.date(Column.performedAt),
            superset: try cells.integer(Column.superset.name).map { Int(clamping: $0) })
    }
}

import Foundation
import SpotterCore

/// A routine on the wire: its name, notes, rest and the whole ordered list of planned exercises
/// (one field, `exercises`: a routine is edited and synced as one document, last write wins).
public struct WireRoutine: WireCodable, Equatable {
    public var routine: Routine
    public var updatedAt: Date?
    public var serverVersion: Int64?
    public var deleted: Bool?

    public typealias Field = Routine.Field
    static let updatedAtField = "updated_at"
    static let serverVersionField = "server_version"
    static let deletedField = "deleted"

    public init(_ routine: Routine, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil) {
        self.routine = routine
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "routine")
        let exercises: [RoutineExercise]
        do {
            exercises = try Routine.exercises(from: fields.optionalValue(Field.exercises) ?? .array([]))
        } catch {
            throw WireError(field: error.field, expected: "a valid routine (\(error.message))")
        }
        let restSeconds = try fields.optionalInt64(Field.restSeconds).map { Int($0) }
        routine = Routine(
            id: try fields.uuid(Field.id), name: try fields.string(Field.name),
            notes: try fields.optionalString(Field.notes), restSeconds: restSeconds, exercises: exercises)
        updatedAt = try fields.optionalDate(Self.updatedAtField)
        serverVersion = try fields.optionalInt64(Self.serverVersionField)
        deleted = try fields.optionalBool(Self.deletedField)
    }

    public var json: JSONValue {
        var object = WireObject()
        object.set(Field.id, routine.id)
        object.set(Field.name, routine.name)
        object.set(Field.notes, routine.notes)
        object.set(Field.restSeconds, routine.restSeconds.map { Int64($0) })
        object.fields[Field.exercises] = Routine.exercisesJSON(routine.exercises)
        object.set(Self.updatedAtField, updatedAt)
        object.set(Self.serverVersionField, serverVersion)
        object.set(Self.deletedField, deleted)
        return object.json
    }

    /// The entry in local terms: the routine and the server's stamp, or a tombstone.
    public var pulled: PulledEntity {
        let stamp = ServerStamp(serverVersion: serverVersion, updatedAt: updatedAt.map(Timestamp.format))
        return deleted == true ? .deletedRoutine(routine.id, stamp) : .routine(routine, stamp)
    }
}

/// `GET /v1/routines`.
public struct RoutineList: WireCodable, Equatable {
    public var routines: [WireRoutine]
    public init(routines: [WireRoutine]) { self.routines = routines }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "routines")
        guard case .array(let elements)? = fields.fields["routines"] else {
            throw WireError(field: "routines", expected: "an array")
        }
        var routines: [WireRoutine] = []
        for element in elements { routines.append(try WireRoutine(json: element)) }
        self.init(routines: routines)
    }

    public var json: JSONValue { .object(["routines": .array(routines.map(\.json))]) }
}

extension Route {
    public static let routines = "/v1/routines"
    public static func routine(_ id: UUID) -> String { "\(routines)/\(id.wireString)" }
}

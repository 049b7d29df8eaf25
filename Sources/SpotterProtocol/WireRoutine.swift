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
    static let updatedAtField = ServerStampColumn.updatedAt.name
    static let serverVersionField = ServerStampColumn.serverVersion.name
    static let deletedField = ServerStampColumn.deleted.name

    public init(_ routine: Routine, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil) {
        self.routine = routine
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "routine")
        do { routine = try Routine(reading: fields) } catch { throw Self.wireError(error) }
        updatedAt = try fields.optionalDate(Self.updatedAtField)
        serverVersion = try fields.optionalInt64(Self.serverVersionField)
        deleted = try fields.optionalBool(Self.deletedField)
    }

    public var json: JSONValue {
        var object = WireObject(fields: routine.fieldValues)
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

import Foundation
import SpotterCore

/// A weigh-in on the wire: its fields as `BodyWeight.Column` names them, and the server's stamp.
public struct WireBodyWeight: WireCodable, Equatable {
    public var bodyWeight: BodyWeight
    public var updatedAt: Date?
    public var serverVersion: Int64?
    public var deleted: Bool?

    public typealias Column = BodyWeight.Column
    static let updatedAtField = ServerStampColumn.updatedAt.name
    static let serverVersionField = ServerStampColumn.serverVersion.name
    static let deletedField = ServerStampColumn.deleted.name

    public init(
        _ bodyWeight: BodyWeight, updatedAt: Date? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil
    ) {
        self.bodyWeight = bodyWeight
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, EntityType.bodyWeight.rawValue)
        do { bodyWeight = try BodyWeight(reading: fields) } catch { throw Self.wireError(error) }
        updatedAt = try fields.optionalDate(Self.updatedAtField)
        serverVersion = try fields.optionalInt64(Self.serverVersionField)
        deleted = try fields.optionalBool(Self.deletedField)
    }

    public var json: JSONValue {
        var object = WireObject(fields: bodyWeight.fieldValues)
        object.set(Self.updatedAtField, updatedAt)
        object.set(Self.serverVersionField, serverVersion)
        object.set(Self.deletedField, deleted)
        return object.json
    }

    /// The entry in local terms: the weigh-in and the server's stamp, or a tombstone.
    public var pulled: PulledEntity {
        let stamp = ServerStamp(serverVersion: serverVersion, updatedAt: updatedAt.map(Timestamp.format))
        return deleted == true ? .deletedBodyWeight(bodyWeight.id, stamp) : .bodyWeight(bodyWeight, stamp)
    }
}

/// `GET /v1/body-weights`.
public struct BodyWeightList: WireCodable, Equatable {
    public static let key = "body_weights"
    public var bodyWeights: [WireBodyWeight]
    public init(bodyWeights: [WireBodyWeight]) { self.bodyWeights = bodyWeights }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, Self.key)
        guard case .array(let elements)? = fields.fields[Self.key] else {
            throw WireError(field: Self.key, expected: "an array")
        }
        var entries: [WireBodyWeight] = []
        for element in elements { entries.append(try WireBodyWeight(json: element)) }
        self.init(bodyWeights: entries)
    }

    public var json: JSONValue { .object([Self.key: .array(bodyWeights.map(\.json))]) }
}

extension Route {
    public static let bodyWeights = "/v1/body-weights"
    public static func bodyWeight(_ id: UUID) -> String { "\(bodyWeights)/\(id.wireString)" }
}

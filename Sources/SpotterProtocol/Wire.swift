import Foundation
import SpotterCore

/// Header names of the idempotency contract (draft-ietf-httpapi-idempotency-key-header).
public enum HeaderName {
    public static let idempotencyKey = "Idempotency-Key"
    public static let idempotentReplayed = "Idempotent-Replayed"
    public static let retryAfter = "Retry-After"
    public static let authorization = "Authorization"
}

/// Paths of the sync API (SPEC 5.1), built in one place so client and server agree.
public enum Route {
    public static let workouts = "/v1/workouts"
    public static let sets = "/v1/sets"
    public static let batch = "/v1/batch"
    public static let changes = "/v1/changes"
    /// `GET /v1/me`: who the bearer token belongs to, `{"user": "…"}`.
    public static let me = "/v1/me"
    public static let favorites = "/v1/favorites"
    public static let healthz = "/healthz"
    public static let metrics = "/metrics"

    public static func set(_ id: UUID) -> String { "\(sets)/\(id.wireString)" }
    public static func favorite(_ exercise: String) -> String {
        "\(favorites)/\(exercise.addingPercentEncoding(withAllowedCharacters: .urlPathAllowedComponent) ?? exercise)"
    }
}

extension CharacterSet {
    /// Characters that may stand unescaped in one path segment.
    public static let urlPathAllowedComponent: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/?#%")
        return set
    }()
}

/// Problem types (RFC 9457 `type`) that a client must tell apart.
public enum ProblemType {
    public static let keyInUse = "urn:spotter:problem:idempotency-key-in-use"
    public static let keyReused = "urn:spotter:problem:idempotency-key-reused"
    public static let validation = "urn:spotter:problem:validation"
    public static let notFound = "urn:spotter:problem:not-found"
    public static let conflict = "urn:spotter:problem:conflict"
    public static let malformed = "urn:spotter:problem:malformed"
    public static let tooLarge = "urn:spotter:problem:too-large"
    public static let unauthorized = "urn:spotter:problem:unauthorized"
    public static let unavailable = "urn:spotter:problem:unavailable"
    public static let missingKey = "urn:spotter:problem:idempotency-key-missing"
}

/// An error body, `application/problem+json` (RFC 9457).
public struct Problem: WireCodable, Equatable, Error {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// The field a validation problem is about, when there is one.
    public var field: String?

    public init(type: String, title: String, status: Int, detail: String, field: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.field = field
    }
}

/// A workout on the wire.
public struct WorkoutDTO: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var startedAt: String
    public var endedAt: String?
    public var notes: String?
    public var updatedAt: String?
    public var serverVersion: Int64?
    public var deleted: Bool?

    enum CodingKeys: String, CodingKey {
        case id, name, notes, deleted
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case updatedAt = "updated_at"
        case serverVersion = "server_version"
    }

    public init(
        id: String, name: String, startedAt: String, endedAt: String? = nil, notes: String? = nil,
        updatedAt: String? = nil, serverVersion: Int64? = nil, deleted: Bool? = nil
    ) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.notes = notes
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }
}

/// A set on the wire.
public struct SetDTO: Codable, Sendable, Equatable {
    public var id: String
    public var workoutID: String
    public var exercise: String
    public var position: Int
    public var kind: String
    public var weight: Double
    public var unit: String
    public var reps: Int
    public var rpe: Double?
    public var distanceM: Double?
    public var durationS: Double?
    public var notes: String?
    public var performedAt: String
    public var updatedAt: String?
    public var serverVersion: Int64?
    public var deleted: Bool?

    enum CodingKeys: String, CodingKey {
        case id, exercise, position, kind, weight, unit, reps, rpe, notes, deleted
        case workoutID = "workout_id"
        case distanceM = "distance_m"
        case durationS = "duration_s"
        case performedAt = "performed_at"
        case updatedAt = "updated_at"
        case serverVersion = "server_version"
    }

    public init(
        id: String, workoutID: String, exercise: String, position: Int, kind: String, weight: Double,
        unit: String, reps: Int, rpe: Double? = nil, distanceM: Double? = nil, durationS: Double? = nil,
        notes: String? = nil, performedAt: String, updatedAt: String? = nil, serverVersion: Int64? = nil,
        deleted: Bool? = nil
    ) {
        self.id = id
        self.workoutID = workoutID
        self.exercise = exercise
        self.position = position
        self.kind = kind
        self.weight = weight
        self.unit = unit
        self.reps = reps
        self.rpe = rpe
        self.distanceM = distanceM
        self.durationS = durationS
        self.notes = notes
        self.performedAt = performedAt
        self.updatedAt = updatedAt
        self.serverVersion = serverVersion
        self.deleted = deleted
    }
}

/// One operation inside `POST /v1/batch`; it behaves exactly as its single route would.
public struct BatchOp: Codable, Sendable, Equatable {
    public var idempotencyKey: String?
    public var method: String
    public var path: String
    public var body: JSONValue?

    enum CodingKeys: String, CodingKey {
        case method, path, body
        case idempotencyKey = "idempotency_key"
    }

    public init(idempotencyKey: String?, method: String, path: String, body: JSONValue?) {
        self.idempotencyKey = idempotencyKey
        self.method = method
        self.path = path
        self.body = body
    }
}

public struct BatchRequest: Codable, Sendable, Equatable {
    public var ops: [BatchOp]
    public init(ops: [BatchOp]) { self.ops = ops }
}

/// The result of one batched operation, in the order the ops were sent.
public struct BatchResult: Codable, Sendable, Equatable {
    public var idempotencyKey: String?
    public var status: Int
    public var body: JSONValue?
    public var replayed: Bool

    enum CodingKeys: String, CodingKey {
        case status, body, replayed
        case idempotencyKey = "idempotency_key"
    }

    public init(idempotencyKey: String?, status: Int, body: JSONValue?, replayed: Bool) {
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.body = body
        self.replayed = replayed
    }
}

public struct BatchResponse: Codable, Sendable, Equatable {
    public var results: [BatchResult]
    public init(results: [BatchResult]) { self.results = results }
}

/// One entry of the change feed: the entity's whole current row, tombstones included.
public struct ChangeDTO: Codable, Sendable, Equatable {
    public var entityType: String
    public var workout: WorkoutDTO?
    public var set: SetDTO?

    enum CodingKeys: String, CodingKey {
        case workout, set
        case entityType = "entity_type"
    }

    public init(workout: WorkoutDTO) {
        entityType = EntityType.workout.rawValue
        self.workout = workout
        set = nil
    }

    public init(set: SetDTO) {
        entityType = EntityType.set.rawValue
        workout = nil
        self.set = set
    }
}

/// A page of `GET /v1/changes`.
public struct ChangesPage: Codable, Sendable, Equatable {
    public var changes: [ChangeDTO]
    public var cursor: String
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey {
        case changes, cursor
        case hasMore = "has_more"
    }

    public init(changes: [ChangeDTO], cursor: String, hasMore: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
    }
}

/// `GET /v1/favorites`.
public struct FavoritesDTO: Codable, Sendable, Equatable {
    public var favorites: [String]
    public init(favorites: [String]) { self.favorites = favorites }
}

/// JSON coders configured for the wire format (snake_case keys are explicit in the types).
public enum WireJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        JSONDecoder()
    }

    /// Encodes a wire value into a `JSONValue`, e.g. to embed it in a batch.
    public static func value(_ encodable: some Encodable) throws -> JSONValue {
        try decoder().decode(JSONValue.self, from: encoder().encode(encodable))
    }
}

// MARK: - Reading batches without Codable (the sync hot path)

extension BatchOp {
    /// Reads one op of a batch; nil when it does not have the op's shape.
    public init?(json: JSONValue) {
        guard let fields = json.objectValue, let method = fields["method"]?.stringValue,
            let path = fields["path"]?.stringValue
        else { return nil }
        let key = fields["idempotency_key"]
        guard key == nil || key == .null || key?.stringValue != nil else { return nil }
        let body = fields["body"]
        self.init(idempotencyKey: key?.stringValue, method: method, path: path, body: body == .null ? nil : body)
    }
}

extension BatchRequest {
    /// Reads `{"ops":[…]}`; nil when the document does not have that shape.
    public init?(json: JSONValue) {
        guard case .array(let elements)? = json["ops"] else { return nil }
        var ops: [BatchOp] = []
        ops.reserveCapacity(elements.count)
        for element in elements {
            guard let op = BatchOp(json: element) else { return nil }
            ops.append(op)
        }
        self.init(ops: ops)
    }
}

extension BatchResponse {
    /// Reads `{"results":[…]}`; nil when the document does not have that shape.
    public init?(json: JSONValue) {
        guard case .array(let elements)? = json["results"] else { return nil }
        var results: [BatchResult] = []
        results.reserveCapacity(elements.count)
        for element in elements {
            guard let status = element["status"]?.intValue else { return nil }
            let body = element["body"]
            results.append(
                BatchResult(
                    idempotencyKey: element["idempotency_key"]?.stringValue, status: status,
                    body: body == .null ? nil : body, replayed: element["replayed"] == .bool(true)))
        }
        self.init(results: results)
    }
}

import Foundation
import SpotterCore

/// Header names of the idempotency contract (draft-ietf-httpapi-idempotency-key-header).
public enum HeaderName {
    public static let idempotencyKey = "Idempotency-Key"
    public static let idempotentReplayed = "Idempotent-Replayed"
    public static let retryAfter = "Retry-After"
    public static let authorization = "Authorization"
    /// On every change-feed answer: the name of the server's database, which its cursors count in.
    public static let serverIdentity = "Spotter-Server-Identity"
    /// On a change-feed answer to a cursor past anything this database handed out (it was
    /// restored from an older copy): the highest version it has.
    public static let feedHead = "Spotter-Feed-Head"
}

/// Paths of the sync API (see openapi.yaml), built in one place so client and server agree.
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

/// One operation inside `POST /v1/batch`; it behaves exactly as its single route would.
public struct BatchOp: WireCodable, Equatable {
    public var idempotencyKey: String?
    public var method: String
    public var path: String
    public var body: JSONValue?

    public enum Field {
        public static let idempotencyKey = "idempotency_key"
        public static let method = "method"
        public static let path = "path"
        public static let body = "body"
    }

    public init(idempotencyKey: String?, method: String, path: String, body: JSONValue?) {
        self.idempotencyKey = idempotencyKey
        self.method = method
        self.path = path
        self.body = body
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "op")
        self.init(
            idempotencyKey: try fields.optionalString(Field.idempotencyKey), method: try fields.string(Field.method),
            path: try fields.string(Field.path), body: fields.optionalValue(Field.body))
    }

    public var json: JSONValue {
        .object([
            Field.idempotencyKey: JSONValue(idempotencyKey), Field.method: .string(method), Field.path: .string(path),
            Field.body: body ?? .null,
        ])
    }
}

/// `POST /v1/batch`: `{"ops": […]}`.
public struct BatchRequest: WireCodable, Equatable {
    public var ops: [BatchOp]
    public init(ops: [BatchOp]) { self.ops = ops }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "batch")
        guard case .array(let elements)? = fields.fields["ops"] else {
            throw WireError(field: "ops", expected: "an array")
        }
        var ops: [BatchOp] = []
        ops.reserveCapacity(elements.count)
        for element in elements { ops.append(try BatchOp(json: element)) }
        self.init(ops: ops)
    }

    public var json: JSONValue { .object(["ops": .array(ops.map(\.json))]) }
}

/// The result of one batched operation, in the order the ops were sent.
public struct BatchResult: WireCodable, Equatable {
    public var idempotencyKey: String?
    public var status: Int
    public var body: JSONValue?
    public var replayed: Bool

    public enum Field {
        public static let idempotencyKey = "idempotency_key"
        public static let status = "status"
        public static let body = "body"
        public static let replayed = "replayed"
    }

    public init(idempotencyKey: String?, status: Int, body: JSONValue?, replayed: Bool) {
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.body = body
        self.replayed = replayed
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "result")
        self.init(
            idempotencyKey: try fields.optionalString(Field.idempotencyKey), status: try fields.int(Field.status),
            body: fields.optionalValue(Field.body), replayed: try fields.optionalBool(Field.replayed) ?? false)
    }

    public var json: JSONValue {
        .object([
            Field.idempotencyKey: JSONValue(idempotencyKey), Field.status: .int(Int64(status)),
            Field.body: body ?? .null, Field.replayed: .bool(replayed),
        ])
    }
}

/// The answer to `POST /v1/batch`: `{"results": […]}`.
public struct BatchResponse: WireCodable, Equatable {
    public var results: [BatchResult]
    public init(results: [BatchResult]) { self.results = results }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "batch response")
        guard case .array(let elements)? = fields.fields["results"] else {
            throw WireError(field: "results", expected: "an array")
        }
        var results: [BatchResult] = []
        results.reserveCapacity(elements.count)
        for element in elements { results.append(try BatchResult(json: element)) }
        self.init(results: results)
    }

    public var json: JSONValue { .object(["results": .array(results.map(\.json))]) }
}

/// `GET /v1/favorites`.
public struct FavoritesDTO: WireCodable, Equatable {
    public var favorites: [String]
    public init(favorites: [String]) { self.favorites = favorites }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "favorites")
        guard case .array(let names)? = fields.fields["favorites"] else {
            throw WireError(field: "favorites", expected: "an array of names")
        }
        var favorites: [String] = []
        for name in names {
            guard let text = name.stringValue else {
                throw WireError(field: "favorites", expected: "an array of names")
            }
            favorites.append(text)
        }
        self.init(favorites: favorites)
    }

    public var json: JSONValue { .object(["favorites": .array(favorites.map(JSONValue.string))]) }
}

/// The decoder for wire documents (the wire types write themselves: `json.canonicalData`).
public enum WireJSON {
    public static func decoder() -> JSONDecoder {
        JSONDecoder()
    }
}

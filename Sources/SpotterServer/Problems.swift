import Foundation
import SpotterCore
import SpotterProtocol

/// The problem documents (RFC 9457) this server answers with, in one place so every route
/// words the same failure the same way.
enum Problems {
    static let contentType = "application/problem+json"
    static let rateLimitedType = "urn:spotter:problem:rate-limited"
    static let methodNotAllowedType = "urn:spotter:problem:method-not-allowed"
    static let internalType = "urn:spotter:problem:internal"

    static func validation(_ error: ValidationError) -> Problem {
        Problem(
            type: ProblemType.validation, title: "Validation failed", status: 422,
            detail: "\(error.field) \(error.message)", field: error.field)
    }

    static func malformed(_ detail: String, field: String? = nil) -> Problem {
        Problem(type: ProblemType.malformed, title: "Malformed request", status: 400, detail: detail, field: field)
    }

    static func missingKey(_ detail: String) -> Problem {
        Problem(
            type: ProblemType.missingKey, title: "Idempotency-Key missing or invalid", status: 400, detail: detail,
            field: HeaderName.idempotencyKey)
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(type: ProblemType.notFound, title: "Not found", status: 404, detail: detail)
    }

    static func methodNotAllowed(_ method: String, _ path: String) -> Problem {
        Problem(
            type: methodNotAllowedType, title: "Method not allowed", status: 405,
            detail: "\(method) is not supported on \(path)")
    }

    static func conflict(_ detail: String, field: String? = nil) -> Problem {
        Problem(type: ProblemType.conflict, title: "Conflict", status: 409, detail: detail, field: field)
    }

    static let keyInUse = Problem(
        type: ProblemType.keyInUse, title: "Request in progress", status: 409,
        detail: "a request with this Idempotency-Key is still being processed; retry shortly")

    static let keyReused = Problem(
        type: ProblemType.keyReused, title: "Idempotency-Key reused", status: 422,
        detail: "this Idempotency-Key was already used for a different request", field: HeaderName.idempotencyKey)

    static let unauthorized = Problem(
        type: ProblemType.unauthorized, title: "Unauthorized", status: 401,
        detail: "a valid 'Authorization: Bearer <token>' header is required")

    static func tooLarge(limit: Int) -> Problem {
        Problem(
            type: ProblemType.tooLarge, title: "Payload too large", status: 413,
            detail: "the request body exceeds \(limit) bytes")
    }

    static func uriTooLong(limit: Int) -> Problem {
        Problem(
            type: ProblemType.malformed, title: "URI too long", status: 414,
            detail: "the request path exceeds \(limit) bytes")
    }

    static let injectedUnavailable = Problem(
        type: ProblemType.unavailable, title: "Service unavailable", status: 503,
        detail: "injected failure (chaos mode); retry later")

    static let injectedRateLimit = Problem(
        type: rateLimitedType, title: "Too many requests", status: 429,
        detail: "injected rate limit (chaos mode); retry after 2 seconds")

    static func userBusy(limit: Int) -> Problem {
        Problem(
            type: rateLimitedType, title: "Too many requests", status: 429,
            detail: "this account has \(limit) requests in progress already, its limit; retry after 1 second")
    }

    static let storeUnavailable = Problem(
        type: ProblemType.unavailable, title: "Service unavailable", status: 503,
        detail: "the server store does not answer")

    static let internalError = Problem(
        type: internalType, title: "Internal server error", status: 500,
        detail: "the request failed on the server and was not applied; retry it")
}

/// What one API call answers, independent of HTTP plumbing, so a single route and an
/// operation inside a batch produce the very same thing.
struct APIResponse: Sendable {
    var status: Int
    var body: Data?
    var contentType: String?
    var headers: [String: String] = [:]
    var replayed = false

    /// A wire type writes itself (canonical JSON, sorted keys: a change-feed page of thousands
    /// of rows goes straight from the typed rows to bytes).
    static func json(_ status: Int, _ value: some WireCodable) -> APIResponse {
        APIResponse(status: status, body: value.json.canonicalData, contentType: "application/json")
    }

    static func json(_ status: Int, _ value: JSONValue) -> APIResponse {
        APIResponse(status: status, body: value.canonicalData, contentType: "application/json")
    }

    static func problem(_ problem: Problem, headers: [String: String] = [:]) -> APIResponse {
        let data = problem.json.canonicalData
        return APIResponse(status: problem.status, body: data, contentType: Problems.contentType, headers: headers)
    }

    static let noContent = APIResponse(status: 204, body: nil, contentType: nil)

    var stored: StoredResponse {
        StoredResponse(status: status, contentType: contentType, body: body ?? Data())
    }

    init(status: Int, body: Data?, contentType: String?, headers: [String: String] = [:], replayed: Bool = false) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
        self.replayed = replayed
    }

    init(replaying stored: StoredResponse) {
        self.init(
            status: stored.status, body: stored.body.isEmpty ? nil : stored.body, contentType: stored.contentType,
            headers: [HeaderName.idempotentReplayed: "true"], replayed: true)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SpotterCore
import SpotterProtocol

/// The request context of the sync server: Hummingbird's core storage plus the connection,
/// which chaos mode needs in order to drop it.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Thrown after chaos mode closed the connection on purpose; no response may follow.
struct ConnectionDroppedByChaos: Error, CustomStringConvertible {
    var description: String { "connection dropped after commit (chaos mode)" }
}

/// The HTTP face of the sync server: health, metrics, auth, body limits and chaos, then `SyncAPI`.
///
/// A responder of its own rather than the router: every error, unknown routes included,
/// must be problem+json, and batch operations must resolve paths exactly as single routes do.
struct SpotterResponder: HTTPResponder {
    typealias Context = ServerRequestContext

    let api: SyncAPI
    let store: any ServerStore
    let tokens: [String: String]
    let chaos: ChaosInjector
    let metrics: ServerMetrics
    let configuration: ServerConfiguration

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let method = request.method.rawValue
        let path = request.uri.path
        var label = "\(method) \(path)"
        var user: String?
        var drop = false
        let answer: APIResponse

        if path.utf8.count > configuration.maxPathBytes {
            label = "unknown"
            answer = .problem(Problems.uriTooLong(limit: configuration.maxPathBytes))
        } else if path == Route.healthz || path == Route.metrics || path == Route.me, request.method != .get {
            label = "unknown"
            answer = .problem(Problems.methodNotAllowed(method, path), headers: ["Allow": "GET"])
        } else if path == Route.healthz {
            label = "GET /healthz"
            answer = await health()
        } else if path == Route.me, request.method == .get {
            // Who the token belongs to: the client names its account by this, not by the token's text.
            label = "GET /v1/me"
            user = authenticatedUser(request)
            answer =
                user.map { APIResponse.json(200, ["user": $0]) }
                ?? .problem(Problems.unauthorized, headers: ["WWW-Authenticate": "Bearer"])
        } else if path == Route.metrics {
            label = "GET /metrics"
            answer = APIResponse(
                status: 200, body: Data(metrics.prometheusText().utf8), contentType: "text/plain; version=0.0.4")
        } else {
            switch APIRoute.resolve(method: method, path: path) {
            case .failure(.notFound):
                label = "unknown"
                answer = .problem(Problems.notFound("no such resource: \(path)"))
            case .failure(.methodNotAllowed):
                label = "unknown"
                answer = .problem(
                    Problems.methodNotAllowed(method, path), headers: ["Allow": APIRoute.allowedMethods(path: path)])
            case .success(let route):
                label = route.template
                let outcome = await handle(route, request: request, context: context)
                answer = outcome.response
                user = outcome.user
                drop = outcome.drop
            }
        }

        metrics.recordRequest(route: label, status: answer.status)
        var metadata: Logger.Metadata = [
            "http.method": "\(method)", "http.path": "\(path.prefix(256))", "http.route": "\(label)",
            "http.status": "\(answer.status)",
            "duration_ms": "\((ContinuousClock.now - started).milliseconds)",
        ]
        if let user { metadata["user"] = "\(user)" }
        if answer.replayed { metadata["idempotent_replayed"] = "true" }
        if drop { metadata["chaos"] = "dropped" }
        context.logger.info("request", metadata: metadata)

        if drop {
            // The effect is committed; the client must see the connection close with no answer.
            metrics.recordInjectedFault("drop")
            try? await context.channel.close()
            throw ConnectionDroppedByChaos()
        }
        return Self.httpResponse(answer)
    }

    private func handle(
        _ route: APIRoute, request: Request, context: Context
    ) async -> (
        response: APIResponse, user: String?, drop: Bool
    ) {
        var decision = ChaosDecision()
        if route.isMutating, chaos.isEnabled {
            decision = chaos.decide()
            if decision.fail {
                metrics.recordInjectedFault("fail")
                return (.problem(Problems.injectedUnavailable), nil, false)
            }
            if decision.rateLimit {
                metrics.recordInjectedFault("429")
                return (.problem(Problems.injectedRateLimit, headers: [HeaderName.retryAfter: "2"]), nil, false)
            }
            if decision.latencyMS > 0 {
                try? await Task.sleep(for: .milliseconds(decision.latencyMS))
            }
        }
        guard let user = authenticatedUser(request) else {
            return (.problem(Problems.unauthorized, headers: ["WWW-Authenticate": "Bearer"]), nil, false)
        }
        var body = RequestBody.none
        if route.takesJSONBody {
            let limit = route == .batch ? configuration.maxBatchBodyBytes : configuration.maxBodyBytes
            switch await Self.collectBody(request, limit: limit) {
            case .success(let data): body = .bytes(data)
            case .failure(let problem): return (.problem(problem), user, false)
            }
        }
        let response: APIResponse
        if route == .batch {
            response = await batch(body, user: user)
        } else if request.headers[values: Self.idempotencyKeyField].count > 1 {
            // Two keys are no key: joined into "a, b" they would make a third scope, and reusing
            // either alone would run again instead of being refused.
            response = .problem(Problems.malformed("send one Idempotency-Key header, not several"))
        } else {
            let target = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            response = await api.perform(
                APICall(
                    method: request.method.rawValue, target: target, body: body,
                    idempotencyKey: request.headers[Self.idempotencyKeyField], user: user))
        }
        return (response, user, decision.drop)
    }

    /// `POST /v1/batch`: every operation through `SyncAPI.performBatch`, in order, one result each.
    private func batch(_ body: RequestBody, user: String) async -> APIResponse {
        if case .bytes(let data) = body, String(validating: data, as: UTF8.self) == nil {
            return .problem(Problems.malformed("the body is not valid UTF-8"))
        }
        guard case .bytes(let data) = body, let value = JSONValue.parse(data) else {
            return .problem(Problems.malformed("the body is not valid JSON"))
        }
        guard let request = BatchRequest(json: value) else {
            return .problem(
                Problems.malformed("the body must be {\"ops\":[{\"idempotency_key\",\"method\",\"path\",\"body\"}]}"))
        }
        guard request.ops.count <= configuration.maxBatchOperations else {
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "ops", message: "must hold at most \(configuration.maxBatchOperations) operations")))
        }
        let responses = await api.performBatch(
            request.ops.map { op in
                APICall(
                    method: op.method, target: op.path, body: op.body.map(RequestBody.json) ?? .none,
                    idempotencyKey: op.idempotencyKey, user: user)
            })
        // Each result's body goes in as the very bytes its single route would send (already
        // JSON), spliced rather than parsed and encoded again.
        var out = Data("{\"results\":[".utf8)
        for (index, (op, response)) in zip(request.ops, responses).enumerated() {
            let route = (try? APIRoute.resolve(method: op.method, path: PathAndQuery(op.path).path).get())?.template
            metrics.recordBatchOperation(route: route ?? "unknown", status: response.status)
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"body\":".utf8)
            if let body = response.body, !body.isEmpty { out.append(body) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: ",\"idempotency_key\":".utf8)
            out.append(contentsOf: JSONValue(op.idempotencyKey).canonicalString.utf8)
            out.append(contentsOf: ",\"replayed\":\(response.replayed),\"status\":\(response.status)}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return APIResponse(status: 200, body: out, contentType: "application/json")
    }

    private func health() async -> APIResponse {
        do {
            try await store.ping()
            return APIResponse(status: 200, body: Data("{\"status\":\"ok\"}".utf8), contentType: "application/json")
        } catch {
            return .problem(Problems.storeUnavailable)
        }
    }

    private func authenticatedUser(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let prefix = "bearer "
        guard header.count > prefix.count, header.lowercased().hasPrefix(prefix) else { return nil }
        let token = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        return tokens[token]
    }

    /// Reads the body, refusing (413) as soon as it passes `limit`, whatever Content-Length claimed.
    private static func collectBody(_ request: Request, limit: Int) async -> Result<Data, Problem> {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            return .failure(Problems.tooLarge(limit: limit))
        }
        var data = Data()
        do {
            for try await buffer in request.body {
                guard data.count + buffer.readableBytes <= limit else {
                    return .failure(Problems.tooLarge(limit: limit))
                }
                data.append(contentsOf: buffer.readableBytesView)
            }
        } catch {
            return .failure(Problems.malformed("the request body could not be read"))
        }
        return .success(data)
    }

    static let idempotencyKeyField = HTTPField.Name(HeaderName.idempotencyKey)!

    static func httpResponse(_ answer: APIResponse) -> Response {
        var headers = HTTPFields()
        if let contentType = answer.contentType { headers[.contentType] = contentType }
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        let body = answer.body.map { ResponseBody(byteBuffer: ByteBuffer(bytes: $0)) } ?? ResponseBody()
        return Response(status: HTTPResponse.Status(code: answer.status), headers: headers, body: body)
    }
}

extension Duration {
    fileprivate var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SpotterProtocol
import Synchronization

/// The request context of the sync server: Hummingbird's core storage, the connection (which
/// chaos mode needs in order to drop it), and what the middleware learned on the way in.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    /// Shared with the request log, which sits outside every other layer.
    let notes: RequestNotes
    /// The endpoint with its path parameters, set by `EndpointMiddleware`.
    var route: APIRoute?
    /// The token's user, set by `AuthMiddleware`.
    var user: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        notes = RequestNotes()
    }
}

/// What the inner layers of one request tell the request log on its way out.
final class RequestNotes: Sendable {
    private struct Notes {
        var user: String?
        var unrouted = false
    }

    private let notes = Mutex(Notes())

    /// Who the request was authenticated as.
    var user: String? {
        get { notes.withLock { $0.user } }
        set { notes.withLock { $0.user = newValue } }
    }

    /// True when no endpoint took the request (404, 405, 414): counted under the route "unknown".
    var unrouted: Bool {
        get { notes.withLock { $0.unrouted } }
        set { notes.withLock { $0.unrouted = newValue } }
    }
}

/// An answer decided before (or instead of) a handler, thrown so that it can come from any layer.
struct ProblemError: Error {
    var response: APIResponse
    /// The request named no endpoint (see `RequestNotes.unrouted`).
    var unrouted = false

    init(_ problem: Problem, headers: [String: String] = [:], unrouted: Bool = false) {
        response = .problem(problem, headers: headers)
        self.unrouted = unrouted
    }
}

/// Thrown after chaos mode closed the connection on purpose; no response may follow.
struct ConnectionDroppedByChaos: Error, CustomStringConvertible {
    /// The status the dropped answer had, for the request log and metrics.
    var status: Int
    var description: String { "connection dropped after commit (chaos mode)" }
}

/// Outermost: counts every request by route and status and logs one line for it.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, started: started) { metadata in
                if response.headers[Self.replayedField] == "true" { metadata["idempotent_replayed"] = "true" }
            }
            return response
        } catch let dropped as ConnectionDroppedByChaos {
            record(request, context: context, status: dropped.status, started: started) { $0["chaos"] = "dropped" }
            throw dropped
        }
    }

    private func record(
        _ request: Request, context: Context, status: Int, started: ContinuousClock.Instant,
        _ extra: (inout Logger.Metadata) -> Void
    ) {
        let duration = ContinuousClock.now - started
        let label = context.notes.unrouted ? "unknown" : Self.label(request.method, context.endpointPath)
        metrics.recordRequest(route: label, status: status, duration: duration)
        guard context.logger.logLevel <= .info else { return }
        // Numbers go in as values: the log's writer thread turns them into text, not the request.
        var metadata: Logger.Metadata = [
            "http.method": .string(request.method.rawValue), "http.path": .string(String(request.uri.path.prefix(256))),
            "http.route": .string(label), "http.status": .stringConvertible(status),
            "duration_ms": .stringConvertible(duration.milliseconds),
        ]
        if let user = context.notes.user { metadata["user"] = .string(user) }
        extra(&metadata)
        context.logger.info("request", metadata: metadata)
    }

    /// "PATCH /v1/sets/{id}" from the router's "/v1/sets/:id": no ids, no user data.
    static func label(_ method: HTTPRequest.Method, _ endpointPath: String?) -> String {
        guard let endpointPath else { return "unknown" }
        let template = endpointPath.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.joined(separator: "/")
        return "\(method.rawValue) \(template)"
    }

    static let replayedField = HTTPField.Name(HeaderName.idempotentReplayed)!
}

/// Turns every failure into `application/problem+json`: answers thrown as `ProblemError`, and
/// requests no route took — 405 with `Allow` when the path has other methods, 404 otherwise.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// Answers GET on every routed path with the methods that path allows in `Allow` (see `ServerRouter`).
    let allowedMethods: RouterResponder<ServerRequestContext>

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as ProblemError {
            if problem.unrouted { context.notes.unrouted = true }
            return problem.response.httpResponse
        } catch let error as HTTPError where error.status == .notFound {
            // Hummingbird's router found no endpoint for this method and path.
            context.notes.unrouted = true
            return await unrouted(request, context: context).httpResponse
        } catch let dropped as ConnectionDroppedByChaos {
            throw dropped  // no answer at all, on purpose
        } catch {
            // Nothing below throws anything else; should it, the client still gets a problem document.
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            return APIResponse.problem(Problems.internalError).httpResponse
        }
    }

    private func unrouted(_ request: Request, context: Context) async -> APIResponse {
        let path = request.uri.path
        let probe = Request(
            head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), body: .init(buffer: ByteBuffer()))
        if let allowed = try? await allowedMethods.respond(to: probe, context: context),
            let allow = allowed.headers[.allow]
        {
            return .problem(Problems.methodNotAllowed(request.method.rawValue, path), headers: ["Allow": allow])
        }
        return .problem(Problems.notFound("no such resource: \(path)"))
    }
}

/// Paths the router must not see: longer than the limit (414), or with an empty segment (404) —
/// the router would skip it, and `/v1/workouts/` is not `/v1/workouts`.
struct PathRulesMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let maxPathBytes: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if path.utf8.count > maxPathBytes {
            throw ProblemError(Problems.uriTooLong(limit: maxPathBytes), unrouted: true)
        }
        if Self.hasEmptySegment(path) {
            throw ProblemError(Problems.notFound("no such resource: \(path)"), unrouted: true)
        }
        return try await next(request, context)
    }

    /// True for "/", "//v1/…", "/v1//…" and "/v1/workouts/".
    static func hasEmptySegment(_ path: String) -> Bool {
        path.hasPrefix("/") && path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains("")
    }
}

/// First on every API route: the endpoint with its path parameters, or 404 when they name
/// nothing (an id that is not a UUID) — before chaos and auth, as an unknown path would be.
struct EndpointMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let route: APIRoute

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let resolved = route.resolved(with: context.parameters) else { throw HTTPError(.notFound) }
        var context = context
        context.route = resolved
        return try await next(request, context)
    }
}

/// Fault injection on mutating routes: 503 or 429 before handling, latency, and
/// dropping the connection after the effect committed.
struct ChaosMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let chaos: ChaosInjector
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard chaos.isEnabled else { return try await next(request, context) }
        let decision = chaos.decide()
        if decision.fail {
            metrics.recordInjectedFault(.fail)
            throw ProblemError(Problems.injectedUnavailable)
        }
        if decision.rateLimit {
            metrics.recordInjectedFault(.rateLimit)
            throw ProblemError(Problems.injectedRateLimit, headers: [HeaderName.retryAfter: "2"])
        }
        if decision.latencyMS > 0 {
            try? await Task.sleep(for: .milliseconds(decision.latencyMS))
        }
        let response = try await next(request, context)
        guard decision.drop else { return response }
        // The effect is committed; the client must see the connection close with no answer.
        metrics.recordInjectedFault(.drop)
        try? await context.channel.close()
        throw ConnectionDroppedByChaos(status: response.status.code)
    }
}

/// `Authorization: Bearer <token>` → the token's user, or 401.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let directory: TokenDirectory

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let found: String?
        do { found = try await user(request) } catch {
            // The accounts could not be read: not the client's fault, and not a "no".
            throw ProblemError(Problems.storeUnavailable, headers: [HeaderName.retryAfter: "2"])
        }
        guard let user = found else {
            throw ProblemError(Problems.unauthorized, headers: ["WWW-Authenticate": "Bearer"])
        }
        context.notes.user = user
        var context = context
        context.user = user
        return try await next(request, context)
    }

    private func user(_ request: Request) async throws -> String? {
        guard let header = request.headers[.authorization], let token = Self.bearerToken(header) else { return nil }
        return try await directory.user(of: token)
    }

    /// The token of a `Bearer` credential (the scheme in any case), trimmed of whitespace; nil for
    /// another scheme or none. Every authenticated request passes here, so the plain-ASCII header
    /// a client sends is read byte by byte; anything else takes the general path, same answer.
    static func bearerToken(_ header: String) -> String? {
        let prefix = "bearer "
        let bytes = header.utf8
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard bytes.count > prefix.utf8.count,
                zip(bytes, prefix.utf8).allSatisfy({ $1 == 0x20 ? $0 == 0x20 : $0 | 0x20 == $1 })
            else { return nil }
            // ASCII whitespace in the sense of `CharacterSet.whitespaces`: space and tab.
            let rest = bytes.dropFirst(prefix.utf8.count)
            guard let first = rest.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
            let last = rest.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
            return String(Substring(header.utf8[first...last]))
        }
        guard header.count > prefix.count, header.lowercased().hasPrefix(prefix) else { return nil }
        return header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
    }
}

extension APIResponse {
    /// The Hummingbird response carrying this answer.
    var httpResponse: Response {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        for (name, value) in self.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        let body = body.map { ResponseBody(byteBuffer: ByteBuffer(bytes: $0)) } ?? ResponseBody()
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: body)
    }
}

extension Duration {
    fileprivate var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SpotterCore
import SpotterProtocol
import Synchronization

/// The HTTP face of the sync server: Hummingbird routers built from the one route table
/// (`APIRoute.all`), the middleware around them, and the handlers that hand over to `SyncAPI`.
///
/// Middleware, outermost first: `RequestLogMiddleware` (metrics, log line), `ProblemMiddleware`
/// (every failure as problem+json), `PathRulesMiddleware` (414, empty segments); then per API
/// route `EndpointMiddleware` (path parameters), `ChaosMiddleware` (mutating routes only) and
/// `AuthMiddleware`.
struct ServerRouter: Sendable {
    let api: SyncAPI
    let store: any ServerStore
    let tokens: [String: String]
    let chaos: ChaosInjector
    let metrics: ServerMetrics
    let configuration: ServerConfiguration
    /// Resolves the operations inside `POST /v1/batch` with the same table and matching.
    let operations: OperationRouter
    /// Requests in progress per account, held to `configuration.maxUserConcurrency`.
    let inProgress = UserRequests()
    /// Who a bearer token belongs to.
    let directory: TokenDirectory

    init(
        api: SyncAPI, store: any ServerStore, tokens: [String: String], chaos: ChaosInjector, metrics: ServerMetrics,
        configuration: ServerConfiguration, logger: Logger
    ) {
        self.api = api
        self.store = store
        self.tokens = tokens
        self.chaos = chaos
        self.metrics = metrics
        self.configuration = configuration
        operations = OperationRouter(logger: logger)
        directory = TokenDirectory(tokens: tokens, accounts: store as? any ServerAccounts, logger: logger)
    }

    /// Paths answered outside the API routes, GET only and without a token.
    static let plainPaths = [Route.healthz, Route.metrics]

    func build() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestLogMiddleware(metrics: metrics))
        router.add(middleware: ProblemMiddleware(allowedMethods: Self.allowedMethodsResponder()))
        router.add(middleware: PathRulesMiddleware(maxPathBytes: configuration.maxPathBytes))

        router.get(RouterPath(Route.healthz)) { _, _ in await health().httpResponse }
        router.get(RouterPath(Route.metrics)) { _, _ in
            APIResponse(
                status: 200, body: Data(metrics.prometheusText().utf8), contentType: "text/plain; version=0.0.4"
            ).httpResponse
        }
        // Who the token belongs to: the client names its account by this, not by the token's text.
        router.group().add(middleware: AuthMiddleware(directory: directory)).get(RouterPath(Route.me)) { _, context in
            APIResponse.json(200, .object(["user": .string(context.user ?? "")])).httpResponse
        }

        for route in APIRoute.all {
            let group = router.group().add(middleware: EndpointMiddleware(route: route))
            if route.isMutating { group.add(middleware: ChaosMiddleware(chaos: chaos, metrics: metrics)) }
            group.add(middleware: AuthMiddleware(directory: directory))
            group.on(route.routerPath, method: route.method) { request, context in
                try await respond(request, context: context)
            }
        }
        return router
    }

    /// A router that answers GET on every routed path with the methods it allows, in `Allow`,
    /// and 404 where none would take these path parameters: the 405 of `ProblemMiddleware`.
    static func allowedMethodsResponder() -> RouterResponder<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let order: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        var templates: [String] = []
        for route in APIRoute.all where !templates.contains(route.pathTemplate) {
            templates.append(route.pathTemplate)
        }
        for template in templates {
            let routes = APIRoute.all.filter { $0.pathTemplate == template }
            router.get(routes[0].routerPath) { _, context in
                let allowed = Set(routes.filter { $0.resolved(with: context.parameters) != nil }.map(\.method))
                guard !allowed.isEmpty else { throw HTTPError(.notFound) }
                let allow = order.filter(allowed.contains).map(\.rawValue).joined(separator: ", ")
                return Response(status: .noContent, headers: [.allow: allow])
            }
        }
        for path in plainPaths + [Route.me] {
            router.get(RouterPath(path)) { _, _ in Response(status: .noContent, headers: [.allow: "GET"]) }
        }
        return router.buildResponder()
    }

    // MARK: Handlers

    /// An API route, after `EndpointMiddleware` and `AuthMiddleware`: read the body, then `SyncAPI`.
    private func respond(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard let route = context.route, let user = context.user else {
            return APIResponse.problem(Problems.internalError).httpResponse
        }
        // One account's burst waits its turn at the account's door (429, which every client
        // retries), not inside the instance holding a thread, a pool connection or its lock while
        // other accounts wait. A request waiting on the feed is not counted while it waits (the
        // waits have a limit of their own), only while it reads.
        guard inProgress.enter(user, limit: configuration.maxUserConcurrency) else {
            throw ProblemError(
                Problems.userBusy(limit: configuration.maxUserConcurrency), headers: [HeaderName.retryAfter: "1"])
        }
        defer { inProgress.leave(user) }
        var body = RequestBody.none
        if route.takesJSONBody {
            let limit = route == .batch ? configuration.maxBatchBodyBytes : configuration.maxBodyBytes
            body = .bytes(try await Self.collectBody(request, limit: limit))
        } else if route.takesOptionalJSONBody {
            let data = try await Self.collectBody(request, limit: configuration.maxBodyBytes)
            if !data.isEmpty { body = .bytes(data) }
        }
        if route == .batch {
            var response = await batch(body, user: user)
            api.waiters.changed(user)  // a hint: a waiting request reads the feed again
            // Which database answered: a device that synced with another takes nothing from it.
            response.headers[HeaderName.serverIdentity] = api.store.identity
            return response.httpResponse
        }
        if request.headers[values: Self.idempotencyKeyField].count > 1 {
            // Two keys are no key: joined into "a, b" they would make a third scope, and reusing
            // either alone would run again instead of being refused.
            throw ProblemError(Problems.malformed("send one Idempotency-Key header, not several"))
        }
        var query: [String: String] = [:]
        for parameter in request.uri.queryParameters where query[String(parameter.key)] == nil {
            query[String(parameter.key)] = String(parameter.value)
        }
        let channel = context.channel
        let token = request.headers[.authorization].flatMap(AuthMiddleware.bearerToken)
        let call = APICall(
            route: route, query: query, body: body, idempotencyKey: request.headers[Self.idempotencyKeyField],
            user: user, connectionOpen: { ClosedInputs.isOpen(channel) },
            waitingOnFeed: { [inProgress] waiting in
                if waiting {
                    ParkedConnections.park(channel)
                    inProgress.leave(user)
                } else {
                    ParkedConnections.unpark(channel)
                    inProgress.enterRegardless(user)
                }
            },
            stillAuthorized: { [directory] in
                guard let token else { return false }
                // The accounts unreadable (the database down) is no "no": the token was good when
                // the request came, and a 401 would make the device ask its user to sign in again.
                do { return try await directory.user(of: token) == user } catch { return true }
            })
        var response = await api.perform(call)
        if route.isMutating { api.waiters.changed(user) }
        response.headers[HeaderName.serverIdentity] = api.store.identity
        return response.httpResponse
    }

    /// `POST /v1/batch`: every operation resolved by `operations`, run by `SyncAPI.performBatch`
    /// in order, one result each.
    func batch(_ body: RequestBody, user: String) async -> APIResponse {
        if case .bytes(let data) = body, String(validating: data, as: UTF8.self) == nil {
            return .problem(Problems.malformed("the body is not valid UTF-8"))
        }
        guard case .bytes(let data) = body, let value = JSONValue.parse(data) else {
            return .problem(Problems.malformed("the body is not valid JSON"))
        }
        guard let request = try? BatchRequest(json: value) else {
            return .problem(
                Problems.malformed("the body must be {\"ops\":[{\"idempotency_key\",\"method\",\"path\",\"body\"}]}"))
        }
        guard request.ops.count <= configuration.maxBatchOperations else {
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "ops", message: "must hold at most \(configuration.maxBatchOperations) operations")))
        }
        var routes: [APIRoute?] = []
        var entries: [BatchEntry] = []
        routes.reserveCapacity(request.ops.count)
        entries.reserveCapacity(request.ops.count)
        for op in request.ops {
            let resolved = await operations.resolve(method: op.method, target: op.path)
            routes.append(resolved.route)
            if let refusal = SyncAPI.batchRefusal(method: op.method, path: resolved.path, route: resolved.route) {
                entries.append(.refused(refusal))
            } else if let route = resolved.route {
                entries.append(
                    .call(
                        APICall(
                            route: route, body: op.body.map(RequestBody.json) ?? .none,
                            idempotencyKey: op.idempotencyKey, user: user)))
            }
        }
        let responses: [APIResponse]
        do { responses = try await api.performBatch(entries) } catch { return SyncAPI.unavailable }
        // Each result's body goes in as the very bytes its single route would send (already
        // JSON), spliced rather than parsed and encoded again.
        var out = Data("{\"results\":[".utf8)
        for index in responses.indices {
            let response = responses[index]
            metrics.recordBatchOperation(route: routes[index]?.template ?? "unknown", status: response.status)
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"body\":".utf8)
            if let body = response.body, !body.isEmpty { out.append(body) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: ",\"idempotency_key\":".utf8)
            out.append(contentsOf: JSONValue(request.ops[index].idempotencyKey).canonicalString.utf8)
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
            return SyncAPI.unavailable
        }
    }

    /// Reads the body with `collect(upTo:)`, refusing (413) as soon as it passes `limit`,
    /// whatever Content-Length claimed — and at once when Content-Length already says so.
    static func collectBody(_ request: Request, limit: Int) async throws -> Data {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw ProblemError(Problems.tooLarge(limit: limit))
        }
        do {
            return Data(try await request.body.collect(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw ProblemError(Problems.tooLarge(limit: limit))
        } catch {
            throw ProblemError(Problems.malformed("the request body could not be read"))
        }
    }

    static let idempotencyKeyField = HTTPField.Name(HeaderName.idempotencyKey)!
}

/// Resolves an operation of `POST /v1/batch` (a method and a path, as data) to its endpoint with
/// Hummingbird's router, registered from the same `APIRoute.all` as the HTTP routes: an
/// operation names exactly the endpoint its single request would.
struct OperationRouter: Sendable {
    /// What an operation's method and path came to.
    struct Resolution: Sendable {
        /// The path without its query, as the refusal wording names it.
        var path: String
        /// nil when no endpoint takes this method and path.
        var route: APIRoute?
    }

    private let responder: RouterResponder<OperationContext>
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        let router = Router(context: OperationContext.self)
        for route in APIRoute.all {
            router.on(route.routerPath, method: route.method) { _, context in
                context.found.route = route.resolved(with: context.parameters)
                return Response(status: .noContent)
            }
        }
        responder = router.buildResponder()
    }

    func resolve(method: String, target: String) async -> Resolution {
        let path = String(target.prefix { $0 != "?" })
        // Exactly what a single request could carry: methods are case-sensitive (RFC 9110) and a
        // path starts at the root.
        guard path.hasPrefix("/"), let method = HTTPRequest.Method(method), !PathRulesMiddleware.hasEmptySegment(path)
        else { return Resolution(path: path, route: nil) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: nil, authority: nil, path: path),
            body: .init(buffer: ByteBuffer()))
        let context = OperationContext(source: OperationSource(logger: logger))
        _ = try? await responder.respond(to: request, context: context)
        return Resolution(path: path, route: context.found.route)
    }

    struct OperationSource: RequestContextSource {
        var logger: Logger
    }

    /// The context an operation is resolved in: where the matched endpoint leaves its route.
    struct OperationContext: RequestContext {
        typealias Source = OperationSource
        var coreContext: CoreRequestContextStorage
        let found = Found()

        init(source: OperationSource) { coreContext = .init(source: source) }
    }

    /// The endpoint the router matched: written once by the matched handler, read after
    /// `respond` returned.
    final class Found: Sendable {
        private let stored = Mutex<APIRoute?>(nil)

        var route: APIRoute? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}

/// How many requests of each account are in progress on this instance.
final class UserRequests: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts one more request of `user`, or returns false (counting nothing) at `limit`.
    func enter(_ user: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let count = counts[user, default: 0]
            guard count < limit else { return false }
            counts[user] = count + 1
            return true
        }
    }

    /// Counts one more request of `user` even past the limit: a wait that ended reads once more.
    func enterRegardless(_ user: String) { counts.withLock { $0[user, default: 0] += 1 } }

    func leave(_ user: String) {
        counts.withLock { counts in
            let count = counts[user, default: 1] - 1
            counts[user] = count > 0 ? count : nil
        }
    }
}

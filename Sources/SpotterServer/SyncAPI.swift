import Foundation
import Logging
import SpotterCore
import SpotterProtocol

/// A request body as it reached the API: raw bytes from a single route, or already-parsed
/// JSON from an operation inside a batch.
enum RequestBody: Sendable {
    case none
    case bytes(Data)
    case json(JSONValue)
}

/// One API call, whether it came alone or inside `POST /v1/batch`.
struct APICall: Sendable {
    var method: String
    /// Path, optionally with a query string.
    var target: String
    var body: RequestBody
    var idempotencyKey: String?
    var user: String
}

/// The sync API itself: routes, the idempotency contract and the entity rules, free of HTTP plumbing.
///
/// Both the single routes and every batch operation go through `perform`, which is what
/// makes "each op behaves exactly as its single route would" true by construction.
struct SyncAPI: Sendable {
    let store: any ServerStore
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    let logger: Logger

    private var clock: any SpotterClock { configuration.clock }

    /// A mutating call that passed every check made before its handler runs.
    struct Mutation: Sendable {
        var route: APIRoute
        var fields: [String: JSONValue]
        var user: String
        /// The idempotency record it claims; nil for DELETE, which ignores the key.
        var scope: IdempotencyScope?
        var fingerprint: String
    }

    /// What a call needs once the checks that come before any handler are done.
    enum Prepared: Sendable {
        /// Decided already (404, 405, 400, 413): nothing to run, nothing stored.
        case answered(APIResponse)
        case read(APIRoute, query: [String: String], user: String)
        case mutate(Mutation)
    }

    func prepare(_ call: APICall) -> Prepared {
        let target = PathAndQuery(call.target)
        let route: APIRoute
        switch APIRoute.resolve(method: call.method, path: target.path) {
        case .success(let resolved): route = resolved
        case .failure(.notFound): return .answered(.problem(Problems.notFound("no such resource: \(target.path)")))
        case .failure(.methodNotAllowed):
            return .answered(
                .problem(
                    Problems.methodNotAllowed(call.method, target.path),
                    headers: ["Allow": APIRoute.allowedMethods(path: target.path)]))
        }
        if route == .batch {
            return .answered(.problem(Problems.malformed("a batch operation cannot itself be a batch", field: "path")))
        }
        var idempotencyKey: String?
        if route.requiresIdempotencyKey {
            switch IdempotencyKeyRules.key(from: call.idempotencyKey) {
            case .success(let key): idempotencyKey = key
            case .failure(let refusal): return .answered(.problem(Problems.missingKey(refusal.reason)))
            }
        }
        var fields: [String: JSONValue] = [:]
        var bodyValue: JSONValue?
        if route.takesJSONBody {
            switch parseObject(call.body) {
            case .success(let parsed):
                fields = parsed
                bodyValue = .object(parsed)
            case .failure(let problem):
                return .answered(.problem(problem))
            }
            if let problem = TextRules.problem(in: fields) { return .answered(.problem(problem)) }
        }
        switch route {
        case .putFavorite(let exercise), .deleteFavorite(let exercise):
            if let problem = TextRules.problem(field: "exercise", text: exercise) {
                return .answered(.problem(problem))
            }
        default: break
        }
        if !route.isMutating { return .read(route, query: target.query, user: call.user) }
        var scope: IdempotencyScope?
        var fingerprint = ""
        if let key = idempotencyKey {
            // The canonical path, not the one sent: an upper-cased id names the same entity,
            // so it must land in the same scope (and fingerprint) as the lower-case one.
            let claimed = IdempotencyScope(
                user: call.user, method: call.method.uppercased(), path: route.canonicalPath, key: key)
            scope = claimed
            fingerprint = IdempotencyKeyRules.fingerprint(method: claimed.method, path: claimed.path, body: bodyValue)
        }
        return .mutate(Mutation(route: route, fields: fields, user: call.user, scope: scope, fingerprint: fingerprint))
    }

    func perform(_ call: APICall) async -> APIResponse {
        switch prepare(call) {
        case .answered(let response): return response
        case .read(let route, let query, let user): return await read(route, query: query, user: user)
        case .mutate(let mutation): return await performAlone(mutation)
        }
    }

    /// A single route: claim (its own short transaction, visible to concurrent requests as
    /// "in progress"), then effect and record together in a second one.
    private func performAlone(_ mutation: Mutation) async -> APIResponse {
        guard let scope = mutation.scope else {
            return await runEffect(mutation.route, fields: mutation.fields, user: mutation.user, completing: nil)
        }
        let claim: IdempotencyClaim
        do {
            claim = try await store.claimIdempotencyKey(
                scope, fingerprint: mutation.fingerprint, now: clock.now(), expiresAfter: configuration.idempotencyTTL,
                staleAfter: configuration.staleInProgressAfter)
        } catch {
            logger.error("idempotency claim failed", metadata: ["error": "\(error)"])
            return .problem(Problems.internalError)
        }
        if let settled = settled(claim) { return settled }
        guard case .claimed(let token) = claim else { return .problem(Problems.internalError) }
        if let hook = configuration.afterIdempotencyClaim { await hook(scope.method, scope.path) }
        let response = await runEffect(
            mutation.route, fields: mutation.fields, user: mutation.user, completing: (scope, token))
        if response.status >= 500 {
            // Not stored: a 5xx releases the key so a retry runs again.
            do { try await store.releaseIdempotencyKey(scope, token: token) } catch {
                logger.error("idempotency release failed", metadata: ["error": "\(error)"])
            }
        }
        return response
    }

    /// The answer for a claim that does not run the handler (replay, key reuse, key in use).
    private func settled(_ claim: IdempotencyClaim) -> APIResponse? {
        switch claim {
        case .completed(let stored):
            metrics.recordReplay()
            return APIResponse(replaying: stored)
        case .fingerprintMismatch:
            metrics.recordKeyReused()
            return .problem(Problems.keyReused)
        case .inProgress:
            metrics.recordKeyInUse()
            return .problem(Problems.keyInUse, headers: [HeaderName.retryAfter: "1"])
        case .claimed:
            return nil
        }
    }

    /// The operations of one `POST /v1/batch`, in order. Consecutive writes share ONE
    /// transaction (one commit, one fsync) — each in its own savepoint, so every operation still
    /// behaves exactly as its single route: its claim, effect and record commit together, a replay
    /// replays, and a 5xx undoes only that operation and stores nothing for it.
    ///
    /// Only writes on entity routes may ride in a batch (SPEC 5.1); anything else is a 422 for
    /// that operation. The response has a budget (`maxBatchResponseBytes`): once the results
    /// reach it, the remaining operations are not run and answer 503, so the client sends them again.
    func performBatch(_ calls: [APICall]) async -> [APIResponse] {
        var responses: [APIResponse] = []
        responses.reserveCapacity(calls.count)
        var pending: [Mutation] = []
        var spent = 0
        let budget = configuration.maxBatchResponseBytes
        func flush() async {
            guard !pending.isEmpty else { return }
            let outcomes = await runInOneTransaction(pending, spent: spent, budget: budget)
            spent += outcomes.reduce(0) { $0 + Self.resultSize($1) }
            responses += outcomes
            pending.removeAll()
        }
        for call in calls {
            if let refusal = Self.batchRefusal(call) {
                await flush()
                responses.append(refusal)
                spent += Self.resultSize(refusal)
                continue
            }
            switch prepare(call) {
            case .answered(let response):
                await flush()
                let answer = spent < budget ? response : Self.notRun(budget: budget)
                responses.append(answer)
                spent += Self.resultSize(answer)
            case .read:
                // batchRefusal lets no read through; should one ever pass, it is refused the same way.
                await flush()
                responses.append(
                    .problem(
                        Problems.validation(ValidationError(field: "method", message: "a batch carries only writes"))))
            case .mutate(let mutation):
                pending.append(mutation)
            }
        }
        await flush()
        return responses
    }

    /// Why an operation may not ride in a batch at all, or nil when it is a write on an entity route.
    static func batchRefusal(_ call: APICall) -> APIResponse? {
        let path = PathAndQuery(call.target).path
        let what = "\(call.method) \(path)"
        switch APIRoute.resolve(method: call.method, path: path) {
        case .success(let route) where route.isEntityWrite:
            return nil
        case .success(.batch):
            return .problem(
                Problems.validation(ValidationError(field: "path", message: "cannot name a batch inside a batch")))
        case .success:
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "method",
                        message: "\(what) is a read; a batch carries only writes (POST, PUT, PATCH, DELETE)")))
        case .failure:
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "path",
                        message:
                            "\(what) is not a write on an entity route (/v1/workouts, /v1/sets, /v1/favorites)")))
        }
    }

    /// What one result adds to the batch response: its body and the envelope around it.
    private static func resultSize(_ response: APIResponse) -> Int { (response.body?.count ?? 0) + 320 }

    /// The answer of an operation left unrun because the batch response reached its budget.
    static func notRun(budget: Int) -> APIResponse {
        .problem(
            Problem(
                type: ProblemType.unavailable, title: "Service unavailable", status: 503,
                detail: "not run: this batch's response reached its \(budget)-byte budget; send the operation again"))
    }

    private func runInOneTransaction(
        _ mutations: [Mutation], spent alreadySpent: Int, budget: Int
    ) async
        -> [APIResponse]
    {
        let now = clock.now()
        let stamp = Timestamp.format(now)
        let ttl = configuration.idempotencyTTL
        let staleAfter = configuration.staleInProgressAfter
        let logger = logger
        do {
            let outcomes: [(APIResponse, IdempotencyClaim?)] = try await store.write { transaction in
                var outcomes: [(APIResponse, IdempotencyClaim?)] = []
                outcomes.reserveCapacity(mutations.count)
                var spent = alreadySpent
                for mutation in mutations {
                    guard spent < budget else {
                        outcomes.append((Self.notRun(budget: budget), nil))
                        continue
                    }
                    var response = APIResponse.problem(Problems.internalError)
                    var claim: IdempotencyClaim?
                    do {
                        try transaction.savepoint {
                            if let scope = mutation.scope {
                                claim = try transaction.claimIdempotencyKey(
                                    scope, fingerprint: mutation.fingerprint, now: now, expiresAfter: ttl,
                                    staleAfter: staleAfter)
                                guard case .claimed(let token) = claim else { return true }
                                response = try EntityHandlers(transaction: transaction, user: mutation.user, now: stamp)
                                    .handle(mutation.route, fields: mutation.fields)
                                guard response.status < 500 else { return false }
                                try transaction.completeIdempotencyRecord(
                                    scope, token: token, response: response.stored)
                                return true
                            }
                            response = try EntityHandlers(transaction: transaction, user: mutation.user, now: stamp)
                                .handle(mutation.route, fields: mutation.fields)
                            return response.status < 500
                        }
                    } catch {
                        logger.error(
                            "batch operation failed",
                            metadata: ["route": "\(mutation.route.template)", "error": "\(error)"])
                        response = .problem(Problems.internalError)
                        claim = nil
                    }
                    if case .completed(let stored) = claim {
                        spent += Self.resultSize(APIResponse(replaying: stored))
                    } else {
                        spent += Self.resultSize(response)
                    }
                    outcomes.append((response, claim))
                }
                return outcomes
            }
            return outcomes.map { response, claim in
                guard let claim, let settled = settled(claim) else { return response }
                return settled
            }
        } catch {
            logger.error("batch transaction failed", metadata: ["error": "\(error)"])
            return mutations.map { _ in .problem(Problems.internalError) }
        }
    }

    /// Runs the handler in one transaction; with a claim, the record is completed in that same transaction.
    private func runEffect(
        _ route: APIRoute, fields: [String: JSONValue], user: String,
        completing claim: (scope: IdempotencyScope, token: String)?
    ) async -> APIResponse {
        let now = Timestamp.format(clock.now())
        do {
            return try await store.write { transaction in
                let response = try EntityHandlers(transaction: transaction, user: user, now: now)
                    .handle(route, fields: fields)
                if let claim, response.status < 500 {
                    try transaction.completeIdempotencyRecord(
                        claim.scope, token: claim.token, response: response.stored)
                }
                return response
            }
        } catch is IdempotencyClaimLost {
            metrics.recordKeyInUse()
            return .problem(Problems.keyInUse, headers: [HeaderName.retryAfter: "1"])
        } catch {
            logger.error("request failed", metadata: ["route": "\(route.template)", "error": "\(error)"])
            return .problem(Problems.internalError)
        }
    }

    private func read(_ route: APIRoute, query: [String: String], user: String) async -> APIResponse {
        do {
            switch route {
            case .listWorkouts:
                return .json(200, WorkoutList(workouts: try await store.workouts(user: user, includeDeleted: false)))
            case .listSets:
                var workoutID: String?
                if let raw = query["workout_id"], !raw.isEmpty {
                    guard let id = UUID(uuidString: raw) else {
                        return .problem(Problems.malformed("workout_id must be a UUID", field: "workout_id"))
                    }
                    workoutID = id.wireString
                }
                return .json(
                    200, SetList(sets: try await store.sets(user: user, workoutID: workoutID, includeDeleted: false)))
            case .listFavorites:
                return .json(200, FavoritesDTO(favorites: try await store.favorites(user: user)))
            case .changes:
                var since: Int64 = 0
                if let raw = query["since"], !raw.isEmpty {
                    guard let value = Int64(raw), value >= 0 else {
                        return .problem(
                            Problems.malformed("since must be a cursor returned by this server", field: "since"))
                    }
                    since = value
                }
                var limit = 500
                if let raw = query["limit"], !raw.isEmpty {
                    guard let value = Int(raw), (1...5000).contains(value) else {
                        return .problem(
                            Problems.malformed("limit must be a whole number from 1 to 5000", field: "limit"))
                    }
                    limit = value
                }
                let page = try await store.changes(user: user, after: since, limit: limit)
                let cursor = page.changes.last?.serverVersion ?? since
                return .json(200, ChangesPage(changes: page.changes, cursor: String(cursor), hasMore: page.hasMore))
            default:
                return .problem(Problems.internalError)
            }
        } catch {
            logger.error("read failed", metadata: ["route": "\(route.template)", "error": "\(error)"])
            return .problem(Problems.internalError)
        }
    }

    private func parseObject(_ body: RequestBody) -> Result<[String: JSONValue], Problem> {
        let value: JSONValue
        switch body {
        case .none:
            return .failure(Problems.malformed("a JSON object body is required"))
        case .bytes(let data):
            guard data.count <= configuration.maxBodyBytes else {
                return .failure(Problems.tooLarge(limit: configuration.maxBodyBytes))
            }
            // Invalid UTF-8 must not be repaired into U+FFFD and stored as something else.
            guard String(validating: data, as: UTF8.self) != nil else {
                return .failure(Problems.malformed("the body is not valid UTF-8"))
            }
            guard let parsed = JSONValue.parse(data) else {
                return .failure(Problems.malformed("the body is not valid JSON"))
            }
            value = parsed
        case .json(let parsed):
            guard parsed.canonicalData.count <= configuration.maxBodyBytes else {
                return .failure(Problems.tooLarge(limit: configuration.maxBodyBytes))
            }
            value = parsed
        }
        guard let object = value.objectValue else {
            return .failure(Problems.malformed("the body must be a JSON object"))
        }
        return .success(object)
    }
}

/// `GET /v1/workouts`.
struct WorkoutList: Codable, Sendable {
    var workouts: [WorkoutDTO]
}

/// `GET /v1/sets`.
struct SetList: Codable, Sendable {
    var sets: [SetDTO]
}

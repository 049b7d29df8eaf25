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

    /// No body at all (a batch operation's `"body": null` included).
    var isEmpty: Bool {
        switch self {
        case .none: true
        case .bytes(let data): data.isEmpty
        case .json(let value): value == .null
        }
    }
}

/// What a delete's optional body may say (`EditClockField`): when it was made, the version of
/// the entity the device had, and for a workout the versions of its sets the device had.
enum DeleteContext {
    /// The sets a workout's delete says its device held, by id, with the version it had of each
    /// (nil: not answered yet); nil when the list is not one.
    static func heldVersions(_ value: JSONValue) -> [String: Int64?]? {
        guard let entries = value.arrayValue else { return nil }
        var held: [String: Int64?] = [:]
        for entry in entries {
            guard let fields = entry.objectValue, Set(fields.keys).isSubset(of: ["id", "server_version"]),
                let id = fields["id"]?.stringValue.flatMap(UUID.init(uuidString:))
            else { return nil }
            switch fields["server_version"] ?? .null {
            case .null: held[id.wireString] = .some(nil)
            case let version:
                guard let number = version.intValue, number >= 0 else { return nil }
                held[id.wireString] = Int64(number)
            }
        }
        return held
    }

    /// The refusal of a body that says it wrongly, or nil.
    static func problem(in fields: [String: JSONValue]) -> Problem? {
        let known: Set<String> = [EditClockField.stamp, EditClockField.baseVersion, EditClockField.seenSets]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            return Problems.validation(ValidationError(field: unknown, message: "is not a field of a delete"))
        }
        if let stamp = fields[EditClockField.stamp], stamp != .null,
            stamp.stringValue.flatMap({ ClockStamp($0) }) == nil
        {
            return Problems.validation(
                ValidationError(field: EditClockField.stamp, message: "must be a clock stamp (ms-counter-device)"))
        }
        if let base = fields[EditClockField.baseVersion], base != .null, (base.intValue ?? -1) < 0 {
            return Problems.validation(
                ValidationError(field: EditClockField.baseVersion, message: "must be a non-negative integer"))
        }
        if let seen = fields[EditClockField.seenSets], seen != .null, heldVersions(seen) == nil {
            return Problems.validation(
                ValidationError(
                    field: EditClockField.seenSets,
                    message: "must list the sets held, each {\"id\": a set id, \"server_version\": a version or null}"))
        }
        return nil
    }
}

/// One API call on a resolved endpoint, whether it came alone or inside `POST /v1/batch`.
struct APICall: Sendable {
    var route: APIRoute
    /// Query parameters (reads only; a batch carries no reads).
    var query: [String: String] = [:]
    var body: RequestBody
    var idempotencyKey: String?
    var user: String
    /// Whether the client's connection is still open (a wait on the feed ends when it is not).
    var connectionOpen: @Sendable () -> Bool = { true }
    /// Told true when the request starts waiting on the feed and false when the wait ends: its
    /// connection then counts against the waiting limit instead of the connection limit.
    var waitingOnFeed: @Sendable (Bool) -> Void = { _ in }
    /// Whether the request's token still names `user`: asked again when a wait on the feed wakes,
    /// so a token revoked or rotated while its wait was open is answered 401, never with changes
    /// written after it stopped working.
    var stillAuthorized: @Sendable () async -> Bool = { true }
}

/// An idempotency key a request holds: the record's scope and the token of this claim.
struct HeldClaim: Sendable {
    var scope: IdempotencyScope
    var token: String
}

/// One operation of a batch: a call to run, or the answer that refuses it before anything runs.
enum BatchEntry: Sendable {
    case call(APICall)
    case refused(APIResponse)
}

/// The sync API itself: the idempotency contract and the entity rules, free of HTTP plumbing.
///
/// Every write — a single route or an operation inside a batch — is checked by `prepare` and
/// applied by `apply(_:claiming:in:at:)`, the one idempotent write: what makes "each op behaves
/// exactly as its single route would" true by construction. The two differ only in which
/// transaction holds the claim (see `performAlone` and `performBatch`).
struct SyncAPI: Sendable {
    let store: any ServerStore
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    let logger: Logger
    /// Requests waiting for a user's feed to move; every write through this instance wakes them.
    let waiters: ChangeWaiters
    /// Claims to release once the database answers again.
    let owedReleases = OwedReleases()

    private var clock: any SpotterClock { configuration.clock }

    /// A mutating call that passed every check made before its handler runs.
    struct Mutation: Sendable {
        var route: APIRoute
        var fields: [String: JSONValue]
        var user: String
        /// The idempotency record it claims; nil for PUT and DELETE, which ignore the key.
        var scope: IdempotencyScope?
        var fingerprint: String
        /// A create's entity, validated before the transaction (see `ParsedCreate`).
        var parsed: ParsedCreate?
    }

    /// What a call needs once the checks that come before any handler are done.
    enum Prepared: Sendable {
        /// Decided already (400, 413, 422 on a path parameter): nothing to run, nothing stored.
        case answered(APIResponse)
        /// A read of this route; the call carries its query, its user and its connection.
        case read(APIRoute)
        case mutate(Mutation)
    }

    func prepare(_ call: APICall) -> Prepared {
        let route = call.route
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
        var canonicalBody: Data?
        if route.takesJSONBody {
            switch parseObject(call.body) {
            case .success(let parsed):
                fields = parsed.object
                canonicalBody = parsed.canonical
            case .failure(let problem):
                return .answered(.problem(problem))
            }
            if let problem = TextRules.problem(in: fields) { return .answered(.problem(problem)) }
        } else if route.takesOptionalJSONBody, !call.body.isEmpty {
            switch parseObject(call.body) {
            case .success(let parsed): fields = parsed.object
            case .failure(let problem): return .answered(.problem(problem))
            }
            if let problem = DeleteContext.problem(in: fields) { return .answered(.problem(problem)) }
        }
        switch route {
        case .putFavorite(let exercise), .deleteFavorite(let exercise):
            if let problem = TextRules.problem(field: "exercise", text: exercise) {
                return .answered(.problem(problem))
            }
        default: break
        }
        if !route.isMutating { return .read(route) }
        var scope: IdempotencyScope?
        var fingerprint = ""
        if let key = idempotencyKey {
            // The canonical path, not the one sent: an upper-cased id names the same entity,
            // so it must land in the same scope (and fingerprint) as the lower-case one.
            let claimed = IdempotencyScope(
                user: call.user, method: route.method.rawValue, path: route.canonicalPath, key: key)
            scope = claimed
            fingerprint = IdempotencyKeyRules.fingerprint(
                method: claimed.method, path: claimed.path,
                canonicalBody: canonicalBody ?? (route.takesJSONBody ? JSONValue.object(fields).canonicalData : nil))
        }
        return .mutate(
            Mutation(
                route: route, fields: fields, user: call.user, scope: scope, fingerprint: fingerprint,
                parsed: ParsedCreate.parse(route, fields: fields)))
    }

    func perform(_ call: APICall) async -> APIResponse {
        switch prepare(call) {
        case .answered(let response): return response
        case .read(let route): return await read(route, of: call)
        case .mutate(let mutation): return await performAlone(mutation)
        }
    }

    // MARK: The one idempotent write

    /// How a write comes by its idempotency claim.
    enum ClaimStep: Sendable {
        /// Claimed already, in a transaction of its own (a single route; see `performInTwoSteps`).
        case held(token: String)
        /// Claimed inside the transaction the effect runs in (a batch operation; a single route on
        /// a store with one writer).
        case inThisTransaction(now: Date)
    }

    /// What one write came to.
    enum WriteOutcome: Sendable {
        /// The claim answered without running the handler: a replay, a reused key (422), a key in use (409).
        case settled(IdempotencyClaim)
        /// The handler ran: a status under 500 kept its effect and record; 500 and up undid both.
        case ran(APIResponse)
    }

    /// THE idempotent write, which every mutating single route and every batch operation runs:
    /// claim (unless held), run the handler, and store its answer with its effect — all inside one
    /// savepoint of `transaction`, so a 5xx, a throw or a claim lost to a takeover undoes this
    /// write alone and stores nothing for it.
    func apply(
        _ mutation: Mutation, claiming step: ClaimStep, in transaction: any ServerTransaction, at stamp: Date
    ) async -> WriteOutcome {
        // nil until the savepoint decides; the 500 is only encoded should nothing be decided.
        var outcome: WriteOutcome?
        do {
            try await transaction.savepoint {
                var held: HeldClaim?
                if let scope = mutation.scope {
                    switch step {
                    case .held(let token):
                        held = HeldClaim(scope: scope, token: token)
                    case .inThisTransaction(let now):
                        let claim = try await transaction.claimIdempotencyKey(
                            scope, fingerprint: mutation.fingerprint, now: now,
                            expiresAfter: configuration.idempotencyTTL,
                            staleAfter: configuration.staleInProgressAfter)
                        guard case .claimed(let token) = claim else {
                            outcome = .settled(claim)
                            return true
                        }
                        held = HeldClaim(scope: scope, token: token)
                    }
                }
                let response = try await EntityHandlers(transaction: transaction, user: mutation.user, now: stamp)
                    .handle(mutation.route, fields: mutation.fields, parsed: mutation.parsed)
                outcome = .ran(response)
                guard response.status < 500 else { return false }
                if let held {
                    try await transaction.completeIdempotencyRecord(
                        held.scope, token: held.token, response: response.stored)
                }
                return true
            }
        } catch is IdempotencyClaimLost {
            // Another request took the (stale) claim over: this effect must not commit, and the
            // answer is the one a request arriving while the key is in use gets.
            outcome = .settled(.inProgress)
        } catch let error as ServerStoreUnavailable {
            // The database went away mid-transaction: nothing of it commits (the commit fails too).
            logger.warning("store unavailable", metadata: ["error": "\(error)"])
            outcome = .ran(Self.unavailable)
        } catch {
            logger.error(
                "write failed", metadata: ["route": "\(mutation.route.template)", "error": "\(error)"])
            outcome = .ran(.problem(Problems.internalError))
        }
        return outcome ?? .ran(.problem(Problems.internalError))
    }

    /// The answer when the database cannot be reached: 503, come back in two seconds.
    static let unavailable = APIResponse.problem(
        Problems.storeUnavailable, headers: [HeaderName.retryAfter: "2"])

    /// The answer a write's outcome sends (and the idempotency counters it moves).
    private func answer(_ outcome: WriteOutcome) -> APIResponse {
        switch outcome {
        case .ran(let response):
            return response
        case .settled(.completed(let stored)):
            metrics.recordReplay()
            return APIResponse(replaying: stored)
        case .settled(.fingerprintMismatch):
            metrics.recordKeyReused()
            return .problem(Problems.keyReused)
        case .settled(.inProgress):
            metrics.recordKeyInUse()
            return .problem(Problems.keyInUse, headers: [HeaderName.retryAfter: "1"])
        case .settled(.claimed):
            // `apply` runs the handler for a fresh claim; it never settles on one.
            return .problem(Problems.internalError)
        }
    }

    /// A single route. On a store with one writer (`ServerStore.claimsWithTheEffect`) the claim,
    /// the effect and the record commit in ONE transaction, exactly as a batch operation's do: a
    /// request with the same key runs after it and replays its stored answer; a 5xx undoes the
    /// claim with the effect, so there is nothing to release. Otherwise see `performInTwoSteps`.
    private func performAlone(_ mutation: Mutation) async -> APIResponse {
        // The test seam holds a request between its claim and its effect: only two steps have that.
        guard mutation.scope != nil, store.claimsWithTheEffect, configuration.afterIdempotencyClaim == nil else {
            return await performInTwoSteps(mutation)
        }
        let now = clock.now()
        let stamp = Timestamp.truncated(now)
        do {
            return answer(
                try await store.write(of: mutation.user) { transaction in
                    await apply(mutation, claiming: .inThisTransaction(now: now), in: transaction, at: stamp)
                })
        } catch {
            logger.error("request failed", metadata: ["route": "\(mutation.route.template)", "error": "\(error)"])
            return error is ServerStoreUnavailable ? Self.unavailable : .problem(Problems.internalError)
        }
    }

    /// A single route in two transactions: the claim commits first, in its own short one, so a
    /// concurrent request with the key (on another instance) sees it "in progress" (409) instead
    /// of waiting; then `apply` runs the effect and completes the record in a second one. A 5xx
    /// releases the key.
    private func performInTwoSteps(_ mutation: Mutation) async -> APIResponse {
        var step = ClaimStep.held(token: "")
        if let scope = mutation.scope {
            let claim: IdempotencyClaim
            do {
                claim = try await store.claimIdempotencyKey(
                    scope, fingerprint: mutation.fingerprint, now: clock.now(),
                    expiresAfter: configuration.idempotencyTTL, staleAfter: configuration.staleInProgressAfter)
            } catch {
                logger.error("idempotency claim failed", metadata: ["error": "\(error)"])
                return error is ServerStoreUnavailable ? Self.unavailable : .problem(Problems.internalError)
            }
            guard case .claimed(let token) = claim else { return answer(.settled(claim)) }
            step = .held(token: token)
            if let hook = configuration.afterIdempotencyClaim { await hook(scope.method, scope.path) }
        }
        let stamp = Timestamp.truncated(clock.now())
        let claimStep = step
        let response: APIResponse
        do {
            response = answer(
                try await store.write(of: mutation.user) { transaction in
                    await apply(mutation, claiming: claimStep, in: transaction, at: stamp)
                })
        } catch {
            logger.error("request failed", metadata: ["route": "\(mutation.route.template)", "error": "\(error)"])
            response = error is ServerStoreUnavailable ? Self.unavailable : .problem(Problems.internalError)
        }
        if response.status >= 500, let scope = mutation.scope, case .held(let token) = step {
            // Not stored: a 5xx releases the key so a retry runs again. When the database is gone
            // the release fails too; it is then owed, and made as soon as the database answers (a
            // retry meanwhile gets 409) — the effect, if its commit did land, replays instead.
            do { try await store.releaseIdempotencyKey(scope, token: token) } catch {
                logger.error("idempotency release failed; retrying it", metadata: ["error": "\(error)"])
                owedReleases.owe(
                    scope, token: token, store: store, staleAfter: configuration.staleInProgressAfter, logger: logger)
            }
        }
        return response
    }

    /// The operations of one `POST /v1/batch`, in order. Consecutive writes share ONE
    /// transaction (one commit, one fsync), each through `apply` claiming inside it, so every
    /// operation still behaves exactly as its single route: its claim, effect and record commit
    /// together, a replay replays, and a 5xx undoes only that operation and stores nothing for it.
    ///
    /// The response has a budget (`maxBatchResponseBytes`): once the results reach it, the
    /// remaining operations are not run and answer 503, so the client sends them again.
    ///
    /// A database that cannot be reached throws `ServerStoreUnavailable`: the whole batch is then
    /// answered 503 with `Retry-After`, and the client sends every operation again (those already
    /// committed replay).
    func performBatch(_ entries: [BatchEntry]) async throws(ServerStoreUnavailable) -> [APIResponse] {
        var responses: [APIResponse] = []
        responses.reserveCapacity(entries.count)
        var pending: [Mutation] = []
        var spent = 0
        let budget = configuration.maxBatchResponseBytes
        func flush() async throws(ServerStoreUnavailable) {
            guard !pending.isEmpty else { return }
            let outcomes = try await runInOneTransaction(pending, spent: spent, budget: budget)
            spent += outcomes.reduce(0) { $0 + Self.resultSize($1) }
            responses += outcomes
            pending.removeAll()
        }
        for entry in entries {
            let call: APICall
            switch entry {
            case .refused(let refusal):
                try await flush()
                responses.append(refusal)
                spent += Self.resultSize(refusal)
                continue
            case .call(let resolved):
                call = resolved
            }
            switch prepare(call) {
            case .answered(let response):
                try await flush()
                let answer = spent < budget ? response : Self.notRun(budget: budget)
                responses.append(answer)
                spent += Self.resultSize(answer)
            case .read:
                // batchRefusal lets no read through; should one ever pass, it is refused the same way.
                try await flush()
                responses.append(
                    .problem(
                        Problems.validation(ValidationError(field: "method", message: "a batch carries only writes"))))
            case .mutate(let mutation):
                pending.append(mutation)
            }
        }
        try await flush()
        return responses
    }

    /// Why an operation may not ride in a batch at all (only writes on entity routes),
    /// or nil when it may. `route` is what the router resolved `method` and `path` to, if anything.
    static func batchRefusal(method: String, path: String, route: APIRoute?) -> APIResponse? {
        let what = "\(method) \(path)"
        switch route {
        case .some(let route) where route.isEntityWrite:
            return nil
        case .some(.batch):
            return .problem(
                Problems.validation(ValidationError(field: "path", message: "cannot name a batch inside a batch")))
        case .some:
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "method",
                        message: "\(what) is a read; a batch carries only writes (POST, PUT, PATCH, DELETE)")))
        case .none:
            return .problem(
                Problems.validation(
                    ValidationError(
                        field: "path",
                        message:
                            "\(what) is not a write on an entity route (/v1/workouts, /v1/sets, /v1/favorites, /v1/routines, /v1/body-weights)"
                    )))
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

    /// A run of consecutive batch writes: one transaction, each write through `apply`.
    private func runInOneTransaction(
        _ mutations: [Mutation], spent alreadySpent: Int, budget: Int
    ) async throws(ServerStoreUnavailable) -> [APIResponse] {
        let now = clock.now()
        let stamp = Timestamp.truncated(now)
        do {
            let outcomes: [WriteOutcome] = try await store.write(of: mutations.first?.user ?? "") { transaction in
                var outcomes: [WriteOutcome] = []
                outcomes.reserveCapacity(mutations.count)
                var spent = alreadySpent
                for mutation in mutations {
                    guard spent < budget else {
                        outcomes.append(.ran(Self.notRun(budget: budget)))
                        continue
                    }
                    let outcome = await apply(
                        mutation, claiming: .inThisTransaction(now: now), in: transaction, at: stamp)
                    switch outcome {
                    case .ran(let response): spent += Self.resultSize(response)
                    case .settled(.completed(let stored)): spent += Self.resultSize(APIResponse(replaying: stored))
                    case .settled: spent += Self.resultSize(.problem(Problems.keyInUse))
                    }
                    outcomes.append(outcome)
                }
                return outcomes
            }
            return outcomes.map(answer)
        } catch let error as ServerStoreUnavailable {
            logger.warning("batch transaction failed: store unavailable", metadata: ["error": "\(error)"])
            throw error
        } catch {
            logger.error("batch transaction failed", metadata: ["error": "\(error)"])
            return mutations.map { _ in .problem(Problems.internalError) }
        }
    }

    /// A read route, with the query, user and connection of `call`.
    private func read(_ route: APIRoute, of call: APICall) async -> APIResponse {
        let (query, user) = (call.query, call.user)
        do {
            switch route {
            case .listWorkouts:
                return try await listPage(.workouts, key: "workouts", query: query, user: user)
            case .listSets:
                var workoutID: String?
                if let raw = query["workout_id"], !raw.isEmpty {
                    guard let id = UUID(uuidString: raw) else {
                        return .problem(Problems.malformed("workout_id must be a UUID", field: "workout_id"))
                    }
                    workoutID = id.wireString
                }
                return try await listPage(.sets, key: "sets", query: query, user: user, workoutID: workoutID)
            case .listFavorites:
                return .json(200, FavoritesDTO(favorites: try await store.favorites(user: user)))
            case .listRoutines:
                return try await listPage(.routines, key: "routines", query: query, user: user)
            case .listBodyWeights:
                return try await listPage(.bodyWeights, key: BodyWeightList.key, query: query, user: user)
            case .changes:
                var since: Int64 = 0
                if let raw = query["since"], !raw.isEmpty {
                    guard Self.isPlainWholeNumber(raw), let value = Int64(raw), value >= 0 else {
                        return .problem(
                            Problems.malformed("since must be a cursor returned by this server", field: "since"))
                    }
                    since = value
                }
                let limit: Int
                let wait: Int
                switch Self.wholeNumber(
                    query, "limit", in: 1...ListedEntity.maximumLimit, absent: ListedEntity.defaultLimit)
                {
                case .success(let value): limit = value
                case .failure(let problem): return .problem(problem)
                }
                switch Self.wholeNumber(
                    query, "wait", in: 0...ServerConfiguration.maxWaitSeconds, absent: 0,
                    of: "a whole number of seconds")
                {
                case .success(let value): wait = value
                case .failure(let problem): return .problem(problem)
                }
                // A wait: the generation is noted before the read, so a write that commits
                // between the read and the wait still ends it.
                let deadline = ContinuousClock.now + .seconds(wait)
                var seen = waiters.generation(of: user)
                var page = try await store.changes(user: user, after: since, limit: limit)
                // A cursor past this database's history (restored from an older copy) is answered
                // at once, with the head it has: nothing will come after it for a long while.
                if page.changes.isEmpty, since > 0 {
                    let head = try await store.feedHead(user: user)
                    if since > head {
                        var answer = APIResponse.json(
                            200, WireChangesPage(changes: [], cursor: String(since), hasMore: false))
                        answer.headers[HeaderName.serverIdentity] = store.identity
                        answer.headers[HeaderName.feedHead] = String(head)
                        return answer
                    }
                }
                // A device that goes away (airplane mode, a closed app) stops counting as waiting
                // within a second: the waits' sweep checks its connection. While it waits, its
                // connection counts against the waiting limit, not the connection limit.
                let parks = page.changes.isEmpty && wait > 0
                if parks { call.waitingOnFeed(true) }
                defer { if parks { call.waitingOnFeed(false) } }
                waiting: while page.changes.isEmpty, wait > 0, ContinuousClock.now < deadline {
                    let outcome = await waiters.wait(
                        for: user, after: seen, timeout: deadline - ContinuousClock.now,
                        stillWanted: call.connectionOpen)
                    switch outcome {
                    case .overLimit:
                        return .problem(
                            Problem(
                                type: ProblemType.unavailable, title: "Too many waiting", status: 503,
                                detail: "\(waiters.limit) requests are waiting on a change feed already; ask again"),
                            headers: [HeaderName.retryAfter: "1"])
                    case .userOverLimit:
                        return .problem(
                            Problem(
                                type: Problems.rateLimitedType, title: "Too many waiting", status: 429,
                                detail:
                                    "this account has \(waiters.limitPerUser) requests waiting on its change feed already; ask again"
                            ), headers: [HeaderName.retryAfter: "1"])
                    case .changed, .timedOut:
                        // A token revoked or rotated while it waited hears so now, and never gets
                        // what was written after.
                        guard await call.stillAuthorized() else {
                            return .problem(Problems.unauthorized, headers: ["WWW-Authenticate": "Bearer"])
                        }
                        guard outcome == .changed else { break waiting }
                        seen = waiters.generation(of: user)
                        page = try await store.changes(user: user, after: since, limit: limit)
                    }
                }
                let cursor = page.changes.last?.serverVersion ?? since
                var answer = APIResponse.json(
                    200, WireChangesPage(changes: page.changes, cursor: String(cursor), hasMore: page.hasMore))
                // A cursor counts in this database's versions only: its name goes with each page.
                answer.headers[HeaderName.serverIdentity] = store.identity
                return answer
            default:
                return .problem(Problems.internalError)
            }
        } catch {
            logger.error("read failed", metadata: ["route": "\(route.template)", "error": "\(error)"])
            return error is ServerStoreUnavailable ? Self.unavailable : .problem(Problems.internalError)
        }
    }

    /// Digits as the API writes a number (`^[0-9]{1,18}$`, no sign, no leading zero): Swift's `Int`
    /// also reads "+5" and "05", which openapi.yaml's pattern does not allow.
    static func isPlainWholeNumber(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard (1...18).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return bytes.count == 1 || bytes.first != 0x30
    }

    /// The whole-number query parameter `name` in `range` (`absent` when it is missing or empty),
    /// or the 400 that names it.
    static func wholeNumber(
        _ query: [String: String], _ name: String, in range: ClosedRange<Int>, absent: Int,
        of kind: String = "a whole number"
    ) -> Result<Int, Problem> {
        guard let raw = query[name], !raw.isEmpty else { return .success(absent) }
        guard isPlainWholeNumber(raw), let value = Int(raw), range.contains(value) else {
            return .failure(
                Problems.malformed(
                    "\(name) must be \(kind) from \(range.lowerBound) to \(range.upperBound)", field: name))
        }
        return .success(value)
    }

    /// A page of a list route: `limit` rows at most (`ListedEntity.defaultLimit` when absent) after
    /// the cursor `after` names (from the start when absent); the answer names the next page's
    /// cursor while more follow.
    private func listPage(
        _ list: ListedEntity, key: String, query: [String: String], user: String, workoutID: String? = nil
    ) async throws -> APIResponse {
        let limit: Int
        switch Self.wholeNumber(query, "limit", in: 1...ListedEntity.maximumLimit, absent: ListedEntity.defaultLimit) {
        case .success(let value): limit = value
        case .failure(let problem): return .problem(problem)
        }
        var cursor = ListCursor.start(of: list)
        if let raw = query["after"], !raw.isEmpty {
            guard let named = ListCursor(token: raw, of: list) else {
                return .problem(Problems.malformed("after must be a cursor this list returned", field: "after"))
            }
            cursor = named
        }
        let page = try await store.listPage(list, user: user, workoutID: workoutID, after: cursor, limit: limit)
        return .json(
            200,
            .object([
                key: .array(page.items.map(\.json)), "has_more": .bool(page.next != nil),
                "cursor": page.next.map { .string($0.token) } ?? .null,
            ]))
    }

    /// The body's object, and its canonical bytes when they were written to check its size.
    private func parseObject(
        _ body: RequestBody
    ) -> Result<(object: [String: JSONValue], canonical: Data?), Problem> {
        let value: JSONValue
        var canonical: Data?
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
            let bytes = parsed.canonicalData
            guard bytes.count <= configuration.maxBodyBytes else {
                return .failure(Problems.tooLarge(limit: configuration.maxBodyBytes))
            }
            value = parsed
            canonical = bytes
        }
        guard let object = value.objectValue else {
            return .failure(Problems.malformed("the body must be a JSON object"))
        }
        return .success((object, canonical))
    }
}

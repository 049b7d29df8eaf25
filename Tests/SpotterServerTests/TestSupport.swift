import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

extension Trait where Self == ConditionTrait {
    /// Runs a test only where PostgreSQL is available, else reports it skipped with the reason.
    static var postgresRequired: Self {
        .enabled(
            if: TestPostgres.unavailableReason == nil,
            Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")"))
    }
}

/// Shown by the test's name: "sqlite" or "postgres".
extension StoreBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

extension StoreBackend {
    /// Opens the store a test server's configuration names (for tests that wrap it in `makeStore`).
    static func openStore(path: String, url: String?) async throws -> any ServerStore {
        guard let url else { return try SQLiteServerStore(path: path) }
        var logger = Logger(label: "spotter.server.tests")
        logger.logLevel = .critical
        return try await PostgresServerStore.open(PostgresLocation(url: url), poolSize: 4, logger: logger)
    }
}

/// A gate requests can be held at until the test opens it; only the first `holding` arrivals wait.
actor Gate {
    private let holding: Int
    private var arrivals = 0
    private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    private var isOpen = false
    private var openWaiters: [CheckedContinuation<Void, Never>] = []

    init(holding: Int = .max) { self.holding = holding }

    /// Called by the server hook: records the arrival and waits until the gate opens.
    func pass() async {
        arrivals += 1
        let mine = arrivals
        let ready = arrivalWaiters.filter { $0.0 <= arrivals }
        arrivalWaiters.removeAll { $0.0 <= arrivals }
        for (_, waiter) in ready { waiter.resume() }
        if isOpen || mine > holding { return }
        await withCheckedContinuation { openWaiters.append($0) }
    }

    /// Waits until `count` requests have reached the gate.
    func waitForArrivals(_ count: Int) async {
        if arrivals >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    func open() {
        isOpen = true
        for waiter in openWaiters { waiter.resume() }
        openWaiters.removeAll()
    }
}

/// Runs `count` requests at once; their responses in the order they came back.
func inParallel(
    _ count: Int, _ request: @escaping @Sendable (Int) async throws -> WireResponse
) async throws -> [WireResponse] {
    try await withThrowingTaskGroup(of: WireResponse.self) { group in
        for index in 0..<count { group.addTask { try await request(index) } }
        return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
    }
}

/// Identical requests with one key, racing: exactly one ran (201, not replayed); every other one
/// replayed its bytes or was told the key is in use (409, Retry-After: 1) — never a 5xx.
func expectOneEffect(_ responses: [WireResponse], sourceLocation: SourceLocation = #_sourceLocation) {
    let fresh = responses.filter { $0.status == 201 && !$0.replayed }
    let replays = responses.filter { $0.status == 201 && $0.replayed }
    let inUse = responses.filter { $0.status == 409 }
    #expect(fresh.count == 1, sourceLocation: sourceLocation)
    #expect(replays.count + inUse.count == responses.count - 1, sourceLocation: sourceLocation)
    #expect(replays.allSatisfy { $0.body == fresh.first?.body }, sourceLocation: sourceLocation)
    #expect(
        inUse.allSatisfy {
            (try? $0.decode(Problem.self).type) == ProblemType.keyInUse && $0.headers.first(name: "Retry-After") == "1"
        }, sourceLocation: sourceLocation)
    #expect(responses.allSatisfy { $0.status < 500 }, "never a 5xx", sourceLocation: sourceLocation)
}

/// Runs `body`, then stops `server` and removes its files, whether `body` threw or not.
func stopping(_ server: TestServer, _ body: (TestServer) async throws -> Void) async throws {
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A real store with a fault put in front of its writes: `beforeWrite` may throw (a database that
/// errors mid-request), `wrapTransaction` may replace what the handlers write through.
struct WrappedStore: ServerStore {
    let base: any ServerStore
    var identity: String { base.identity }
    var beforeWrite: @Sendable () throws -> Void = {}
    var wrapTransaction: @Sendable (any ServerTransaction) -> any ServerTransaction = { $0 }

    init(base: any ServerStore, beforeWrite: @escaping @Sendable () throws -> Void) {
        self.base = base
        self.beforeWrite = beforeWrite
    }

    init(base: any ServerStore, wrapTransaction: @escaping @Sendable (any ServerTransaction) -> any ServerTransaction) {
        self.base = base
        self.wrapTransaction = wrapTransaction
    }

    func write<T: Sendable>(_ work: @escaping @Sendable (any ServerTransaction) async throws -> T) async throws -> T {
        try beforeWrite()
        let wrap = wrapTransaction
        return try await base.write { transaction in try await work(wrap(transaction)) }
    }

    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval, staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        try await base.claimIdempotencyKey(
            scope, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter, staleAfter: staleAfter)
    }

    func releaseIdempotencyKey(_ scope: IdempotencyScope, token: String) async throws {
        try await base.releaseIdempotencyKey(scope, token: token)
    }

    func purgeIdempotencyRecords(createdBefore cutoff: Date) async throws -> Int {
        try await base.purgeIdempotencyRecords(createdBefore: cutoff)
    }

    func idempotencyRecord(_ scope: IdempotencyScope) async throws -> IdempotencyRecord? {
        try await base.idempotencyRecord(scope)
    }

    func workouts(user: String, includeDeleted: Bool) async throws -> [WireWorkout] {
        try await base.workouts(user: user, includeDeleted: includeDeleted)
    }

    func sets(user: String, workoutID: String?, includeDeleted: Bool) async throws -> [WireSet] {
        try await base.sets(user: user, workoutID: workoutID, includeDeleted: includeDeleted)
    }

    func favorites(user: String) async throws -> [String] { try await base.favorites(user: user) }

    func routines(user: String, includeDeleted: Bool) async throws -> [WireRoutine] {
        try await base.routines(user: user, includeDeleted: includeDeleted)
    }

    func bodyWeights(user: String, includeDeleted: Bool) async throws -> [WireBodyWeight] {
        try await base.bodyWeights(user: user, includeDeleted: includeDeleted)
    }

    func listPage(
        _ list: ListedEntity, user: String, workoutID: String?, after cursor: ListCursor, limit: Int
    ) async throws -> ListSlice {
        try await base.listPage(list, user: user, workoutID: workoutID, after: cursor, limit: limit)
    }

    func changes(user: String, after version: Int64, limit: Int) async throws -> ChangeSlice {
        try await base.changes(user: user, after: version, limit: limit)
    }

    func feedHead(user: String) async throws -> Int64 { try await base.feedHead(user: user) }
    func ping() async throws { try await base.ping() }
    func close() async throws { try await base.close() }
}

extension WireChange {
    /// The set this change carries, if it is one.
    var setRow: WireSet? {
        if case .set(let set) = self { return set }
        return nil
    }

    /// The workout this change carries, if it is one.
    var workoutRow: WireWorkout? {
        if case .workout(let workout) = self { return workout }
        return nil
    }
}

// The bodies of `GET /v1/workouts` and `GET /v1/sets` as the tests read them (the server writes
// a page: these rows and its `has_more` and `cursor`, see `ListPages.swift`).

/// `GET /v1/workouts`.
struct WorkoutList: WireCodable {
    var workouts: [WireWorkout]

    init(workouts: [WireWorkout]) { self.workouts = workouts }

    init(json: JSONValue) throws(WireError) {
        guard case .array(let rows)? = json["workouts"] else {
            throw WireError(field: "workouts", expected: "an array")
        }
        var workouts: [WireWorkout] = []
        for row in rows { workouts.append(try WireWorkout(json: row)) }
        self.workouts = workouts
    }

    var json: JSONValue { .object(["workouts": .array(workouts.map(\.json))]) }
}

/// `GET /v1/sets`.
struct SetList: WireCodable {
    var sets: [WireSet]

    init(sets: [WireSet]) { self.sets = sets }

    init(json: JSONValue) throws(WireError) {
        guard case .array(let rows)? = json["sets"] else { throw WireError(field: "sets", expected: "an array") }
        var sets: [WireSet] = []
        for row in rows { sets.append(try WireSet(json: row)) }
        self.sets = sets
    }

    var json: JSONValue { .object(["sets": .array(sets.map(\.json))]) }
}

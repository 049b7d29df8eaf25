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

/// Which database a test's server stores in. The store-dependent suites run once per backend, so
/// SQLite and PostgreSQL answer the very same assertions and cannot drift apart.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The backends a store-dependent test runs on here: PostgreSQL only where a throwaway cluster
    /// could be started. Where it could not, the PostgreSQL cases do not exist (nothing passes in
    /// their name) and every PostgreSQL-only test is reported skipped with the reason
    /// (`postgresRequired`).
    static var available: [StoreBackend] { TestPostgres.unavailableReason == nil ? allCases : [.sqlite] }

    /// A fresh, empty database for a test: the SQLite file in `directory`, or a new database on
    /// the shared throwaway PostgreSQL cluster. Without PostgreSQL the test is reported skipped
    /// with the reason (never passed).
    func freshLocation(in directory: URL) async throws -> String? {
        switch self {
        case .sqlite:
            return nil
        case .postgres:
            if let reason = TestPostgres.unavailableReason {
                throw TestFailure("PostgreSQL is not available: \(reason)")
            }
            let url = try await TestPostgres.freshDatabase()
            try url.write(to: directory.appendingPathComponent("database-url"), atomically: true, encoding: .utf8)
            return url
        }
    }

    /// The database of `directory`'s earlier server (a restart keeps its data).
    static func existingLocation(in directory: URL) -> String? {
        try? String(contentsOf: directory.appendingPathComponent("database-url"), encoding: .utf8)
    }

    /// Opens the store a test server's configuration names (for tests that wrap it in `makeStore`).
    static func openStore(path: String, url: String?) async throws -> any ServerStore {
        guard let url else { return try SQLiteServerStore(path: path) }
        var logger = Logger(label: "spotter.server.tests")
        logger.logLevel = .critical
        return try await PostgresServerStore.open(PostgresLocation(url: url), poolSize: 4, logger: logger)
    }
}

/// A response as a client saw it on the wire.
struct WireResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { JSONValue.parse(body) }
    var replayed: Bool { headers.first(name: HeaderName.idempotentReplayed) == "true" }
    var contentType: String? { headers.first(name: "Content-Type") }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireJSON.decoder().decode(type, from: body) }
}

/// A real sync server on 127.0.0.1 with a fresh database in a temporary directory, and an
/// HTTP client that talks to it over the socket.
final class TestServer: Sendable {
    static let aliceToken = "alice-secret"
    static let bobToken = "bob-secret"
    static let tokens = [aliceToken: "alice", bobToken: "bob"]

    let directory: URL
    let databasePath: String
    let server: BackgroundServer
    let configuration: ServerConfiguration

    var store: any ServerStore { server.store }
    var baseURL: String { server.baseURL }

    static func configuration(in directory: URL) -> ServerConfiguration {
        ServerConfiguration(databasePath: directory.appendingPathComponent("server.db").path, tokens: tokens)
    }

    static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotter-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts a server on `backend`; `adjust` may change the configuration (clock, chaos, hooks)
    /// first. Given the directory of an earlier server, it reopens that server's database.
    static func start(
        _ backend: StoreBackend = .sqlite, in existing: URL? = nil,
        _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = try existing ?? makeDirectory()
        var configuration = configuration(in: directory)
        configuration.databasePoolSize = 4
        if existing != nil {
            configuration.databaseURL = StoreBackend.existingLocation(in: directory)
        } else {
            configuration.databaseURL = try await backend.freshLocation(in: directory)
        }
        adjust(&configuration)
        var logger = Logger(label: "spotter.server.tests")
        logger.logLevel = .critical
        let server = try await BackgroundServer.start(configuration, logger: logger)
        return TestServer(directory: directory, configuration: configuration, server: server)
    }

    private init(directory: URL, configuration: ServerConfiguration, server: BackgroundServer) {
        self.directory = directory
        self.databasePath = configuration.databasePath
        self.configuration = configuration
        self.server = server
    }

    func stop(removingFiles: Bool = true) async {
        await server.stop()
        guard removingFiles else { return }
        if let url = configuration.databaseURL { await TestPostgres.dropDatabase(url) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends one request; `body` is sent verbatim.
    func send(
        _ method: HTTPMethod, _ path: String, body: String? = nil, key: String? = nil,
        token: String? = TestServer.aliceToken, headers: [(String, String)] = []
    ) async throws -> WireResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let key { request.headers.add(name: HeaderName.idempotencyKey, value: key) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let collected = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return WireResponse(
            status: Int(response.status.code), headers: response.headers, body: Data(collected.readableBytesView))
    }

    /// Sends a JSON value (encoded compactly, keys in whatever order Foundation picks).
    func send(
        _ method: HTTPMethod, _ path: String, json: JSONValue, key: String? = nil,
        token: String? = TestServer.aliceToken
    ) async throws -> WireResponse {
        try await send(method, path, body: json.canonicalString, key: key, token: token)
    }

    /// Creates a workout through the API and returns its id.
    @discardableResult
    func createWorkout(
        id: String = UUID().wireString, name: String = "Push Day", token: String = TestServer.aliceToken
    )
        async throws -> String
    {
        let response = try await send(
            .POST, Route.workouts, json: Fixtures.workout(id: id, name: name), key: UUID().uuidString, token: token)
        guard response.status == 201 else {
            throw TestFailure("workout create answered \(response.status): \(response.text)")
        }
        return id
    }

    /// Creates a set through the API and returns its id.
    @discardableResult
    func createSet(
        workoutID: String, id: String = UUID().wireString, weight: Double = 100, reps: Int = 5,
        token: String = TestServer.aliceToken
    ) async throws -> String {
        let response = try await send(
            .POST, Route.sets, json: Fixtures.set(id: id, workoutID: workoutID, weight: weight, reps: reps),
            key: UUID().uuidString, token: token)
        guard response.status == 201 else {
            throw TestFailure("set create answered \(response.status): \(response.text)")
        }
        return id
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Request bodies the tests send.
enum Fixtures {
    static let startedAt = "2026-03-02T18:00:00.000Z"

    static func workout(id: String = UUID().wireString, name: String = "Push Day") -> JSONValue {
        .object(["id": .string(id), "name": .string(name), "started_at": .string(startedAt)])
    }

    static func set(
        id: String = UUID().wireString, workoutID: String, exercise: String = "Bench Press (Barbell)",
        weight: Double = 100, reps: Int = 5, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "workout_id": .string(workoutID), "exercise": .string(exercise), "position": .int(1),
            "kind": .string("normal"), "weight": .double(weight), "unit": .string("kg"), "reps": .int(Int64(reps)),
            "performed_at": .string("2026-03-02T18:05:00.000Z"),
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
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

    func write<T: Sendable>(_ work: @escaping @Sendable (any ServerTransaction) throws -> T) async throws -> T {
        try beforeWrite()
        let wrap = wrapTransaction
        return try await base.write { transaction in try work(wrap(transaction)) }
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

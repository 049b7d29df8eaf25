import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SpotterCore
import SpotterProtocol
import SpotterServer

// The one server harness of the suites: a real server on 127.0.0.1 (SQLite, or a fresh database
// on the throwaway PostgreSQL cluster), the requests a client sends it, and their bodies. The
// server suites and the device suites start theirs here, so a change of how a test server is
// made or spoken to is made once.

/// Which database a test's server stores in. The store-dependent suites run once per backend, so
/// SQLite and PostgreSQL answer the very same assertions and cannot drift apart.
public enum StoreBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The backends a store-dependent test runs on here: PostgreSQL only where a throwaway cluster
    /// could be started. Where it could not, the PostgreSQL cases do not exist (nothing passes in
    /// their name) and every PostgreSQL-only test is reported skipped with the reason
    /// (`postgresRequired`).
    public static var available: [StoreBackend] { TestPostgres.unavailableReason == nil ? allCases : [.sqlite] }

    /// A fresh, empty database for a test: the SQLite file in `directory`, or a new database on
    /// the shared throwaway PostgreSQL cluster. Without PostgreSQL the test is reported skipped
    /// with the reason (never passed).
    public func freshLocation(in directory: URL) async throws -> String? {
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
    public static func existingLocation(in directory: URL) -> String? {
        try? String(contentsOf: directory.appendingPathComponent("database-url"), encoding: .utf8)
    }
}

/// A response as a client saw it on the wire.
public struct WireResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { JSONValue.parse(body) }
    public var replayed: Bool { headers.first(name: HeaderName.idempotentReplayed) == "true" }
    public var contentType: String? { headers.first(name: "Content-Type") }

    public init(status: Int, headers: HTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireJSON.decoder().decode(type, from: body) }
}

/// A real sync server on 127.0.0.1 with a fresh database in a temporary directory, and an
/// HTTP client that talks to it over the socket.
public final class TestServer: Sendable {
    public static let aliceToken = "alice-secret"
    public static let bobToken = "bob-secret"
    public static let tokens = [aliceToken: "alice", bobToken: "bob"]

    public let directory: URL
    public var databasePath: String { configuration.databasePath }
    public let server: BackgroundServer
    public let configuration: ServerConfiguration

    public var store: any ServerStore { server.store }
    public var baseURL: String { server.baseURL }

    public static func configuration(in directory: URL) -> ServerConfiguration {
        ServerConfiguration(databasePath: directory.appendingPathComponent("server.db").path, tokens: tokens)
    }

    public static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotter-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts a server on `backend`; `adjust` may change the configuration (clock, chaos, hooks)
    /// first. Given the directory of an earlier server, it reopens that server's database.
    public static func start(
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
        return try await launch(configuration, in: directory, ownsDatabase: true)
    }

    /// One instance of several on a PostgreSQL database they share (`url`, such as a private
    /// cluster's): stopping it leaves the database to the others and to whoever made it.
    public static func instance(
        on url: String, _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = try makeDirectory()
        var configuration = configuration(in: directory)
        configuration.databaseURL = url
        configuration.databasePoolSize = 4
        adjust(&configuration)
        return try await launch(configuration, in: directory, ownsDatabase: false)
    }

    private static func launch(
        _ configuration: ServerConfiguration, in directory: URL, ownsDatabase: Bool
    ) async throws -> TestServer {
        var logger = Logger(label: "spotter.server.tests")
        logger.logLevel = .critical
        let server = try await BackgroundServer.start(configuration, logger: logger)
        return TestServer(
            directory: directory, configuration: configuration, server: server, ownsDatabase: ownsDatabase)
    }

    /// Whether stopping with `removingFiles` drops the PostgreSQL database too.
    private let ownsDatabase: Bool

    private init(directory: URL, configuration: ServerConfiguration, server: BackgroundServer, ownsDatabase: Bool) {
        self.ownsDatabase = ownsDatabase
        self.directory = directory
        self.configuration = configuration
        self.server = server
    }

    public func stop(removingFiles: Bool = true) async {
        await server.stop()
        guard removingFiles else { return }
        if ownsDatabase, let url = configuration.databaseURL { await TestPostgres.dropDatabase(url) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends one request; `body` is sent verbatim.
    public func send(
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
    public func send(
        _ method: HTTPMethod, _ path: String, json: JSONValue, key: String? = nil,
        token: String? = TestServer.aliceToken
    ) async throws -> WireResponse {
        try await send(method, path, body: json.canonicalString, key: key, token: token)
    }

    /// Creates a workout through the API and returns its id.
    @discardableResult
    public func createWorkout(
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
    public func createSet(
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

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Request bodies the tests send.
public enum Fixtures {
    public static let startedAt = "2026-03-02T18:00:00.000Z"

    public static func workout(id: String = UUID().wireString, name: String = "Push Day") -> JSONValue {
        .object(["id": .string(id), "name": .string(name), "started_at": .string(startedAt)])
    }

    public static func set(
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

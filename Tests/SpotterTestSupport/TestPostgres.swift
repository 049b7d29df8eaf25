import Foundation
import Logging
import PostgresNIO

/// Throwaway PostgreSQL clusters for the tests, started by `scripts/pg-cluster` (initdb + pg_ctl
/// on a free loopback port, as an unprivileged user, no system service).
///
/// The shared cluster starts once per test process on first use and is watched by the script:
/// it stops and is removed when this process exits, however it exits. When PostgreSQL is not
/// installed, `unavailableReason` says so and the PostgreSQL tests are reported skipped with it
/// (`Test.cancel`), never passed. `SPOTTER_TEST_POSTGRES_URL` points the tests at an existing
/// server instead (a role that may create databases); `SPOTTER_TEST_POSTGRES=off` skips them.
public enum TestPostgres {
    /// The shared cluster's URL, or why there is none.
    private static let shared: Result<String, Unavailable> = startShared()

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Why PostgreSQL tests cannot run here, or nil when they can.
    public static var unavailableReason: String? {
        if case .failure(let reason) = shared { return reason.description }
        return nil
    }

    /// A new, empty database on the shared cluster; its URL.
    public static func freshDatabase() async throws -> String {
        let base = try shared.get()
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await administer(base) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        return replacingDatabase(of: base, with: name)
    }

    /// Drops a database `freshDatabase` made (connections still open to it are closed).
    public static func dropDatabase(_ url: String) async {
        guard let base = try? shared.get(), let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty
        else { return }
        try? await administer(base) { connection in
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
    }

    /// A cluster of the caller's own, for a test that stops and restarts PostgreSQL (which must
    /// not disturb the tests sharing the other one). `destroy()` when done; it is also removed
    /// when the test process exits. Its scripts run on a thread of their own: `initdb` and
    /// `pg_ctl` take seconds, and the cooperative pool (two threads on a two-core machine) must
    /// keep serving the other tests' in-process servers meanwhile.
    public static func privateCluster() async throws -> PrivateCluster {
        if let reason = unavailableReason { throw Unavailable(description: reason) }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotter-pg-\(UUID().uuidString.prefix(8))").path
        let url = try await onOwnThread { try runScript(["start", directory, "--fast", "--watch", "\(getpid())"]) }
        return PrivateCluster(directory: directory, url: url)
    }

    public struct PrivateCluster: Sendable {
        public let directory: String
        public let url: String

        /// Stops PostgreSQL (fast: open transactions roll back, connections are cut).
        public func stopServer() async throws {
            let directory = directory
            _ = try await TestPostgres.onOwnThread { try TestPostgres.runScript(["stop", directory]) }
        }
        /// Starts it again on the same port with the same data.
        public func startServer() async throws {
            let directory = directory
            _ = try await TestPostgres.onOwnThread { try TestPostgres.runScript(["start", directory]) }
        }
        /// Stops it and removes its files, on a thread of its own (not waited for).
        public func destroy() {
            let directory = directory
            Thread.detachNewThread { _ = try? TestPostgres.runScript(["destroy", directory]) }
        }
    }

    /// Runs blocking work (a script waited for with `waitpid`) on a thread of its own.
    public static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    // MARK: -

    private static let logger = Logger(label: "spotter.tests.postgres")

    private static func startShared() -> Result<String, Unavailable> {
        let environment = ProcessInfo.processInfo.environment
        if environment["SPOTTER_TEST_POSTGRES"] == "off" {
            return .failure(Unavailable(description: "SPOTTER_TEST_POSTGRES=off"))
        }
        if let url = environment["SPOTTER_TEST_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotter-pg-shared-\(getpid())").path
        do {
            return .success(try runScript(["start", directory, "--fast", "--watch", "\(getpid())"]))
        } catch let error as Unavailable {
            return .failure(error)
        } catch {
            return .failure(Unavailable(description: "\(error)"))
        }
    }

    /// Where `scripts/pg-cluster` is, found from this source file's place in the repository.
    private static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg-cluster").path
    }

    /// Runs the script and returns its standard output. Spawned and waited for with
    /// posix_spawn and waitpid rather than Foundation's `Process`, whose `waitUntilExit` can wait
    /// forever when called from a task on a busy cooperative pool.
    @discardableResult
    static func runScript(_ arguments: [String]) throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString)")
        let outputPath = scratch.path + ".out"
        let errorPath = scratch.path + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([scriptPath] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = ChildSpawning.lock.withLock { posix_spawn(&pid, scriptPath, &actions, nil, argv, environ) }
        guard spawned == 0 else {
            throw Unavailable(description: "cannot run \(scriptPath): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let problem = ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Exited normally: the low 7 bits are 0 and the code is in the next 8.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitCode == 0 else {
            throw Unavailable(
                description: exitCode == 77
                    ? "PostgreSQL is not installed here: \(problem)"
                    : "scripts/pg-cluster \(arguments.first ?? "") failed (exit \(exitCode)): \(problem)")
        }
        return text
    }

    private static func replacingDatabase(of url: String, with name: String) -> String {
        var parts = URLComponents(string: url)!
        parts.path = "/" + name
        return parts.string!
    }

    /// Runs `body` on a connection of its own to the database at `url`, then closes it.
    public static func administer(
        _ url: String, _ body: @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        guard let parts = URLComponents(string: url), let host = parts.host, let user = parts.user else {
            throw Unavailable(description: "unreadable PostgreSQL URL \(url)")
        }
        let configuration = PostgresConnection.Configuration(
            host: host, port: parts.port ?? 5432, username: user, password: parts.password,
            database: String(parts.path.dropFirst()), tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}

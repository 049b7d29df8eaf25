import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@Suite("spotter serve, the binary", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct ServeBinaryTests {
    @Test func sigtermLetsTheRequestInFlightFinishThenExitsZero() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        // Every write waits 4 s before it is handled: long enough to signal mid-request even on a
        // machine busy enough that the request takes a second to arrive.
        let server = try await offThePool { try ServerProcess(db: serverDB, extra: ["--chaos-latency", "4000"]) }
        let client = HTTPClient.shared

        var request = HTTPClientRequest(url: server.url + "/v1/workouts")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(ServerProcess.token)")
        request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        request.headers.add(name: "Content-Type", value: "application/json")
        let id = UUID().uuidString.lowercased()
        request.body = .bytes(
            ByteBuffer(string: #"{"id":"\#(id)","name":"Late","started_at":"2026-11-22T08:00:00.000Z"}"#))
        async let response = client.execute(request, timeout: .seconds(20))
        try await Task.sleep(nanoseconds: 1_500_000_000)  // the request is now waiting inside the server
        kill(server.process.processIdentifier, SIGTERM)

        let answered = try await response
        #expect(answered.status.code == 201, "the in-flight request finished")
        let status = try await offThePool { () -> Int32 in
            server.process.waitUntilExit()
            return server.process.terminationStatus
        }
        #expect(status == 0, "a graceful shutdown exits 0")
    }

    /// A second instance on one SQLite file would hear none of the first one's writes while its
    /// devices wait on the feed: it is refused, pointing at PostgreSQL; once the first stops, it starts.
    @Test func aSecondServerOnOneSQLiteFileIsRefused() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let first = try await offThePool { try ServerProcess(db: serverDB) }
        let second = try await SpotterBinary.run(
            ["serve", "--port", "0", "--db", serverDB, "--token", "bob=bob-secret-1"], db: serverDB)
        #expect(second.status == 1, "\(second.stdout) \(second.stderr)")
        #expect(second.stderr.contains("another `spotter serve` serves"), "\(second.stderr)")
        #expect(second.stderr.contains("pid \(first.process.processIdentifier)"), "\(second.stderr)")
        #expect(second.stderr.contains("--database-url"))
        // Another path to the same file meets the same lock: a symlink, a hard link.
        let symlink = directory.appendingPathComponent("link.db").path
        let hardLink = directory.appendingPathComponent("hard.db").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: serverDB)
        try FileManager.default.linkItem(atPath: serverDB, toPath: hardLink)
        for other in [symlink, hardLink] {
            let refused = try await SpotterBinary.run(
                ["serve", "--port", "0", "--db", other, "--token", "bob=bob-secret-1"], db: other)
            #expect(refused.status == 1 && refused.stderr.contains("already"), "\(other): \(refused.stderr)")
        }
        // Accounts are still managed while it runs.
        #expect(
            try await SpotterBinary.run(["serve", "users", "add", "carol", "--db", serverDB], db: serverDB).status == 0)
        first.stop()
        let again = try await offThePool { try ServerProcess(db: serverDB) }
        again.stop()
    }

    @Test func aWrongTokenIsRefusedWithProblemJSON() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB) }
        defer { server.stop() }
        var request = HTTPClientRequest(url: server.url + "/v1/workouts")
        request.headers.add(name: "Authorization", value: "Bearer wrong")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status.code == 401)
        #expect(response.headers.first(name: "Content-Type")?.hasPrefix("application/problem+json") == true)
    }

    @Test func aBadOrUnreachableDatabaseURLIsOneClearLine() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let serve = ["serve", "--port", "0", "--token", "alice=s"]
        let both = try await SpotterBinary.run(
            serve + ["--db", "x.db", "--database-url", "postgres://u@127.0.0.1/d"], db: db)
        #expect(both.status == 64 || both.status == 2)
        #expect(both.stderr.contains("--db and --database-url"))
        let wrongScheme = try await SpotterBinary.run(serve + ["--database-url", "mysql://u@127.0.0.1/d"], db: db)
        #expect(wrongScheme.status == 64 || wrongScheme.status == 2)
        #expect(wrongScheme.stderr.contains("postgres://USER@HOST:PORT/DATABASE"))
        let typo = try await SpotterBinary.run(
            serve + ["--database-url", "postgress://spotter:hunter2@127.0.0.1/d"], db: db)
        #expect(typo.stderr.contains("postgress://spotter:***@127.0.0.1/d"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("hunter2"), "a mistyped URL does not print its password")
        let tls = try await SpotterBinary.run(
            serve + ["--database-url", "postgres://u@127.0.0.1/d?sslmode=require"], db: db)
        #expect(tls.stderr.contains("without TLS"))
        // Nothing listens on port 1: the server refuses to start, saying where it tried.
        let unreachable = try await SpotterBinary.run(
            serve + ["--database-url", "postgres://spotter:secret@127.0.0.1:1/spotter"], db: db, timeout: 30)
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot use PostgreSQL at postgres://spotter@127.0.0.1:1/spotter"))
        #expect(!unreachable.stderr.contains("secret"), "the password is never printed")
    }
}

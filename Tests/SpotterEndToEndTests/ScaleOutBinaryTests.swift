import AsyncHTTPClient
import Foundation
import NIOCore
import SpotterTestSupport
import Testing

/// `spotter serve --database-url`: the real binary, two instances on one PostgreSQL.
@Suite(
    "spotter serve on PostgreSQL, the binary",
    .enabled(if: SpotterBinary.exists, "build the binary first: swift build"),
    .enabled(
        if: TestPostgres.unavailableReason == nil,
        Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")))
struct ScaleOutBinaryTests {
    private func post(_ url: String, key: String, body: String) async throws -> (Int, String, Bool) {
        var request = HTTPClientRequest(url: url + "/v1/workouts")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(ServerProcess.token)")
        request.headers.add(name: "Idempotency-Key", value: key)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (
            Int(response.status.code), String(buffer: bytes),
            response.headers.first(name: "Idempotent-Replayed") == "true"
        )
    }

    @Test func twoInstancesShareOneDatabaseAndOneIdempotencyContract() async throws {
        let url = try await TestPostgres.freshDatabase()
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        // Started together: the migrations run once under the advisory lock.
        async let startA = offThePool { try ServerProcess(db: "", databaseURL: url) }
        async let startB = offThePool { try ServerProcess(db: "", databaseURL: url) }
        let (a, b) = try await (startA, startB)
        defer {
            a.stop()
            b.stop()
        }

        // A retry that reaches the other instance replays the very bytes of the first answer.
        let id = UUID().uuidString.lowercased()
        let body = #"{"id":"\#(id)","name":"Legs","started_at":"2026-11-22T08:00:00.000Z"}"#
        let first = try await post(a.url, key: "k-1", body: body)
        let retry = try await post(b.url, key: "k-1", body: body)
        #expect(first.0 == 201 && !first.2)
        #expect(retry.0 == 201 && retry.2)
        #expect(retry.1 == first.1)

        // A phone syncs through A; a laptop that only pulls, through B, sees exactly its sets.
        let phone = directory.appendingPathComponent("phone.db").path
        var logged = Set<String>()
        for index in 0..<12 {
            let result = try await SpotterBinary.run(
                [
                    "log", "--exercise", "Squat (Barbell)", "--weight", "\(100 + index)", "--reps", "5", "--server",
                    a.url,
                    "--token", ServerProcess.token,
                ], db: phone)
            #expect(result.status == 0)
            logged.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let pushed = try await SpotterBinary.run(
            ["sync", "--timeout", "30", "--server", a.url, "--token", ServerProcess.token], db: phone)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let laptop = directory.appendingPathComponent("laptop.db").path
        let pulled = try await SpotterBinary.run(
            ["sync", "--timeout", "30", "--server", b.url, "--token", ServerProcess.token], db: laptop)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let sets = try SpotterBinary.json(
            try await SpotterBinary.run(
                ["sets", "--json", "--server", b.url, "--token", ServerProcess.token], db: laptop
            ).stdout)
        let ids = (sets["sets"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(Set(ids) == logged)
        #expect(ids.count == logged.count)

        // SIGTERM: each instance shuts down gracefully and exits 0.
        for server in [a, b] {
            kill(server.process.processIdentifier, SIGTERM)
            let status = try await offThePool { () -> Int32 in
                let deadline = Date().addingTimeInterval(15)
                while server.process.isRunning && Date() < deadline { usleep(20_000) }
                return server.process.isRunning ? -1 : server.process.terminationStatus
            }
            #expect(status == 0)
        }
        await TestPostgres.dropDatabase(url)
    }
}

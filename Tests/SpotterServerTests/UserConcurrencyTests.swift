import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `--max-user-concurrency`: one account's burst is turned away at its door (429, retried by every
/// client) while the other accounts are served.
@Suite("One account's burst does not hold the server (SQLite and PostgreSQL)")
struct UserConcurrencyTests {
    @Test(
        "past the account's limit a batch is 429 with Retry-After and stores nothing; another account is served meanwhile",
        arguments: StoreBackend.available)
    func aBurstIsTurnedAwayAtTheDoor(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend) { configuration in
            configuration.maxUserConcurrency = 2
            configuration.chaos.latencyMS = 300  // every write takes a while: the batches overlap
        }
        try await stopping(server) { server in
            let ids = (0..<20).map { _ in UUID().wireString }
            let burst = Task {
                try await withThrowingTaskGroup(of: (String, WireResponse).self) { group in
                    for id in ids {
                        group.addTask {
                            let body = BatchRequest(ops: [
                                BatchOp(
                                    idempotencyKey: UUID().wireString, method: "POST", path: Route.workouts,
                                    body: Fixtures.workout(id: id, name: "Burst 💪🏽 e\u{301}"))
                            ]).json.canonicalString
                            return (id, try await server.send(.POST, Route.batch, body: body))
                        }
                    }
                    var answers: [(String, WireResponse)] = []
                    for try await answer in group { answers.append(answer) }
                    return answers
                }
            }
            // Meanwhile Bob reads and writes as if nothing were happening.
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await server.send(.GET, Route.workouts, token: TestServer.bobToken).status == 200)
            let bobs = try await server.createWorkout(token: TestServer.bobToken)

            let answers = try await burst.value
            let refused = answers.filter { $0.1.status == 429 }
            let served = answers.filter { $0.1.status == 200 }
            #expect(!refused.isEmpty, "some of the 20 were over the limit of 2")
            #expect(served.count >= 2, "and the account was still served")
            #expect(refused.count + served.count == 20, "\(answers.map(\.1.status))")
            for (_, answer) in refused {
                #expect(answer.headers.first(name: "Retry-After") == "1")
                #expect(answer.contentType == Problems.contentType)
                #expect(answer.json?["type"]?.stringValue == Problems.rateLimitedType)
            }
            // A refused batch stored nothing; a served one stored its workout.
            let stored = Set(try await server.store.allWorkouts(user: "alice").map(\.id.wireString))
            #expect(stored == Set(served.map(\.0)))
            #expect(try await server.store.allWorkouts(user: "bob").map(\.id.wireString) == [bobs])
            // The limit counts requests in progress: with the burst over, Alice is served again.
            #expect(try await server.send(.GET, Route.workouts).status == 200)
        }
    }

    @Test("waits on the change feed do not count against the account's limit while they wait")
    func waitsAreNotWork() async throws {
        let server = try await TestServer.start { $0.maxUserConcurrency = 1 }
        try await stopping(server) { server in
            let cursor = try await server.send(.GET, Route.changes).decode(WireChangesPage.self).cursor
            // Three devices open their waits one after another (each reads first, which counts).
            var waits: [Task<WireResponse, any Error>] = []
            for count in 1...3 {
                waits.append(Task { try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20") })
                var waiting = false
                for _ in 0..<400 where !waiting {
                    waiting = try await server.send(.GET, Route.metrics, token: nil).text.contains(
                        "spotter_changes_waiting \(count)")
                    if !waiting { try await Task.sleep(for: .milliseconds(25)) }
                }
                #expect(waiting, "device \(count) waits")
            }
            // Three devices wait; the account's one request in progress is still free.
            let workout = try await server.createWorkout()
            for wait in waits {
                let answer = try await wait.value
                #expect(answer.status == 200)
                #expect(answer.text.contains(workout))
            }
        }
    }
}

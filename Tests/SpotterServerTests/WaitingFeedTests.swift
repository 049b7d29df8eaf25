import Foundation
import SpotterCore
import SpotterProtocol
import Testing

@testable import SpotterServer

/// `GET /v1/changes?wait=SECONDS`: a device keeps one request open, answered as soon as the
/// user's feed moves past its cursor.
@Suite("Waiting on the change feed (SQLite and PostgreSQL)")
struct WaitingFeedTests {
    /// The `spotter_changes_waiting` gauge of `/metrics`.
    private func waiting(_ server: TestServer) async throws -> Int? {
        let text = try await server.send(.GET, Route.metrics, token: nil).text
        let line = text.split(separator: "\n").first { $0.hasPrefix(MetricName.changesWaiting.rawValue + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "").map { Int($0) } }
    }

    /// Polls until `count` requests wait (a bounded poll, not a timing assertion).
    private func untilWaiting(_ server: TestServer, _ count: Int) async throws -> Bool {
        for _ in 0..<400 {
            if try await waiting(server) == count { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    @Test(
        "a waiting request is answered with the write another device makes meanwhile; another user's write does not end it",
        arguments: StoreBackend.available)
    func aWriteEndsTheWait(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let start = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            #expect(start.changes.isEmpty)
            let request = Task {
                try await server.send(.GET, Route.changes + "?since=\(start.cursor)&wait=20")
            }
            #expect(try await untilWaiting(server, 1))
            // Bob's write is not Alice's news: she keeps waiting.
            _ = try await server.createWorkout(token: TestServer.bobToken)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await waiting(server) == 1)
            let workout = try await server.createWorkout(name: "Legs 💪🏽 e\u{301}")
            let answer = try await request.value
            #expect(answer.status == 200)
            let page = try answer.decode(WireChangesPage.self)
            #expect(page.changes.count == 1, "the write that ended the wait, nothing of Bob's")
            if case .workout(let entry)? = page.changes.first {
                #expect(entry.id.wireString == workout && entry.name == "Legs 💪🏽 e\u{301}")
            } else {
                Issue.record("not the workout: \(page.changes)")
            }
            #expect(try await waiting(server) == 0)
        }
    }

    @Test(
        "a wait with nothing new ends empty at its time, with the cursor it was given",
        arguments: StoreBackend.available)
    func aWaitTimesOutEmpty(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            _ = try await server.createWorkout()
            let first = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            #expect(first.changes.count == 1)
            let answer = try await server.send(.GET, Route.changes + "?since=\(first.cursor)&wait=1")
            #expect(answer.status == 200)
            let page = try answer.decode(WireChangesPage.self)
            #expect(page.changes.isEmpty && page.cursor == first.cursor && !page.hasMore)
            // Something already there is answered at once, wait or not.
            let again = try await server.send(.GET, Route.changes + "?since=0&wait=20").decode(WireChangesPage.self)
            #expect(again.changes.count == 1)
            for bad in ["-1", "26", "x", "1.5"] {
                let refused = try await server.send(.GET, Route.changes + "?wait=\(bad)")
                #expect(refused.status == 400, "wait=\(bad)")
                #expect(refused.json?["field"]?.stringValue == "wait")
            }
        }
    }

    @Test(
        "past --max-waiting a waiting request is 503 with Retry-After, and ordinary requests are still served",
        arguments: StoreBackend.available)
    func theWaitingLimit(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend) { $0.maxWaiting = 2 }
        try await stopping(server) { server in
            let cursor = try await server.send(.GET, Route.changes).decode(WireChangesPage.self).cursor
            let first = Task { try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20") }
            let second = Task { try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20") }
            #expect(try await untilWaiting(server, 2))
            let third = try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20")
            #expect(third.status == 503)
            #expect(third.headers.first(name: "Retry-After") == "1")
            #expect(third.contentType == Problems.contentType)
            // Not waiting, not refused: a plain read, a write and a read of the feed without a wait.
            #expect(try await server.send(.GET, Route.workouts).status == 200)
            let workout = try await server.createWorkout()
            for request in [first, second] {
                let answer = try await request.value
                #expect(answer.status == 200)
                #expect(try answer.decode(WireChangesPage.self).changes.count == 1, "\(workout)")
            }
            #expect(try await waiting(server) == 0)
        }
    }
}

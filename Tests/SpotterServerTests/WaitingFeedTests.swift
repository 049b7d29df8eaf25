import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
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

    /// Polls until the instance listens for other instances' notices on PostgreSQL (bounded).
    private func untilListening(_ server: TestServer) async throws -> Bool {
        for _ in 0..<400 {
            if server.server.metrics.prometheusText().contains("spotter_change_relay_listening 1") { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return false
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
            // On PostgreSQL the instance wakes every wait once when it starts listening for the
            // other instances' notices (whatever it missed before): that is before this wait.
            if backend == .postgres { #expect(try await untilListening(server)) }
            let start = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            #expect(start.changes.isEmpty)
            let request = Task {
                try await server.send(.GET, Route.changes + "?since=\(start.cursor)&wait=20")
            }
            #expect(try await untilWaiting(server, 1))
            // Bob's write is not Alice's news: she keeps waiting (her answer below holds only
            // her own write; a wake that reads the feed again and waits on is allowed).
            _ = try await server.createWorkout(token: TestServer.bobToken)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await untilWaiting(server, 1))
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
    @Test("waiting devices do not use up --max-connections: ordinary requests are served beside them")
    func waitingDoesNotTakeConnections() async throws {
        let server = try await TestServer.start {
            $0.connections.maxConnections = 3  // the test's own client keeps one open
            $0.maxWaiting = 10
        }
        try await stopping(server) { server in
            let cursor = try await server.send(.GET, Route.changes).decode(WireChangesPage.self).cursor
            try await Task.sleep(for: .milliseconds(100))  // the client's pooled connection is idle
            // Five devices connect one after another, each waiting on the feed on a socket of its own.
            var devices: [RawConnection] = []
            for count in 1...5 {
                let device = try RawConnection(port: server.server.port, receiveTimeout: 25)
                try device.transmit(
                    "GET \(Route.changes)?since=\(cursor)&wait=20 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: Bearer \(TestServer.aliceToken)\r\n\r\n")
                devices.append(device)
                #expect(try await untilWaiting(server, count), "device \(count) waits")
            }
            // Five waiting, the limit three with the client's own: two fresh connections are still served.
            let plain = try (0..<2).map { _ in try RawConnection(port: server.server.port) }
            for connection in plain {
                try connection.transmit(
                    "GET \(Route.workouts) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: Bearer \(TestServer.aliceToken)\r\n\r\n")
            }
            for connection in plain {
                let reply = await connection.readResponse()
                #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
            }
            // The limit still holds for ordinary connections: a third one is refused.
            let third = try RawConnection(port: server.server.port)
            let (refused, _) = await third.readUntilClosed()
            #expect(String(decoding: refused, as: UTF8.self).hasPrefix("HTTP/1.1 503"))

            // A write ends every wait, each answered with it.
            let workout = try await server.createWorkout(name: "Legs 💪🏽")
            for device in devices {
                let reply = await device.readResponse()
                #expect(reply.hasPrefix("HTTP/1.1 200") && reply.contains(workout), "\(reply.prefix(300))")
            }
            #expect(try await waiting(server) == 0)
        }
    }
    @Test("a server shutting down answers its waiting requests instead of holding its shutdown for them")
    func shutdownEndsTheWaits() async throws {
        let server = try await TestServer.start()
        let cursor = try await server.send(.GET, Route.changes).decode(WireChangesPage.self).cursor
        let request = Task { try? await server.send(.GET, Route.changes + "?since=\(cursor)&wait=25") }
        #expect(try await untilWaiting(server, 1))
        let began = ContinuousClock.now
        await server.stop()
        let answer = await request.value
        // Bounded by the wait's own 25 s, not a speed figure: a shutdown that waited it out fails.
        #expect(ContinuousClock.now - began < .seconds(15), "the shutdown did not wait for the 25 s wait")
        #expect(answer == nil || answer?.status == 200, "answered empty, or its connection closed")
        if let answer, answer.status == 200 {
            let page = try answer.decode(WireChangesPage.self)
            #expect(page.changes.isEmpty && page.cursor == cursor)
        }
    }

    @Test(
        "one account cannot take every waiting place: past its own limit its wait is 429, another account still waits")
    func theWaitingLimitPerAccount() async throws {
        let server = try await TestServer.start {
            $0.maxWaiting = 10
            $0.maxWaitingPerUser = 2
        }
        try await stopping(server) { server in
            let cursor = try await server.send(.GET, Route.changes).decode(WireChangesPage.self).cursor
            let alices = (0..<2).map { _ in
                Task { try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20") }
            }
            #expect(try await untilWaiting(server, 2))
            let third = try await server.send(.GET, Route.changes + "?since=\(cursor)&wait=20")
            #expect(third.status == 429)
            #expect(third.headers.first(name: "Retry-After") == "1")
            #expect(third.contentType == Problems.contentType)
            let bobCursor = try await server.send(.GET, Route.changes, token: TestServer.bobToken)
                .decode(WireChangesPage.self).cursor
            let bobs = Task {
                try await server.send(.GET, Route.changes + "?since=\(bobCursor)&wait=20", token: TestServer.bobToken)
            }
            #expect(try await untilWaiting(server, 3), "Bob waits beside Alice's two")
            let workout = try await server.createWorkout(name: "Legs 💪🏽")
            for alice in alices { #expect(try await alice.value.text.contains(workout)) }
            let bobsWorkout = try await server.createWorkout(name: "Bob e\u{301}", token: TestServer.bobToken)
            #expect(try await bobs.value.text.contains(bobsWorkout))
        }
    }
}

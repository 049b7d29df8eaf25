import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// Fault injection: the failures a client's retry logic must survive.
@Suite("Fault injection")
struct ChaosTests {
    @Test("drop: the effect commits, the client sees the connection close with no response, the retry replays")
    func dropAfterCommit() async throws {
        let dropping = try await TestServer.start { $0.chaos.dropRate = 1 }
        let workoutID = UUID().wireString
        let key = UUID().uuidString
        let body = Fixtures.workout(id: workoutID)
        await #expect(throws: (any Error).self) {
            _ = try await dropping.send(.POST, Route.workouts, json: body, key: key)
        }
        #expect(try await dropping.store.allWorkouts(user: "alice").map(\.id.wireString) == [workoutID])

        // Raw socket: not one byte of a response comes back.
        // Off the cooperative pool: a blocking recv() there could starve this very server.
        let port = dropping.server.port
        let request = RawHTTP.post(
            path: Route.workouts, token: TestServer.aliceToken, key: UUID().uuidString,
            body: Fixtures.workout().canonicalString)
        let received = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Data, any Error>) in
            Thread { continuation.resume(with: Result { try RawHTTP.exchange(port: port, request: request) }) }.start()
        }
        #expect(received.isEmpty)
        await dropping.stop(removingFiles: false)

        let calm = try await TestServer.start(in: dropping.directory)
        try await stopping(calm) { calm in
            let retry = try await calm.send(.POST, Route.workouts, json: body, key: key)
            #expect(retry.status == 201)
            #expect(retry.replayed)
            #expect(try await calm.store.allWorkouts(user: "alice").count == 2)
        }
    }

    @Test("drop on a batch: every op commits, no response, and the resent batch replays each op")
    func dropAfterBatchCommit() async throws {
        let dropping = try await TestServer.start { $0.chaos.dropRate = 1 }
        let workoutID = UUID().wireString
        let ops = [
            BatchOp(idempotencyKey: "w", method: "POST", path: Route.workouts, body: Fixtures.workout(id: workoutID)),
            BatchOp(idempotencyKey: "s", method: "POST", path: Route.sets, body: Fixtures.set(workoutID: workoutID)),
        ]
        let body = BatchRequest(ops: ops).json.canonicalString
        await #expect(throws: (any Error).self) {
            _ = try await dropping.send(.POST, Route.batch, body: body)
        }
        #expect(try await dropping.store.allSets(user: "alice").count == 1)
        await dropping.stop(removingFiles: false)

        let calm = try await TestServer.start(in: dropping.directory)
        try await stopping(calm) { calm in
            let retry = try await calm.send(.POST, Route.batch, body: body)
            let results = try retry.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [201, 201])
            #expect(results.map(\.replayed) == [true, true])
            #expect(try await calm.store.allSets(user: "alice").count == 1)
        }
    }

    @Test("fail: 503 problem before handling, nothing applied; healthz and reads are spared")
    func failBeforeHandling() async throws {
        let server = try await TestServer.start { $0.chaos.failRate = 1 }
        try await stopping(server) { server in
            let key = UUID().uuidString
            let response = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key)
            #expect(response.status == 503)
            #expect(response.contentType == "application/problem+json")
            #expect(try response.decode(Problem.self).type == ProblemType.unavailable)
            #expect(try await server.send(.POST, Route.batch, body: "{\"ops\":[]}").status == 503)
            #expect(try await server.send(.GET, Route.healthz, token: nil).status == 200)
            #expect(try await server.send(.GET, Route.workouts).status == 200)
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: key)) == nil)
        }
    }

    @Test("429 carries Retry-After: 2 and applies nothing")
    func rateLimited() async throws {
        let server = try await TestServer.start { $0.chaos.rate429 = 1 }
        try await stopping(server) { server in
            let response = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(), key: UUID().uuidString)
            #expect(response.status == 429)
            #expect(response.headers.first(name: "Retry-After") == "2")
            #expect(response.contentType == "application/problem+json")
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
        }
    }

    @Test("latency delays writes by the configured time")
    func latency() async throws {
        let server = try await TestServer.start { $0.chaos.latencyMS = 150 }
        try await stopping(server) { server in
            let started = ContinuousClock.now
            let response = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(), key: UUID().uuidString)
            #expect(response.status == 201)
            #expect(ContinuousClock.now - started >= .milliseconds(150))
        }
    }

    @Test("the same seed gives the same faults")
    func seededChaosIsReproducible() {
        var options = ChaosOptions()
        options.failRate = 0.3
        options.dropRate = 0.3
        options.rate429 = 0.3
        options.seed = 42
        let first = ChaosInjector(options)
        let second = ChaosInjector(options)
        let a = (0..<200).map { _ in first.decide() }.map { [$0.fail, $0.rateLimit, $0.drop] }
        let b = (0..<200).map { _ in second.decide() }.map { [$0.fail, $0.rateLimit, $0.drop] }
        #expect(a == b)
        let failures = a.filter { $0[0] }.count
        #expect((30...90).contains(failures))  // about 30 % of 200
    }
}

/// A minimal HTTP/1.1 exchange over a blocking POSIX socket, to see exactly which bytes come back.
enum RawHTTP {
    static func post(path: String, token: String, key: String, body: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Idempotency-Key: \(key)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
    }

    /// Sends `request` and returns everything received until the server closes (5 s at most).
    static func exchange(port: Int, request: String) throws -> Data {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("connect() failed") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw TestFailure("send() failed") }
            sent += n
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 {
                received.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return received  // orderly close
            } else if errno == ECONNRESET {
                return received
            } else {
                throw TestFailure(
                    "recv() failed or timed out (errno \(errno)) — the server neither answered nor closed")
            }
        }
    }
}

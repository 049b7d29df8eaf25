import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterServer

/// The idempotency contract (docs/sync-protocol.md), each bullet against the real server on loopback.
@Suite("Idempotency contract")
struct IdempotencyTests {
    @Test(
        "a retried create replays byte-identically, with the header, and applies once",
        arguments: StoreBackend.available)
    func replayIsByteIdentical(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = UUID().wireString
            let key = UUID().uuidString
            let body = Fixtures.set(id: setID, workoutID: workoutID, weight: 100.126)

            let first = try await server.send(.POST, Route.sets, json: body, key: key)
            #expect(first.status == 201)
            #expect(!first.replayed)

            // Same content, other key order and whitespace: the same request.
            let reserialised = """
                {  "reps": 5, "performed_at": "2026-03-02T18:05:00.000Z", "unit": "kg", "weight": 100.126,
                   "kind": "normal", "position": 1, "exercise": "Bench Press (Barbell)",
                   "workout_id": "\(workoutID)", "id": "\(setID)" }
                """
            let second = try await server.send(.POST, Route.sets, body: reserialised, key: key)
            #expect(second.status == 201)
            #expect(second.replayed)
            #expect(second.body == first.body)
            #expect(second.contentType == first.contentType)
            #expect(try await server.store.allSets(user: "alice").count == 1)
            #expect(server.server.metrics.replayCount == 1)
        }
    }

    @Test(
        "the same key with a different body is 422 key-reused and leaves the record untouched",
        arguments: StoreBackend.available)
    func keyReuseIsRejected(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let key = UUID().uuidString
            let original = Fixtures.set(workoutID: workoutID, reps: 5)
            let first = try await server.send(.POST, Route.sets, json: original, key: key)
            #expect(first.status == 201)
            let scope = IdempotencyScope(user: "alice", method: "POST", path: Route.sets, key: key)
            let recordBefore = try await server.store.idempotencyRecord(scope)

            let changed = Fixtures.set(workoutID: workoutID, reps: 6)
            let reused = try await server.send(.POST, Route.sets, json: changed, key: key)
            #expect(reused.status == 422)
            #expect(reused.contentType == "application/problem+json")
            let problem = try reused.decode(Problem.self)
            #expect(problem.type == ProblemType.keyReused)

            #expect(try await server.store.idempotencyRecord(scope) == recordBefore)
            let replay = try await server.send(.POST, Route.sets, json: original, key: key)
            #expect(replay.replayed)
            #expect(replay.body == first.body)
            #expect(try await server.store.allSets(user: "alice").count == 1)
            #expect(server.server.metrics.keyReusedCount == 1)
        }
    }

    @Test(
        "a missing, empty, over-long or non-ASCII key is 400",
        arguments: [nil, "", String(repeating: "k", count: 256), "clé-é"] as [String?])
    func badKeysAreRejected(key: String?) async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let response = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key)
            #expect(response.status == 400)
            #expect(response.contentType == "application/problem+json")
            #expect(try response.decode(Problem.self).type == ProblemType.missingKey)
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
        }
    }

    @Test("a key of exactly 255 printable characters is accepted", arguments: StoreBackend.available)
    func longestKeyIsAccepted(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let key = String(repeating: "k", count: 254) + "~"
            let response = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key)
            #expect(response.status == 201)
        }
    }

    @Test("the same key from two users is two records and two effects", arguments: StoreBackend.available)
    func keysAreScopedByUser(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let key = "shared-key-1"
            let alice = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key)
            let bob = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(name: "Legs"), key: key, token: TestServer.bobToken)
            #expect(alice.status == 201)
            #expect(bob.status == 201)
            #expect(!bob.replayed)
            #expect(try await server.store.allWorkouts(user: "alice").map(\.name) == ["Push Day"])
            #expect(try await server.store.allWorkouts(user: "bob").map(\.name) == ["Legs"])
            for user in ["alice", "bob"] {
                let record = try await server.store.idempotencyRecord(
                    IdempotencyScope(user: user, method: "POST", path: Route.workouts, key: key))
                #expect(record?.isCompleted == true)
            }
        }
    }

    @Test("the same key on another path is another record", arguments: StoreBackend.available)
    func keysAreScopedByPath(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let key = "one-key"
            let workoutID = UUID().wireString
            #expect(
                try await server.send(.POST, Route.workouts, json: Fixtures.workout(id: workoutID), key: key).status
                    == 201)
            let set = try await server.send(.POST, Route.sets, json: Fixtures.set(workoutID: workoutID), key: key)
            #expect(set.status == 201)
            #expect(!set.replayed)
        }
    }

    @Test("a completed record survives a restart and replays byte-identically", arguments: StoreBackend.available)
    func replayAfterRestart(_ backend: StoreBackend) async throws {
        let first = try await TestServer.start(backend)
        let workoutID = try await first.createWorkout()
        let key = UUID().uuidString
        let body = Fixtures.set(workoutID: workoutID)
        let original = try await first.send(.POST, Route.sets, json: body, key: key)
        #expect(original.status == 201)
        await first.stop(removingFiles: false)

        let second = try await TestServer.start(backend, in: first.directory)
        try await stopping(second) { second in
            #expect(second.server.port != 0)
            let replay = try await second.send(.POST, Route.sets, json: body, key: key)
            #expect(replay.status == 201)
            #expect(replay.replayed)
            #expect(replay.body == original.body)
            #expect(try await second.store.allSets(user: "alice").count == 1)
        }
    }

    @Test(
        "20 identical requests in parallel make exactly one effect; the rest replay or get 409",
        arguments: StoreBackend.available)
    func concurrentIdenticalRequests(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let key = UUID().uuidString
            let body = Fixtures.set(workoutID: workoutID)
            let responses = try await inParallel(20) { _ in
                try await server.send(.POST, Route.sets, json: body, key: key)
            }
            expectOneEffect(responses)
            #expect(try await server.store.allSets(user: "alice").count == 1)
        }
    }

    @Test(
        "a request arriving while the first is still running gets 409 with Retry-After: 1",
        arguments: StoreBackend.available)
    func inProgressConflict(_ backend: StoreBackend) async throws {
        let gate = Gate()
        let server = try await TestServer.start(backend) { configuration in
            configuration.afterIdempotencyClaim = { _, path in
                if path == Route.sets { await gate.pass() }
            }
        }
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let key = UUID().uuidString
            let body = Fixtures.set(workoutID: workoutID)

            let first = Task { try await server.send(.POST, Route.sets, json: body, key: key) }
            await gate.waitForArrivals(1)  // the first request holds the key and is inside its handler
            let second = try await server.send(.POST, Route.sets, json: body, key: key)
            #expect(second.status == 409)
            #expect(second.headers.first(name: "Retry-After") == "1")
            #expect(try second.decode(Problem.self).type == ProblemType.keyInUse)
            #expect(try await server.store.allSets(user: "alice").isEmpty)

            await gate.open()
            let firstResponse = try await first.value
            #expect(firstResponse.status == 201)
            let third = try await server.send(.POST, Route.sets, json: body, key: key)
            #expect(third.replayed)
            #expect(third.body == firstResponse.body)
            #expect(server.server.metrics.keyInUseCount == 1)
        }
    }

    @Test(
        "a stale in-progress record is taken over after 30 s; the abandoned request cannot commit",
        arguments: StoreBackend.available)
    func staleRecordIsTakenOver(_ backend: StoreBackend) async throws {
        let clock = ManualClock()
        let gate = Gate(holding: 1)
        let server = try await TestServer.start(backend) { configuration in
            configuration.clock = clock
            configuration.afterIdempotencyClaim = { _, path in
                if path == Route.sets { await gate.pass() }
            }
        }
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let key = UUID().uuidString
            let body = Fixtures.set(workoutID: workoutID)

            // The first request claims the key and then hangs, like a process that died mid-request.
            let abandoned = Task { try await server.send(.POST, Route.sets, json: body, key: key) }
            await gate.waitForArrivals(1)

            clock.advance(by: 29)
            #expect(try await server.send(.POST, Route.sets, json: body, key: key).status == 409)

            clock.advance(by: 2)
            let takeover = try await server.send(.POST, Route.sets, json: body, key: key)
            #expect(takeover.status == 201)
            #expect(!takeover.replayed)

            await gate.open()
            let late = try await abandoned.value
            #expect(late.status == 409)  // its claim was lost: no second effect
            #expect(try await server.store.allSets(user: "alice").count == 1)
            let replay = try await server.send(.POST, Route.sets, json: body, key: key)
            #expect(replay.body == takeover.body)
        }
    }

    @Test(
        "records expire after 8 days: before that a changed body is 422, after it runs as new",
        arguments: StoreBackend.available)
    func recordsExpireAfterEightDays(_ backend: StoreBackend) async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(backend) { $0.clock = clock }
        try await stopping(server) { server in
            let key = UUID().uuidString
            #expect(try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key).status == 201)

            clock.advance(by: 8 * 24 * 3600 - 60)
            #expect(try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key).status == 422)

            clock.advance(by: 120)
            let afterExpiry = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(name: "Legs"), key: key)
            #expect(afterExpiry.status == 201)
            #expect(!afterExpiry.replayed)
            #expect(try await server.store.allWorkouts(user: "alice").count == 2)
        }
    }

    @Test("the record lifetime is configurable", arguments: StoreBackend.available)
    func expiryIsConfigurable(_ backend: StoreBackend) async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(backend) {
            $0.clock = clock
            $0.idempotencyTTL = 60
        }
        try await stopping(server) { server in
            let key = UUID().uuidString
            let body = Fixtures.workout()
            #expect(try await server.send(.POST, Route.workouts, json: body, key: key).status == 201)
            clock.advance(by: 59)
            #expect(try await server.send(.POST, Route.workouts, json: body, key: key).replayed)
            clock.advance(by: 2)
            // Expired: the request runs again; the client-id layer answers with the existing workout.
            let rerun = try await server.send(.POST, Route.workouts, json: body, key: key)
            #expect(rerun.status == 200)
            #expect(!rerun.replayed)
            #expect(try await server.store.allWorkouts(user: "alice").count == 1)
        }
    }

    @Test("a 5xx is not stored: the key is released and the retry runs again", arguments: StoreBackend.available)
    func serverErrorsAreNotStored(_ backend: StoreBackend) async throws {
        let failures = FailureSwitch(failingWrites: 1)
        let server = try await TestServer.start(backend) { configuration in
            let url = configuration.databaseURL
            configuration.makeStore = { path in
                WrappedStore(base: try await StoreBackend.openStore(path: path, url: url)) {
                    if failures.shouldFail() { throw InjectedStoreFailure() }
                }
            }
        }
        try await stopping(server) { server in
            let key = UUID().uuidString
            let body = Fixtures.workout()
            let failed = try await server.send(.POST, Route.workouts, json: body, key: key)
            #expect(failed.status == 500)
            #expect(failed.contentType == "application/problem+json")
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: key)) == nil)
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)

            let retry = try await server.send(.POST, Route.workouts, json: body, key: key)
            #expect(retry.status == 201)
            #expect(!retry.replayed)
            #expect(try await server.store.allWorkouts(user: "alice").count == 1)
        }
    }

    @Test("GET and DELETE ignore the Idempotency-Key header", arguments: StoreBackend.available)
    func getAndDeleteIgnoreTheKey(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID)
            let key = "delete-key"
            #expect(try await server.send(.DELETE, Route.sets + "/\(setID)", key: key).status == 204)
            let again = try await server.send(.DELETE, Route.sets + "/\(setID)", key: key)
            #expect(again.status == 404)  // ran again, not replayed
            #expect(!again.replayed)
            let list = try await server.send(.GET, Route.workouts, key: key)
            #expect(list.status == 200)
            #expect(!list.replayed)
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "DELETE", path: Route.sets + "/\(setID)", key: key)) == nil)
        }
    }

    @Test(
        "creates are idempotent by client id: same content 200, other content 409; another user's id is his own",
        arguments: StoreBackend.available)
    func clientIDIsTheSecondLayer(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = UUID().wireString
            let body = Fixtures.workout(id: workoutID, name: "Private Session")
            let created = try await server.send(.POST, Route.workouts, json: body, key: UUID().uuidString)
            #expect(created.status == 201)

            let sameContent = try await server.send(.POST, Route.workouts, json: body, key: UUID().uuidString)
            #expect(sameContent.status == 200)
            #expect(sameContent.body == created.body)

            let otherContent = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(id: workoutID, name: "Changed"), key: UUID().uuidString)
            #expect(otherContent.status == 409)
            #expect(try otherContent.decode(Problem.self).type == ProblemType.conflict)

            // Entity ids are scoped per user — bob's workout with the same id is a new
            // entity of his, and nothing in the answer hints that alice has that id.
            let bob = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(id: workoutID, name: "Bob's"), key: UUID().uuidString,
                token: TestServer.bobToken)
            #expect(bob.status == 201)
            #expect(!bob.text.contains("Private Session"))
            #expect(!bob.text.contains("alice"))
            #expect(try await server.store.allWorkouts(user: "bob").map(\.name) == ["Bob's"])
            #expect(try await server.store.allWorkouts(user: "alice").map(\.name) == ["Private Session"])
        }
    }
}

/// How many store writes should still fail.
final class FailureSwitch: Sendable {
    private let remaining: Mutex<Int>

    init(failingWrites: Int) { remaining = Mutex(failingWrites) }

    func shouldFail() -> Bool {
        remaining.withLock { remaining in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
    }
}

struct InjectedStoreFailure: Error {}

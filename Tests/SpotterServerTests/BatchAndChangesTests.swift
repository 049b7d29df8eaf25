import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `POST /v1/batch` and `GET /v1/changes`.
@Suite("Batch and change feed")
struct BatchAndChangesTests {
    private func batch(
        _ server: TestServer, _ ops: [BatchOp], token: String = TestServer.aliceToken
    ) async throws
        -> (WireResponse, [BatchResult])
    {
        let body = BatchRequest(ops: ops).json.canonicalString
        let response = try await server.send(.POST, Route.batch, body: body, token: token)
        guard response.status == 200 else { return (response, []) }
        return (response, try response.decode(BatchResponse.self).results)
    }

    @Test(
        "an op no single request could be (a lower-case method, a path not from the root) changes nothing",
        arguments: StoreBackend.available)
    func batchOpsAreHeldToWhatARequestCouldCarry(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let ops = [
                BatchOp(idempotencyKey: "m1", method: "post", path: Route.workouts, body: Fixtures.workout()),
                BatchOp(idempotencyKey: "m2", method: "POST", path: "v1/workouts", body: Fixtures.workout()),
            ]
            let (response, results) = try await batch(server, ops)
            #expect(response.status == 200)
            #expect(results.map(\.status) == [422, 422], "refused as no write route")
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
        }
    }

    @Test(
        "each op behaves as its single route: one result per op, in order, a 422 stops nothing",
        arguments: StoreBackend.available)
    func batchSemantics(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = UUID().wireString
            let goodSet = UUID().wireString
            let ops = [
                BatchOp(
                    idempotencyKey: "k1", method: "POST", path: Route.workouts, body: Fixtures.workout(id: workoutID)),
                BatchOp(
                    idempotencyKey: "k2", method: "POST", path: Route.sets,
                    body: Fixtures.set(workoutID: workoutID, reps: 5000)),
                BatchOp(
                    idempotencyKey: "k3", method: "POST", path: Route.sets,
                    body: Fixtures.set(id: goodSet, workoutID: workoutID)),
                BatchOp(
                    idempotencyKey: nil, method: "POST", path: Route.sets, body: Fixtures.set(workoutID: workoutID)),
                BatchOp(
                    idempotencyKey: "k5", method: "PATCH", path: Route.set(UUID()), body: .object(["reps": .int(1)])),
                BatchOp(idempotencyKey: nil, method: "PUT", path: Route.favorite("Deadlift (Barbell)"), body: nil),
                BatchOp(idempotencyKey: nil, method: "DELETE", path: "/v1/sets/\(goodSet)", body: nil),
            ]
            let (response, results) = try await batch(server, ops)
            #expect(response.status == 200)
            #expect(results.map(\.status) == [201, 422, 201, 400, 404, 204, 204])
            #expect(results.map(\.idempotencyKey) == ops.map(\.idempotencyKey))
            #expect(results.allSatisfy { !$0.replayed })
            #expect(results[1].body?["field"]?.stringValue == "reps")
            #expect(results[1].body?["type"]?.stringValue == ProblemType.validation)
            #expect(results[0].body?["id"]?.stringValue == workoutID)
            #expect(results[6].body == nil)
            #expect(try await server.store.allWorkouts(user: "alice").count == 1)
            #expect(try await server.store.allSets(user: "alice").isEmpty)  // created then deleted
            #expect(try await server.store.favorites(user: "alice") == ["Deadlift (Barbell)"])

            // The whole batch again: every keyed op replays, byte for byte.
            let (_, again) = try await batch(server, Array(ops.prefix(3)))
            #expect(again.map(\.replayed) == [true, true, true])
            #expect(again.map(\.body) == Array(results.prefix(3)).map(\.body))
        }
    }

    @Test(
        "a key first used in a batch replays on the single route, and the other way round",
        arguments: StoreBackend.available)
    func batchAndSingleRouteShareRecords(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setBody = Fixtures.set(workoutID: workoutID)
            let (_, batched) = try await batch(
                server, [BatchOp(idempotencyKey: "batch-first", method: "POST", path: Route.sets, body: setBody)])
            #expect(batched.first?.status == 201)
            let single = try await server.send(.POST, Route.sets, json: setBody, key: "batch-first")
            #expect(single.status == 201)
            #expect(single.replayed)
            #expect(JSONValue.parse(single.body) == batched.first?.body)

            let otherSet = Fixtures.set(workoutID: workoutID, reps: 8)
            let first = try await server.send(.POST, Route.sets, json: otherSet, key: "single-first")
            let (_, replayed) = try await batch(
                server, [BatchOp(idempotencyKey: "single-first", method: "POST", path: Route.sets, body: otherSet)])
            #expect(replayed.first?.replayed == true)
            #expect(replayed.first?.body == first.json)
            #expect(try await server.store.allSets(user: "alice").count == 2)

            // Reused with a different body inside a batch: 422 key reused, like the single route.
            let (_, reused) = try await batch(
                server, [BatchOp(idempotencyKey: "single-first", method: "POST", path: Route.sets, body: setBody)])
            #expect(reused.first?.status == 422)
            #expect(reused.first?.body?["type"]?.stringValue == ProblemType.keyReused)
        }
    }

    @Test("a malformed batch is 400; batches need auth", arguments: StoreBackend.available)
    func malformedBatch(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            #expect(try await server.send(.POST, Route.batch, body: "{\"ops\": 3}").status == 400)
            #expect(try await server.send(.POST, Route.batch, body: "{").status == 400)
            #expect(try await server.send(.POST, Route.batch, body: "{\"ops\":[]}", token: nil).status == 401)
            let (_, results) = try await batch(
                server,
                [BatchOp(idempotencyKey: "a\u{01}b", method: "POST", path: Route.workouts, body: Fixtures.workout())])
            #expect(results.first?.status == 400)
        }
    }

    @Test(
        "following the change feed from the start reconstructs the server's state exactly",
        arguments: StoreBackend.available)
    func changeFeedReconstructsState(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            var workouts: [String] = []
            var sets: [String] = []
            for index in 0..<3 {
                let workoutID = try await server.createWorkout(name: "Workout \(index)")
                workouts.append(workoutID)
                for reps in 1...4 { sets.append(try await server.createSet(workoutID: workoutID, reps: reps)) }
            }
            _ = try await server.createWorkout(token: TestServer.bobToken)  // must not show up for alice
            _ = try await server.send(
                .PATCH, Route.sets + "/\(sets[0])", json: .object(["reps": .int(12)]), key: UUID().uuidString)
            _ = try await server.send(.DELETE, Route.sets + "/\(sets[1])")
            _ = try await server.send(.DELETE, Route.workouts + "/\(workouts[2])")
            _ = try await server.send(
                .PATCH, Route.workouts + "/\(workouts[0])", json: .object(["notes": .string("felt strong")]),
                key: UUID().uuidString)

            var rebuiltWorkouts: [String: WireWorkout] = [:]
            var rebuiltSets: [String: WireSet] = [:]
            var cursor = ""
            var lastVersion: Int64 = 0
            var pages = 0
            while pages < 100 {
                pages += 1
                let page = try await server.send(.GET, Route.changes + "?since=\(cursor)&limit=4").decode(
                    WireChangesPage.self)
                #expect(page.changes.count <= 4)
                for change in page.changes {
                    let version: Int64
                    switch change {
                    case .workout(let workout):
                        version = workout.serverVersion ?? 0
                        rebuiltWorkouts[workout.id.wireString] = workout
                    case .set(let set):
                        version = set.serverVersion ?? 0
                        rebuiltSets[set.id.wireString] = set
                    case .routine(let routine):
                        version = routine.serverVersion ?? 0
                    case .bodyWeight(let entry):
                        version = entry.serverVersion ?? 0
                    case .conflict(let conflict):
                        version = conflict.serverVersion
                    }
                    #expect(version > lastVersion)  // strictly increasing across pages
                    lastVersion = version
                }
                cursor = page.cursor
                if !page.hasMore { break }
            }
            #expect(pages > 3)
            let serverWorkouts = try await server.store.workouts(user: "alice", includeDeleted: true)
            let serverSets = try await server.store.sets(user: "alice", workoutID: nil, includeDeleted: true)
            #expect(rebuiltWorkouts == Dictionary(uniqueKeysWithValues: serverWorkouts.map { ($0.id.wireString, $0) }))
            #expect(rebuiltSets == Dictionary(uniqueKeysWithValues: serverSets.map { ($0.id.wireString, $0) }))
            #expect(rebuiltSets.values.filter { $0.deleted != true }.count == 7)  // 12 − 1 deleted − 4 of workout 2
            #expect(rebuiltSets[sets[0]]?.reps == 12)

            // Nothing new: same cursor back, no changes, no more.
            let idle = try await server.send(.GET, Route.changes + "?since=\(cursor)").decode(WireChangesPage.self)
            #expect(idle.changes.isEmpty)
            #expect(idle.cursor == cursor)
            #expect(!idle.hasMore)

            // A later change appears after the cursor.
            _ = try await server.createSet(workoutID: workouts[0])
            let next = try await server.send(.GET, Route.changes + "?since=\(cursor)").decode(WireChangesPage.self)
            #expect(next.changes.count == 1)
            #expect(try await server.send(.GET, Route.changes + "?since=banana").status == 400)
        }
    }
}

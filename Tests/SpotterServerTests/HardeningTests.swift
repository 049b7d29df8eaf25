import AsyncHTTPClient
import Foundation
import GRDB
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// Issue 8 (items 4 and 5) and issue 10 (server hardening), each against the real server on loopback.
@Suite("Hardening")
struct HardeningTests {
    // MARK: Canonical paths (issue 8 item 5)

    @Test("two Idempotency-Key headers are 400 and store nothing; each key alone still works after")
    func twoKeyHeadersAreRefused() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let id = UUID().uuidString.lowercased()
            let body = "{\"id\":\"\(id)\",\"name\":\"Push\",\"started_at\":\"2026-11-23T10:00:00.000Z\"}"
            let connection = try RawConnection(port: server.server.port)
            try connection.transmit(
                "POST /v1/workouts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.aliceToken)\r\n"
                    + "Idempotency-Key: x1\r\nIdempotency-Key: x2\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            let reply = await connection.readResponse()
            #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply.prefix(300))")
            #expect(reply.contains("application/problem+json") && reply.contains("one Idempotency-Key"))
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty, "nothing stored")
            let alone = try await server.send(
                .POST, Route.workouts,
                json: .object([
                    "id": .string(id), "name": .string("Push"), "started_at": .string("2026-11-23T10:00:00.000Z"),
                ]), key: "x1")
            #expect(alone.status == 201, "x1 was never used: \(alone.status)")
        }
    }

    @Test("names are limited in code points: one 'character' of 20 000 combining marks is 422, nothing stored")
    func namesAreLimitedInCodePoints() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let heavy = "e" + String(repeating: "\u{0301}", count: 20_000)
            #expect(heavy.count == 1, "one character on screen")
            let set = try await server.send(
                .POST, Route.sets,
                json: .object([
                    "id": .string(UUID().uuidString.lowercased()), "workout_id": .string(workoutID),
                    "exercise": .string(heavy), "weight": .double(1), "unit": .string("kg"), "reps": .int(1),
                    "kind": .string("normal"), "position": .int(1), "performed_at": .string("2026-11-23T10:00:00.000Z"),
                ]), key: UUID().uuidString)
            #expect(set.status == 422, "\(set.status)")
            #expect(set.json?["field"]?.stringValue == "exercise")
            #expect(try await server.store.allSets(user: "alice").isEmpty)
        }
    }

    @Test("a key reused with the id upper-cased in the path and another body is 422, and applies once")
    func upperCasedPathIsTheSameScope() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID, reps: 5)
            let key = UUID().uuidString
            let first = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["reps": .int(6)]), key: key)
            #expect(first.status == 200)

            let upper = Route.sets + "/\(setID.uppercased())"
            let reused = try await server.send(.PATCH, upper, json: .object(["reps": .int(7)]), key: key)
            #expect(reused.status == 422)
            #expect(try reused.decode(Problem.self).type == ProblemType.keyReused)
            #expect(try await server.store.allSets(user: "alice").map(\.reps) == [6])

            // The same request spelled with the upper-cased id is a replay of the first.
            let replay = try await server.send(.PATCH, upper, json: .object(["reps": .int(6)]), key: key)
            #expect(replay.replayed)
            #expect(replay.body == first.body)
            let version = first.json?["server_version"]?.intValue.map(Int64.init)
            #expect(try await server.store.allSets(user: "alice").first?.serverVersion == version)
        }
    }

    // MARK: Entity ids per user (issue 8 item 4)

    @Test("alice and bob create the same workout and set ids: two entities, neither sees the other's")
    func sameIDsFromTwoUsersAreTwoEntities() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = UUID().wireString
            let setID = UUID().wireString
            try await server.createWorkout(id: workoutID, name: "Alice Day")
            try await server.createSet(workoutID: workoutID, id: setID, weight: 100, reps: 5)
            try await server.createWorkout(id: workoutID, name: "Bob Day", token: TestServer.bobToken)
            try await server.createSet(workoutID: workoutID, id: setID, weight: 60, reps: 8, token: TestServer.bobToken)

            // Bob changes and deletes his; alice's stay exactly as they were.
            let patched = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["reps": .int(9)]), key: UUID().uuidString,
                token: TestServer.bobToken)
            #expect(patched.status == 200)
            #expect(patched.json?["weight"]?.doubleValue == 60)
            #expect(
                try await server.send(.DELETE, Route.workouts + "/\(workoutID)", token: TestServer.bobToken).status
                    == 204)

            let aliceSets = try await server.send(.GET, Route.sets).decode(SetList.self).sets
            #expect(aliceSets.map(\.reps) == [5])
            #expect(aliceSets.map(\.weight) == [100])
            let aliceWorkouts = try await server.send(.GET, Route.workouts).decode(WorkoutList.self).workouts
            #expect(aliceWorkouts.map(\.name) == ["Alice Day"])
            let bobChanges = try await server.send(.GET, Route.changes, token: TestServer.bobToken).text
            #expect(!bobChanges.contains("Alice Day"))
            #expect(try await server.store.workouts(user: "bob", includeDeleted: true).map(\.deleted) == [true])

            // Alice's own client-id layer is unaffected: her same create still answers her entity.
            let again = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(id: workoutID, name: "Alice Day"),
                key: UUID().uuidString)
            #expect(again.status == 200)
        }
    }

    @Test("a v1 server database is migrated: rows kept, and a second user may then reuse their ids")
    func v1DatabaseMigrates() async throws {
        let directory = try TestServer.makeDirectory()
        let path = directory.appendingPathComponent("server.db").path
        let workoutID = UUID().wireString
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteServerStore.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO workouts (id, owner, name, started_at, updated_at, server_version, deleted)
                        VALUES (?, 'alice', 'Old Day', '2026-03-02T18:00:00.000Z', '2026-03-02T18:00:00.000Z', 1, 0);
                        UPDATE change_sequence SET value = 1;
                        """, arguments: [workoutID])
            }
            try queue.close()
        }
        let server = try await TestServer.start(in: directory)
        try await stopping(server) { server in
            #expect(try await server.store.allWorkouts(user: "alice").map(\.name) == ["Old Day"])
            try await server.createWorkout(id: workoutID, name: "Bob Day", token: TestServer.bobToken)
            #expect(try await server.store.allWorkouts(user: "alice").map(\.name) == ["Old Day"])
            #expect(try await server.store.allWorkouts(user: "bob").map(\.name) == ["Bob Day"])
        }
    }

    // MARK: Batch carries only writes (issue 10 item 6)

    @Test("a batch refuses reads and non-entity paths with 422 per op, and still runs its writes")
    func batchCarriesOnlyWrites() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = UUID().wireString
            let ops = [
                BatchOp(idempotencyKey: nil, method: "GET", path: Route.changes + "?limit=5000", body: nil),
                BatchOp(
                    idempotencyKey: "w", method: "POST", path: Route.workouts, body: Fixtures.workout(id: workoutID)),
                BatchOp(idempotencyKey: nil, method: "GET", path: Route.workouts, body: nil),
                BatchOp(idempotencyKey: nil, method: "GET", path: Route.healthz, body: nil),
                BatchOp(idempotencyKey: "b", method: "POST", path: Route.batch, body: .object(["ops": .array([])])),
                BatchOp(idempotencyKey: nil, method: "OPTIONS", path: Route.sets, body: nil),
                BatchOp(idempotencyKey: nil, method: "PUT", path: Route.favorite("Squat (Barbell)"), body: nil),
            ]
            let body = BatchRequest(ops: ops).json.canonicalString
            let response = try await server.send(.POST, Route.batch, body: body)
            #expect(response.status == 200)
            let results = try response.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [422, 201, 422, 422, 422, 422, 204])
            for index in [0, 2, 3, 4, 5] {
                #expect(results[index].body?["type"]?.stringValue == ProblemType.validation)
                #expect(results[index].body?["field"]?.stringValue != nil)
            }
            #expect(results[0].body?["field"]?.stringValue == "method")
            #expect(results[3].body?["field"]?.stringValue == "path")
            #expect(try await server.store.allWorkouts(user: "alice").map(\.id.wireString) == [workoutID])
        }
    }

    @Test("a batch response stays within its budget: operations past it are not run and answer 503")
    func batchResponseHasABudget() async throws {
        let server = try await TestServer.start { $0.maxBatchResponseBytes = 2000 }
        try await stopping(server) { server in
            let ops = (0..<12).map { index in
                BatchOp(
                    idempotencyKey: "k\(index)", method: "POST", path: Route.workouts,
                    body: Fixtures.workout(name: "Workout \(index)"))
            }
            let body = BatchRequest(ops: ops).json.canonicalString
            let response = try await server.send(.POST, Route.batch, body: body)
            #expect(response.status == 200)
            let results = try response.decode(BatchResponse.self).results
            let ran = results.prefix { $0.status == 201 }.count
            #expect(ran > 0)
            #expect(ran < ops.count)
            #expect(results.dropFirst(ran).allSatisfy { $0.status == 503 })
            #expect(response.body.count < 2000 + 1200)
            // Not run means not applied and not stored: sending them again runs them.
            #expect(try await server.store.allWorkouts(user: "alice").count == ran)
            let rest = BatchRequest(ops: Array(ops.dropFirst(ran).prefix(2))).json.canonicalString
            let retried = try await server.send(.POST, Route.batch, body: rest).decode(BatchResponse.self).results
            #expect(retried.map(\.status) == [201, 201])
            #expect(retried.allSatisfy { !$0.replayed })
        }
    }

    // MARK: Idempotency-Key as a structured field (issue 10 item 8)

    @Test("the sf-string form and the bare token of a key name the same key")
    func structuredFieldKey() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let body = Fixtures.workout()
            let quoted = try await server.send(.POST, Route.workouts, json: body, key: "\"8e03-abc\"")
            #expect(quoted.status == 201)
            let bare = try await server.send(.POST, Route.workouts, json: body, key: "8e03-abc")
            #expect(bare.status == 201)
            #expect(bare.replayed)
            #expect(bare.body == quoted.body)
            let other = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: "\"8e03-abc\"")
            #expect(other.status == 422)
            #expect(try await server.store.allWorkouts(user: "alice").count == 1)

            for malformed in ["\"unterminated", "\"a\"b\"", "\"\"", "\"bad\\escape\""] {
                let response = try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: malformed)
                #expect(response.status == 400, "\(malformed)")
                #expect(try response.decode(Problem.self).type == ProblemType.missingKey)
            }
            #expect(try await server.store.allWorkouts(user: "alice").count == 1)
        }
    }
}

import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `/v1/routines` on both stores: the idempotency contract, the batch route, the change feed,
/// validation and per-user scoping, as every other entity has them.
@Suite("Routine routes (SQLite and PostgreSQL)")
struct RoutineRoutesTests {
    static func routineBody(id: String = UUID().wireString, name: String = "Push A") -> JSONValue {
        let routine = Routine(
            id: UUID(wire: id)!, name: name, restSeconds: 120,
            exercises: [
                RoutineExercise(
                    exercise: "Bench Press (Barbell)", sets: [PlannedSet(weight: 100.004, reps: 5)],
                    progression: .linear, increment: 2.5),
                RoutineExercise(
                    exercise: "Incline Bench Press (Dumbbell)", sets: [PlannedSet(weight: 30, reps: 8, repsMax: 12)],
                    superset: 1, progression: .double),
            ])
        return .object(routine.wireFields)
    }

    @Test(
        "a routine create is 201 canonical, replays with the same key, and 422 for another body under it",
        arguments: StoreBackend.available)
    func createIsIdempotent(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let key = UUID().uuidString
            let first = try await server.send(.POST, Route.routines, json: Self.routineBody(id: id), key: key)
            #expect(first.status == 201)
            let routine = try first.decode(WireRoutine.self)
            #expect(routine.routine.name == "Push A")
            #expect(
                routine.routine.exercises.map(\.exercise) == [
                    "Bench Press (Barbell)", "Incline Bench Press (Dumbbell)",
                ])
            #expect(routine.routine.exercises[0].sets[0].weight == 100, "weights are rounded to 2 decimals")
            #expect(routine.routine.exercises[1].sets[0].repsMax == 12)
            #expect(routine.serverVersion != nil)
            let again = try await server.send(.POST, Route.routines, json: Self.routineBody(id: id), key: key)
            #expect(again.status == 201)
            #expect(again.replayed)
            #expect(again.body == first.body)
            let other = try await server.send(
                .POST, Route.routines, json: Self.routineBody(id: id, name: "Pull A"), key: key)
            #expect(other.status == 422)
            #expect(try await server.store.routines(user: "alice", includeDeleted: false).count == 1)
            #expect(
                try await server.send(.POST, Route.routines, json: Self.routineBody(id: id)).status == 400,
                "a create without an Idempotency-Key is refused")
        }
    }

    @Test(
        "invalid routines are 422 naming the field and store nothing",
        arguments: StoreBackend.available)
    func validation(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            func exercises(_ set: [String: JSONValue]) -> JSONValue {
                .array([.object(["exercise": .string("Squat (Barbell)"), "sets": .array([.object(set)])])])
            }
            let cases: [(String, JSONValue)] = [
                ("exercises[0].sets[0].reps", exercises(["reps": .int(5000)])),
                ("exercises[0].sets[0].weight", exercises(["reps": .int(5), "weight": .double(-1)])),
                ("exercises[0].sets[0].reps_max", exercises(["reps": .int(8), "reps_max": .int(6)])),
                ("exercises[0].sets[0].rpe", exercises(["reps": .int(5), "rpe": .double(8.3)])),
                (
                    "exercises[0].sets[0].percent_1rm",
                    exercises(["reps": .int(5), "weight": .int(100), "percent_1rm": .int(80)])
                ),
                ("exercises", .string("bench")),
            ]
            for (field, value) in cases {
                var body = Self.routineBody().objectValue!
                body["exercises"] = value
                let answer = try await server.send(.POST, Route.routines, json: .object(body), key: UUID().uuidString)
                #expect(answer.status == 422, "\(field)")
                #expect(try answer.decode(Problem.self).field == field)
            }
            var noName = Self.routineBody().objectValue!
            noName["name"] = .string("   ")
            let refused = try await server.send(.POST, Route.routines, json: .object(noName), key: UUID().uuidString)
            #expect(try refused.decode(Problem.self).field == "name")
            #expect(try await server.store.routines(user: "alice", includeDeleted: true).isEmpty)
        }
    }

    @Test(
        "PATCH replaces the fields sent, DELETE tombstones; both are in the change feed, in a batch too",
        arguments: StoreBackend.available)
    func patchDeleteFeedAndBatch(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let created = try await server.send(
                .POST, Route.routines, json: Self.routineBody(id: id), key: UUID().uuidString)
            #expect(created.status == 201)
            let renamed = try await server.send(
                .PATCH, Route.routines + "/\(id)", json: .object(["name": .string("Push B")]), key: UUID().uuidString)
            #expect(renamed.status == 200)
            let routine = try renamed.decode(WireRoutine.self)
            #expect(routine.routine.name == "Push B")
            #expect(routine.routine.exercises.count == 2, "a PATCH of the name keeps the exercises")
            #expect(
                try await server.send(
                    .PATCH, Route.routines + "/\(id)", json: .object(["exercises": .null]), key: UUID().uuidString
                ).status == 422)

            // In a batch: one op replaces the exercises, another creates a second routine.
            let secondID = UUID().wireString
            let ops = [
                BatchOp(
                    idempotencyKey: UUID().uuidString, method: "PATCH", path: Route.routines + "/\(id)",
                    body: .object(["exercises": .array([])])),
                BatchOp(
                    idempotencyKey: UUID().uuidString, method: "POST", path: Route.routines,
                    body: Self.routineBody(id: secondID, name: "Legs")),
            ]
            let batch = try await server.send(.POST, Route.batch, body: BatchRequest(ops: ops).json.canonicalString)
            #expect(batch.status == 200)
            let results = try batch.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [200, 201])
            #expect(try await server.send(.DELETE, Route.routines + "/\(secondID)").status == 204)
            #expect(try await server.send(.DELETE, Route.routines + "/\(secondID)").status == 404)

            let list = try await server.send(.GET, Route.routines).decode(RoutineList.self)
            #expect(list.routines.map(\.routine.name) == ["Push B"])
            #expect(list.routines.first?.routine.exercises.isEmpty == true)

            let page = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            let routines = page.changes.compactMap { change -> WireRoutine? in
                if case .routine(let routine) = change { return routine }
                return nil
            }
            #expect(Set(routines.map(\.routine.id.wireString)) == [id, secondID])
            #expect(routines.first { $0.routine.id.wireString == secondID }?.deleted == true)
            #expect(routines.first { $0.routine.id.wireString == id }?.routine.name == "Push B")
            let versions = page.changes.map(\.serverVersion)
            #expect(versions == versions.sorted(), "the feed stays in version order with routines in it")
        }
    }

    @Test("one user never reads or changes another's routines", arguments: StoreBackend.available)
    func usersAreIsolated(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            _ = try await server.send(.POST, Route.routines, json: Self.routineBody(id: id), key: UUID().uuidString)
            let bob = TestServer.bobToken
            #expect(
                try await server.send(
                    .PATCH, Route.routines + "/\(id)", json: .object(["name": .string("Mine")]),
                    key: UUID().uuidString, token: bob
                ).status == 404)
            #expect(try await server.send(.DELETE, Route.routines + "/\(id)", token: bob).status == 404)
            #expect(try await server.send(.GET, Route.routines, token: bob).decode(RoutineList.self).routines.isEmpty)
            #expect(try await server.send(.GET, Route.changes, token: bob).decode(WireChangesPage.self).changes.isEmpty)
            // The same id from bob is bob's own routine.
            let bobs = try await server.send(
                .POST, Route.routines, json: Self.routineBody(id: id, name: "Bob's"), key: UUID().uuidString,
                token: bob)
            #expect(bobs.status == 201)
            #expect(
                try await server.store.routines(user: "alice", includeDeleted: false).first?.routine.name == "Push A")
        }
    }
}

import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The routes of openapi.yaml: effects, validation, auth, limits and problem bodies.
@Suite("Routes")
struct RoutesTests {
    @Test(
        "creates answer 201 with the canonical entity: weight rounded to 2 decimals, names trimmed",
        arguments: StoreBackend.available)
    func createsAreCanonical(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = UUID().uuidString  // upper case on purpose
            let workout = try await server.send(
                .POST, Route.workouts,
                json: .object([
                    "id": .string(workoutID), "name": .string("  Push Day "),
                    "started_at": .string("2026-03-02T19:00:00+01:00"),
                ]), key: UUID().uuidString)
            #expect(workout.status == 201)
            #expect(workout.contentType == "application/json")
            let canonicalWorkout = try workout.decode(WireWorkout.self)
            #expect(canonicalWorkout.id.wireString == workoutID.lowercased())
            #expect(canonicalWorkout.name == "Push Day")
            #expect(Timestamp.format(canonicalWorkout.startedAt) == "2026-03-02T18:00:00.000Z")
            #expect(canonicalWorkout.serverVersion != nil)
            #expect(canonicalWorkout.updatedAt != nil)
            #expect(canonicalWorkout.deleted == false)

            let set = try await server.send(
                .POST, Route.sets,
                json: Fixtures.set(
                    workoutID: workoutID.lowercased(), exercise: "  Squat (Barbell)  ", weight: 102.4567),
                key: UUID().uuidString)
            #expect(set.status == 201)
            let canonicalSet = try set.decode(WireSet.self)
            #expect(canonicalSet.weight == 102.46)
            #expect(canonicalSet.exercise == "Squat (Barbell)")
            #expect(canonicalSet.serverVersion! > canonicalWorkout.serverVersion!)
            #expect(try await server.store.allSets(user: "alice") == [canonicalSet])
        }
    }

    @Test(
        "invalid fields are 422 naming the field",
        arguments: [
            ("reps", ["reps": JSONValue.int(1001)]),
            ("reps", ["reps": .double(5.5)]),
            ("weight", ["weight": .double(2000.5)]),
            ("weight", ["weight": .double(-1)]),
            ("weight", ["weight": .double(4410), "unit": .string("lb")]),
            ("rpe", ["rpe": .double(10.5)]),
            ("rpe", ["rpe": .double(7.3)]),
            ("exercise", ["exercise": .string("   ")]),
            ("exercise", ["exercise": .string(String(repeating: "x", count: 101))]),
            ("id", ["id": .string("not-a-uuid")]),
            ("kind", ["kind": .string("superset")]),
            ("unit", ["unit": .string("stone")]),
            ("performed_at", ["performed_at": .string("yesterday")]),
            ("workout_id", ["workout_id": .string(UUID().wireString)]),
            ("reps", ["reps": .null]),
        ] as [(String, [String: JSONValue])])
    func validationNamesTheField(field: String, overrides: [String: JSONValue]) async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            guard case .object(var fields) = Fixtures.set(workoutID: workoutID) else { return }
            fields.merge(overrides) { _, new in new }
            let response = try await server.send(.POST, Route.sets, json: .object(fields), key: UUID().uuidString)
            #expect(response.status == 422)
            #expect(response.contentType == "application/problem+json")
            let problem = try response.decode(Problem.self)
            #expect(problem.field == field)
            #expect(problem.detail.contains(field))
            #expect(problem.type == ProblemType.validation)
            #expect(problem.status == 422)
            #expect(try await server.store.allSets(user: "alice").isEmpty)
        }
    }

    @Test("boundary values are accepted: 0 and 1000 reps, 2000 kg, rpe 1 and 9.5", arguments: StoreBackend.available)
    func boundariesAreAccepted(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            for (weight, reps, rpe) in [(0.0, 0, 1.0), (2000.0, 1000, 9.5)] {
                let response = try await server.send(
                    .POST, Route.sets,
                    json: Fixtures.set(
                        workoutID: workoutID, weight: weight, reps: reps,
                        extra: ["rpe": .double(rpe)]), key: UUID().uuidString)
                #expect(response.status == 201, "\(response.text)")
            }
        }
    }

    @Test(
        "a set for a workout that is deleted or belongs to another user is 422 naming workout_id",
        arguments: StoreBackend.available)
    func setNeedsTheUsersLiveWorkout(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let bobsWorkout = try await server.createWorkout(token: TestServer.bobToken)
            let deletedWorkout = try await server.createWorkout()
            #expect(try await server.send(.DELETE, Route.workouts + "/\(deletedWorkout)").status == 204)
            for workoutID in [bobsWorkout, deletedWorkout] {
                let response = try await server.send(
                    .POST, Route.sets, json: Fixtures.set(workoutID: workoutID), key: UUID().uuidString)
                #expect(response.status == 422)
                #expect(try response.decode(Problem.self).field == "workout_id")
            }
        }
    }

    @Test("malformed JSON is 400 problem+json and is not stored", arguments: StoreBackend.available)
    func malformedJSON(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let key = UUID().uuidString
            for body in ["{\"id\": ", "[1,2]", "not json"] {
                let response = try await server.send(.POST, Route.workouts, body: body, key: key)
                #expect(response.status == 400)
                #expect(response.contentType == "application/problem+json")
                #expect(try response.decode(Problem.self).type == ProblemType.malformed)
            }
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: key)) == nil)
            // The key is still free for the real request.
            #expect(try await server.send(.POST, Route.workouts, json: Fixtures.workout(), key: key).status == 201)
        }
    }

    @Test("a body over 64 KiB is 413 and is not stored", arguments: StoreBackend.available)
    func bodyTooLarge(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let key = UUID().uuidString
            let notes = String(repeating: "n", count: 64 * 1024)
            let body = Fixtures.workout().objectValue!.merging(["notes": .string(notes)]) { _, new in new }
            let response = try await server.send(.POST, Route.workouts, json: .object(body), key: key)
            #expect(response.status == 413)
            #expect(response.contentType == "application/problem+json")
            #expect(try response.decode(Problem.self).type == ProblemType.tooLarge)
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: key)) == nil)
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
        }
    }

    @Test("no token or a wrong token is 401 problem+json, on every route", arguments: StoreBackend.available)
    func unauthorized(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            for token in [nil, "wrong-secret"] as [String?] {
                let post = try await server.send(
                    .POST, Route.workouts, json: Fixtures.workout(), key: UUID().uuidString, token: token)
                #expect(post.status == 401)
                #expect(post.contentType == "application/problem+json")
                #expect(try post.decode(Problem.self).type == ProblemType.unauthorized)
                #expect(try await server.send(.GET, Route.changes, token: token).status == 401)
                #expect(try await server.send(.GET, Route.sets, token: token).status == 401)
            }
            #expect(try await server.store.allWorkouts(user: "alice").isEmpty)
        }
    }

    @Test("GET /v1/me names the token's user; a wrong or missing token is 401", arguments: StoreBackend.available)
    func meNamesTheTokensUser(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let alice = try await server.send(.GET, Route.me)
            #expect(alice.status == 200)
            #expect(JSONValue.parse(alice.body)?["user"]?.stringValue == "alice")
            let bob = try await server.send(.GET, Route.me, token: TestServer.bobToken)
            #expect(JSONValue.parse(bob.body)?["user"]?.stringValue == "bob")
            for token in [nil, "wrong-secret"] as [String?] {
                let refused = try await server.send(.GET, Route.me, token: token)
                #expect(refused.status == 401)
                #expect(refused.contentType == "application/problem+json")
            }
        }
    }

    @Test("one user never reads or changes another's data", arguments: StoreBackend.available)
    func usersAreIsolated(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID)
            let bob = TestServer.bobToken
            #expect(
                try await server.send(
                    .PATCH, Route.sets + "/\(setID)", json: .object(["reps": .int(1)]), key: UUID().uuidString,
                    token: bob
                ).status == 404)
            #expect(try await server.send(.DELETE, Route.sets + "/\(setID)", token: bob).status == 404)
            #expect(try await server.send(.DELETE, Route.workouts + "/\(workoutID)", token: bob).status == 404)
            #expect(try await server.send(.GET, Route.sets, token: bob).decode(SetList.self).sets.isEmpty)
            #expect(try await server.send(.GET, Route.workouts, token: bob).decode(WorkoutList.self).workouts.isEmpty)
            #expect(try await server.send(.GET, Route.changes, token: bob).decode(WireChangesPage.self).changes.isEmpty)
            #expect(try await server.store.allSets(user: "alice").first?.reps == 5)
        }
    }

    @Test(
        "PATCH changes only the sent fields and answers the canonical entity; bad patches are refused",
        arguments: StoreBackend.available)
    func patchSet(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID)
            let patched = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["weight": .double(102.505), "rpe": .double(8.5)]),
                key: UUID().uuidString)
            #expect(patched.status == 200)
            let set = try patched.decode(WireSet.self)
            #expect(set.weight == 102.51 || set.weight == 102.5)  // binary rounding of .505
            #expect(set.rpe == 8.5)
            #expect(set.reps == 5)

            let nullRequired = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["reps": .null]), key: UUID().uuidString)
            #expect(nullRequired.status == 422)
            #expect(try nullRequired.decode(Problem.self).field == "reps")
            let otherID = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["id": .string(UUID().wireString)]),
                key: UUID().uuidString)
            #expect(try otherID.decode(Problem.self).field == "id")
            let cleared = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["rpe": .null]), key: UUID().uuidString)
            #expect(try cleared.decode(WireSet.self).rpe == nil)

            let workout = try await server.send(
                .PATCH, Route.workouts + "/\(workoutID)", json: .object(["name": .string("Pull Day")]),
                key: UUID().uuidString)
            #expect(try workout.decode(WireWorkout.self).name == "Pull Day")
        }
    }

    @Test(
        "a PATCH that changes nothing is no new version; kind and unit cannot be patched to null",
        arguments: StoreBackend.available)
    func noOpAndNullPatches(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID)
            let before = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            for body: JSONValue in [.object([:]), .object(["nmae": .string("typo")]), .object(["reps": .int(5)])] {
                let answer = try await server.send(.PATCH, Route.sets + "/\(setID)", json: body, key: UUID().uuidString)
                #expect(answer.status == 200)
                #expect(try answer.decode(WireSet.self).serverVersion == before.changes.last?.setRow?.serverVersion)
            }
            let after = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            #expect(after.cursor == before.cursor, "no entry in the feed for a patch that changed nothing")
            for field in ["kind", "unit"] {
                let refused = try await server.send(
                    .PATCH, Route.sets + "/\(setID)", json: .object([field: .null]), key: UUID().uuidString)
                #expect(refused.status == 422)
                #expect(try refused.decode(Problem.self).field == field)
            }
        }
    }

    @Test("PATCH or DELETE of an absent or deleted entity is 404", arguments: StoreBackend.available)
    func absentEntitiesAre404(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setID = try await server.createSet(workoutID: workoutID)
            #expect(try await server.send(.DELETE, Route.sets + "/\(setID)").status == 204)
            #expect(try await server.send(.DELETE, Route.sets + "/\(setID)").status == 404)
            let patch = try await server.send(
                .PATCH, Route.sets + "/\(setID)", json: .object(["reps": .int(3)]), key: UUID().uuidString)
            #expect(patch.status == 404)
            #expect(try patch.decode(Problem.self).type == ProblemType.notFound)
            #expect(try await server.send(.DELETE, Route.workouts + "/\(UUID().wireString)").status == 404)
            #expect(try await server.send(.DELETE, Route.workouts + "/not-a-uuid").status == 404)
            let unknown = try await server.send(.GET, "/v1/nothing")
            #expect(unknown.status == 404)
            #expect(unknown.contentType == "application/problem+json")
        }
    }

    @Test("deleting a workout tombstones its sets, each in the change feed", arguments: StoreBackend.available)
    func deleteWorkoutTombstonesSets(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            let setIDs = [
                try await server.createSet(workoutID: workoutID), try await server.createSet(workoutID: workoutID),
            ]
            #expect(try await server.send(.DELETE, Route.workouts + "/\(workoutID)").status == 204)
            #expect(try await server.store.allSets(user: "alice").isEmpty)
            let listed = try await server.send(.GET, Route.sets + "?workout_id=\(workoutID)").decode(SetList.self)
            #expect(listed.sets.isEmpty)
            let page = try await server.send(.GET, Route.changes).decode(WireChangesPage.self)
            let tombstonedSets = page.changes.compactMap(\.setRow).filter { $0.deleted == true }.map(\.id.wireString)
            #expect(Set(tombstonedSets) == Set(setIDs))
            #expect(page.changes.compactMap(\.workoutRow).first?.deleted == true)
        }
    }

    @Test(
        "favorites: PUT is idempotent (204), GET lists, DELETE of an absent one is 404",
        arguments: StoreBackend.available)
    func favorites(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let path = Route.favorite("Bench Press (Barbell)")
            #expect(try await server.send(.PUT, path).status == 204)
            #expect(try await server.send(.PUT, path).status == 204)
            #expect(try await server.send(.PUT, Route.favorite("Squat (Barbell)")).status == 204)
            let list = try await server.send(.GET, Route.favorites).decode(FavoritesDTO.self)
            #expect(list.favorites == ["Bench Press (Barbell)", "Squat (Barbell)"])
            #expect(
                try await server.send(.GET, Route.favorites, token: TestServer.bobToken).decode(FavoritesDTO.self)
                    .favorites.isEmpty)
            #expect(try await server.send(.DELETE, path).status == 204)
            let again = try await server.send(.DELETE, path)
            #expect(again.status == 404)
            #expect(again.contentType == "application/problem+json")
            #expect(try await server.send(.PUT, Route.favorite(String(repeating: "x", count: 101))).status == 422)
        }
    }

    @Test(
        "healthz answers 200; metrics counts requests, replays, 422 key reuse and 409 in-progress",
        arguments: StoreBackend.available)
    func healthAndMetrics(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            #expect(try await server.send(.GET, Route.healthz, token: nil).status == 200)
            let key = UUID().uuidString
            let body = Fixtures.workout()
            _ = try await server.send(.POST, Route.workouts, json: body, key: key)
            _ = try await server.send(.POST, Route.workouts, json: body, key: key)  // replay
            _ = try await server.send(.POST, Route.workouts, json: Fixtures.workout(name: "Other"), key: key)
            let metrics = try await server.send(.GET, Route.metrics, token: nil)
            #expect(metrics.status == 200)
            #expect(metrics.contentType?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("spotter_http_requests_total{route=\"POST /v1/workouts\",status=\"201\"} 2"))
            #expect(metrics.text.contains("spotter_http_requests_total{route=\"POST /v1/workouts\",status=\"422\"} 1"))
            #expect(metrics.text.contains("spotter_idempotency_replays_total 1"))
            #expect(metrics.text.contains("spotter_idempotency_key_reused_total 1"))
            #expect(metrics.text.contains("spotter_idempotency_in_progress_total 0"))
        }
    }
}

import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// A workout started from a routine carries its plan (the routine and each planned set's
/// targets) through the server on both stores: kept whole, replayed, in the change feed, never
/// lost to an edit of another field, and refused by name when it does not read.
@Suite("Workout plans on the server (SQLite and PostgreSQL)")
struct WorkoutPlanRoutesTests {
    static let plan = WorkoutPlan(
        routineID: UUID(),
        entries: [
            WorkoutPlan.Entry(
                id: UUID(), exercise: "Bench Press (Barbell)", set: 0, kind: .warmup, weight: 60, unit: .kg, reps: 8),
            WorkoutPlan.Entry(
                id: UUID(), exercise: "Bench Press (Barbell)", set: 1, kind: .normal, weight: 102.5, unit: .kg, reps: 5),
            WorkoutPlan.Entry(
                id: UUID(), exercise: "Chest Dip", set: 0, kind: .normal, weight: 22.5, unit: .lb, reps: 9),
        ])

    static func body(id: UUID, plan: JSONValue = Self.plan.json) -> JSONValue {
        .object([
            "id": .string(id.wireString), "name": .string("Push A"),
            "started_at": .string("2026-11-16T07:30:00.000Z"), "plan": plan,
        ])
    }

    @Test("a plan is kept whole, replayed, in the feed, and survives a rename", arguments: StoreBackend.available)
    func planRoundTrips(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID()
            let key = UUID().uuidString
            let created = try await server.send(.POST, Route.workouts, json: Self.body(id: id), key: key)
            #expect(created.status == 201)
            #expect(try created.decode(WireWorkout.self).plan == Self.plan)
            let replayed = try await server.send(.POST, Route.workouts, json: Self.body(id: id), key: key)
            #expect(replayed.replayed && replayed.body == created.body)

            let renamed = try await server.send(
                .PATCH, Route.workouts + "/\(id.wireString)", json: .object(["name": .string("Push B")]),
                key: UUID().uuidString)
            #expect(renamed.status == 200)
            #expect(try renamed.decode(WireWorkout.self).plan == Self.plan, "a PATCH of the name keeps the plan")

            let feed = try await server.store.changes(user: "alice", after: 0, limit: 10)
            #expect(feed.changes.compactMap(\.workoutRow).last?.plan == Self.plan)
            let listed = try await server.store.workouts(user: "alice", includeDeleted: false)
            #expect(listed.map(\.plan) == [Self.plan])
            // Another user's workouts carry no one else's plan.
            #expect(try await server.store.workouts(user: "bob", includeDeleted: false).isEmpty)
        }
    }

    @Test("a plan that does not read is 422 naming its field and stores nothing", arguments: StoreBackend.available)
    func invalidPlans(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            func with(_ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
                var entry = Self.plan.entries[1]
                entry.id = UUID()
                var fields = WorkoutPlan(routineID: Self.plan.routineID, entries: [entry]).json.objectValue!
                guard case .array(let sets)? = fields["sets"], var entryFields = sets.first?.objectValue else {
                    return .null
                }
                change(&entryFields)
                fields["sets"] = .array([.object(entryFields)])
                return .object(fields)
            }
            let cases: [(String, JSONValue)] = [
                ("plan", .null),
                ("plan", .string("Push A")),
                ("plan.routine_id", .object(["routine_id": .string("push"), "sets": .array([])])),
                ("plan.sets", .object(["routine_id": .string(UUID().wireString)])),
                ("plan.sets[0].reps", with { $0["reps"] = .int(5000) }),
                ("plan.sets[0].weight", with { $0["weight"] = .double(-5) }),
                ("plan.sets[0].written_reps", with { $0["written_reps"] = .int(-1) }),
                ("plan.sets[0].exercise_index", with { $0["exercise_index"] = .int(50) }),
                ("plan.sets", .object(["routine_id": .string(UUID().wireString), "sets": .array([])])),
                ("plan.sets[0].exercise", with { $0["exercise"] = .string("  ") }),
                ("plan.sets[0].set", with { $0["set"] = .int(30) }),
                ("plan.sets[0].kind", with { $0["kind"] = .string("heavy") }),
                ("plan.sets[0].id", with { $0["id"] = .string("one") }),
            ]
            for (field, plan) in cases {
                let answer = try await server.send(
                    .POST, Route.workouts, json: Self.body(id: UUID(), plan: plan), key: UUID().uuidString)
                #expect(answer.status == 422, "\(field): \(plan.canonicalString)")
                #expect(try answer.decode(Problem.self).field == field, "\(plan.canonicalString)")
            }
            // Two planned sets with one id: one set logged for them would count twice.
            var twice = Self.plan.json.objectValue!
            if case .array(let entries)? = twice["sets"] { twice["sets"] = .array(entries + [entries[0]]) }
            let duplicate = try await server.send(
                .POST, Route.workouts, json: Self.body(id: UUID(), plan: .object(twice)), key: UUID().uuidString)
            #expect(duplicate.status == 422)
            #expect(try duplicate.decode(Problem.self).field == "plan.sets[3].id")
            #expect(try await server.store.workouts(user: "alice", includeDeleted: true).isEmpty)
        }
    }

    @Test("a plan is never changed after the start: a PATCH of it is 422", arguments: StoreBackend.available)
    func planIsWrittenOnce(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID()
            #expect(
                try await server.send(.POST, Route.workouts, json: Self.body(id: id), key: UUID().uuidString).status
                    == 201)
            var other = Self.plan
            other.entries.removeLast()
            let patched = try await server.send(
                .PATCH, Route.workouts + "/\(id.wireString)", json: .object(["plan": other.json]),
                key: UUID().uuidString)
            #expect(patched.status == 422)
            #expect(try patched.decode(Problem.self).field == "plan")
            #expect(try await server.store.workouts(user: "alice", includeDeleted: false).first?.plan == Self.plan)
        }
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// A batch's writes share one transaction, yet each operation keeps its single route's contract.
@Suite("Batch group commit")
struct BatchGroupCommitTests {
    @Test(
        "a 5xx inside a batch undoes only that operation and stores nothing for its key",
        arguments: StoreBackend.available)
    func oneFailingOperationLeavesTheOthersCommitted(_ backend: StoreBackend) async throws {
        let poisoned = UUID().wireString
        let server = try await TestServer.start(backend) { configuration in
            let url = configuration.databaseURL
            configuration.makeStore = { path in
                WrappedStore(base: try await StoreBackend.openStore(path: path, url: url)) {
                    PoisonedTransaction(base: $0, poisonedSetID: poisoned)
                }
            }
        }
        try await stopping(server) { server in
            let workoutID = UUID().wireString
            let good = [UUID().wireString, UUID().wireString]
            let ops = [
                BatchOp(
                    idempotencyKey: "w", method: "POST", path: Route.workouts, body: Fixtures.workout(id: workoutID)),
                BatchOp(
                    idempotencyKey: "a", method: "POST", path: Route.sets,
                    body: Fixtures.set(id: good[0], workoutID: workoutID)),
                BatchOp(
                    idempotencyKey: "p", method: "POST", path: Route.sets,
                    body: Fixtures.set(id: poisoned, workoutID: workoutID)),
                BatchOp(
                    idempotencyKey: "c", method: "POST", path: Route.sets,
                    body: Fixtures.set(id: good[1], workoutID: workoutID)),
            ]
            let body = BatchRequest(ops: ops).json.canonicalString
            let first = try await server.send(.POST, Route.batch, body: body).decode(BatchResponse.self).results
            #expect(first.map(\.status) == [201, 201, 500, 201])
            #expect(Set(try await server.store.allSets(user: "alice").map(\.id.wireString)) == Set(good))
            #expect(
                try await server.store.idempotencyRecord(
                    IdempotencyScope(user: "alice", method: "POST", path: Route.sets, key: "p")) == nil,
                "a 5xx is not stored")

            let again = try await server.send(.POST, Route.batch, body: body).decode(BatchResponse.self).results
            #expect(again.map(\.replayed) == [true, true, false, true])
            #expect(again[2].status == 500, "the failed one runs again instead of replaying")
            #expect(try await server.store.allSets(user: "alice").count == 2)
        }
    }

    @Test(
        "a key used by an earlier operation of the same batch with another body is refused, the first kept",
        arguments: StoreBackend.available)
    func keyReuseInsideOneBatch(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let first = UUID().wireString
            let ops = [
                BatchOp(
                    idempotencyKey: "same", method: "POST", path: Route.workouts, body: Fixtures.workout(id: first)),
                BatchOp(idempotencyKey: "same", method: "POST", path: Route.workouts, body: Fixtures.workout()),
                BatchOp(
                    idempotencyKey: "same", method: "POST", path: Route.workouts, body: Fixtures.workout(id: first)),
            ]
            let body = BatchRequest(ops: ops).json.canonicalString
            let results = try await server.send(.POST, Route.batch, body: body).decode(BatchResponse.self).results
            #expect(results.map(\.status) == [201, 422, 201])
            #expect(results.map(\.replayed) == [false, false, true])
            #expect(try await server.store.allWorkouts(user: "alice").map(\.id.wireString) == [first])
        }
    }
}

/// A transaction that fails to save one particular set, as a disk or a bug would.
struct PoisonedTransaction: ServerTransaction {
    let base: any ServerTransaction
    let poisonedSetID: String

    struct Poison: Error {}

    func nextChangeVersion(owner: String) async throws -> Int64 { try await base.nextChangeVersion(owner: owner) }
    func workout(id: String, owner: String) async throws -> WireWorkout? {
        try await base.workout(id: id, owner: owner)
    }
    func workoutIsLive(id: String, owner: String) async throws -> Bool {
        try await base.workoutIsLive(id: id, owner: owner)
    }
    func saveWorkout(_ workout: WireWorkout, owner: String) async throws {
        try await base.saveWorkout(workout, owner: owner)
    }
    func set(id: String, owner: String) async throws -> WireSet? { try await base.set(id: id, owner: owner) }
    func saveSet(_ set: WireSet, owner: String) async throws {
        if set.id.wireString == poisonedSetID { throw Poison() }
        try await base.saveSet(set, owner: owner)
    }
    func insertNewSet(_ set: WireSet, owner: String) async throws -> Bool {
        if set.id.wireString == poisonedSetID { throw Poison() }
        return try await base.insertNewSet(set, owner: owner)
    }
    func liveSets(workoutID: String, owner: String) async throws -> [WireSet] {
        try await base.liveSets(workoutID: workoutID, owner: owner)
    }
    func addFavorite(_ exercise: String, owner: String) async throws -> Bool {
        try await base.addFavorite(exercise, owner: owner)
    }
    func removeFavorite(_ exercise: String, owner: String) async throws -> Bool {
        try await base.removeFavorite(exercise, owner: owner)
    }
    func completeIdempotencyRecord(_ scope: IdempotencyScope, token: String, response: StoredResponse) async throws {
        try await base.completeIdempotencyRecord(scope, token: token, response: response)
    }
    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval, staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        try await base.claimIdempotencyKey(
            scope, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter, staleAfter: staleAfter)
    }
    func savepoint(_ work: () async throws -> Bool) async throws { try await base.savepoint(work) }
    func routine(id: String, owner: String) async throws -> WireRoutine? {
        try await base.routine(id: id, owner: owner)
    }
    func saveRoutine(_ routine: WireRoutine, owner: String) async throws {
        try await base.saveRoutine(routine, owner: owner)
    }
    func bodyWeight(id: String, owner: String) async throws -> WireBodyWeight? {
        try await base.bodyWeight(id: id, owner: owner)
    }
    func saveBodyWeight(_ entry: WireBodyWeight, owner: String) async throws {
        try await base.saveBodyWeight(entry, owner: owner)
    }
    func fieldClocks(_ type: EntityType, id: String, owner: String) async throws -> [String: FieldClock] {
        try await base.fieldClocks(type, id: id, owner: owner)
    }
    func saveFieldClocks(_ clocks: [String: FieldClock], type: EntityType, id: String, owner: String) async throws {
        try await base.saveFieldClocks(clocks, type: type, id: id, owner: owner)
    }
    func saveConflict(_ conflict: WireConflict, owner: String) async throws {
        try await base.saveConflict(conflict, owner: owner)
    }
}

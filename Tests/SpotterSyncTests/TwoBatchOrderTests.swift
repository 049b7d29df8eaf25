import Foundation
import GRDB
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterSync
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterStore

/// Forwards to the real server, but holds the first batch until the second one has been answered:
/// what a flaky network does to two batches on the wire (two connections, no order between them).
final class OvertakingTransport: SyncTransport, Sendable {
    typealias Completion = @Sendable (Result<TransportResponse, TransportError>) -> Void

    private struct State {
        var batches = 0
        var held: (TransportRequest, Completion)?
    }

    let inner: HTTPSyncTransport
    private let state = Mutex(State())
    init(inner: HTTPSyncTransport) { self.inner = inner }

    func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) {
        guard request.path == Route.batch else { return inner.send(request, completion: completion) }
        let index: Int = state.withLock { state in
            state.batches += 1
            if state.batches == 1 { state.held = (request, completion) }
            return state.batches
        }
        if index == 1 {
            // Held until a second batch has been answered, or for a second when none comes.
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in releaseFirst() }
            return
        }
        inner.send(request) { [self] result in
            completion(result)
            releaseFirst()
        }
    }

    private func releaseFirst() {
        let first = state.withLock { state -> (TransportRequest, Completion)? in
            defer { state.held = nil }
            return state.held
        }
        if let (r, c) = first { inner.send(r, completion: c) }
    }
}

@Suite("Two batches on the wire keep the queue's order")
struct TwoBatchOrderTests {
    /// The two set operations queued go out once and time out (they stay queued with their
    /// keys); then the user deletes their workout. Returns the engine that sends what is queued,
    /// through a network where the first batch is overtaken.
    func timeOutBothThenDelete(
        _ workout: Workout, _ store: SpotterStore, _ server: TestServer, _ configuration: SyncConfiguration
    ) throws -> SyncEngine {
        let claimed = try store.queue.claimEligible(limit: 10)
        #expect(claimed.count == 2)
        try store.queue.complete(
            claimed.map {
                OperationOutcome(opID: $0.opID, result: .transient(status: nil, error: "timed out", retryAt: Date()))
            })
        try store.workoutLog.deleteWorkout(id: workout.id)
        return SyncEngine(
            store: store,
            transport: OvertakingTransport(
                inner: HTTPSyncTransport(baseURL: server.baseURL, token: TestServer.aliceToken)),
            configuration: configuration)
    }

    /// A real server, a device with a workout "Legs", an engine's configuration (batches of two,
    /// quick retries) and a plain engine with it, for what must reach the server first.
    func device(
        batchesInFlight: Int
    ) async throws -> (TestServer, SpotterStore, SyncConfiguration, SyncEngine, Workout) {
        let server = try await TestServer.start()
        let store = try makeStore(clock: ManualClock(), user: "local").withSystemClock()
        var configuration = SyncConfiguration()
        configuration.batchSize = 2
        configuration.batchesInFlight = batchesInFlight
        configuration.retryPolicy.base = 0.05
        configuration.retryPolicy.cap = 0.5
        configuration.requestTimeout = 5
        let plain = SyncEngine(
            store: store, transport: HTTPSyncTransport(baseURL: server.baseURL, token: TestServer.aliceToken),
            configuration: configuration)
        return (server, store, configuration, plain, try store.workoutLog.createWorkout(name: "Legs"))
    }

    /// Sets whose create already went out once (a timeout: it may have landed) are kept queued
    /// when their workout is deleted; the workout's delete is queued after them. With one batch on
    /// the wire the server gets the creates, then the delete. With two, the delete can land first
    /// and the creates are then refused 422 (workout missing).
    @Test(arguments: [1, 2]) func aWorkoutDeleteNeverOvertakesTheCreatesOfItsSets(batchesInFlight: Int) async throws {
        let (server, store, configuration, plain, workout) = try await device(batchesInFlight: batchesInFlight)
        #expect(await plain.drain(timeout: 30))
        plain.stop()
        let s1 = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5, workout: .existing(workout.id)))
        let s2 = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 4, workout: .existing(workout.id)))
        let engine = try timeOutBothThenDelete(workout, store, server, configuration)
        _ = await engine.drain(timeout: 30)
        let onServer = Set(
            try await server.store.sets(user: "alice", workoutID: nil, includeDeleted: true).map(\.id.wireString)
        )
        #expect(onServer.contains(s1.set.id.wireString), "the create sent before the delete reached the server")
        #expect(onServer.contains(s2.set.id.wireString))
        let failed = try await store.writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT entity_type, kind, state, last_status, last_error FROM outbox WHERE state != 'succeeded'"
            )
            .map { "\($0)" }
        }
        #expect(try store.queries.queueCounts().failed == 0, "no create refused for a missing workout: \(failed)")
    }

    /// Edits of two synced sets that went out once (timed out) stay queued when the user deletes
    /// their workout; the delete is queued after them. Landing first, it makes the edits 404, and
    /// the device tells the user the sets were "deleted on another device".
    @Test(arguments: [1, 2]) func aWorkoutDeleteNeverOvertakesEarlierEditsOfItsSets(batchesInFlight: Int) async throws {
        let (server, store, configuration, plain, workout) = try await device(batchesInFlight: batchesInFlight)
        let s1 = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5, workout: .existing(workout.id)))
        let s2 = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 4, workout: .existing(workout.id)))
        #expect(await plain.drain(timeout: 30))
        plain.stop()
        try store.workoutLog.editSet(id: s1.set.id, changes: SetChanges(reps: 7))
        try store.workoutLog.editSet(id: s2.set.id, changes: SetChanges(reps: 8))
        let engine = try timeOutBothThenDelete(workout, store, server, configuration)
        _ = engine.events.drain()
        _ = await engine.drain(timeout: 30)
        let notices = engine.events.drain().compactMap { if case .notice(let text) = $0 { text } else { nil } }
        #expect(!notices.contains { $0.contains("another device") }, "\(notices)")
        let onServer = try await server.store.sets(user: "alice", workoutID: nil, includeDeleted: true)
        #expect(onServer.first { $0.id == s1.set.id }?.reps == 7, "the edit sent before the delete was applied")
    }
}

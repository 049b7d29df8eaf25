import Foundation
import SpotterCore
import SpotterProtocol
import SpotterSync
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// An engine over a scripted transport, a manual clock and a hand-cranked scheduler.
struct EngineRig {
    let clock = ManualClock()
    let scheduler = ManualSyncScheduler()
    let transport = ScriptedTransport()
    let store: SpotterStore
    let engine: SyncEngine

    init(batchSize: Int = 100) throws {
        store = try makeStore(clock: clock)
        var configuration = SyncConfiguration()
        configuration.batchSize = batchSize
        engine = SyncEngine(
            store: store, transport: transport, configuration: configuration, scheduler: scheduler, random: { 0.5 })
    }

    func op(_ entityType: EntityType) throws -> OutboxOperation {
        try #require(try store.queries.outbox(limit: 1000).first { $0.entityType == entityType })
    }

    /// Moves the clock and the engine's timers together.
    func advance(by seconds: TimeInterval) async {
        clock.advance(by: seconds)
        scheduler.advance(by: seconds)
        await engine.waitUntilIdle()
    }
}

@Suite("Sync engine: exact fault sequences")
struct EngineTests {
    @Test func backoffDoublesAndIsPersistedAsNextAttempt() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Push")
        rig.transport.script { $0.wholeBatch = Array(repeating: ScriptedTransport.status(503), count: 5) }
        await rig.engine.syncOnce()
        var delays: [TimeInterval] = []
        for _ in 0..<5 {
            let op = try rig.op(.workout)
            let delay = try #require(op.nextAttemptAt).timeIntervalSince(rig.clock.now())
            delays.append(delay.rounded())
            #expect(
                rig.scheduler.pendingDelays.first.map { abs($0 - delay) < 0.01 } == true,
                "the retry timer is armed for it")
            await rig.advance(by: delay)
        }
        #expect(delays == [1, 2, 4, 8, 16])
        #expect(try rig.op(.workout).state == .succeeded)
        let keys = Set(rig.transport.batchRequests.flatMap { $0.ops.map(\.idempotencyKey) })
        #expect(keys.count == 1, "every attempt carries the same key")
    }

    @Test func retryAfterWinsOverBackoff() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Pull")
        rig.transport.script { $0.wholeBatch = [ScriptedTransport.status(429, headers: ["Retry-After": "7"])] }
        await rig.engine.syncOnce()
        let op = try rig.op(.workout)
        #expect(op.state == .failedTransient)
        #expect(try #require(op.nextAttemptAt).timeIntervalSince(rig.clock.now()) == 7)
        #expect(try rig.store.queries.syncMetrics().counters["retried_rate_limited"] == 1)
    }

    @Test func aDroppedReplyIsRetriedWithTheSameKey() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Legs")
        rig.transport.script { $0.wholeBatch = [.failure(.connection("remote closed"))] }
        await rig.engine.syncOnce()
        #expect(try rig.op(.workout).state == .failedTransient)
        await rig.advance(by: 1)
        #expect(try rig.op(.workout).state == .succeeded)
        let keys = rig.transport.batchRequests.map { $0.ops[0].idempotencyKey }
        #expect(keys.count == 2 && keys[0] == keys[1])
        #expect(try rig.store.queries.syncMetrics().counters["retried_connection"] == 1)
    }

    @Test func aKilledProcessesInFlightOperationsComeBackAfterTheLease() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Crashed")
        let claimed = try rig.store.queue.claimEligible(limit: 10, lease: 60)  // a process that died mid-send
        #expect(claimed.count == 1)
        await rig.engine.syncOnce()
        #expect(try rig.op(.workout).state == .inFlight, "its lease still holds it")
        rig.clock.advance(by: 61)
        await rig.engine.syncOnce()
        let op = try rig.op(.workout)
        #expect(op.state == .succeeded)
        #expect(rig.transport.batchRequests.last?.ops.first?.idempotencyKey == claimed[0].idempotencyKey)
    }

    @Test func theSafetyValveGivesUpAfterTwentyAttemptsAndSaysSo() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Doomed")
        rig.transport.script { $0.wholeBatch = Array(repeating: ScriptedTransport.status(500), count: 25) }
        for _ in 0..<20 {
            await rig.engine.syncOnce()
            rig.clock.advance(by: 120)
        }
        let op = try rig.op(.workout)
        #expect(op.state == .failedPermanent)
        #expect(op.attemptCount == 20)
        #expect(op.lastError?.hasPrefix("gave up (no answer) after 20 attempts") == true)
        #expect(try rig.store.queries.queueCounts().gaveUp == 1, "shown, never dropped")
    }

    @Test("a server that keeps answering 429 is waited for, never given up on after twenty tries")
    func backPressureSpendsNoTries() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Busy gym")
        rig.transport.script {
            $0.wholeBatch =
                Array(repeating: ScriptedTransport.status(429, headers: ["Retry-After": "1"]), count: 25)
                + [ScriptedTransport.status(503)]
        }
        for _ in 0..<26 {
            await rig.engine.syncOnce()
            rig.clock.advance(by: 120)
        }
        let waiting = try rig.op(.workout)
        #expect(waiting.state != .failedPermanent, "\(waiting)")
        #expect(waiting.attemptCount == 1, "only the 503 counts as a try: \(waiting.attemptCount)")
        #expect(try rig.store.queries.queueCounts().gaveUp == 0)
        await rig.engine.syncOnce()
        #expect(try rig.op(.workout).state == .succeeded, "sent once the server takes it")
    }

    @Test("a star whose sending gave up without an answer is waiting, never shown as refused")
    func aStarThatGotNoAnswerIsNotRejected() async throws {
        let rig = try EngineRig()
        _ = try rig.store.workoutLog.setStarred("Squat (Barbell)", true)
        rig.transport.script { $0.wholeBatch = Array(repeating: ScriptedTransport.status(503), count: 25) }
        for _ in 0..<20 {
            await rig.engine.syncOnce()
            rig.clock.advance(by: 120)
        }
        #expect(try rig.op(.favorite).state == .failedPermanent)
        let star = try #require(try rig.store.queries.starredExercises().first)
        #expect(star.syncState == .pending, "no answer is not a refusal: \(star)")
    }

    @Test func theSafetyValveGivesUpAfterSevenDays() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Old")
        rig.transport.script { $0.wholeBatch = Array(repeating: ScriptedTransport.status(503), count: 3) }
        await rig.engine.syncOnce()
        rig.clock.advance(by: 7 * 86400)
        await rig.engine.syncOnce()
        #expect(try rig.op(.workout).state == .failedPermanent)
    }

    @Test func airplaneAttemptsDoNotCountAndMakeNoRequests() async throws {
        let rig = try EngineRig()
        try rig.store.preferences.setAirplane(true)
        try rig.store.log(count: 3)
        for _ in 0..<30 { await rig.engine.syncOnce() }
        #expect(rig.transport.requests.isEmpty, "no network I/O in airplane mode")
        #expect(try rig.store.queries.outbox(limit: 10).allSatisfy { $0.attemptCount == 0 && $0.state == .pending })
        rig.engine.setAirplane(false)
        await rig.engine.waitUntilIdle()
        #expect(try rig.store.queries.queueCounts().pending == 0, "turning airplane off flushes at once")
    }

    @Test func anAirplaneSwitchThatCannotBeReadMeansOfflineAndNoRequest() async throws {
        let rig = try EngineRig()
        try rig.store.log(count: 2)
        try await rig.store.writer.write { db in try db.execute(sql: "ALTER TABLE meta RENAME TO meta_lost") }
        #expect(throws: (any Error).self) { try rig.store.preferences.isAirplaneOn }
        for _ in 0..<3 { await rig.engine.syncOnce() }
        #expect(rig.transport.requests.isEmpty, "a failed read of the switch is 'on': nothing is sent")
        #expect(try rig.store.queries.queueCounts().pending == 3, "the operations wait, untouched")
    }

    /// A queued create whose payload was damaged into something the wire model refuses (a
    /// weight that is text): that operation fails with the reason and is never sent; the others
    /// sync. (A payload that is not JSON at all is caught by the store when it is claimed.)
    @Test func aCreateWhosePayloadTheWireModelRefusesFailsAndIsNeverSent() async throws {
        let rig = try EngineRig()
        try rig.store.log(count: 2)
        let damaged = try #require(try rig.store.queries.outbox(limit: 10).first { $0.entityType == .set })
        try await rig.store.writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET payload = json_set(payload, '$.weight', 'heavy') WHERE op_id = ?",
                arguments: [damaged.opID])
        }
        await rig.engine.syncOnce()
        let op = try #require(try rig.store.queries.operation(id: damaged.opID))
        #expect(op.state == .failedPermanent)
        #expect(op.lastError?.contains("unreadable operation: payload weight") == true, "\(op.lastError ?? "")")
        let sent = rig.transport.batchRequests.flatMap(\.ops).compactMap { $0.body?["id"]?.stringValue }
        #expect(!sent.contains(damaged.entityID), "the damaged create never left")
        #expect(try rig.store.queries.queueCounts().pending == 0, "the workout and the other set synced")
        #expect(try rig.store.queries.queueCounts().failed == 1)
    }

    /// A write the user would notice that fails (here: the last sync time, refused by the disk)
    /// is not swallowed: the UI is told, and the operations themselves are unaffected.
    @Test func aFailedWriteOfTheEngineIsToldToTheUI() async throws {
        let rig = try EngineRig()
        try rig.store.log(count: 1)
        try await rig.store.writer.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse_sync_time BEFORE INSERT ON meta WHEN NEW.key = 'last_sync_at'
                    BEGIN SELECT RAISE(ABORT, 'disk says no'); END
                    """)
        }
        await rig.engine.syncOnce()
        let notices = rig.engine.events.drain().compactMap { if case .notice(let text) = $0 { text } else { nil } }
        #expect(notices.contains { $0.contains("last sync time") && $0.contains("disk says no") }, "\(notices)")
        #expect(try rig.store.queries.queueCounts().pending == 0, "the sets were sent all the same")
    }

    /// An edit the server refused stays "failed" so the user sees it; once the user deletes the set
    /// and the server acknowledges the delete, that failure is moot and no longer counts.
    @Test func anAcknowledgedDeleteSettlesARefusedEditOfTheSameSet() async throws {
        let rig = try EngineRig()
        let logged = try rig.store.log()
        rig.transport.script { _ in }
        await rig.engine.syncOnce()
        try rig.store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(reps: 7))
        rig.transport.script {
            $0.perOp = { _ in
                (
                    422,
                    .object([
                        "type": .string(ProblemType.validation), "title": .string("Invalid"), "status": .int(422),
                        "detail": .string("not allowed"), "field": .string("reps"),
                    ])
                )
            }
        }
        await rig.engine.syncOnce()
        #expect(try rig.store.queries.queueCounts().failed == 1, "the refused edit is shown")

        try rig.store.workoutLog.deleteSet(id: logged.set.id)
        rig.transport.script { $0.perOp = { _ in (204, nil) } }
        await rig.engine.syncOnce()
        let counts = try rig.store.queries.queueCounts()
        #expect(counts.failed == 0 && counts.pending == 0 && counts.blocked == 0, "\(counts)")
        #expect(try rig.store.queries.set(id: logged.set.id) == nil)
    }

    @Test func resultsAreClassifiedPerOperation() async throws {
        let rig = try EngineRig()
        let workout = try rig.store.workoutLog.createWorkout(name: "Mixed")
        rig.transport.script { _ in }
        await rig.engine.syncOnce()  // the workout is on the server
        let good = try rig.store.log(workout: .existing(workout.id))
        let bad = try rig.store.log(workout: .existing(workout.id), exercise: "Curl (Bad)")
        let busy = try rig.store.log(workout: .existing(workout.id), exercise: "Busy Lift")
        rig.transport.script {
            $0.perOp = { op in
                let exercise = op.body?["exercise"]?.stringValue
                if exercise == "Curl (Bad)" {
                    return (
                        422,
                        .object([
                            "type": .string(ProblemType.validation), "title": .string("Invalid"), "status": .int(422),
                            "detail": .string("must be at most 2000 kg"), "field": .string("weight"),
                        ])
                    )
                }
                if exercise == "Busy Lift" {
                    return (
                        409,
                        .object([
                            "type": .string(ProblemType.keyInUse), "title": .string("In use"), "status": .int(409),
                            "detail": .string("still processing"),
                        ])
                    )
                }
                return (201, op.body)
            }
        }
        await rig.engine.syncOnce()
        #expect(try rig.store.queries.set(id: good.set.id)?.syncState == .synced)
        let rejected = try #require(try rig.store.queries.set(id: bad.set.id))
        #expect(rejected.syncState == .rejected)
        #expect(rejected.syncError == "weight: must be at most 2000 kg")
        let busyOp = try #require(
            try rig.store.queries.outbox(limit: 100).first { $0.entityID == busy.set.id.wireString })
        #expect(busyOp.state == .failedTransient)
        #expect(
            try #require(busyOp.nextAttemptAt).timeIntervalSince(rig.clock.now()) == 1, "409 key-in-use retries soon")
    }

    @Test func a401PausesSyncUntilTheUserAsks() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Auth")
        rig.transport.script { $0.wholeBatch = [ScriptedTransport.status(401)] }
        await rig.engine.syncOnce()
        #expect(rig.engine.events.drain().contains(.connectivity(.signInRequired)))
        let requestsBefore = rig.transport.requests.count
        await rig.advance(by: 120)
        rig.engine.trigger(.periodic)
        await rig.engine.waitUntilIdle()
        #expect(rig.transport.requests.count == requestsBefore, "paused: nothing sent")
        await rig.engine.syncOnce()  // the user's "sync now"
        #expect(try rig.op(.workout).state == .succeeded)
    }

    /// Airplane mode switched on while the flush's last request (its pull) is on the wire: the
    /// answer still lands, but the status must not flip back to "online" because of it.
    @Test func anAnswerArrivingAfterAirplaneWentOnKeepsTheStatusAirplane() async throws {
        let rig = try EngineRig()
        rig.transport.script { $0.holdPulls = true }
        rig.engine.trigger(.manual)
        while rig.transport.heldCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        rig.engine.setAirplane(true)
        rig.transport.releaseHeld()
        await rig.engine.waitUntilIdle()
        let connectivity = rig.engine.events.drain().compactMap { event -> Connectivity? in
            if case .connectivity(let value) = event { return value }
            return nil
        }
        #expect(connectivity.last == .airplane, "\(connectivity)")
        #expect(!connectivity.drop { $0 != .airplane }.contains(.online), "never online after the switch")
    }

    @Test func concurrentTriggersCoalesceIntoOneMoreFlush() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Busy")
        rig.transport.script { $0.holdRequests = true }
        rig.engine.trigger(.manual)
        while rig.transport.heldCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        try rig.store.workoutLog.createWorkout(name: "Second")
        for _ in 0..<10 { rig.engine.trigger(.enqueue) }
        rig.transport.releaseHeld()
        await rig.engine.waitUntilIdle()
        #expect(rig.transport.batchRequests.count == 2, "one running flush, then exactly one more")
        #expect(try rig.store.queries.queueCounts().pending == 0)
    }

    @Test func thePeriodicTickFlushes() async throws {
        let rig = try EngineRig()
        rig.engine.start()
        await rig.engine.waitUntilIdle()
        try rig.store.workoutLog.createWorkout(name: "Later")
        await rig.advance(by: 30)
        #expect(try rig.store.queries.queueCounts().pending == 0)
        rig.engine.stop()
    }

    @Test func batchesRespectTheSizeAndTheBodyLimit() async throws {
        let rig = try EngineRig(batchSize: 100)
        let workout = try rig.store.workoutLog.createWorkout(name: "Volume")
        await rig.engine.syncOnce()
        for index in 0..<250 {
            try rig.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Squat (Barbell)", weight: 100, reps: 5,
                    notes: String(repeating: "n", count: 300 + index % 7), workout: .existing(workout.id)))
        }
        await rig.engine.syncOnce()
        let sizes = rig.transport.batchRequests.dropFirst().map(\.ops.count)
        #expect(sizes.reduce(0, +) == 250)
        #expect(sizes.allSatisfy { $0 <= 100 })
        #expect(
            rig.transport.requests.filter { $0.path == Route.batch }.allSatisfy { ($0.body?.count ?? 0) < 64 * 1024 })
        #expect(try rig.store.queries.queueCounts().pending == 0)
    }

    @Test func eventsReachTheChannel() async throws {
        let rig = try EngineRig()
        try rig.store.workoutLog.createWorkout(name: "Events")
        await rig.engine.syncOnce()
        let events = rig.engine.events.drain()
        #expect(events.contains(.syncing(true)))
        #expect(events.contains(.outboxChanged(pending: 0, failed: 0)))
        #expect(events.contains { if case .opSucceeded = $0 { true } else { false } })
    }
}

extension SpotterStore {
    @discardableResult
    func log(workout: WorkoutChoice = .current, exercise: String = "Bench Press (Barbell)") throws -> LoggedSet {
        try workoutLog.logSet(LogSetInput(exercise: exercise, weight: 100, reps: 5, workout: workout))
    }

    func log(count: Int) throws {
        for _ in 0..<count { try log() }
    }
}

@Suite("Pulling the change feed")
struct PullFeedTests {
    @Test func pagesAreFollowedUnreadableRowsSkippedAndTheCursorKept() async throws {
        let rig = try EngineRig()
        let workout = "5d5f1a52-3c84-4f53-9a1e-2f0c3c1d7a10"
        let good = "0b8e3c55-0d1e-4e0c-9a7e-6c0b8d1e2f30"
        rig.transport.script {
            $0.changesPages = [
                #"{"changes":[{"entity_type":"workout","workout":{"id":"\#(workout)","name":"Pulled","started_at":"2026-11-01T08:00:00.000Z","server_version":1,"deleted":false}},{"entity_type":"set","set":{"id":"not-a-uuid"}}],"cursor":"2","has_more":true}"#,
                #"{"changes":[{"entity_type":"set","set":{"id":"\#(good)","workout_id":"\#(workout)","exercise":"squat (barbell)","position":1,"kind":"normal","weight":100,"unit":"kg","reps":5,"performed_at":"2026-11-01T08:05:00.000Z","server_version":3,"deleted":false}}],"cursor":"3","has_more":false}"#,
            ]
        }
        await rig.engine.syncOnce()
        let sets = try rig.store.queries.sets(workoutID: UUID(uuidString: workout))
        #expect(sets.map(\.set.id.wireString) == [good])
        #expect(sets.first?.set.exercise == "Squat (Barbell)", "the catalogue's spelling")
        #expect(sets.first?.syncState == .synced)
        #expect(try rig.store.preferences.meta(rig.store.pullCursorKey) == "3")
        let pulls = rig.transport.requests.filter { $0.path.hasPrefix(Route.changes) }.map(\.path)
        #expect(pulls.count == 2 && pulls[1].contains("since=2"), "the second page starts after the first")
        // The pull read the feed to its end, but one change was passed over: not all received.
        #expect(
            rig.engine.lastPullFailure == "1 change(s) from the server could not be read and were skipped",
            "\(rig.engine.lastPullFailure ?? "nil")")
        // The next pull, with nothing unreadable, is whole again.
        rig.transport.script { $0.changesPages = [#"{"changes":[],"cursor":"3","has_more":false}"#] }
        await rig.engine.syncOnce()
        #expect(rig.engine.lastPullFailure == nil)
    }

    /// The UI's badge must not read "Synced" while the feed fails though the server answers
    /// (a proxy refusing `/v1/changes`, a body that does not read): the engine tells it, and
    /// tells it again when a pull reads the feed to its end.
    @Test func aFeedThatFailsWhileTheServerAnswersIsToldToTheUIUntilItReadsAgain() async throws {
        let rig = try EngineRig()
        rig.transport.script { $0.changesAnswers = [TransportResponse(status: 500, body: Data("oops".utf8))] }
        await rig.engine.syncOnce()
        let problems = rig.engine.events.drain().compactMap { event -> String?? in
            if case .feedProblem(let problem) = event { problem } else { nil }
        }
        #expect(problems.count == 1 && (problems.first??.contains("HTTP 500") ?? false), "\(problems)")
        await rig.engine.syncOnce()
        let cleared = rig.engine.events.drain().compactMap { event -> String?? in
            if case .feedProblem(let problem) = event { problem } else { nil }
        }
        #expect(cleared == [nil], "read to its end again: \(cleared)")
    }
}

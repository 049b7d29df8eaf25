import Foundation
import SpotterCore
import SpotterStore
import SpotterSync
import Testing

@testable import SpotterTUI

@Suite("Sync badge, per-row status and the debug pane")
struct SyncDisplayTests {
    @Test("syncing N counts every queued operation, workout create included, and animates")
    func syncingBadge() throws {
        let fixture = try Fixture()
        try fixture.log("Deadlift (Barbell)", 180, 3)
        try fixture.log("Deadlift (Barbell)", 180, 3)
        let app = fixture.controller()
        #expect(app.screen.line(0).contains("⟳ Syncing… 3"))
        #expect(app.screen.style(of: "⟳ Syncing", onRow: 0)?.color == .cyan)
        let before = app.screen.line(0)
        app.tick()
        #expect(app.screen.line(0) != before, "the spinner moves while operations are queued")
        #expect(app.state.needsTicks)
    }

    @Test("synced once the engine reports the queue empty, and the rows turn to ✓")
    func syncedBadge() throws {
        let fixture = try Fixture()
        try fixture.log("Deadlift (Barbell)", 180, 3)
        let app = fixture.controller()
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        app.handle([.syncing(false), .outboxChanged(pending: 0, failed: 0)])
        let screen = app.screen
        #expect(screen.line(0).contains("✓ Synced"))
        let row = try #require(screen.row(containing: "Deadlift (Barbell)"))
        #expect(screen.line(row).contains("✓"))
        #expect(!screen.line(row).contains("⏳"))
        #expect(!app.state.needsTicks, "nothing animates when idle: the loop sleeps until input")
    }

    @Test("airplane mode: the badge counts the queue, the switch goes to the engine")
    func airplaneBadge() throws {
        let fixture = try Fixture()
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        app.handle(.character("a"))
        #expect(sync.calls == [.airplane(true)])
        for _ in 0..<3 {
            app.handle(.character("n"))
            if app.state.currentSet == nil { app.type("Squat (Barbell)") }
            app.submitNumbers(weight: "100", reps: "5")
        }
        #expect(try fixture.store.queries.sets(workoutID: nil).count == 3)
        #expect(app.screen.line(0).contains("✈ Airplane · 4 queued"))
        #expect(app.screen.line(0).contains("○ airplane"))
        app.handle(.character("a"))
        #expect(sync.calls.last == .airplane(false))
        #expect(app.screen.line(0).contains("⟳ Syncing… 4"))
    }

    @Test("a permanent failure shows ⚠ N failed in red, the row ✗ with the server's reason")
    func failedBadgeAndRejectedRow() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Legs")
        let bad = try fixture.log("Squat (Barbell)", 900, 1, workout: workout.id)
        try fixture.completeAll { op in
            op.entityID == bad.set.id.wireString
                ? .permanent(status: 422, error: "weight is above the 700 kg limit")
                : .succeeded(status: 201, row: nil)
        }
        let app = fixture.controller(columns: 140, rows: 30)
        let screen = app.screen
        #expect(screen.line(0).contains("⚠ 1 failed"))
        #expect(screen.style(of: "⚠ 1 failed", onRow: 0)?.color == .red)
        let row = try #require(screen.row(containing: "Squat (Barbell)"))
        #expect(screen.line(row).contains("✗ weight is above the 700 kg limit"))
        // The selected rejected set explains itself in full in the bottom bar, even at 80 columns.
        app.resize(columns: 80, rows: 24)
        #expect(app.screen.line(23).contains("✗ weight is above the 700 kg limit"))
        #expect(app.screen.line(23).contains("r retry"))
    }

    @Test("r retries a rejected set as a new operation; x names what goes, asks, and y discards it")
    func retryAndDiscard() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Legs")
        let bad = try fixture.log("Squat (Barbell)", 900, 1, workout: workout.id)
        try fixture.completeAll { op in
            op.entityID == bad.set.id.wireString
                ? .permanent(status: 422, error: "too heavy") : .succeeded(status: 201, row: nil)
        }
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        app.handle(.character("r"))
        #expect(try fixture.store.queries.queueCounts().failed == 0)
        #expect(try fixture.store.queries.queueCounts().pending == 1)
        #expect(app.screen.line(0).contains("⟳ Syncing… 1"))
        #expect(sync.calls.contains(.trigger(.enqueue)))
        try fixture.completeAll { _ in .permanent(status: 422, error: "still too heavy") }
        app.reloadAll()
        app.handle(.character("x"))
        #expect(!(try fixture.store.queries.sets(workoutID: nil).isEmpty), "nothing goes before the answer")
        let question = (0..<24).map { app.screen.line($0) }.joined(separator: "\n")
        #expect(question.contains("discards the set Squat (Barbell) 900 kg × 1"), "\(question)")
        #expect(question.contains("Discard?"))
        app.handle(.character("y"))
        #expect(try fixture.store.queries.sets(workoutID: nil).isEmpty)
        #expect(app.screen.line(0).contains("✓ Synced"))
    }

    @Test("D shows the newest 20 outbox rows with op, kind, state, attempts, next attempt, status, error")
    func debugPane() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Volume")
        for index in 0..<24 { try fixture.log("Bench Press (Barbell)", 60 + Double(index), 10, workout: workout.id) }
        let claimed = try fixture.store.queue.claimEligible(limit: 1)
        try fixture.store.queue.complete(
            opID: claimed[0].opID,
            result: .transient(status: 503, error: "server busy", retryAt: fixture.clock.now().addingTimeInterval(30)))
        let app = fixture.controller()
        app.handle(.character("D"))
        let screen = app.screen
        let header = try #require(screen.row(containing: "op"))
        for column in ["entity", "kind", "state", "att", "next", "http", "last error"] {
            #expect(screen.line(header).contains(column))
        }
        let rows = (0..<24).filter { screen.line($0).contains(" create ") }
        #expect(rows.count == 20, "\(screen.text)")
        #expect(screen.contains("pending"))
        // The newest 20 of 25 operations: the workout's create (oldest) is not among them.
        #expect(!(1..<23).contains { screen.line($0).contains(" workout ") })
        app.handle(.character("G"))
        app.handle(.escape)
        #expect(!app.state.debugVisible)

        // At a taller size the failed try shows its status, error and countdown.
        let tall = fixture.controller(columns: 120, rows: 50)
        tall.handle(.character("D"))
        // (Its error text, not "503": an op or entity id shown in hex may contain those digits.)
        #expect(!tall.screen.contains("server busy"), "the transient op is older than the newest 20")
        let fresh = try Fixture()
        try fresh.log("Squat (Barbell)", 100, 5)
        let op = try #require(try fresh.store.queue.claimEligible(limit: 1).first)
        try fresh.store.queue.complete(
            opID: op.opID,
            result: .transient(status: 503, error: "server busy", retryAt: fresh.clock.now().addingTimeInterval(30)))
        let debug = fresh.controller(columns: 120, rows: 50)
        debug.handle(.character("D"))
        let row = try #require(debug.screen.row(containing: "failed_transient"))
        #expect(debug.screen.line(row).contains("503"))
        #expect(debug.screen.line(row).contains("server busy"))
        #expect(debug.screen.line(row).contains("in 30s"))
        // Live: time passing re-reads the outbox and counts down.
        fresh.clock.advance(by: 10)
        debug.tick()
        #expect(debug.screen.line(row).contains("in 20s"))
        // And an engine event re-reads it too: the op succeeded meanwhile.
        try fresh.store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        debug.handle([.opSucceeded(opID: op.opID)])
        #expect(debug.screen.line(row).contains("succeeded"))
    }

    @Test(
        "nothing queued but the feed failing: the badge reads 'not all received', never 'Synced', until it reads again")
    func aFailingFeedIsNotSynced() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120)
        app.handle([.connectivity(.online)])
        #expect(app.screen.contains("Synced"))
        app.handle([.feedProblem("the change feed answered HTTP 500: server error")])
        #expect(app.screen.contains("not all received"), "\(app.screen)")
        #expect(!app.screen.contains("Synced"), "\(app.screen)")
        app.handle([.feedProblem(nil)])
        #expect(app.screen.contains("Synced"))
    }

    @Test("a retry time from a damaged row or a server's huge Retry-After shows far off, in the pane and the badge")
    func aRetryCenturiesAwayIsShownNotTrapped() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 100, 5)
        let op = try #require(try fixture.store.queue.claimEligible(limit: 1).first)
        try fixture.store.queue.complete(
            opID: op.opID, result: .transient(status: 503, error: "busy", retryAt: Date(timeIntervalSince1970: 1e300)))
        let app = fixture.controller(columns: 120, rows: 50)
        app.handle(.character("D"))
        let row = try #require(app.screen.row(containing: "failed_transient"))
        #expect(app.screen.line(row).contains("later"), "a retry past 100 days: \(app.screen.line(row))")
        app.tick()
        #expect(app.screen.contains("queued"), "the badge counts it")
    }

    @Test("offline reads 'offline · N queued · retry in S s', counting down to the stored next attempt")
    func offlineCountsDown() throws {
        let fixture = try Fixture()
        try fixture.log("Deadlift (Barbell)", 180, 3)
        let retryAt = fixture.clock.now().addingTimeInterval(12)
        try fixture.completeAll { _ in .transient(status: nil, error: "connection refused", retryAt: retryAt) }
        let app = fixture.controller(columns: 100)
        app.showAccount("alice@sync.example", strandedHint: nil)
        app.handle([.connectivity(.offline(reason: "connection refused")), .outboxChanged(pending: 2, failed: 0)])
        #expect(app.screen.line(0).contains("offline · 2 queued · retry in 12 s"), "\(app.screen.line(0))")
        #expect(!app.screen.line(0).contains("Syncing"))
        #expect(app.screen.line(0).contains("alice@sync.example"))
        fixture.clock.advance(by: 5)
        app.tick()
        #expect(app.screen.line(0).contains("retry in 7 s"), "\(app.screen.line(0))")
    }

    @Test("the header says 'this device only' for the embedded server; what waits for another account is told")
    func accountAndStrandedNotice() throws {
        let fixture = try Fixture()
        let alice = QueueOwner.account(server: "https://sync.example", user: "alice")
        try fixture.store.forUser(alice.storedID).workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5, workout: .current))
        let app = fixture.controller()
        app.showAccount("this device only", strandedHint: "spotter login --server https://sync.example")
        #expect(app.screen.line(0).contains("this device only"))
        #expect(app.screen.line(23).contains("2 operation(s) wait for alice at https://sync.example"))
        #expect(app.state.workouts.isEmpty, "alice's workout is not this device's to show")
    }

    @Test("engine events update connectivity and notices without any key press")
    func engineEvents() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        #expect(app.screen.line(0).contains("○ connecting"))
        app.handle([.connectivity(.online)])
        #expect(app.screen.line(0).contains("● online"))
        app.handle([.connectivity(.offline(reason: "connection refused"))])
        #expect(app.screen.line(0).contains("○ offline"))
        app.handle([.notice("Your edit of Squat was rolled back: rejected by the server")])
        #expect(app.screen.line(23).contains("rolled back"))
        app.handle([.connectivity(.signInRequired)])
        #expect(app.screen.line(0).contains("sign in needed"))
    }

    @Test("with the token refused, what waits is unsent and nothing spins as if it were being sent")
    func signInNeededIsNotSyncing() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 30)
        try fixture.log("Deadlift (Barbell)", 180, 3)
        app.handle([.connectivity(.signInRequired), .outboxChanged(pending: 2, failed: 0)])
        let header = app.screen.line(0)
        #expect(header.contains("sign in needed"), "\(header)")
        #expect(header.contains("2 unsent · spotter login"), "\(header)")
        #expect(!header.contains("Syncing"), "nothing is being sent: \(header)")
        #expect(!app.state.needsTicks || app.state.message != nil, "no spinner to turn")
    }

    /// A full disk stops the pull too: with nothing left to send the badge must not say Synced,
    /// and with something to send it says how much waits.
    @Test("a full disk is in the badge: never Synced, with what is unsent when something is")
    func diskFullBadge() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        let reason = "the disk is full (0 KiB free where the database is)"
        app.handle([.connectivity(.diskFull(reason: reason)), .outboxChanged(pending: 0, failed: 0)])
        #expect(app.screen.line(0).contains("⚠ disk full · not all received"), "\(app.screen.line(0))")
        #expect(!app.screen.line(0).contains("Synced"))
        try fixture.log("Deadlift (Barbell)", 180, 3)
        app.handle([.outboxChanged(pending: 2, failed: 0)])
        #expect(app.screen.line(0).contains("⚠ disk full · 2 unsent"), "\(app.screen.line(0))")
        #expect(app.screen.line(0).components(separatedBy: "disk full").count == 2, "said once")
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        app.handle([.connectivity(.online), .outboxChanged(pending: 0, failed: 0)])
        #expect(app.screen.line(0).contains("Synced"), "room again, all sent: \(app.screen.line(0))")
    }
}

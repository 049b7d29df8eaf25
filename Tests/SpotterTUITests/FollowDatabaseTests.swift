import Foundation
import SpotterCore
import SpotterStore
import SpotterSync
import Testing

@testable import SpotterTUI

/// The screen follows the database file, whoever wrote it: another store opened on the same
/// file has connections of its own, as a CLI command or a second UI in another process does.
@Suite("The screen follows the database")
struct FollowDatabaseTests {
    /// The same file as the fixture's store, opened again: another writer, as `spotter` run
    /// from a shell would be.
    static func otherProcess(_ fixture: Fixture) throws -> SpotterStore {
        try SpotterStore.open(
            path: fixture.directory.appendingPathComponent("client.db").path, userID: "local", clock: fixture.clock)
    }

    @Test("a rename and a set written elsewhere are on screen at the next look; the badge counts them, never Synced")
    func externalWritesShowWithTheirBadge() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Heavy Day")
        try fixture.log("Squat (Barbell)", 140, 5, workout: workout.id)
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        let sync = RecordingSync()
        let app = fixture.controller(sync: sync)
        #expect(app.screen.line(0).contains("✓ Synced"), "\(app.screen.line(0))")
        #expect(!app.followDatabase(), "nothing changed since the screen was read")

        let cli = try Self.otherProcess(fixture)
        try cli.workoutLog.editWorkout(id: workout.id, changes: WorkoutChanges(name: "Leg Day"))
        try cli.workoutLog.logSet(
            LogSetInput(exercise: "Deadlift (Barbell)", weight: 180, reps: 3, workout: .existing(workout.id)))
        let queued = try cli.queries.queueCounts().pending
        #expect(queued >= 2)

        #expect(app.followDatabase(), "another connection's commits are noticed")
        let screen = app.screen
        #expect(screen.contains("Leg Day"), "\(screen)")
        #expect(!screen.contains("Heavy Day"), "\(screen)")
        #expect(screen.contains("Deadlift (Barbell)"), "\(screen)")
        #expect(!screen.line(0).contains("Synced"), "\(screen.line(0))")
        #expect(screen.line(0).contains("Syncing… \(queued)"), "\(screen.line(0))")
        #expect(sync.calls.contains(.trigger(.enqueue)), "what another process queued goes to the engine at once")
        #expect(!app.followDatabase(), "read once per change")

        // The answers land (written by the engine, which posts no event here): the badge follows.
        try fixture.completeAll { _ in .succeeded(status: 200, row: nil) }
        #expect(app.followDatabase())
        #expect(app.screen.line(0).contains("✓ Synced"), "\(app.screen.line(0))")
    }

    /// A synced workout of one set, "Heavy Day", and the UI open on it; `deleteElsewhere` then
    /// pulls another device's delete of both, as a sync would while a form is open.
    static func syncedWorkout(
        _ fixture: Fixture
    ) throws -> (app: AppController, workout: Workout, deleteElsewhere: () throws -> Void) {
        let workout = try fixture.store.workoutLog.createWorkout(name: "Heavy Day")
        let first = try fixture.log("Squat (Barbell)", 140, 5, workout: workout.id)
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        let app = fixture.controller(columns: 120, rows: 40)
        return (
            app, workout,
            {
                let stamp = ServerStamp(serverVersion: 9, updatedAt: "2026-09-21T10:00:00Z")
                try fixture.store.pull.mergePulled(
                    [.deletedSet(first.set.id, stamp), .deletedWorkout(workout.id, stamp)], cursor: "9")
            }
        )
    }

    @Test("a form open on a workout another device deleted says so in words, never with an id, and keeps its numbers")
    func formOnAWorkoutDeletedElsewhere() throws {
        let fixture = try Fixture()
        let (app, workout, deleteElsewhere) = try Self.syncedWorkout(fixture)
        app.handle(.character("N"))  // into the selected workout, on purpose
        app.handle(.control("u"))
        app.type("142.5")
        try deleteElsewhere()  // meanwhile the pull brings the other device's delete
        app.handle(.enter)
        let screen = app.screen
        #expect(screen.contains("Workout deleted (here or on another device): not saved"), "\(screen)")
        #expect(!screen.contains(workout.id.wireString), "no raw id: \(screen)")
        #expect(screen.contains("142.5"), "the form keeps what was typed: \(screen)")
        #expect(try fixture.store.queries.workoutSummaries().isEmpty, "nothing was logged anywhere")
    }

    @Test("renaming a workout another device deleted says so in words, never with its id")
    func renameOfAWorkoutDeletedElsewhere() throws {
        let fixture = try Fixture()
        let (app, workout, deleteElsewhere) = try Self.syncedWorkout(fixture)
        app.handle(.tab)  // the workouts pane: e renames
        app.handle(.character("e"))
        app.type(" 2")
        try deleteElsewhere()
        app.handle(.enter)
        let screen = app.screen
        #expect(screen.contains("Workout deleted (here or on another device): not saved"), "\(screen)")
        #expect(!screen.contains(workout.id.wireString), "\(screen)")
        #expect(!screen.contains("Heavy Day"), "the list no longer shows it: \(screen)")
    }

    @Test("airplane mode switched from the command line shows in the badge")
    func airplaneFromTheCommandLine() throws {
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 100, 5)
        let app = fixture.controller()
        #expect(!app.screen.line(0).contains("Airplane"))
        try Self.otherProcess(fixture).preferences.setAirplane(true)
        #expect(app.followDatabase())
        #expect(app.screen.line(0).contains("✈ Airplane · 2 queued"), "\(app.screen.line(0))")
    }

    @Test("what waits for another account or behind a failure is never Synced")
    func strandedAndBlockedAreNotSynced() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        #expect(app.screen.line(0).contains("✓ Synced"))
        let alice = QueueOwner.account(server: "https://sync.example", user: "alice")
        try Self.otherProcess(fixture).forUser(alice.storedID).workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5, workout: .current))
        #expect(app.followDatabase())
        #expect(!app.screen.line(0).contains("Synced"), "\(app.screen.line(0))")
        #expect(app.screen.line(0).contains("2 queued for another account"), "\(app.screen.line(0))")
    }

    @Test("n after the workout in progress was ended elsewhere starts a new workout, the form says so")
    func nAfterAnEndElsewhereStartsANewWorkout() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Bench Press (Barbell)", 100, 5)
        let ended = logged.workout
        let app = fixture.controller()
        #expect(app.state.workoutInProgress?.id == ended.id)

        try Self.otherProcess(fixture).workoutLog.editWorkout(
            id: ended.id, changes: WorkoutChanges(endedAt: fixture.clock.now()))
        #expect(app.followDatabase())
        #expect(app.state.workoutInProgress == nil, "an ended workout is no longer in progress")
        app.handle(.character("n"))
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("n opened no form")
            return
        }
        #expect(form.title == "Log set · new workout", "\(form.title)")
        app.handle(.enter)
        #expect(app.state.overlay == .none, "\(app.state.overlay)")

        #expect(try fixture.store.queries.sets(workoutID: ended.id).count == 1, "nothing went into the ended workout")
        let workouts = try fixture.store.queries.workoutSummaries(limit: 10, countingSets: true)
        #expect(workouts.count == 2)
        let started = try #require(workouts.first { $0.workout.id != ended.id })
        #expect(started.setCount == 1)
        #expect(started.workout.endedAt == nil)
        #expect(app.state.currentWorkout?.id == started.workout.id, "the new workout is selected")
    }

    @Test("a form opened before the end elsewhere still logs into a new workout, not the ended one")
    func staleFormNeverLogsIntoTheEndedWorkout() throws {
        let fixture = try Fixture()
        let ended = try fixture.log("Bench Press (Barbell)", 100, 5).workout
        let app = fixture.controller()
        app.handle(.character("n"))
        guard case .setForm(let before) = app.state.overlay else {
            Issue.record("n opened no form")
            return
        }
        #expect(before.title == "Log set · \(ended.name)")

        try Self.otherProcess(fixture).workoutLog.editWorkout(
            id: ended.id, changes: WorkoutChanges(endedAt: fixture.clock.now()))
        // The screen has not looked yet: the set is saved before it does.
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: ended.id).count == 1, "nothing went into the ended workout")
        #expect(try fixture.store.queries.workoutSummaries(limit: 10, countingSets: false).count == 2)

        // And an open form whose workout is ended meanwhile is retitled at the next look.
        let newWorkout = try #require(app.state.workoutInProgress)
        app.handle(.character("n"))
        try Self.otherProcess(fixture).workoutLog.editWorkout(
            id: newWorkout.id, changes: WorkoutChanges(endedAt: fixture.clock.now()))
        #expect(app.followDatabase())
        guard case .setForm(let after) = app.state.overlay else {
            Issue.record("the form closed")
            return
        }
        #expect(after.title == "Log set · new workout", "\(after.title)")
    }
}

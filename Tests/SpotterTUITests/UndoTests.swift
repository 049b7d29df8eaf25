import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore
@testable import SpotterTUI

@Suite("U takes back this session's last action, and again the one before")
struct UndoTests {
    static let push = [
        RoutineExercise(
            exercise: "Bench Press (Barbell)", sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3))
    ]

    /// A set of an old workout, logged before the UI opened (from a script, or last week).
    static func earlierAction(_ fixture: Fixture) throws -> LoggedSet {
        let old = try fixture.store.workoutLog.createWorkout(
            name: "Last week", startedAt: fixture.clock.now().addingTimeInterval(-7 * 86_400))
        return try fixture.store.workoutLog.logSet(
            LogSetInput(
                exercise: "Deadlift (Barbell)", weight: 180, reps: 5, workout: .existing(old.id),
                performedAt: old.startedAt.addingTimeInterval(600)))
    }

    @Test(
        "planned log, log, edit, rename, finish, workout delete, all by keys: each U takes back one, newest first, as new operations"
    )
    func undoChainThroughTheKeys() throws {
        let fixture = try Fixture()
        let earlier = try Self.earlierAction(fixture)
        try fixture.store.routines.create(name: "Push A", exercises: Self.push)
        let app = fixture.controller(columns: 120, rows: 40)
        func workout() throws -> WorkoutSummary? {
            try fixture.store.queries.workoutSummaries().first { $0.workout.startedAt > earlier.workout.startedAt }
        }
        func sets() throws -> [WorkoutSet] {
            guard let workout = try workout() else { return [] }
            return try fixture.store.queries.sets(workoutID: workout.workout.id).map(\.set)
        }

        app.handle(.character("R"))
        app.handle(.enter)  // start Push A
        let started = try #require(try workout())
        fixture.clock.advance(by: 120)
        app.handle(.enter)  // Enter on the first planned row logs it
        #expect(try sets().map(\.weight) == [100], "the planned set: \(app.screen)")
        fixture.clock.advance(by: 120)
        app.handle(.character("n"))
        app.handle(.control("u"))
        app.type("105")
        app.handle(.enter)
        #expect(try sets().map(\.weight) == [100, 105], "\(app.screen)")
        // e on the set just logged (selected): 105 → 107.5.
        app.handle(.character("e"))
        app.handle(.control("u"))
        app.type("107.5")
        app.handle(.enter)
        #expect(try sets().map(\.weight) == [100, 107.5], "\(app.screen)")
        app.handle(.tab)  // the workouts pane: e renames
        app.handle(.character("e"))
        app.type("Push day 💪")
        app.handle(.enter)
        #expect(try workout()?.workout.name == "Push day 💪")
        app.handle(.character("F"))
        app.handle(.enter)  // close the summary
        #expect(try workout()?.workout.endedAt != nil)
        app.handle(.character("d"))
        app.handle(.character("y"))
        #expect(try workout() == nil, "the workout is deleted: \(app.screen)")

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: deleted the workout 'Push day 💪' (2 sets)"), "\(app.screen)")
        let restored = try #require(try workout())
        #expect(restored.workout.id != started.workout.id, "logged again under a new id")
        #expect(try sets().map(\.weight) == [100, 107.5])
        #expect(restored.workout.name == "Push day 💪" && restored.workout.endedAt != nil)
        let queued = try fixture.store.queries.outbox(limit: 50).filter { $0.state == .pending }
        #expect(
            queued.contains {
                $0.entityType == .workout && $0.kind == .create && $0.entityID == restored.workout.id.wireString
            },
            "the restored workout is a new operation that syncs")

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: finished the workout 'Push day 💪'"), "\(app.screen)")
        #expect(try workout()?.workout.endedAt == nil)
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: renamed the workout"), "\(app.screen)")
        #expect(try workout()?.workout.name == started.workout.name)
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: edited Bench Press (Barbell) 107.5 kg × 5"), "\(app.screen)")
        #expect(try sets().map(\.weight) == [100, 105])
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Bench Press (Barbell) 105 kg × 5"), "\(app.screen)")
        #expect(try sets().map(\.weight) == [100])
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Bench Press (Barbell) 100 kg × 5 (planned)"), "\(app.screen)")
        #expect(try sets().isEmpty)

        // The session's actions are all taken back: the set logged before the UI opened stays.
        app.handle(.character("U"))
        #expect(app.screen.contains("Nothing more to undo in this session"), "\(app.screen)")
        #expect(try fixture.store.queries.sets(workoutID: earlier.workout.id).count == 1)
        // `spotter undo` is not bound to a session: it takes back this device's newest action left.
        let cli = try #require(try fixture.store.workoutLog.undoLast())
        #expect(cli.description == "logged Deadlift (Barbell) 180 kg × 5" && cli.notUndone == nil)
        #expect(try fixture.store.queries.sets(workoutID: earlier.workout.id).isEmpty)
    }

    @Test("U on a planned set puts the row back to do again")
    func undoPlannedLogBringsTheRowBack() throws {
        let fixture = try Fixture()
        try fixture.store.routines.create(name: "Push A", exercises: Self.push)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.character("R"))
        app.handle(.enter)
        let workoutID = try #require(app.state.workoutInProgress?.id)
        app.handle(.enter)
        #expect(
            try fixture.store.routines.plannedRows(workoutID: workoutID).map(\.status) == [.done, .planned, .planned])
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Bench Press (Barbell) 100 kg × 5 (planned)"), "\(app.screen)")
        #expect(
            try fixture.store.routines.plannedRows(workoutID: workoutID).map(\.status) == [
                .planned, .planned, .planned,
            ])
        #expect(try fixture.store.queries.sets(workoutID: workoutID).isEmpty)
    }

    @Test("undoing an edit writes back only the fields it changed: another device's change to another field stays")
    func undoAnEditKeepsOtherFields() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 40)
        let logged = try fixture.log("Squat (Barbell)", 140, 5)
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        try fixture.store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(weight: 142.5))
        try fixture.completeAll { _ in .succeeded(status: 200, row: nil) }
        // Meanwhile another device's edit of the reps arrived (as a pull writes it).
        try fixture.store.writer.write { db in
            try db.execute(sql: "UPDATE sets SET reps = 8 WHERE id = ?", arguments: [logged.set.id.wireString])
        }
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: edited Squat (Barbell) 142.5 kg × 5"), "\(app.screen)")
        let set = try #require(try fixture.store.queries.sets(workoutID: logged.workout.id).first?.set)
        #expect(set.weight == 140, "the edit's field is back")
        #expect(set.reps == 8, "the other device's reps stay")
        let update = try #require(
            try fixture.store.queries.outbox(limit: 20).first {
                $0.entityType == .set && $0.kind == .update && $0.state == .pending
            })
        // Only the weight is sent, with the unit it stands in (one reading); never the reps.
        #expect(update.payload.keys.sorted() == ["unit", "weight"], "\(update.payload)")
    }

    @Test("an action that can no longer be taken back is said, not skipped; the next U goes on")
    func undoSaysWhatItCannotTakeBack() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 40)
        let first = try fixture.log("Squat (Barbell)", 140, 5)
        let second = try fixture.log("Squat (Barbell)", 150, 3)
        // Another device deleted the second set (as a pull writes it).
        try fixture.store.writer.write { db in
            try db.execute(
                sql: "UPDATE sets SET deleted_at = ? WHERE id = ?",
                arguments: [Timestamp.format(fixture.clock.now()), second.set.id.wireString])
        }
        app.handle(.character("U"))
        #expect(
            app.screen.contains("Could not undo: logged Squat (Barbell) 150 kg × 3 (the set was deleted since)"),
            "\(app.screen)")
        #expect(try fixture.store.queries.sets(workoutID: first.workout.id).count == 1, "nothing else was undone")
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Squat (Barbell) 140 kg × 5"), "\(app.screen)")
        #expect(try fixture.store.queries.sets(workoutID: first.workout.id).isEmpty)
    }

    @Test("undoing the set that started the rest timer stops it; undoing another action leaves it running")
    func undoingTheSetStopsItsRest() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 40)
        fixture.clock.advance(by: 60)
        app.handle(.character("n"))
        app.type("Squat (Barbell)")
        app.submitNumbers(weight: "100", reps: "5")
        #expect(app.state.restRemaining != nil, "the rest timer runs after a work set: \(app.screen)")
        // Synced: taking it back leaves a tombstone until the delete is sent, and is still no rest owed.
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        app.handle(.tab)  // the workouts pane: e renames, an action that is not the set
        app.handle(.character("e"))
        app.type(" 2")
        app.handle(.enter)
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: renamed"), "\(app.screen)")
        #expect(app.state.restRemaining != nil, "the set still stands, and so does its rest")
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Squat (Barbell) 100 kg × 5"), "\(app.screen)")
        #expect(app.state.restRemaining == nil, "no rest is owed for a set taken back: \(app.screen)")
        #expect(!app.screen.contains("Rest"), "\(app.screen)")
    }

    @Test("undoing a warm-up or a drop set says which kind it was, so it never reads like the work set")
    func undoNamesTheKind() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 40)
        fixture.clock.advance(by: 60)
        try fixture.store.workoutLog.logSet(
            LogSetInput(exercise: "Box Squat (Barbell)", weight: 100, reps: 5, kind: .warmup))
        fixture.clock.advance(by: 60)
        let work = try fixture.store.workoutLog.logSet(
            LogSetInput(exercise: "Box Squat (Barbell)", weight: 100, reps: 5))
        try fixture.store.workoutLog.editSet(id: work.set.id, changes: SetChanges(kind: .drop))
        app.handle(.character("U"))
        #expect(
            app.screen.contains(
                "Undid: edited Box Squat (Barbell) 100 kg × 5 (drop set) (back to Box Squat (Barbell) 100 kg × 5)"),
            "\(app.screen)")
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Box Squat (Barbell) 100 kg × 5"), "\(app.screen)")
        #expect(!app.screen.contains("× 5 (warm-up)"), "the work set is no warm-up")
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Box Squat (Barbell) 100 kg × 5 (warm-up)"), "\(app.screen)")
    }

    @Test("a set deleted before its workout comes back into the workout restored by undo")
    func undoDeletesInsideADeletedWorkout() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 120, rows: 40)
        let first = try fixture.log("Squat (Barbell)", 140, 5)
        let second = try fixture.log("Squat (Barbell)", 150, 3)
        try fixture.store.workoutLog.deleteSet(id: second.set.id)
        try fixture.store.workoutLog.deleteWorkout(id: first.workout.id)
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: deleted the workout 'Afternoon Workout' (1 sets)"), "\(app.screen)")
        let restored = try #require(try fixture.store.queries.workoutSummaries().first)
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: deleted Squat (Barbell) 150 kg × 3"), "\(app.screen)")
        #expect(try fixture.store.queries.sets(workoutID: restored.workout.id).map(\.set.weight) == [140, 150])
        app.handle(.character("U"))
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Squat (Barbell) 140 kg × 5"), "\(app.screen)")
        #expect(try fixture.store.queries.workoutSummaries().isEmpty, "the workout the first log started goes too")
        app.handle(.character("U"))
        #expect(app.screen.contains("Nothing more to undo in this session"))
    }
}

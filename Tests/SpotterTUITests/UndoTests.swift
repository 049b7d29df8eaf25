import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

@Suite("U takes back this device's last action, and again the one before")
struct UndoTests {
    @Test("log, edit, delete, finish: each U takes back one, newest first, with a message saying what")
    func undoChain() throws {
        let fixture = try Fixture()
        let first = try fixture.log("Squat (Barbell)", 140, 5)
        let second = try fixture.log("Squat (Barbell)", 150, 3)
        try fixture.store.workoutLog.editSet(id: first.set.id, changes: SetChanges(reps: 6))
        try fixture.store.workoutLog.deleteSet(id: second.set.id)
        try fixture.store.workoutLog.editWorkout(
            id: first.workout.id, changes: WorkoutChanges(endedAt: fixture.clock.now()))
        let app = fixture.controller(columns: 120, rows: 30)
        func sets() throws -> [WorkoutSet] { try fixture.store.queries.sets(workoutID: first.workout.id).map(\.set) }

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: finished the workout"), "\(app.screen)")
        #expect(try fixture.store.queries.workoutSummaries().first?.workout.endedAt == nil)

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: deleted Squat (Barbell) 150 kg × 3"))
        #expect(try sets().map(\.weight) == [140, 150], "the deleted set is back (under a new id)")

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: edited Squat (Barbell) 140 kg × 6"), "\(app.screen)")
        #expect(try sets().first?.reps == 5)

        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Squat (Barbell) 150 kg × 3"))
        app.handle(.character("U"))
        #expect(app.screen.contains("Undid: logged Squat (Barbell) 140 kg × 5"))
        #expect(try sets().isEmpty)
        #expect(try fixture.store.queries.workoutSummaries().isEmpty, "the workout the first log started goes too")
        app.handle(.character("U"))
        #expect(app.screen.contains("Nothing to undo"))
        // Nothing had been sent, so the creates and their deletes cancel out: nothing to send.
        #expect(try fixture.store.queries.queueCounts().pending == 0)
    }
}

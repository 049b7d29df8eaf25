import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// The list is read without set counts (a million-set database paid ~550 page reads for 200
/// counts nobody sees); the one count the UI shows, in "Delete workout … and its N sets?", is
/// taken when the selected workout's sets are loaded, and must be exact then.
@Suite("Workout set counts in the UI")
struct WorkoutSetCountTests {
    func deleteQuestion(_ app: AppController) -> String {
        app.handle(.character("d"))
        defer { app.handle(.escape) }
        return app.screen.line(app.state.rows - 1)
    }

    @Test("deleting a workout names its live set count, after logging, deleting and pulling")
    func deleteConfirmationCountsTheSelectedWorkout() throws {
        let fixture = try Fixture()
        let older = try fixture.store.workoutLog.createWorkout(
            name: "Older", startedAt: fixture.clock.now().addingTimeInterval(-3 * 86_400))
        let olderSets = try (0..<4).map { _ in try fixture.log("Squat (Barbell)", 100, 5, workout: older.id) }
        try fixture.log("Bench Press (Barbell)", 80, 5)
        try fixture.log("Bench Press (Barbell)", 80, 5)
        try fixture.store.workoutLog.deleteSet(id: olderSets[0].set.id)

        let app = fixture.controller()
        app.handle(.tab)  // the workouts pane
        #expect(app.state.currentWorkout?.summary.workout.name != "Older")
        #expect(app.state.workouts.first { $0.id == older.id }?.summary.setCount == nil, "not counted: not selected")
        #expect(deleteQuestion(app).contains("and its 2 sets?"), "\(deleteQuestion(app))")

        app.handle(.down)
        #expect(app.state.currentWorkout?.id == older.id)
        #expect(app.state.currentWorkout?.summary.setCount == 3, "counted when its sets were loaded")
        #expect(deleteQuestion(app).contains("Delete workout Older and its 3 sets?"), "\(deleteQuestion(app))")

        // Everything is sent; then another device deletes one of them, and the pull's event
        // re-reads what the screen shows.
        try fixture.completeAll { _ in .succeeded(status: 201, row: nil) }
        try fixture.store.pull.mergePulled(
            [.deletedSet(olderSets[1].set.id, ServerStamp(serverVersion: 90, updatedAt: "2026-11-23T10:00:00.000Z"))],
            cursor: "90")
        app.handle([.pulled(count: 1)])
        #expect(app.state.currentWorkout?.id == older.id)
        #expect(app.state.currentWorkout?.summary.setCount == 2, "counted again on the re-read")
        #expect(deleteQuestion(app).contains("Delete workout Older and its 2 sets?"), "\(deleteQuestion(app))")
        let live = try fixture.store.queries.liveSetCount(workoutID: older.id)
        let counted = try fixture.store.queries.workout(id: older.id)?.setCount
        #expect(live == 2 && counted == 2)
    }
}

import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

@Suite("A workout is renamed, annotated and finished in the UI")
struct WorkoutFinishTests {
    @Test("e on the workouts pane edits the name and notes; they are saved and queued like any edit")
    func renameAndNotes() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Squat (Barbell)", 140, 5)
        let sync = RecordingSync()
        let app = fixture.controller(columns: 100, rows: 30, sync: sync)
        app.handle(.tab)  // the workouts pane
        app.handle(.character("e"))
        #expect(app.screen.contains("Workout"), "\(app.screen)")
        app.type("Leg day 🦵")  // the selected name is replaced
        app.handle(.tab)
        app.type("knees felt good")
        app.handle(.enter)
        let workout = try #require(
            try fixture.store.queries.workoutSummaries().first { $0.workout.id == logged.workout.id })
        #expect(workout.workout.name == "Leg day 🦵")
        #expect(workout.workout.notes == "knees felt good")
        #expect(workout.syncState == .pending)
        #expect(sync.calls.contains(.trigger(.enqueue)))
        // An empty name is refused in the form, and nothing is saved.
        app.handle(.character("e"))
        app.handle(.control("u"))
        app.handle(.enter)
        #expect(app.screen.contains("A workout needs a name"))
        app.handle(.escape)
        #expect(try fixture.store.queries.workoutSummaries().first?.workout.name == "Leg day 🦵")
        // A name the store would refuse (a pasted bidi override) keeps the form open, the text as
        // typed, with the reason; taking the control out saves it.
        app.handle(.character("e"))
        app.handle(.control("u"))
        app.type("Push \u{202E}day")
        app.handle(.enter)
        #expect(app.screen.contains("must not contain control characters (found U+202E)"), "\(app.screen)")
        guard case .workoutEdit(let form) = app.state.overlay else {
            Issue.record("the form closed on a refused name")
            return
        }
        #expect(form.name.text == "Push \u{202E}day", "the text as typed")
        for _ in 0..<3 { app.handle(.left) }  // before "day"
        app.handle(.backspace)
        app.handle(.enter)
        #expect(app.state.overlay == .none)
        #expect(try fixture.store.queries.workoutSummaries().first?.workout.name == "Push day")
    }

    @Test("F finishes the workout now and shows what it came to; a second F says it is finished")
    func finishShowsTheSummary() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 60, 10)
        try fixture.log("Squat (Barbell)", 140, 5)
        let logged = try fixture.log("Bench Press (Barbell)", 100, 5)
        fixture.clock.advance(by: 3600)
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("F"))
        let screen = app.screen
        #expect(screen.contains("Finished · Afternoon Workout"), "\(screen)")
        #expect(screen.contains("Sets      3"))
        #expect(screen.contains("Volume    1800 kg"))
        #expect(screen.contains("Exercises 2"))
        #expect(screen.contains("Duration  1 h"))
        let ended = try #require(
            try fixture.store.queries.workoutSummaries().first { $0.workout.id == logged.workout.id })
        #expect(ended.workout.endedAt != nil)
        app.handle(.enter)
        #expect(app.state.overlay == .none)
        app.handle(.character("F"))
        #expect(app.screen.contains("is finished already"))
        // n now starts a new workout: the finished one takes no more sets.
        app.handle(.character("n"))
        #expect(app.screen.contains("Log set · new workout"))
    }

    @Test("F on a workout left open for days ends it at its last set, says so, and lists the records set")
    func finishAnOldOpenWorkoutEndsAtItsLastSet() throws {
        let fixture = try Fixture()
        let start = fixture.clock.now().addingTimeInterval(-2 * 86_400)
        let old = try fixture.store.workoutLog.createWorkout(name: "Legs 🦵", startedAt: start)
        for (minutes, weight, kind) in [(5.0, 60.0, SetKind.warmup), (15, 100, .normal), (40, 140, .normal)] {
            _ = try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Squat (Barbell)", weight: weight, reps: 5, kind: kind, workout: .existing(old.id),
                    performedAt: start.addingTimeInterval(minutes * 60)))
        }
        let app = fixture.controller(columns: 100, rows: 30)
        #expect(app.state.currentWorkout?.id == old.id)
        app.handle(.character("F"))
        let screen = app.screen
        #expect(screen.contains("Finished · Legs 🦵"), "\(screen)")
        #expect(screen.contains("Ended at its last set,") && screen.contains("(left open)"), "\(screen)")
        #expect(screen.contains("Duration  40 min"), "not two days: \(screen)")
        #expect(screen.contains("Sets      3 (1 warm-up)"))
        #expect(screen.contains("Volume    1200 kg"))
        #expect(screen.contains("Records   1: Squat (Barbell) 140×5"), "\(screen)")
        let ended = try #require(
            try fixture.store.queries.workoutSummaries().first { $0.workout.id == old.id }?.workout.endedAt)
        #expect(ended == start.addingTimeInterval(40 * 60))
    }

    @Test("F an hour after the last set ends the workout now, without a word about it")
    func finishARecentWorkoutEndsNow() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Squat (Barbell)", 100, 5)
        try fixture.log("Squat (Barbell)", 110, 5)
        fixture.clock.advance(by: 3600)
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("F"))
        #expect(!app.screen.contains("Ended at its last set"), "\(app.screen)")
        #expect(app.screen.contains("Records   1: Squat (Barbell) 110×5"), "\(app.screen)")
        let ended = try #require(
            try fixture.store.queries.workoutSummaries().first { $0.workout.id == logged.workout.id }?.workout.endedAt)
        #expect(abs(ended.timeIntervalSince(fixture.clock.now())) < 1)
    }
}

import Foundation
import SpotterCore
import Testing

/// `o`: a note on the selected set's exercise in its workout, typed with hard text in a real
/// terminal, shown on the sets pane, kept as typed, and the same from `spotter workout note`.
@Suite(
    "A note on an exercise of a workout (tmux and the CLI)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct ExerciseNoteTUITests {
    /// A skin tone, a ZWJ family, a flag, a decomposed é, Arabic and Hangul.
    static let note = "Elbows in 💪🏽 👨‍👩‍👧 🇯🇵 Cafe\u{301} يمين 한국"

    static func workouts(_ database: String) async throws -> [[String: Any]] {
        let listed = try await SpotterBinary.run(["workouts", "--json"], db: database)
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        return object?["workouts"] as? [[String: Any]] ?? []
    }

    @Test(
        "o on a set, hard text typed, Enter: the pane shows it, the database keeps it as typed; o, Ctrl-U, Enter removes it"
    )
    func aNoteTypedInTheUI() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "100", "--reps", "5"], db: workspace.database)
        #expect(logged.status == 0, "\(logged.stderr)")

        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        try tmux.press("o")
        var step = try await tmux.waitFor("(empty removes it)")
        #expect(step.ok, "the note form:\n\(step.screen)")
        try tmux.type(Self.note)
        try tmux.press("Enter")
        step = try await tmux.waitFor("✎ Bench Press (Barbell): Elbows in")
        #expect(step.ok, "the note under the sets:\n\(step.screen)")
        let notes = try await Self.workouts(workspace.database).first?["exercise_notes"] as? [String: String]
        #expect(notes == ["Bench Press (Barbell)": Self.note], "stored as typed: \(String(describing: notes))")

        // Every row still fits the pane with the note's wide characters.
        for line in step.screen.split(separator: "\n") {
            #expect(DisplayWidth.of(String(line)) <= 120, "\(line)")
        }

        try tmux.press("o")
        _ = try await tmux.waitFor("(empty removes it)")
        try tmux.press("C-u")  // clears the field
        try tmux.press("Enter")
        // The note's line goes (the message saying so may have gone by on a busy machine).
        step = try await tmux.waitFor { !$0.contains("✎") && $0.contains("1 Bench Press (Barbell)") }
        #expect(step.ok, "\(step.screen)")
        #expect(try await Self.workouts(workspace.database).first?["exercise_notes"] as? [String: String] == nil)
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test(
        "spotter workout note takes the exercise in any case; an exercise the workout lacks, or an ESC, exits 1 and changes nothing"
    )
    func aNoteFromTheCommandLine() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        _ = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: workspace.database)
        let workoutID = try #require(try await Self.workouts(workspace.database).first?["id"] as? String)

        let noted = try await SpotterBinary.run(
            ["workout", "note", workoutID, "squat (barbell)", Self.note], db: workspace.database)
        #expect(noted.status == 0, "\(noted.stderr)")
        var notes = try await Self.workouts(workspace.database).first?["exercise_notes"] as? [String: String]
        #expect(notes == ["Squat (Barbell)": Self.note])

        let missing = try await SpotterBinary.run(
            ["workout", "note", workoutID, "Deadlift (Barbell)", "hips"], db: workspace.database)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("has no set of"), "\(missing.stderr)")
        let escape = try await SpotterBinary.run(
            ["workout", "note", workoutID, "Squat (Barbell)", "red \u{1B}[31m"], db: workspace.database)
        #expect(escape.status != 0)
        #expect(escape.stderr.contains("exercise_notes"), "\(escape.stderr)")
        #expect(!escape.stderr.contains("\u{1B}"), "the ESC never reaches the terminal")
        notes = try await Self.workouts(workspace.database).first?["exercise_notes"] as? [String: String]
        #expect(notes == ["Squat (Barbell)": Self.note], "nothing changed")
    }
}

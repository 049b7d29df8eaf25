import Foundation
import Testing

/// The lifter's session with an imported history, in a real terminal: the suggestion picked is
/// the lift logged, the prefill follows the session, a workout is finished and an action undone.
@Suite(
    "The suggestion you pick, a prefill that follows you, finish and undo (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct LifterSessionTwoTUITests {
    /// Last bench session: three warm-ups, then one work set; then squats (where `n` opens).
    static let history = """
        Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),W,20,10,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),W,40,5,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),W,50,3,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),1,65,4,0,0,,,
        2025-03-08 07:00:00,Push,1h,Squat (Barbell),1,100,5,0,0,,,

        """

    @Test("bench + Enter is Bench Press; after warm-ups the set is normal; n Enter repeats a new weight; F; U")
    func aSessionWithTheSuggestionPrefillFinishAndUndo() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let file = workspace.directory.appendingPathComponent("strong.csv")
        try Self.history.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await SpotterBinary.run(["import", file.path], db: workspace.database).status == 0)
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)

        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        try tmux.press("G")  // the squat set: the form opens on squats
        try tmux.press("n")
        _ = try await tmux.waitFor("Log set")
        try tmux.press("BTab")
        try tmux.type("bench")
        var step = try await tmux.waitFor("+ new custom exercise 'bench'")
        #expect(step.ok, "the typed text is offered, not taken:\n\(step.screen)")
        try tmux.press("Enter")  // the highlighted suggestion
        // Waited for whole: the form's last line drawn too.
        step = try await tmux.waitFor { $0.contains("prefilled: set 1/4") && $0.contains("Enter save") }
        #expect(step.ok && step.screen.contains("Bench Press (Barbell)"), "\(step.screen)")
        #expect(step.screen.contains("Kind      normal"), "a warm-up of last session is not copied:\n\(step.screen)")
        try tmux.type("60")
        try tmux.press("Tab")
        try tmux.type("5")
        try tmux.press("Enter")
        // (The message may name a record instead: the row is what counts.)
        step = try await tmux.waitFor { $0.contains("1 Bench Press (Barbell)") && $0.contains("60 kg    5") }
        #expect(step.ok, "\(step.screen)")

        // The next set follows the one just logged; a new weight once, then n Enter repeats it.
        try tmux.press("n")
        step = try await tmux.waitFor { $0.contains("as your last set") && $0.contains("Enter save") }
        #expect(step.ok && step.screen.contains("Kind      normal"), "\(step.screen)")
        try tmux.type("70")
        try tmux.press("Enter")
        _ = try await tmux.waitFor { $0.contains("2 Bench Press (Barbell)") && $0.contains("70 kg    5") }
        try tmux.press("n")
        _ = try await tmux.waitFor { $0.contains("as your last set") && $0.contains("Enter save") }
        try tmux.press("Enter")
        // (The message may have gone by under load: the third row is what counts.)
        step = try await tmux.waitFor { $0.contains(" 3 Bench Press (Barbell)") && $0.contains("70 kg    5") }
        #expect(step.ok, "the third set, at 70:\n\(step.screen)")

        // Finish: the summary. Then undo twice: the finish, then the last set.
        try tmux.press("F")
        // The whole box (a capture can land while the terminal is still drawing it).
        step = try await tmux.waitFor { $0.contains("Finished ·") && $0.contains("Records") }
        #expect(
            step.ok && step.screen.contains("Sets      3") && step.screen.contains("Volume    1000 kg"),
            "\(step.screen)")
        try tmux.press("Enter")
        try tmux.press("U")
        step = try await tmux.waitFor("Undid: finished the workout")
        #expect(step.ok, "\(step.screen)")
        try tmux.press("U")
        step = try await tmux.waitFor("Undid: logged Bench Press (Barbell) 70 kg × 5")
        #expect(step.ok, "\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let sets = try SpotterBinary.json(
            try await SpotterBinary.run(["sets", "--json"], db: workspace.database).stdout)
        let today = (sets["sets"] as? [[String: Any]] ?? []).filter {
            ($0["performed_at"] as? String ?? "").hasPrefix("2025") == false
        }
        #expect(today.compactMap { $0["weight"] as? Double }.sorted() == [60, 70], "\(today)")
        #expect(
            today.allSatisfy {
                $0["exercise"] as? String == "Bench Press (Barbell)" && $0["kind"] as? String == "normal"
            })
        let custom = try await SpotterBinary.run(["exercises", "--custom", "--json"], db: workspace.database)
        #expect(!custom.stdout.contains("\"bench\""), "no junk exercise: \(custom.stdout)")
    }

    /// Today's sets of a device, by `sets --json` (the history is from 2025).
    static func todaysSets(_ database: String) async throws -> [[String: Any]] {
        let result = try await SpotterBinary.run(["sets", "--json"], db: database)
        #expect(result.status == 0, "\(result.stderr)")
        return (try SpotterBinary.json(result.stdout)["sets"] as? [[String: Any]] ?? []).filter {
            ($0["performed_at"] as? String ?? "").hasPrefix("2025") == false
        }
    }

    /// `spotter sync` until all is sent and received.
    static func sync(_ database: String) async throws {
        let result = try await SpotterBinary.run(["sync", "--timeout", "20"], db: database)
        #expect(result.status == 0, "sync: \(result.stdout) \(result.stderr)")
    }

    @Test(
        "with a real server: warm-ups today, then n is a normal work set; n Enter repeats; F; U takes the set off the server too"
    )
    func aSyncedSessionWithWarmUpsFinishAndUndo() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let serverDB = workspace.directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB) }
        defer { if server.process.isRunning { server.stop() } }
        // Two devices of one account: this one (the UI), and a second that sees what the server has.
        let other = workspace.directory.appendingPathComponent("other.db").path
        for database in [workspace.database, other] {
            let login = try await SpotterBinary.run(
                ["login", "--server", server.url, "--token", ServerProcess.token], db: database)
            #expect(login.status == 0, "\(login.stderr)")
        }
        let file = workspace.directory.appendingPathComponent("strong.csv")
        try Self.history.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await SpotterBinary.run(["import", file.path], db: workspace.database).status == 0)
        try await Self.sync(workspace.database)

        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        try tmux.press("G")  // the squat set: the form opens on squats
        try tmux.press("n")
        _ = try await tmux.waitFor("Log set")
        try tmux.press("BTab")
        try tmux.type("bench")
        _ = try await tmux.waitFor("+ new custom exercise 'bench'")
        try tmux.press("Enter")  // the highlighted suggestion: Bench Press (Barbell)
        var step = try await tmux.waitFor { $0.contains("prefilled: set 1/4") && $0.contains("Enter save") }
        #expect(step.ok && step.screen.contains("20 kg"), "last session's first warm-up:\n\(step.screen)")
        // Today's one warm-up: kind w.
        try tmux.press("Tab", "Tab", "Tab")
        try tmux.press("w")
        step = try await tmux.waitFor("Kind      warmup")
        #expect(step.ok, "\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor {
            TUIEndToEndTests.lines($0, containing: "Bench Press (Barbell)", "20 kg").count == 1
        }
        #expect(step.ok, "the warm-up is logged:\n\(step.screen)")

        // Fewer warm-ups than last session: n offers a work set (last session's first, 65×4),
        // of kind normal, never last session's second warm-up (40 kg).
        try tmux.press("n")
        step = try await tmux.waitFor { $0.contains("first work set") && $0.contains("Enter save") }
        #expect(step.ok && step.screen.contains("Kind      normal"), "\(step.screen)")
        #expect(TUIEndToEndTests.lines(step.screen, containing: "Weight", "65").count == 1, "\(step.screen)")
        try tmux.type("70")
        try tmux.press("Tab")
        try tmux.type("5")
        try tmux.press("Enter")
        step = try await tmux.waitFor {
            TUIEndToEndTests.lines($0, containing: "Bench Press (Barbell)", "70 kg    5").count == 1
        }
        #expect(step.ok, "\(step.screen)")
        // The second set at the new weight: n and Enter.
        try tmux.press("n")
        _ = try await tmux.waitFor { $0.contains("as your last set") && $0.contains("Enter save") }
        try tmux.press("Enter")
        step = try await tmux.waitFor {
            TUIEndToEndTests.lines($0, containing: "Bench Press (Barbell)", "70 kg    5").count == 2
        }
        #expect(step.ok, "two sets at 70:\n\(step.screen)")
        step = try await tmux.waitFor(timeout: 20) { $0.contains("✓ Synced") }
        #expect(step.ok, "the sets reach the server:\n\(step.screen)")
        try await Self.sync(other)
        #expect(
            try await Self.todaysSets(other).compactMap { $0["weight"] as? Double }.sorted() == [20, 70, 70],
            "the other device has today's three sets")

        try tmux.press("F")
        step = try await tmux.waitFor { $0.contains("Finished ·") && $0.contains("Records") }
        #expect(
            step.ok && step.screen.contains("Sets      3 (1 warm-up)") && step.screen.contains("Volume    700 kg"),
            "\(step.screen)")
        try tmux.press("Enter")
        try tmux.press("U")
        step = try await tmux.waitFor("Undid: finished the workout")
        #expect(step.ok, "\(step.screen)")
        try tmux.press("U")
        step = try await tmux.waitFor("Undid: logged Bench Press (Barbell) 70 kg × 5")
        #expect(step.ok, "\(step.screen)")
        step = try await tmux.waitFor {
            TUIEndToEndTests.lines($0, containing: "Bench Press (Barbell)", "70 kg    5").count == 1
        }
        #expect(step.ok, "one set at 70 left on this device:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        // The undo is an operation like any other: once synced, the server and the other device
        // no longer have the set.
        try await Self.sync(workspace.database)
        try await Self.sync(other)
        for database in [workspace.database, other] {
            let today = try await Self.todaysSets(database)
            #expect(today.compactMap { $0["weight"] as? Double }.sorted() == [20, 70], "\(database): \(today)")
            #expect(today.compactMap { $0["kind"] as? String }.sorted() == ["normal", "warmup"])
        }
        let workouts = try await SpotterBinary.run(["workouts", "--json"], db: other)
        let today = (try SpotterBinary.json(workouts.stdout)["workouts"] as? [[String: Any]] ?? []).first {
            ($0["started_at"] as? String ?? "").hasPrefix("2025") == false
        }
        #expect(
            today?["ended_at"] == nil || today?["ended_at"] is NSNull, "the finish is undone there too: \(today ?? [:])"
        )
    }
}

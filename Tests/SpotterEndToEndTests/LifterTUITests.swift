import Foundation
import Testing

/// The lifter's session in a real terminal (issue 12) and flow control (issue 10 item 3).
@Suite(
    "A lifter's session in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct LifterTUITests {
    /// Two old Strong sessions; the newest starts with three bench sets, then squats.
    static let strongHistory = """
        Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2025-03-01 07:00:00,Push,1h,Bench Press (Barbell),1,95,5,0,0,,,
        2025-03-01 07:00:00,Push,1h,Bench Press (Barbell),2,97.5,5,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),1,100,5,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),2,102.5,5,0,0,,,
        2025-03-08 07:00:00,Push,1h,Bench Press (Barbell),3,105,3,0,0,,,
        2025-03-08 07:00:00,Push,1h,Squat (Barbell),1,140,5,0,0,,,

        """

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("imported history, launch, n, Enter: the set is in today's new workout with the prefill of its last session")
    func nEnterLogsIntoTodayWithTheLastSessionsPrefill() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let file = workspace.directory.appendingPathComponent("strong.csv")
        try Self.strongHistory.write(to: file, atomically: true, encoding: .utf8)
        let imported = try await SpotterBinary.run(["import", file.path], db: workspace.database)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        let before = try Self.json(
            try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        let oldIDs = Set(((before["workouts"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        #expect(oldIDs.count == 2)

        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        try tmux.press("n")
        var step = try await tmux.waitFor { $0.contains("Log set · new workout") && $0.contains("prefilled: set 1/3") }
        #expect(step.ok, "the form names the new workout and the prefill's source:\n\(step.screen)")
        #expect(step.screen.contains("100 kg"), "the first bench set of the last session:\n\(step.screen)")
        try tmux.press("Enter")
        // The set's row in today's workout (the "Logged …" message may have gone by on a busy machine).
        step = try await tmux.waitFor {
            !$0.contains("Log set ·")
                && TUIEndToEndTests.lines($0, containing: "Bench Press (Barbell)", "100 kg").count >= 1
        }
        #expect(step.ok, "logged:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let after = try Self.json(try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        let workouts = (after["workouts"] as? [[String: Any]]) ?? []
        let new = workouts.filter { !oldIDs.contains(($0["id"] as? String) ?? "") }
        #expect(new.count == 1, "one new workout: \(workouts)")
        #expect(new.first?["set_count"] as? Int == 1)
        #expect(
            workouts.filter { oldIDs.contains(($0["id"] as? String) ?? "") }.map { $0["set_count"] as? Int }.sorted {
                ($0 ?? 0) < ($1 ?? 0)
            } == [2, 4], "the old workouts are untouched")
        let newID = try #require(new.first?["id"] as? String)
        let sets = try Self.json(
            try await SpotterBinary.run(["sets", "--workout", newID, "--json"], db: workspace.database).stdout)
        let set = try #require((sets["sets"] as? [[String: Any]])?.first)
        #expect(set["exercise"] as? String == "Bench Press (Barbell)")
        #expect(set["weight"] as? Double == 100 && set["reps"] as? Int == 5)
    }

    @Test("Ctrl-S does not freeze the screen: flow control is off while the UI runs")
    func ctrlSDoesNotFreeze() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        try tmux.press("C-s")
        try tmux.press("?")
        let step = try await tmux.waitFor(timeout: 5) { $0.contains("┌ Help") }
        #expect(step.ok, "help drawn after Ctrl-S:\n\(step.screen)")
        try tmux.press("C-q")
        try tmux.press("?")
        let closed = try await tmux.waitFor { !$0.contains("┌ Help") && $0.contains("┌ Workouts") }
        #expect(closed.ok, "help closed:\n\(closed.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }
}

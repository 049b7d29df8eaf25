import Foundation
import SpotterCore
import Testing

/// A superset in a real terminal, on the real binary: `n` alternates its exercises, rest starts
/// after the round, `L` takes an exercise out of the superset and puts it back.
@Suite(
    "Supersets in the terminal", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct SupersetTUITests {
    @Test("two exercises in a superset: n alternates them, rest starts after the round; L ungroups and regroups")
    func alternateAndRestAfterTheRound() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        for (exercise, extra) in [("Bicep Curl (Dumbbell)", [String]()), ("Triceps Pushdown (Cable)", ["--superset"])] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", exercise, "--weight", "20", "--reps", "10"] + extra, db: workspace.database)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        let tmux = try await TUIEndToEndTests.launch(columns: 80, rows: 24, workspace: workspace)
        var step = try await tmux.waitFor { $0.contains("A1 Bicep Curl") && $0.contains("A1 Triceps Pushdown") }
        #expect(step.ok, "the superset's sets are lettered:\n\(step.screen)")

        // After the round's last exercise, n offers its first.
        try tmux.press("n")
        step = try await tmux.waitFor { $0.contains("Log set") && $0.contains("Bicep Curl (Dumbbell)") }
        #expect(step.ok, "the next exercise of the round:\n\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("A2 Bicep Curl") && !$0.contains("Log set") }
        #expect(step.ok, "logged:\n\(step.screen)")
        #expect(
            !step.screen.contains("rest 0") && !step.screen.contains("rest 01"), "no rest mid-round:\n\(step.screen)")

        try tmux.press("n")
        step = try await tmux.waitFor { $0.contains("Log set") && $0.contains("Triceps Pushdown (Cable)") }
        #expect(step.ok, "then the other:\n\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("A2 Triceps Pushdown") && $0.contains("rest 01:") }
        #expect(step.ok, "rest after the round:\n\(step.screen)")

        // L on the selected set (the pushdown just logged): out of the superset, and the curl,
        // left alone, is in none; L again puts them back together.
        try tmux.press("t")
        try tmux.press("L")
        step = try await tmux.waitFor { !$0.contains("A1 Bicep") && !$0.contains("A2 Triceps") }
        #expect(step.ok, "ungrouped:\n\(step.screen)")
        try tmux.press("L")
        step = try await tmux.waitFor { $0.contains("A2 Bicep Curl") && $0.contains("A2 Triceps Pushdown") }
        #expect(step.ok, "grouped again:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let sets = try await SpotterBinary.run(["sets", "--json"], db: workspace.database)
        let rows = try SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]] ?? []
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { $0["superset"] as? Int == 1 }, "\(rows.map { $0["superset"] ?? "nil" })")
    }
}

import Foundation
import Testing

/// Routines in the real binary under tmux: `R` starts one, Enter logs planned rows.
@Suite(
    "Routines in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct RoutineTUITests {
    @Test("R starts a routine; Enter on two planned rows logs those two sets, each queued once")
    func startARoutineAndLogTwoPlannedSetsWithEnter() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let db = workspace.database
        let created = try await SpotterBinary.run(["routine", "create", "Push A", "--rest", "120"], db: db)
        #expect(created.status == 0, "\(created.stderr)")
        let added = try await SpotterBinary.run(
            [
                "routine", "add", "Push A", "--exercise", "Bench Press (Barbell)", "--sets", "3", "--reps", "5",
                "--weight", "100",
            ], db: db)
        #expect(added.status == 0, "\(added.stderr)")

        let tmux = try await TUIEndToEndTests.launch(workspace: workspace, arguments: "")
        try tmux.press("a")  // airplane: the queue stays visible
        var step = try await tmux.waitFor("✈ Airplane")
        #expect(step.ok, "airplane:\n\(step.screen)")
        try tmux.press("R")
        step = try await tmux.waitFor("Start routine")
        #expect(step.ok, "routine list:\n\(step.screen)")
        #expect(step.screen.contains("Push A"), "\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "100 kg", "planned").count == 3
        }
        #expect(step.ok, "three planned rows:\n\(step.screen)")
        #expect(step.screen.contains("planned · "), "the status column starts the hint:\n\(step.screen)")

        try tmux.press("Enter")
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "planned").count == 2
                && (screen.contains("rest 02:00") || screen.contains("rest 01:5"))
        }
        #expect(step.ok, "first planned set logged, the routine's rest running:\n\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "planned").count == 1
        }
        #expect(step.ok, "second planned set logged:\n\(step.screen)")
        let logged = TUIEndToEndTests.lines(step.screen, containing: "│", "Bench Press (Barbell)", "100 kg")
            .filter { !$0.contains("planned") }
        #expect(logged.count == 2, "two logged rows:\n\(step.screen)")

        // S: what was done becomes the routine (two of its three sets were logged).
        try tmux.press("S")
        step = try await tmux.waitFor("Updated routine Push A")
        #expect(step.ok, "S updates the routine:\n\(step.screen)")

        try tmux.press("q")
        _ = try await tmux.waitFor("$", timeout: 5)
        let shown = try await SpotterBinary.run(["routine", "show", "Push A", "--json"], db: db)
        let routine = try #require((try SpotterBinary.json(shown.stdout))["routine"] as? [String: Any])
        let exercises = try #require(routine["exercises"] as? [[String: Any]])
        #expect(
            (exercises.first?["sets"] as? [Any])?.count == 2, "the routine holds the two logged sets: \(shown.stdout)")
        let sets = try await SpotterBinary.run(["sets", "--json"], db: db)
        let rows = try #require((try SpotterBinary.json(sets.stdout))["sets"] as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { ($0["weight"] as? Double) == 100 && ($0["reps"] as? Int) == 5 })
        let outbox = try await SpotterBinary.run(["outbox", "--json", "--limit", "50"], db: db)
        let ops = try #require((try SpotterBinary.json(outbox.stdout))["operations"] as? [[String: Any]])
        let setCreates = ops.filter { ($0["entity_type"] as? String) == "set" && ($0["kind"] as? String) == "create" }
        #expect(setCreates.count == 2, "each logged set queued once")
    }
}

import Foundation
import Testing

/// Routines in the real binary under tmux: `R` starts one, Enter logs planned rows.
@Suite(
    "Routines in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct RoutineTUITests {
    /// A workspace whose routine "Push A" plans 3×5 bench at 100 kg, and the UI running on it in
    /// airplane mode from the start, so what it queues stays queued to be counted. (Pressing `a`
    /// after launch raced the engine's first sync.)
    static func pushAOffline(rest: Int?) async throws -> (TUIEndToEndTests.Workspace, TmuxSession) {
        let workspace = try TUIEndToEndTests.Workspace()
        let db = workspace.database
        let created = try await SpotterBinary.run(
            ["routine", "create", "Push A"] + (rest.map { ["--rest", "\($0)"] } ?? []), db: db)
        #expect(created.status == 0, "\(created.stderr)")
        let added = try await SpotterBinary.run(
            [
                "routine", "add", "Push A", "--exercise", "Bench Press (Barbell)", "--sets", "3", "--reps", "5",
                "--weight", "100",
            ], db: db)
        #expect(added.status == 0, "\(added.stderr)")
        let airplane = try await SpotterBinary.run(["airplane", "on"], db: db)
        #expect(airplane.status == 0, "\(airplane.stderr)")
        let tmux = try await TUIEndToEndTests.launch(workspace: workspace, arguments: "")
        let step = try await tmux.waitFor("✈ Airplane")
        #expect(step.ok, "airplane:\n\(step.screen)")
        return (workspace, tmux)
    }

    @Test("R starts a routine; Enter on two planned rows logs those two sets, each queued once")
    func startARoutineAndLogTwoPlannedSetsWithEnter() async throws {
        let (workspace, tmux) = try await Self.pushAOffline(rest: 120)
        let db = workspace.database
        var step: (screen: String, ok: Bool)
        try tmux.press("R")
        step = try await tmux.waitFor("Start routine")
        #expect(step.ok, "routine list:\n\(step.screen)")
        #expect(step.screen.contains("Push A"), "\(step.screen)")
        try tmux.press("Enter")
        // The hint is in the condition too: a capture can land while the screen is still being drawn.
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "100 kg", "planned").count == 3
                && screen.contains("planned · ")
        }
        #expect(step.ok, "three planned rows, the status column starting the hint:\n\(step.screen)")

        try tmux.press("Enter")
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "planned").count == 2
                && (screen.contains("rest 02:00") || screen.contains("rest 01:5"))
        }
        #expect(step.ok, "first planned set logged, the routine's rest running:\n\(step.screen)")
        try tmux.press("Enter")
        func logged(_ screen: String) -> [String] {
            TUIEndToEndTests.lines(screen, containing: "│", "Bench Press (Barbell)", "100 kg")
                .filter { !$0.contains("planned") }
        }
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "Bench Press (Barbell)", "planned").count == 1
                && logged(screen).count >= 2
        }
        #expect(step.ok, "second planned set logged:\n\(step.screen)")
        #expect(logged(step.screen).count == 2, "two logged rows:\n\(step.screen)")

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

    @Test("R, e: a set's reps changed and an exercise added in the editor, s saves; the CLI shows it, queued once")
    func editARoutineInTheUI() async throws {
        let (workspace, tmux) = try await Self.pushAOffline(rest: nil)
        let db = workspace.database
        var step: (screen: String, ok: Bool)
        try tmux.press("R")
        // The footer is in the condition: a capture can land while the box is still being drawn.
        step = try await tmux.waitFor {
            $0.contains("Start routine") && $0.contains("Push A") && $0.contains("e edit  n new  r rename  d delete")
        }
        #expect(step.ok, "routine list, naming its keys:\n\(step.screen)")
        try tmux.press("e")
        step = try await tmux.waitFor { TUIEndToEndTests.lines($0, containing: "100 kg", "5 reps").count == 3 }
        #expect(step.ok, "the editor, three planned sets:\n\(step.screen)")
        #expect(step.screen.contains("Edit routine · Push A"))

        // The first set's reps: j to it, Enter opens its form on the reps, 8 replaces 5.
        try tmux.press("j")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Planned set 1 · Bench Press (Barbell)")
        #expect(step.ok, "the set's form:\n\(step.screen)")
        try tmux.type("8")
        try tmux.press("Enter")
        step = try await tmux.waitFor { screen in
            TUIEndToEndTests.lines(screen, containing: "100 kg", "8 reps").count == 1 && screen.contains("unsaved")
        }
        #expect(step.ok, "reps changed, not saved yet:\n\(step.screen)")

        // An exercise, through the type-ahead.
        try tmux.press("a")
        step = try await tmux.waitFor("Add exercise")
        #expect(step.ok, "the new exercise's form:\n\(step.screen)")
        try tmux.type("squat (b")
        step = try await tmux.waitFor("▸ Squat (Barbell)")
        #expect(step.ok, "type-ahead:\n\(step.screen)")
        try tmux.press("Tab")
        try tmux.press("Enter")
        step = try await tmux.waitFor("2. Squat (Barbell)")
        #expect(step.ok, "the exercise is added:\n\(step.screen)")

        try tmux.press("s")
        step = try await tmux.waitFor("Saved Push A: 2 exercises, 6 sets")
        #expect(step.ok, "saved:\n\(step.screen)")
        #expect(!step.screen.contains("unsaved"), "\(step.screen)")
        try tmux.press("Escape")
        step = try await tmux.waitFor("Start routine")
        #expect(step.ok, "Esc after saving goes back to the list without asking:\n\(step.screen)")
        try tmux.press("Escape")
        try tmux.press("q")
        _ = try await tmux.waitFor("$", timeout: 5)

        let shown = try await SpotterBinary.run(["routine", "show", "Push A", "--json"], db: db)
        let routine = try #require((try SpotterBinary.json(shown.stdout))["routine"] as? [String: Any])
        let exercises = try #require(routine["exercises"] as? [[String: Any]])
        #expect(exercises.map { $0["exercise"] as? String } == ["Bench Press (Barbell)", "Squat (Barbell)"])
        let benchReps = (exercises.first?["sets"] as? [[String: Any]])?.map { $0["reps"] as? Int }
        #expect(benchReps == [8, 5, 5], "\(shown.stdout)")
        #expect((exercises.last?["sets"] as? [Any])?.count == 3, "the new exercise's three sets: \(shown.stdout)")
        #expect(routine["sync_state"] as? String == "pending")

        // The save waits in airplane mode as one routine operation: an update when the CLI's
        // create already reached the (embedded) server, else folded into that create. Never two.
        let outbox = try await SpotterBinary.run(["outbox", "--json", "--limit", "50"], db: db)
        let ops = try #require((try SpotterBinary.json(outbox.stdout))["operations"] as? [[String: Any]])
        let waiting = ops.filter {
            ($0["entity_type"] as? String) == "routine" && ($0["state"] as? String) == "pending"
        }
        #expect(waiting.count == 1, "the routine queued once: \(outbox.stdout)")
        #expect(ops.allSatisfy { ($0["entity_type"] as? String) == "routine" }, "nothing else queued: \(outbox.stdout)")
        let status = try await SpotterBinary.run(["status", "--json"], db: db)
        #expect((try SpotterBinary.json(status.stdout))["pending"] as? Int == 1, "\(status.stdout)")
    }
}

import Foundation
import SpotterCore
import Testing

/// The plates line and the warm-up ramp in a real terminal, on the real binary.
@Suite(
    "Plates and warm-ups in the terminal", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct ToolkitTUITests {
    @Test("the plates line follows the weight as it is typed; ^W plans the ramp and Enter logs each as a warm-up")
    func platesAndRamp() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "20", "--reps", "10", "--kind", "warmup"],
            db: workspace.database)
        #expect(logged.status == 0, "\(logged.stderr)")

        let tmux = try await TUIEndToEndTests.launch(columns: 80, rows: 24, workspace: workspace)
        try tmux.press("n")
        var step = try await tmux.waitFor("Plates    bar only (20 kg)")
        #expect(step.ok, "the plates for the prefilled 20 kg:\n\(step.screen)")
        try tmux.press("C-u")
        try tmux.type("14")
        step = try await tmux.waitFor("Plates    less than the bar (20 kg)")
        #expect(step.ok, "14 kg:\n\(step.screen)")
        try tmux.type("1")
        step = try await tmux.waitFor("Plates    can't load exactly: 140 or 142.5 kg")
        #expect(step.ok, "141 kg:\n\(step.screen)")
        try tmux.press("BSpace")
        try tmux.type("0")
        step = try await tmux.waitFor("Plates    20 + 2×25 + 10 per side")
        #expect(step.ok, "140 kg:\n\(step.screen)")
        step = try await tmux.waitFor("^W 20×10 · 55×5 · 82.5×3 · 110×2")
        #expect(step.ok, "the ramp is offered before the first work set:\n\(step.screen)")
        try tmux.press("Tab")
        try tmux.press("C-u")
        try tmux.type("5")
        try tmux.press("C-w")
        // The rows, not the few-second message: on a busy machine the message may be gone.
        step = try await tmux.waitFor { $0.contains("110 kg    2") && $0.contains("planne") }
        #expect(step.ok, "\(step.screen)")
        // The bar warm-up logged by hand stands for the ramp's first row: four rows are left.
        for _ in 0..<4 { try tmux.press("Enter") }
        step = try await tmux.waitFor { $0.contains("140 kg") && !$0.contains("planne") }
        #expect(step.ok, "every planned row logged:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let sets = try await SpotterBinary.run(["sets", "--json"], db: workspace.database)
        let object = try JSONSerialization.jsonObject(with: Data(sets.stdout.utf8)) as? [String: Any]
        let rows = (object?["sets"] as? [[String: Any]] ?? []).filter { $0["exercise"] as? String == "Squat (Barbell)" }
        let kinds = rows.compactMap { $0["kind"] as? String }
        let weights = rows.compactMap { ($0["weight"] as? NSNumber)?.doubleValue }
        // The hand-logged bar warm-up took the ramp's first row; the rest were logged from it.
        #expect(kinds.filter { $0 == "warmup" }.count == 4, "\(kinds)")
        #expect(kinds.filter { $0 == "normal" }.count == 1, "\(kinds)")
        #expect(Set(weights) == [20, 55, 82.5, 110, 140], "\(weights)")
    }
}

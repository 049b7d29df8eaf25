import Foundation
import SpotterCore
import Testing

/// The weigh-in prompt in a real terminal, on the real binary.
@Suite(
    "Body weight in the terminal", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct BodyWeightTUITests {
    /// The weigh-ins as `spotter bodyweight --json` lists them, newest first.
    static func weighIns(_ workspace: TUIEndToEndTests.Workspace) async throws -> [[String: Any]] {
        let listed = try await SpotterBinary.run(["bodyweight", "--json"], db: workspace.database)
        #expect(listed.status == 0, "\(listed.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        return object?["body_weights"] as? [[String: Any]] ?? []
    }

    @Test(
        "B logs a weigh-in with a hard note; a typo is refused on the line above and the prompt stays; the last one prefills"
    )
    func logAWeighIn() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let tmux = try await TUIEndToEndTests.launch(columns: 80, rows: 24, workspace: workspace)

        // A bodyweight lift with no weigh-in: said once.
        try tmux.press("n")
        _ = try await tmux.waitFor("Log set")
        try tmux.type("Pull Up (Assisted)")
        try tmux.press("Tab")
        try tmux.press("C-u")
        try tmux.type("20")
        try tmux.press("Tab")
        try tmux.press("C-u")
        try tmux.type("6")
        try tmux.press("Enter")
        var step = try await tmux.waitFor("No body weight logged")
        #expect(step.ok, "the missing weigh-in is said:\n\(step.screen)")

        try tmux.press("B")
        step = try await tmux.waitFor("Body weight kg:")
        #expect(step.ok, "the prompt:\n\(step.screen)")
        // 8.1 is a typo for 81: refused with the reason, and the prompt keeps what was typed.
        try tmux.type("8.1")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("from 20 kg to 400 kg") && $0.contains("Body weight kg:") }
        #expect(step.ok, "the refusal above the open prompt:\n\(step.screen)")
        try tmux.press("C-u")
        // Pasted: a skin-toned, ZWJ emoji, a combining accent, right-to-left text.
        try tmux.type("81.4 after 🏋🏽‍♀️ cafe\u{301} بعد")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Body weight 81.4 kg logged")
        #expect(step.ok, "logged:\n\(step.screen)")

        // The next B shows the last weigh-in and prefills its weight.
        try tmux.press("B")
        step = try await tmux.waitFor { $0.contains("last: 81.4 kg") && $0.contains("Body weight kg: 81.4") }
        #expect(step.ok, "the last weigh-in:\n\(step.screen)")
        // Control characters and an escape sequence pasted: nothing crashes, Esc leaves it.
        try tmux.type("\u{1B}[31m\u{7}\u{0}zz")
        try tmux.press("Escape")
        step = try await tmux.waitFor { !$0.contains("Body weight kg:") }
        #expect(step.ok, "closed:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let rows = try await Self.weighIns(workspace)
        #expect(rows.count == 1, "\(rows)")
        #expect((rows.first?["weight"] as? NSNumber)?.doubleValue == 81.4)
        #expect(rows.first?["notes"] as? String == "after 🏋🏽‍♀️ cafe\u{301} بعد")
        #expect(rows.first?["sync_state"] as? String == "pending", "airplane mode: it waits, and says so")
        // A set done after the weigh-in moves (81.4 − 10) kg; the one before it is left as it was.
        let after = try await SpotterBinary.run(
            ["log", "--exercise", "Pull Up (Assisted)", "--weight", "10", "--reps", "6"], db: workspace.database)
        #expect(after.status == 0, "\(after.stderr)")
        let stats = try await SpotterBinary.run(["stats", "--exercise", "Pull Up (Assisted)"], db: workspace.database)
        #expect(stats.stdout.contains("e1RM 85.7 kg (body − 10 kg assistance × 6"), "\(stats.stdout)")
    }

    @Test("W lists the weigh-ins: Enter changes the selected one with hard text, d twice deletes one, Esc closes")
    func changeAndDeleteFromTheList() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        for (weight, day) in [("82.2", "2026-11-20"), ("81.4", "2026-11-25")] {
            let logged = try await SpotterBinary.run(
                ["bodyweight", "log", weight, "--date", day], db: workspace.database)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        let tmux = try await TUIEndToEndTests.launch(columns: 80, rows: 24, workspace: workspace)
        try tmux.press("W")
        var step = try await tmux.waitFor { $0.contains("Body weight · 2") && $0.contains("2026-11-25 00:00  81.4 kg") }
        #expect(step.ok, "the list, newest first:\n\(step.screen)")

        // Enter: the newest in the prompt, changed to a weight and a pasted hard note.
        try tmux.press("Enter")
        step = try await tmux.waitFor {
            $0.contains("changing the weigh-in of 2026-11-25") && $0.contains("Body weight kg: 81.4")
        }
        #expect(step.ok, "the change prompt:\n\(step.screen)")
        try tmux.press("C-u")
        try tmux.type("80.9 fasted 🏋🏽‍♀️ cafe\u{301}")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("80.9 kg  fasted") && $0.contains("Body weight · 2") }
        #expect(step.ok, "changed, back in the list:\n\(step.screen)")

        // d asks, d again deletes the older one.
        try tmux.press("j")
        try tmux.press("d")
        step = try await tmux.waitFor("d again deletes it")
        #expect(step.ok, "asked first:\n\(step.screen)")
        try tmux.press("d")
        step = try await tmux.waitFor { $0.contains("Body weight · 1") && !$0.contains("82.2 kg") }
        #expect(step.ok, "deleted:\n\(step.screen)")
        try tmux.press("Escape")
        step = try await tmux.waitFor { !$0.contains("Body weight · 1") }
        #expect(step.ok, "closed:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let rows = try await Self.weighIns(workspace)
        #expect(rows.count == 1, "\(rows)")
        #expect((rows.first?["weight"] as? NSNumber)?.doubleValue == 80.9)
        #expect(rows.first?["notes"] as? String == "fasted 🏋🏽‍♀️ cafe\u{301}")
    }
}

import Foundation
import SpotterCore
import Testing

/// The progress screens in a real terminal, on the real binary, over an imported history.
@Suite(
    "Progress in the terminal: chart, records, calendar, volume per muscle", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct ProgressTUITests {
    /// A Hevy-shaped export: two years of sessions two to four days apart, squats rising, with
    /// bench, rows and pull-ups, warm-ups first; the squat is logged most.
    static func importedHistory(_ workspace: TUIEndToEndTests.Workspace) async throws {
        var lines = [
            "title,start_time,end_time,description,exercise_title,superset_id,exercise_notes,set_index,set_type,weight_kg,reps,distance_km,duration_seconds,rpe"
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "d MMM yyyy, HH:mm"
        var day = Date().addingTimeInterval(-730 * 86_400)
        var session = 0
        while day < Date().addingTimeInterval(-86_400) {
            session += 1
            let start = formatter.string(from: day)
            let end = formatter.string(from: day.addingTimeInterval(3_600))
            let squat = 80 + Double(session / 3) * 2.5
            let rows: [(String, String, Double, Int)] = [
                ("Squat (Barbell)", "warmup", 60, 5), ("Squat (Barbell)", "normal", squat, 5),
                ("Squat (Barbell)", "normal", squat, 5), ("Bench Press (Barbell)", "normal", 70, 8),
                (session % 2 == 0 ? "Bent Over Row (Barbell)" : "Pull Up", "normal", session % 2 == 0 ? 60 : 0, 8),
            ]
            for (index, row) in rows.enumerated() {
                lines.append(
                    "\"Session \(session)\",\"\(start)\",\"\(end)\",,\(row.0),,,\(index),\(row.1),\(Formatting.number(row.2)),\(row.3),,,"
                )
            }
            day = day.addingTimeInterval(Double([2, 3, 4][session % 3]) * 86_400)
        }
        let file = workspace.directory.appendingPathComponent("hevy.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let imported = try await SpotterBinary.run(["import", file], db: workspace.database)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
    }

    @Test(
        "c charts the lift logged most, m and r cycle, Tab shows records; Y the calendar; V the muscles; rows fit",
        arguments: [(80, 24), (200, 60)])
    func progressScreens(size: (columns: Int, rows: Int)) async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        try await Self.importedHistory(workspace)
        let tmux = try await TUIEndToEndTests.launch(columns: size.columns, rows: size.rows, workspace: workspace)
        func fits(_ screen: String) -> [String] {
            HostileTextTUITests.rowsNotFullWidth(screen, columns: size.columns, rows: size.rows)
        }

        try tmux.press("c")
        // Each wait names the bottom bar too: a capture can land while a frame is still being drawn.
        var step = try await tmux.waitFor {
            $0.contains("Progress · Squat (Barbell)") && $0.contains("Estimated 1RM") && $0.contains("Esc close")
        }
        #expect(step.ok, "the chart of the lift logged most:\n\(step.screen)")
        #expect(step.screen.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }, "braille dots")
        #expect(fits(step.screen).isEmpty, "\(fits(step.screen))")
        try tmux.press("m")
        step = try await tmux.waitFor("Heaviest set")
        #expect(step.ok, "m: the next metric:\n\(step.screen)")
        try tmux.press("r")
        step = try await tmux.waitFor("All time")
        #expect(step.ok, "r: the next range:\n\(step.screen)")
        try tmux.press("Left")
        try tmux.press("Left")
        step = try await tmux.waitFor { $0.contains("All time") && $0.contains("Esc close") }
        #expect(fits(step.screen).isEmpty, "\(fits(step.screen))")
        try tmux.press("Tab")
        step = try await tmux.waitFor {
            $0.contains("Heaviest for at least") && $0.contains("Best estimated 1RM")
                && $0.contains("Tab chart  Esc close")
        }
        #expect(step.ok, "Tab: the records:\n\(step.screen)")
        #expect(fits(step.screen).isEmpty, "\(fits(step.screen))")
        try tmux.press("Escape")
        step = try await tmux.waitFor { !$0.contains("Progress ·") }
        #expect(step.ok)

        try tmux.press("Y")
        step = try await tmux.waitFor {
            $0.contains("Training calendar") && $0.contains("Streak:") && $0.contains("Esc close")
        }
        #expect(step.ok, "Y: the calendar:\n\(step.screen)")
        #expect(fits(step.screen).isEmpty, "\(fits(step.screen))")
        #expect(step.screen.contains("█") || step.screen.contains("▓"), "training days shaded:\n\(step.screen)")
        try tmux.press("Escape")
        try tmux.press("V")
        step = try await tmux.waitFor {
            $0.contains("Weekly volume per muscle") && $0.contains("quads") && $0.contains("Esc close")
        }
        #expect(fits(step.screen).isEmpty, "\(fits(step.screen))")
        try tmux.press("Escape")
        step = try await tmux.waitFor { !$0.contains("Weekly volume per muscle") }
        #expect(step.ok)
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test("Enter on a day of the calendar lists its workouts; Enter opens one in the panes")
    func calendarOpensAWorkout() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Legs 🦵🏽"],
            db: workspace.database)
        #expect(logged.status == 0, "\(logged.stderr)")
        let tmux = try await TUIEndToEndTests.launch(columns: 100, rows: 30, workspace: workspace)
        try tmux.press("Y")
        var step = try await tmux.waitFor("1 workout, 1 set,")
        #expect(step.ok, "today is selected and was trained:\n\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Legs")  // tmux's capture drops the skin tone
        #expect(step.ok, "\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { !$0.contains("Training calendar") && $0.contains("100 kg") }
        #expect(step.ok, "the workout is open in the panes:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }
}

import Foundation
import GRDB
import SpotterCore
import Testing

/// Names a lifter really has (Hevy's defaults carry an emoji) and text a hostile user pastes,
/// through the real binary in a real terminal (tmux): nothing crashes, every row is exactly the
/// pane's width, and what was typed is what is stored.
@Suite(
    "Hostile text in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct HostileTextTUITests {
    typealias Workspace = TUIEndToEndTests.Workspace

    /// Hevy's default names and others a lifter types: an emoji with VS16, a skin tone, a ZWJ
    /// family, a flag, Hangul, CJK, right-to-left text, a decomposed accent.
    static let names = [
        "Morning workout ☀️", "Afternoon workout 🌤️", "Evening workout 🌙", "Heavy Day 🏋️ 스쿼트", "Push 💪🏽",
        "Family day 👨‍👩‍👧", "Team 🇺🇸 lift", "Café curl day", "腿日 深蹲", "אימון רגליים", "Pull 🏳️‍🌈 #️⃣",
    ]

    /// Every row a box is drawn on (the panes, the help box) starts and ends with its border,
    /// and measures exactly the pane's width.
    static func boxRowsFit(_ screen: String, columns: Int) -> [String] {
        var wrong: [String] = []
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard let first = line.first, "│┌└".contains(first) else { continue }
            let width = DisplayWidth.of(line)
            if width != columns || !(line.last.map { "│┐┘".contains($0) } ?? false) {
                wrong.append("\(width) columns: \(line)")
            }
        }
        return wrong
    }

    @Test("what the UI measures is what tmux draws: each terminal form, then a mark right after it")
    func widthsAgreeWithTmux() async throws {
        let samples =
            Self.names.flatMap { Array($0) }.map(String.init) + [
                "💪🏽", "👨‍👩‍👧", "🇺🇸", "e\u{301}", "\u{1100}\u{1161}", "\u{202E}", "\u{1B}", "\u{85}", "\u{1FAE8}", "Ｆ", "⏳",
                "✓",
                "Z" + String(repeating: "\u{301}", count: 40),
            ]
        let forms = Array(Set(samples.map(DisplayText.terminalSafe).filter { !$0.isEmpty })).sorted()
        let workspace = try Workspace()
        let file = workspace.directory.appendingPathComponent("forms.txt")
        // Each form, then the cursor moved to the column right after the form's measured width,
        // then "#": if tmux drew the form wider or narrower, the "#" lands on it or leaves a gap.
        var text = ""
        for form in forms { text += "\(form)\u{1B}[\(DisplayWidth.of(form) + 1)G#\n" }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let tmux = try TmuxSession(tmux: try #require(TmuxSession.executable), columns: 60, rows: forms.count + 4)
        try tmux.type("clear; cat \(shellQuoted(file.path)); echo done-printing")
        try tmux.press("Enter")
        let printed = try await tmux.waitFor { $0.contains("\ndone-printing") }
        try #require(printed.ok, "\(printed.screen)")
        let lines = Set(printed.screen.split(separator: "\n").map(String.init))
        for form in forms {
            #expect(lines.contains(form + "#"), "tmux drew \(form.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("workouts named with Hevy's defaults render every row at exactly the pane's width at 80, 120 and 200 columns")
    func hevyNamesFitEveryWidth() async throws {
        let workspace = try Workspace()
        for name in Self.names {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "squat", "--weight", "100", "--reps", "5", "--new-workout", name],
                db: workspace.database)
            try #require(logged.status == 0, "\(logged.stderr)")
        }
        let tmux = try await TUIEndToEndTests.launch(columns: 80, rows: 24, workspace: workspace)
        for (columns, rows) in [(80, 24), (120, 40), (200, 60)] {
            try tmux.resize(columns: columns, rows: rows)
            let shown = try await tmux.waitFor { screen in
                screen.split(separator: "\n").first.map { DisplayWidth.of(String($0)) <= columns } ?? false
                    && screen.split(separator: "\n").count >= rows - 1 && screen.contains("Family day")
                    && Self.boxRowsFit(screen, columns: columns).isEmpty
            }
            #expect(
                shown.ok, "at \(columns)x\(rows): \(Self.boxRowsFit(shown.screen, columns: columns))\n\(shown.screen)")
            for line in shown.screen.split(separator: "\n").map(String.init) {
                #expect(DisplayWidth.of(line) <= columns, "\(line)")
            }
            // The help box too.
            try tmux.press("?")
            let help = try await tmux.waitFor { $0.contains("Keys") || $0.contains("help") }
            #expect(Self.boxRowsFit(help.screen, columns: columns).isEmpty, "help at \(columns):\n\(help.screen)")
            try tmux.press("Escape")
        }
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test("pasting the strings that crashed the UI into every text field: alive, and what is stored is what was pasted")
    func pastedHardTextIsStored() async throws {
        let workspace = try Workspace()
        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)

        // A workout name: the emoji and its skin tone arrive in one paste, then as two keys.
        try tmux.press("w")
        _ = try await tmux.waitFor("New workout name")
        try tmux.type("Push 💪🏽")
        try tmux.type(" x")
        try tmux.press("BSpace")
        try tmux.type("💪")
        try tmux.type("🏽")
        try tmux.press("Enter")
        var step = try await tmux.waitFor("Push 💪 💪")
        #expect(step.ok, "the workout header:\n\(step.screen)")

        // The filter, then cleared.
        try tmux.press("/")
        try tmux.type("Cafe\u{301} 💪🏽 👨‍👩‍👧")
        try tmux.press("BSpace", "BSpace", "Escape")

        // The set form: the exercise with a decomposed é; the numbers after hard text is cleared.
        try tmux.press("n")
        step = try await tmux.waitFor("Log set")
        #expect(step.ok, "form:\n\(step.screen)")
        try tmux.type("Cafe")
        try tmux.type("\u{301}")
        try tmux.type(" curl")
        try tmux.press("Tab")
        try tmux.type("💪🏽\u{202E}e\u{301}")
        try tmux.press("C-u")
        try tmux.type("20")
        try tmux.press("Tab")
        try tmux.type("🇺🇸")
        try tmux.press("BSpace")
        try tmux.type("12")
        // RPE: hard text typed, then cleared and a real value typed.
        try tmux.press("Tab")
        try tmux.type("💪🏽 e\u{301}")
        try tmux.press("C-u")
        try tmux.type("8")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("Café curl") && !$0.contains("Log set") }
        #expect(step.ok, "the set logged:\n\(step.screen)")

        // A routine's name, in the routine list's name prompt.
        try tmux.press("R")
        step = try await tmux.waitFor("Start routine")
        #expect(step.ok, "routine list:\n\(step.screen)")
        try tmux.press("n")
        try tmux.type("Push 💪")
        try tmux.type("🏽 Cafe\u{301}")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Edit routine")
        #expect(step.ok, "the routine editor opens on the new routine:\n\(step.screen)")
        try tmux.press("Escape")
        _ = try await tmux.waitFor { !$0.contains("Edit routine") }
        try tmux.press("Escape")

        // Still alive: it answers a key, and quits cleanly.
        try tmux.press("?")
        step = try await tmux.waitFor { $0.contains("filter") }
        #expect(step.ok, "help:\n\(step.screen)")
        try tmux.press("Escape")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let workouts = try SpotterBinary.json(
            try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        let names = (workouts["workouts"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["Push 💪🏽 💪🏽"], "\(names)")
        let sets = try SpotterBinary.json(
            try await SpotterBinary.run(["sets", "--json"], db: workspace.database).stdout)
        let rows = sets["sets"] as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        #expect((rows.first?["exercise"] as? String) == "Cafe\u{301} curl")
        #expect((rows.first?["reps"] as? Int) == 12)
        #expect((rows.first?["rpe"] as? Double) == 8)
        let routines = try SpotterBinary.json(
            try await SpotterBinary.run(["routine", "list", "--json"], db: workspace.database).stdout)
        let routineNames = (routines["routines"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(routineNames == ["Push 💪🏽 Cafe\u{301}"], "\(routineNames)")
    }

    @Test("a crash under the UI gives the terminal back: the backtrace prints and the shell echoes again")
    func crashRestoresTheTerminal() async throws {
        let workspace = try Workspace()
        let binary = TmuxSession.spotterBinary
        let tmux = try TmuxSession(tmux: try #require(TmuxSession.executable), columns: 120, rows: 40)
        try tmux.type(
            "SPOTTER_DEBUG_CRASH=1 LANG=C.UTF-8 SPOTTER_DB=\(shellQuoted(workspace.database)) XDG_CONFIG_HOME=\(shellQuoted(workspace.directory.path)) \(shellQuoted(binary)); echo exit=$?"
        )
        try tmux.press("Enter")
        let crashed = try await tmux.waitFor(timeout: 60) { $0.contains("exit=13") }
        try #require(crashed.ok, "the UI did not crash on purpose:\n\(crashed.screen)")
        // Raw mode would print the backtrace as a staircase: each line starting where the last ended.
        let lines = crashed.screen.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("exit=13") }, "\(crashed.screen)")
        #expect(lines.contains { $0.hasPrefix("Backtrace took") }, "the backtrace printed:\n\(crashed.screen)")
        try tmux.type("clear; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo")
        try tmux.press("Enter")
        let modes = try await tmux.waitFor {
            $0.contains("icanon echo") || $0.contains("-icanon") || $0.contains("-echo")
        }
        #expect(modes.screen.contains("icanon echo"), "stty after the crash:\n\(modes.screen)")
        #expect(!modes.screen.contains("-icanon") && !modes.screen.contains("-echo"), "\(modes.screen)")
    }

    @Test(
        "a name stored with an ESC and a right-to-left override is shown with U+FFFD, in the UI and in `spotter workouts`"
    )
    func storedControlsAreReplaced() async throws {
        let workspace = try Workspace()
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "100", "--reps", "5", "--new-workout", "Evil"],
            db: workspace.database)
        try #require(logged.status == 0, "\(logged.stderr)")
        // Offline, so the queued create (with the name as logged) does not overwrite the row.
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        // As an older version, an import or another server could have left it.
        let queue = try DatabaseQueue(path: workspace.database)
        try await queue.write { db in
            try db.execute(sql: "UPDATE workouts SET name = 'Evil' || char(27) || '[31m' || char(8238) || 'red'")
        }
        try await queue.close()

        let listed = try await SpotterBinary.run(["workouts"], db: workspace.database)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("Evil\u{FFFD}[31m\u{FFFD}red"), "\(listed.stdout)")
        #expect(!listed.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
        let json = try await SpotterBinary.run(["workouts", "--json"], db: workspace.database)
        #expect(json.stdout.contains("Evil\\u001b[31m\\u202ered"), "\(json.stdout)")
        #expect(
            (try SpotterBinary.json(json.stdout)["workouts"] as? [[String: Any]])?.first?["name"] as? String
                == "Evil\u{1B}[31m\u{202E}red")

        let tmux = try await TUIEndToEndTests.launch(columns: 100, rows: 30, workspace: workspace)
        let shown = try await tmux.waitFor("Evil\u{FFFD}[31m\u{FFFD}red")
        #expect(shown.ok, "\(shown.screen)")
        #expect(Self.boxRowsFit(shown.screen, columns: 100).isEmpty, "\(shown.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        // And the CLI refuses to store one.
        let refused = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "1", "--reps", "1", "--new-workout", "Push\u{202E}"],
            db: workspace.database)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("must not contain control characters (found U+202E)"), "\(refused.stderr)")
    }
}

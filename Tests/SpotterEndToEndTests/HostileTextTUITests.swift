import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

/// Names a lifter really has (Hevy's defaults carry an emoji) and text a hostile user pastes,
/// through the real binary in a real terminal (tmux): nothing crashes, every row is exactly the
/// pane's width, and what was typed is what is stored.
@Suite(
    "Hostile text in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct HostileTextTUITests {
    /// The UI started from a shell in tmux, as a user starts it (`echo exit=$?` after it, so its
    /// exit status shows): `environment` goes before it on the line.
    static func startInShell(_ workspace: Workspace, environment: String = "") throws -> TmuxSession {
        let tmux = try TmuxSession(tmux: try #require(TmuxSession.executable), columns: 120, rows: 40)
        let prefix = environment.isEmpty ? "" : environment + " "
        try tmux.type(
            "\(prefix)LANG=C.UTF-8 SPOTTER_DB=\(shellQuoted(workspace.database)) XDG_CONFIG_HOME=\(shellQuoted(workspace.directory.path)) \(shellQuoted(TmuxSession.spotterBinary)); echo exit=$?"
        )
        try tmux.press("Enter")
        return tmux
    }

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

    /// Rows of the main screen that are not exactly `columns` wide: between the header and the
    /// bottom bar every row is the two panes' (or a box's) and ends with a border in the last
    /// column; the header ends with its badge, one column from the edge; no row is wider. (tmux
    /// leaves cells never written out of a capture, so a row cannot be measured past its last
    /// character.)
    static func rowsNotFullWidth(_ screen: String, columns: Int, rows: Int) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var wrong: [String] = []
        for (index, line) in lines.enumerated() where index < rows {
            let width = DisplayWidth.of(line)
            if width > columns {
                wrong.append("row \(index) is \(width) columns: \(line)")
            } else if index == 0, width < columns - 1 {
                wrong.append("the header ends at \(width), not at the edge: \(line)")
            } else if index > 0, index < rows - 1,
                width != columns || !(line.last.map { "│┐┘".contains($0) } ?? false)
            {
                wrong.append("row \(index) is \(width) columns: \(line)")
            }
        }
        if lines.count < rows { wrong.append("\(lines.count) rows of \(rows)") }
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
                screen.contains("Family day") && Self.rowsNotFullWidth(screen, columns: columns, rows: rows).isEmpty
            }
            #expect(
                shown.ok,
                "at \(columns)x\(rows): \(Self.rowsNotFullWidth(shown.screen, columns: columns, rows: rows))\n\(shown.screen)"
            )
            // The help box too: only it has the title "Help" on its border.
            try tmux.press("?")
            let help = try await tmux.waitFor { screen in
                screen.contains("┌ Help ") && Self.rowsNotFullWidth(screen, columns: columns, rows: rows).isEmpty
            }
            #expect(
                help.ok,
                "help at \(columns): \(Self.rowsNotFullWidth(help.screen, columns: columns, rows: rows))\n\(help.screen)"
            )
            #expect(Self.boxRowsFit(help.screen, columns: columns).isEmpty, "help at \(columns):\n\(help.screen)")
            try tmux.press("Escape")
            _ = try await tmux.waitFor { !$0.contains("┌ Help ") }
        }
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test("a paste with a line break and commands in it stays text: the prompt is not saved, nothing is deleted")
    func bracketedPasteIsText() async throws {
        let workspace = try Workspace()
        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        try tmux.press("w")
        _ = try await tmux.waitFor("New workout name")
        // tmux pastes with the brackets the UI asked for (-p); the buffer holds a line break, a
        // tab, "d" and "q": typed, they would save the name, then delete and quit.
        try tmux.run(["set-buffer", "Leg day\n\tdq"])
        try tmux.run(["paste-buffer", "-p", "-t", tmux.target])
        let pasted = try await tmux.waitFor("Leg day  dq")
        #expect(pasted.ok, "the paste is in the prompt as text:\n\(pasted.screen)")
        let before = try await SpotterBinary.run(["workouts", "--json"], db: workspace.database)
        #expect(!before.stdout.contains("Leg day"), "nothing was saved by the pasted line break: \(before.stdout)")
        try tmux.press("Enter")
        let saved = try await tmux.waitFor("Leg day  dq")
        #expect(saved.ok)
        let after = try await SpotterBinary.run(["workouts", "--json"], db: workspace.database)
        #expect(
            after.stdout.contains("\"Leg day  dq\""), "the name is the paste, spaces for its breaks: \(after.stdout)")
        #expect(!(try tmux.capture()).isEmpty, "the UI is still running")
    }

    @Test("Ctrl-C, Ctrl-\\ and Ctrl-Z bytes in a paste are left out and said: the UI stays, the text before them too")
    func signalBytesInAPasteAreText() async throws {
        let workspace = try Workspace()
        let tmux = try Self.startInShell(workspace)
        let open = try await tmux.waitFor(timeout: 60) { $0.contains("Workouts") }
        try #require(open.ok, "the UI did not open:\n\(open.screen)")
        func ended(_ screen: String) -> Bool { screen.split(separator: "\n").contains { $0.hasPrefix("exit=") } }
        try tmux.press("w")
        _ = try await tmux.waitFor("New workout name")
        // Each byte was a signal to the terminal: SIGINT quit the UI; SIGQUIT and SIGTSTP made
        // the terminal throw away "ab" typed before them.
        try tmux.run(["set-buffer", "ab\u{03}cd\u{1C}ef\u{1A}gh\u{01}ij"])
        try tmux.run(["paste-buffer", "-p", "-t", tmux.target])
        let pasted = try await tmux.waitFor("abcdefghij")
        #expect(pasted.ok, "the paste is typed without its control bytes:\n\(pasted.screen)")
        #expect(!ended(pasted.screen), "the UI quit on a pasted Ctrl-C:\n\(pasted.screen)")
        #expect(pasted.screen.contains("Left out of the paste: its control characters (U+"), "\(pasted.screen)")
        try tmux.press("Enter")
        _ = try await tmux.waitFor("abcdefghij")
        let workouts = try await SpotterBinary.run(["workouts", "--json"], db: workspace.database)
        #expect(workouts.stdout.contains("\"abcdefghij\""), "\(workouts.stdout)")
        // Typed, Ctrl-C still quits, as SIGINT did (130), and the terminal gets its signal keys back.
        try tmux.press("C-c")
        let quit = try await tmux.waitFor(timeout: 30) { ended($0) }
        #expect(quit.screen.split(separator: "\n").contains("exit=130"), "\(quit.screen)")
        try tmux.type("clear; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?isig' ; echo done")
        try tmux.press("Enter")
        let modes = try await tmux.waitFor { $0.split(separator: "\n").contains("done") }
        #expect(modes.screen.split(separator: "\n").contains("isig"), "\(modes.screen)")
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

        // Still alive: it answers a key with what only that key shows, and quits cleanly.
        try tmux.press("?")
        step = try await tmux.waitFor { $0.contains("┌ Help ") }
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
        let tmux = try Self.startInShell(workspace, environment: "SPOTTER_DEBUG_CRASH=1")
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

    @Test("Ctrl-\\ (SIGQUIT) does nothing: no core dump, no raw terminal left behind; q still quits with 0")
    func quitSignalKeyIsIgnored() async throws {
        let workspace = try Workspace()
        let tmux = try Self.startInShell(workspace)
        let open = try await tmux.waitFor(timeout: 60) { $0.contains("Workouts") }
        try #require(open.ok, "the UI did not open:\n\(open.screen)")
        try tmux.press("C-\\")
        try tmux.press("C-\\")
        try await Task.sleep(nanoseconds: 500_000_000)
        func ended(_ screen: String) -> Bool { screen.split(separator: "\n").contains { $0.hasPrefix("exit=") } }
        let after = try tmux.capture()
        #expect(!ended(after), "the UI ended on Ctrl-\\:\n\(after)")
        #expect(after.contains("Workouts"), "still drawn:\n\(after)")
        try tmux.press("q")
        let quit = try await tmux.waitFor(timeout: 30) { ended($0) }
        #expect(quit.screen.split(separator: "\n").contains("exit=0"), "\(quit.screen)")
        #expect(!quit.screen.contains("crashed"), "\(quit.screen)")
    }

    @Test("a stack overflow under the UI gives the terminal back too: the guard runs on a stack of its own")
    func stackOverflowRestoresTheTerminal() async throws {
        let workspace = try Workspace()
        let tmux = try Self.startInShell(workspace, environment: "SPOTTER_DEBUG_CRASH=stack-overflow")
        // SIGSEGV: 128 + 11.
        let crashed = try await tmux.waitFor(timeout: 120) { $0.contains("exit=139") }
        try #require(crashed.ok, "the UI did not overflow its stack on purpose:\n\(crashed.screen)")
        let lines = crashed.screen.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("exit=139") }, "\(crashed.screen)")
        try tmux.type("clear; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo")
        try tmux.press("Enter")
        let modes = try await tmux.waitFor {
            $0.contains("icanon echo") || $0.contains("-icanon") || $0.contains("-echo")
        }
        #expect(modes.screen.contains("icanon echo"), "stty after the overflow:\n\(modes.screen)")
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
        // A capture may catch the terminal mid-redraw (a row drawn up to its first cell): the
        // screen must come to the whole frame, with the name replaced and every row in its box.
        let shown = try await tmux.waitFor {
            $0.contains("Evil\u{FFFD}[31m\u{FFFD}red") && Self.boxRowsFit($0, columns: 100).isEmpty
        }
        #expect(shown.ok, "\(Self.boxRowsFit(shown.screen, columns: 100))\n\(shown.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        // And the CLI refuses to store one.
        let refused = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "1", "--reps", "1", "--new-workout", "Push\u{202E}"],
            db: workspace.database)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("must not contain control characters (found U+202E)"), "\(refused.stderr)")
    }

    /// Writes `statements` into the device's database as another program would (python3's
    /// sqlite3): names that break every rule, never through spotter.
    static func writeBehindSpottersBack(_ database: String, _ statements: [String]) throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for statement in sys.argv[2:]:
                db.execute(statement)
            db.commit()
            """
        let python = ChildProcess()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, database] + statements
        try python.run()
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "python3 could not write the rows")
    }

    /// No control character other than the line feeds that end the lines, no bidi control.
    static func rawControls(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            (DisplayText.isControl(scalar) && scalar != "\n") || DisplayText.isBidiControl(scalar)
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    @Test(
        "names stored by another program with an ESC, U+202E, a CR and a line feed show U+FFFD in the UI and in workouts, sets, stats and outbox; the CLI refuses them"
    )
    func namesWrittenByAnotherProgram() async throws {
        let workspace = try Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "100", "--reps", "5", "--new-workout", "Evil"],
            db: workspace.database)
        try #require(logged.status == 0, "\(logged.stderr)")
        // ESC [31m (a colour), U+202E (right-to-left), CR LF; an OSC title sequence ending in BEL.
        try Self.writeBehindSpottersBack(
            workspace.database,
            [
                "UPDATE workouts SET name = 'Evil' || char(27) || '[31m' || char(8238) || char(13) || char(10) || 'red'",
                "UPDATE sets SET exercise = 'Bad' || char(27) || ']0;x' || char(7) || char(13) || char(10) || 'Lift'",
                "UPDATE outbox SET last_error = 'reason' || char(27) || '[2J' || char(13) || char(10) || 'more'",
            ])
        let expected: [(command: String, shows: String)] = [
            ("workouts", "Evil\u{FFFD}[31m\u{FFFD}\u{FFFD}\u{FFFD}red"),
            ("sets", "Bad\u{FFFD}]0;x\u{FFFD}\u{FFFD}\u{FFFD}Lift"),
            ("stats", "Bad\u{FFFD}]0;x\u{FFFD}\u{FFFD}\u{FFFD}Lift"),
            ("outbox", "reason\u{FFFD}[2J\u{FFFD}\u{FFFD}more"),
        ]
        for (command, shows) in expected {
            let listed = try await SpotterBinary.run([command], db: workspace.database)
            #expect(listed.status == 0, "\(command): \(listed.stderr)")
            #expect(listed.stdout.contains(shows), "\(command):\n\(listed.stdout)")
            #expect(Self.rawControls(listed.stdout).isEmpty, "\(command) printed \(Self.rawControls(listed.stdout))")
            #expect(Self.rawControls(listed.stderr).isEmpty, "\(command) printed \(Self.rawControls(listed.stderr))")
        }
        // --json keeps them, escaped.
        let json = try SpotterBinary.json(
            try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        let stored = try #require((json["workouts"] as? [[String: Any]])?.first)
        #expect(stored["name"] as? String == "Evil\u{1B}[31m\u{202E}\r\nred")
        let workoutID = try #require(stored["id"] as? String)

        // The UI: controls as U+FFFD, the line break as a space; every row the pane's width.
        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        let shown = try await tmux.waitFor { screen in
            screen.contains("Evil\u{FFFD}[31m\u{FFFD} red") && screen.contains("Bad\u{FFFD}]0;x\u{FFFD} Lift")
        }
        #expect(shown.ok, "\(shown.screen)")
        #expect(Self.rawControls(shown.screen).isEmpty, "\(Self.rawControls(shown.screen))")
        #expect(
            Self.rowsNotFullWidth(shown.screen, columns: 120, rows: 40).isEmpty,
            "\(Self.rowsNotFullWidth(shown.screen, columns: 120, rows: 40))\n\(shown.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        // The CLI refuses to store one: exit status not 0, one line naming the field.
        for arguments in [
            ["workout", "rename", workoutID, "X\u{1B}Y"],
            ["log", "--exercise", "squat", "--weight", "1", "--reps", "1", "--new-workout", "X\u{1B}Y"],
            ["workout", "rename", workoutID, "Push\rDay"],
        ] {
            let refused = try await SpotterBinary.run(arguments, db: workspace.database)
            #expect(refused.status != 0, "\(arguments)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "one line: \(refused.stderr)")
            #expect(
                refused.stderr.contains("name") && refused.stderr.contains("must not contain control characters"),
                "\(refused.stderr)")
            #expect(Self.rawControls(refused.stderr).isEmpty)
        }
        let notes = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "1", "--reps", "1", "--notes", "one\rtwo"],
            db: workspace.database)
        #expect(notes.status != 0)
        #expect(notes.stderr.contains("notes: must not contain control characters (found U+000D)"), "\(notes.stderr)")
        let after = try SpotterBinary.json(
            try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        #expect((after["workouts"] as? [Any])?.count == 1, "nothing refused was stored")
    }

    @Test(
        "the crash strings pasted into the workout edit form (name, notes) and the set edit form are stored as pasted")
    func pastedIntoTheEditForms() async throws {
        let workspace = try Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "squat", "--weight", "100", "--reps", "5", "--new-workout", "Start"],
            db: workspace.database)
        try #require(logged.status == 0, "\(logged.stderr)")
        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)

        // e on the workouts pane: the name (selected: the first key replaces it), then the notes.
        try tmux.press("Left")
        try tmux.press("e")
        var step = try await tmux.waitFor("┌ Workout ")
        try #require(step.ok, "the workout form:\n\(step.screen)")
        try tmux.type("Push 💪🏽")
        try tmux.type(" Cafe")
        try tmux.type("\u{301}")
        try tmux.type(" curl ")
        try tmux.type("💪")
        try tmux.type("🏽")
        try tmux.press("Tab")
        try tmux.type("Note 💪")
        try tmux.type("🏽")
        try tmux.type(" Cafe\u{301} 👨‍👩‍👧")
        try tmux.press("Enter")
        step = try await tmux.waitFor { !$0.contains("┌ Workout ") && $0.contains("Push 💪 Café curl 💪") }
        #expect(step.ok, "saved and shown:\n\(step.screen)")

        // e on the set: the edit form opens on the weight; Shift-Tab to the exercise.
        try tmux.press("Right")
        try tmux.press("e")
        step = try await tmux.waitFor("Edit set")
        try #require(step.ok, "the set form:\n\(step.screen)")
        try tmux.press("BTab")
        try tmux.press("C-u")
        try tmux.type("Cafe")
        try tmux.type("\u{301}")
        try tmux.type(" press ")
        try tmux.type("💪")
        try tmux.type("🏽")
        try tmux.press("Tab")
        try tmux.type("60")
        try tmux.press("Enter")
        // A new custom exercise is said before it is saved: the second Enter saves it.
        step = try await tmux.waitFor("new custom exercise 'Café press 💪'")
        #expect(step.ok, "the form says the exercise is new:\n\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { !$0.contains("Edit set") && $0.contains("Café press 💪") }
        #expect(step.ok, "the set saved:\n\(step.screen)")

        // Alive: ? opens the help box (only it says "Help" on its border), and q quits with 0.
        try tmux.press("?")
        step = try await tmux.waitFor("┌ Help ")
        #expect(step.ok, "help:\n\(step.screen)")
        try tmux.press("Escape")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let workouts = try SpotterBinary.json(
            try await SpotterBinary.run(["workouts", "--json"], db: workspace.database).stdout)
        let workout = try #require((workouts["workouts"] as? [[String: Any]])?.first)
        #expect(workout["name"] as? String == "Push 💪🏽 Cafe\u{301} curl 💪🏽", "\(workout)")
        #expect(workout["notes"] as? String == "Note 💪🏽 Cafe\u{301} 👨‍👩‍👧", "\(workout)")
        let sets = try SpotterBinary.json(
            try await SpotterBinary.run(["sets", "--json"], db: workspace.database).stdout)
        let set = try #require((sets["sets"] as? [[String: Any]])?.first)
        #expect(set["exercise"] as? String == "Cafe\u{301} press 💪🏽", "\(set)")
        #expect(set["weight"] as? Double == 60, "\(set)")
    }

    @Test("the crash strings typed into the routine editor's fields: alive, and the routine is stored as typed")
    func pastedIntoTheRoutineEditor() async throws {
        let workspace = try Workspace()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: workspace.database).status == 0)
        let tmux = try await TUIEndToEndTests.launch(columns: 120, rows: 40, workspace: workspace)
        try tmux.press("R")
        var step = try await tmux.waitFor("Start routine")
        try #require(step.ok, "routine list:\n\(step.screen)")
        try tmux.press("n")
        try tmux.type("Push 💪")
        try tmux.type("🏽")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Edit routine")
        try #require(step.ok, "the editor:\n\(step.screen)")

        // a: the exercise (decomposed, then an emoji and its skin tone as two keys), a custom one.
        try tmux.press("a")
        step = try await tmux.waitFor("┌ Add exercise ")
        try #require(step.ok, "the row form:\n\(step.screen)")
        try tmux.type("Cafe")
        try tmux.type("\u{301}")
        try tmux.type(" curl 💪")
        try tmux.type("🏽")
        step = try await tmux.waitFor("+ new custom exercise 'Café curl 💪'")
        #expect(step.ok, "\(step.screen)")
        // Sets, then the weight: hard text typed, cleared, and a number typed.
        try tmux.press("Tab", "Tab")
        try tmux.type("60 💪")
        try tmux.type("🏽 e\u{301}")
        try tmux.press("C-u")
        try tmux.type("60")
        try tmux.press("Enter")
        step = try await tmux.waitFor { $0.contains("1. Café curl 💪") && !$0.contains("┌ Add exercise ") }
        #expect(step.ok, "the row is in the routine:\n\(step.screen)")
        try tmux.press("s")
        step = try await tmux.waitFor("Saved Push 💪")
        #expect(step.ok, "saved:\n\(step.screen)")
        try tmux.press("Escape")
        _ = try await tmux.waitFor { !$0.contains("Edit routine") }
        try tmux.press("Escape")

        // Alive: the help box opens (only it has "Help" on its border), and q quits with 0.
        try tmux.press("?")
        step = try await tmux.waitFor("┌ Help ")
        #expect(step.ok, "help:\n\(step.screen)")
        try tmux.press("Escape")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)

        let routines = try SpotterBinary.json(
            try await SpotterBinary.run(["routine", "list", "--json"], db: workspace.database).stdout)
        let routine = try #require((routines["routines"] as? [[String: Any]])?.first)
        #expect(routine["name"] as? String == "Push 💪🏽", "\(routine)")
        let exercise = try #require((routine["exercises"] as? [[String: Any]])?.first)
        #expect(exercise["exercise"] as? String == "Cafe\u{301} curl 💪🏽", "\(exercise)")
        let weights = (exercise["sets"] as? [[String: Any]] ?? []).map { $0["weight"] as? Double }
        #expect(weights == [60, 60, 60], "\(exercise)")
    }
}

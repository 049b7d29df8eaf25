import Foundation
import Testing

/// The real `spotter` binary in a real terminal: tmux plays the terminal, `send-keys` types,
/// `capture-pane` reads the screen. The embedded sync server runs inside the binary.
@Suite(
    "The UI in a real terminal (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct TUIEndToEndTests {
    /// A temporary home for the client and embedded-server databases.
    final class Workspace {
        let directory: URL
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "spotter-tui-e2e-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var database: String { directory.appendingPathComponent("client.db").path }
        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Starts the UI in a fresh tmux session and waits for its first frame.
    static func launch(
        columns: Int = 100, rows: Int = 30, workspace: Workspace, arguments: String = "", environment: String = ""
    ) async throws -> TmuxSession {
        let binary = TmuxSession.spotterBinary
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "build the binary first: swift build (looked at \(binary))")
        let session = try TmuxSession(tmux: try #require(TmuxSession.executable), columns: columns, rows: rows)
        let command =
            "env -u SPOTTER_SERVER -u SPOTTER_TOKEN LANG=C.UTF-8 LC_ALL=C.UTF-8 SPOTTER_DB=\(shellQuoted(workspace.database)) XDG_CONFIG_HOME=\(shellQuoted(workspace.directory.appendingPathComponent("config").path)) \(environment) \(shellQuoted(binary)) \(arguments)"
        try session.type(command)
        try session.press("Enter")
        let started = try await session.waitFor(timeout: 20) { $0.contains(" Spotter") && $0.contains("┌ Workouts") }
        try #require(started.ok, "the UI did not start:\n\(started.screen)")
        return session
    }

    static func lines(_ screen: String, containing needles: String...) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            needles.allSatisfy { line.contains($0) }
        }
    }

    @Test("airplane on, three sets queued with their workout, D shows them pending, airplane off syncs them, q exits 0")
    func offlineLoggingThenSync() async throws {
        let workspace = try Workspace()
        let tmux = try await Self.launch(workspace: workspace)

        try tmux.press("a")
        var step = try await tmux.waitFor("✈ Airplane · 0 queued")
        #expect(step.ok, "airplane badge:\n\(step.screen)")

        // First set: type-ahead picks the exercise, then weight and reps.
        try tmux.press("n")
        step = try await tmux.waitFor("Log set")
        #expect(step.ok, "form:\n\(step.screen)")
        try tmux.type("bench p")
        step = try await tmux.waitFor("▸   Bench Press (Barbell)")
        #expect(step.ok, "type-ahead:\n\(step.screen)")
        try tmux.press("Tab")
        try tmux.type("100")
        try tmux.press("Tab")
        try tmux.type("5")
        try tmux.press("Enter")
        step = try await tmux.waitFor("✈ Airplane · 2 queued")
        #expect(step.ok, "first set queued with its workout:\n\(step.screen)")

        // Second set: n opens prefilled from the last set; Enter twice still saves one.
        try tmux.press("n")
        step = try await tmux.waitFor("Log set")
        try tmux.press("Enter", "Enter")
        step = try await tmux.waitFor("✈ Airplane · 3 queued")
        #expect(step.ok, "second set:\n\(step.screen)")

        // Third set: change the weight only.
        try tmux.press("n")
        step = try await tmux.waitFor("Log set")
        try tmux.press("C-u")
        try tmux.type("102.5")
        try tmux.press("Enter")
        // Wait for the whole frame, not only the badge: capture-pane can catch curses mid-redraw,
        // with the new header above rows not yet repainted.
        step = try await tmux.waitFor {
            $0.contains("✈ Airplane · 4 queued") && !$0.contains("Log set")
                && Self.lines($0, containing: "Bench Press (Barbell)", "⏳").count == 3
        }
        #expect(step.ok, "third set, four operations queued:\n\(step.screen)")
        #expect(!step.screen.contains("5 queued"), "double Enter saved one set only")
        let pendingRows = Self.lines(step.screen, containing: "Bench Press (Barbell)", "⏳")
        #expect(pendingRows.count == 3, "three pending rows:\n\(step.screen)")
        #expect(Self.lines(step.screen, containing: "102.5 kg", "⏳").count == 1)

        // The debug pane lists the four pending operations.
        try tmux.press("D")
        step = try await tmux.waitFor {
            $0.contains("Debug · outbox") && Self.lines($0, containing: "create", "pending").count == 4
                && Self.lines($0, containing: "workout", "create", "pending").count == 1
        }
        #expect(step.ok, "debug pane with 4 pending creates:\n\(step.screen)")
        #expect(step.screen.contains("Debug · outbox"))
        #expect(Self.lines(step.screen, containing: "workout", "create", "pending").count == 1)

        // Airplane off: the engine drains the queue to the embedded server within seconds.
        try tmux.press("a")
        step = try await tmux.waitFor(timeout: 15) {
            $0.contains("✓ Synced") && Self.lines($0, containing: "create", "succeeded").count == 4
        }
        #expect(step.ok, "synced, four operations succeeded:\n\(step.screen)")
        try tmux.press("D")
        step = try await tmux.waitFor { Self.lines($0, containing: "Bench Press (Barbell)", "✓").count == 3 }
        #expect(step.ok, "the three rows are synced:\n\(step.screen)")

        try await Self.quitExpectingExitZero(tmux)
    }

    @Test("the header names the account (this device only when embedded) and counts down to the next try offline")
    func headerNamesTheAccountAndCountsDownWhenOffline() async throws {
        let workspace = try Workspace()
        var tmux = try await Self.launch(workspace: workspace)
        var step = try await tmux.waitFor("this device only")
        #expect(step.ok, "the embedded server is named as such:\n\(step.screen)")
        try await Self.quitExpectingExitZero(tmux)

        let serverDB = workspace.directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB) }
        defer { if server.process.isRunning { server.stop() } }
        let login = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", ServerProcess.token], db: workspace.database)
        #expect(login.status == 0, "\(login.stderr)")
        let account = "alice@" + server.url.replacingOccurrences(of: "http://", with: "")
        tmux = try await Self.launch(workspace: workspace)
        step = try await tmux.waitFor { $0.contains(account) && $0.contains("✓ Synced") }
        #expect(step.ok, "the header names the account (from the file login wrote):\n\(step.screen)")
        try await Self.quitExpectingExitZero(tmux)

        // The server goes away; a set is logged; the UI says offline and counts down to the next try.
        server.stop()
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: workspace.database)
        #expect(logged.status == 0)
        tmux = try await Self.launch(workspace: workspace)
        let countdown = /offline · 2 queued · retry in (\d+) s/
        step = try await tmux.waitFor(timeout: 20) { $0.contains(countdown) }
        #expect(step.ok, "offline with a countdown:\n\(step.screen)")
        #expect(!step.screen.contains("Syncing"), "no spinner that turns forever:\n\(step.screen)")
        #expect(step.screen.contains(account))
        try await Self.quitExpectingExitZero(tmux)
    }

    /// q restores the terminal and exits 0: the shell prompt returns and echoes what we type.
    static func quitExpectingExitZero(_ tmux: TmuxSession) async throws {
        try tmux.press("q")
        var step = try await tmux.waitFor { $0.split(separator: "\n").last?.hasPrefix("$") == true }
        #expect(step.ok, "back at the shell prompt:\n\(step.screen)")
        try tmux.type("echo spotter-exit-$?")
        try tmux.press("Enter")
        step = try await tmux.waitFor("\nspotter-exit-0")
        #expect(step.ok, "exit status 0 and a usable terminal:\n\(step.screen)")
        #expect(step.screen.contains("$ echo spotter-exit-$?"), "typed input is echoed again (terminal restored)")
    }

    @Test("resizing the window redraws at the new size; below 80x24 it says the terminal is too small")
    func resizeRedraws() async throws {
        let workspace = try Workspace()
        let tmux = try await Self.launch(workspace: workspace)
        try tmux.resize(columns: 130, rows: 40)
        var step = try await tmux.waitFor { screen in
            Self.lines(screen, containing: "┌ Workouts").first.map { $0.count == 130 && $0.hasSuffix("┐") } ?? false
        }
        #expect(step.ok, "redrawn at 130 columns:\n\(step.screen)")
        #expect(step.screen.split(separator: "\n", omittingEmptySubsequences: false).count >= 40)

        try tmux.resize(columns: 70, rows: 20)
        step = try await tmux.waitFor { $0.contains("Terminal too small") && $0.contains("70x20") }
        #expect(step.ok, "too-small screen:\n\(step.screen)")
        #expect(step.screen.contains("70x20"))
        // Down to 10x3 the last line is cut with "…" in its last cell, not a letter an earlier,
        // larger frame left in the one cell curses cannot add to.
        try tmux.resize(columns: 10, rows: 3)
        step = try await tmux.waitFor { $0.contains("10x3") }
        let bottom = step.screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).first ?? ""
        #expect(bottom.hasSuffix("…"), "the bottom-right cell: \(step.screen)")

        try tmux.resize(columns: 90, rows: 26)
        step = try await tmux.waitFor { screen in
            Self.lines(screen, containing: "┌ Workouts").first.map { $0.count == 90 } ?? false
        }
        #expect(step.ok, "back to the layout at 90x26:\n\(step.screen)")
        try await Self.quitExpectingExitZero(tmux)
    }
}

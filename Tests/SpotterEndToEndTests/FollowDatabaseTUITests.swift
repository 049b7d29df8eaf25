import Foundation
import Testing

/// The open UI follows the database file while `spotter` commands change it from a shell:
/// another process, the same SQLite file, the UI's own embedded sync server held off by
/// airplane mode so what is queued stays queued until the test lets it go.
@Suite(
    "The UI follows what other processes write (tmux)", .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct FollowDatabaseTUITests {
    typealias Workspace = TUIEndToEndTests.Workspace

    static func spotter(_ arguments: [String], _ workspace: Workspace) async throws -> String {
        let result = try await SpotterBinary.run(arguments, db: workspace.database)
        #expect(result.status == 0, "spotter \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stdout
    }

    static func pending(_ workspace: Workspace) async throws -> Int {
        let status = try SpotterBinary.json(try await spotter(["status", "--json"], workspace))
        return try #require(status["pending"] as? Int)
    }

    static func workouts(_ workspace: Workspace) async throws -> [[String: Any]] {
        let list = try SpotterBinary.json(try await spotter(["workouts", "--json"], workspace))
        return try #require(list["workouts"] as? [[String: Any]])
    }

    /// A workout "Heavy Day" with one set, queued (airplane mode on); returns its id.
    static func heavyDay(_ workspace: Workspace) async throws -> String {
        _ = try await spotter(["airplane", "on"], workspace)
        _ = try await spotter(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "140", "--reps", "5", "--new-workout", "Heavy Day"],
            workspace)
        let workout = try #require(try await workouts(workspace).first)
        return try #require(workout["id"] as? String)
    }

    @Test("a rename and a set from the CLI are on screen within a second; the badge says queued until they are sent")
    func cliWritesShowAtOnce() async throws {
        let workspace = try Workspace()
        let workoutID = try await Self.heavyDay(workspace)
        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        var step = try await tmux.waitFor { $0.contains("Heavy Day") && $0.contains("✈ Airplane · 2 queued") }
        #expect(step.ok, "the UI shows the workout and its queue:\n\(step.screen)")

        _ = try await Self.spotter(["workout", "rename", workoutID, "Leg Day"], workspace)
        _ = try await Self.spotter(
            ["log", "--exercise", "Deadlift (Barbell)", "--weight", "180", "--reps", "3"], workspace)
        step = try await tmux.waitFor(timeout: 1) {
            $0.contains("Leg Day") && !$0.contains("Heavy Day") && $0.contains("Deadlift (Barbell)")
        }
        #expect(step.ok, "the rename and the set are on screen within one second:\n\(step.screen)")

        let queued = try await Self.pending(workspace)
        #expect(queued >= 3, "the rename and the set wait in the outbox")
        step = try await tmux.waitFor(timeout: 1) { $0.contains("✈ Airplane · \(queued) queued") }
        #expect(step.ok, "the badge counts what spotter status counts (\(queued)):\n\(step.screen)")
        #expect(!step.screen.contains("Synced"), "\(step.screen)")

        // Airplane off: the embedded server gets them; only then does the badge say Synced.
        try tmux.press("a")
        step = try await tmux.waitFor(timeout: 15) { $0.contains("✓ Synced") }
        #expect(step.ok, "synced once sent:\n\(step.screen)")
        #expect(try await Self.pending(workspace) == 0, "Synced on screen, and nothing pending in the file")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test("after spotter workout end, n logs into a new workout, never the ended one")
    func nAfterWorkoutEndStartsANewWorkout() async throws {
        let workspace = try Workspace()
        let workoutID = try await Self.heavyDay(workspace)
        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        var step = try await tmux.waitFor("Heavy Day")
        #expect(step.ok, "\(step.screen)")

        _ = try await Self.spotter(["workout", "end", workoutID], workspace)
        // Pressed at once: whether or not the UI has looked yet, the set must not go into it.
        try tmux.press("n")
        step = try await tmux.waitFor(timeout: 1) { $0.contains("Log set · new workout") }
        #expect(step.ok, "the form says where the set goes:\n\(step.screen)")
        // The exercise and numbers are prefilled from the last set: Enter saves.
        step = try await tmux.waitFor { $0.contains("prefilled:") }
        #expect(step.ok, "\(step.screen)")
        try tmux.press("Enter")
        step = try await tmux.waitFor { !$0.contains("Log set") }
        #expect(step.ok, "the set is logged:\n\(step.screen)")

        let workouts = try await Self.workouts(workspace)
        #expect(workouts.count == 2, "a new workout was started: \(workouts)")
        let ended = try #require(workouts.first { $0["id"] as? String == workoutID })
        #expect(ended["set_count"] as? Int == 1, "the ended workout kept its one set")
        let started = try #require(workouts.first { $0["id"] as? String != workoutID })
        #expect(started["set_count"] as? Int == 1)
        #expect(started["ended_at"] is NSNull, "the new one is in progress")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
    }

    @Test(
        "online: a rename and a set from the CLI show pending until the server has them, never Synced while spotter status says pending"
    )
    func onlineBadgeSaysPendingUntilSent() async throws {
        let workspace = try Workspace()
        // Every write waits 4 s at the server: longer than a command's own try at sending (2 s),
        // so what the CLI queues is still pending when it returns.
        let serverDB = workspace.directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB, extra: ["--chaos-latency", "4000"]) }
        defer { if server.process.isRunning { server.stop() } }
        _ = try await Self.spotter(["login", "--server", server.url, "--token", ServerProcess.token], workspace)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "140", "--reps", "5", "--new-workout", "Heavy Day"],
            db: workspace.database)
        #expect(logged.status == 0, "\(logged.stderr)")
        let synced = try await SpotterBinary.run(["sync", "--timeout", "60"], db: workspace.database)
        #expect(synced.status == 0, "\(synced.stderr)")
        let workoutID = try #require(try await Self.workouts(workspace).first?["id"] as? String)

        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        var step = try await tmux.waitFor(timeout: 20) { $0.contains("Heavy Day") && $0.contains("✓ Synced") }
        #expect(step.ok, "online and synced at first:\n\(step.screen)")

        _ = try await Self.spotter(["workout", "rename", workoutID, "Leg Day"], workspace)
        _ = try await Self.spotter(
            ["log", "--exercise", "Deadlift (Barbell)", "--weight", "180", "--reps", "3"], workspace)
        step = try await tmux.waitFor(timeout: 1) {
            $0.contains("Leg Day") && !$0.contains("Heavy Day") && $0.contains("Deadlift (Barbell)")
        }
        #expect(step.ok, "the rename and the set are on screen within one second:\n\(step.screen)")

        // Each screen read before `spotter status`: if status still says pending, so did the file
        // when the screen was read, and the badge must not have said Synced.
        var sawPending = false
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let screen = try tmux.capture()
            let pending = try await Self.pending(workspace)
            if pending == 0 { break }
            sawPending = true
            #expect(
                !screen.contains("✓ Synced"),
                "Synced on screen while spotter status says \(pending) pending:\n\(screen)")
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        #expect(sawPending, "the server's delay kept the edits pending for a while")
        #expect(try await Self.pending(workspace) == 0, "sent within 90 s")
        step = try await tmux.waitFor(timeout: 15) { $0.contains("✓ Synced") }
        #expect(step.ok, "Synced once the server has them:\n\(step.screen)")
        try await TUIEndToEndTests.quitExpectingExitZero(tmux)
        server.stop()
    }
}

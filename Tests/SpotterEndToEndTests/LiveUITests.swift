import Foundation
import Testing

/// The open UI follows another device as the server learns of it: it keeps a wait on the change
/// feed open, so a set logged elsewhere is on screen without a key pressed, and its periodic pull
/// (set to ten minutes here) is not what brings it.
@Suite("Another device's sets reach the open screen (tmux)", .enabled(if: SpotterBinary.exists))
struct LiveUITests {
    @Test("B's open UI shows A's sets without a key pressed, before and after the server restarts")
    func anotherDevicesSetsAppearWithoutAKey() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        let serverDB = workspace.directory.appendingPathComponent("server.db").path
        var server = try await offThePool { try ServerProcess(db: serverDB) }
        defer { if server.process.isRunning { server.stop() } }
        let phone = workspace.directory.appendingPathComponent("phone.db").path
        for database in [workspace.database, phone] {
            let login = try await SpotterBinary.run(
                ["login", "--server", server.url, "--token", ServerProcess.token], db: database)
            #expect(login.status == 0, "\(login.stderr)")
        }
        func logOnPhone(_ exercise: String, _ weight: String, custom: Bool = false, sync: Bool = true) async throws {
            let log = try await SpotterBinary.run(
                ["log", "--exercise", exercise, "--weight", weight, "--reps", "5"] + (custom ? ["--custom"] : []),
                db: phone)
            #expect(log.status == 0, "\(log.stderr)")
            if sync { try await LifterSessionTwoTUITests.sync(phone) }
        }
        try await logOnPhone("Squat (Barbell)", "100")

        let tmux = try await TUIEndToEndTests.launch(
            columns: 120, rows: 40, workspace: workspace, environment: "SPOTTER_PULL_INTERVAL_SECONDS=600")
        var step = try await tmux.waitFor {
            TUIEndToEndTests.lines($0, containing: "Squat (Barbell)", "100 kg").count == 1
        }
        #expect(step.ok, "the start-up sync brings the phone's first set:\n\(step.screen)")

        // Logged on the phone while the UI sits untouched.
        try await logOnPhone("Curl 💪🏽 e\u{301}", "20", custom: true)
        step = try await tmux.waitFor { TUIEndToEndTests.lines($0, containing: "Curl", "20 kg").count == 1 }
        #expect(step.ok, "the phone's new set is on the open screen:\n\(step.screen)")

        // The server restarts; a set logged meanwhile reaches the UI once it is back.
        let port = Int(server.url.split(separator: ":").last ?? "") ?? 0
        server.stop()
        try await logOnPhone("Squat (Barbell)", "140", sync: false)
        server = try await offThePool { try ServerProcess(db: serverDB, port: port) }
        try await LifterSessionTwoTUITests.sync(phone)
        step = try await tmux.waitFor(timeout: 45) {
            TUIEndToEndTests.lines($0, containing: "Squat (Barbell)", "140 kg").count == 1
        }
        #expect(step.ok, "the set logged during the restart is on the open screen:\n\(step.screen)")
        try tmux.press("q")
    }
}

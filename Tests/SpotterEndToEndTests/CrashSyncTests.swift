import Foundation
import SpotterTestSupport
import Testing

/// `spotter serve` as a child process, found through the line it prints once bound.
final class ServerProcess: Sendable {
    let process = ChildProcess()
    let url: String
    static let token = "crash-secret"

    /// - Parameter port: 0 for any free port; a restart passes the port it had, so devices keep their account.
    /// - Parameter tokens: `user=secret` pairs (default: alice with `token`).
    /// - Parameter databaseURL: a PostgreSQL database to serve from instead of the SQLite file `db`.
    init(
        db: String, port: Int = 0, extra: [String] = [], tokens: [String] = ["alice=\(ServerProcess.token)"],
        databaseURL: String? = nil, environment: [String: String] = [:]
    ) throws {
        process.executableURL = URL(fileURLWithPath: SpotterBinary.path)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let store = databaseURL.map { ["--database-url", $0] } ?? ["--db", db]
        process.arguments =
            ["serve", "--port", "\(port)"] + store + tokens.flatMap { ["--token", $0] } + ["--log-level", "error"]
            + extra
        let out = Spawning.pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try Spawning.run(process)
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        var found: String?
        while found == nil && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            if let range = text.range(of: "listening on ") {
                let rest = text[range.upperBound...]
                if let end = rest.firstIndex(of: "\n") {
                    found = String(rest[..<end]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        guard let found else {
            process.terminate()
            throw HarnessError.binaryMissing("spotter serve did not report its address")
        }
        url = found
    }

    /// SIGINT (a graceful shutdown), then SIGKILL if it is still running after ten seconds.
    /// Polls rather than `waitUntilExit()`, which spins a run loop at full speed on the caller's
    /// thread, often a cooperative one.
    func stop() {
        process.interrupt()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { usleep(20_000) }
        }
    }
}

@Suite("Crashes while syncing", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct CrashSyncTests {
    @Test func killingTheSyncingProcessFiveTimesLosesAndDoublesNothing() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB, extra: ["--chaos-latency", "60"]) }
        defer { server.stop() }
        let phone = directory.appendingPathComponent("phone.db").path
        let remote = ["--server", server.url, "--token", ServerProcess.token]
        try await SpotterBinary.run(["airplane", "on"], db: phone)
        var logged = Set<String>()
        for index in 0..<60 {
            let arguments = [
                "log", "--exercise", "Overhead Press (Barbell)", "--weight", "\(40 + index % 10)", "--reps", "5",
            ]
            // The same --server and --token as the syncs: the queue belongs to that account.
            let result = try await SpotterBinary.run(
                arguments + (index % 20 == 0 ? ["--new-workout", "Block \(index / 20)"] : []) + remote, db: phone)
            #expect(result.status == 0)
            logged.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try await SpotterBinary.run(["airplane", "off"], db: phone)  // no --server: only flips the switch

        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let sync = ChildProcess()
            sync.executableURL = URL(fileURLWithPath: SpotterBinary.path)
            sync.arguments = ["sync", "--timeout", "30"] + remote
            var env = ProcessInfo.processInfo.environment
            env["SPOTTER_DB"] = phone
            env["SPOTTER_LEASE_SECONDS"] = "1"
            sync.environment = env
            sync.standardOutput = FileHandle.nullDevice
            sync.standardError = FileHandle.nullDevice
            try Spawning.run(sync)
            try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...400_000_000, using: &generator))
            kill(sync.processIdentifier, SIGKILL)
            sync.waitUntilExit()
        }
        let final = try await SpotterBinary.run(
            ["sync", "--timeout", "60"] + remote, db: phone, environment: ["SPOTTER_LEASE_SECONDS": "1"])
        #expect(final.status == 0, "the queue drains: \(final.stderr)")

        // A second device that only pulls sees exactly what the server holds.
        let laptop = directory.appendingPathComponent("laptop.db").path
        try await SpotterBinary.run(["sync", "--timeout", "30"] + remote, db: laptop)
        // (Each account has its own view: the laptop lists alice's sets as alice.)
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"] + remote, db: laptop).stdout)
        let ids = (sets["sets"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.count == logged.count, "no set doubled")
        #expect(Set(ids) == logged, "no set lost")
    }
}

import Foundation
import SpotterTestSupport
import Synchronization

/// Runs the real `spotter` binary the way a user or a script would.
enum SpotterBinary {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static var path: String {
        if let override = ProcessInfo.processInfo.environment["SPOTTER_BIN"] { return override }
        return packageRoot.appendingPathComponent(".build/debug/spotter").path
    }

    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// `spotter-bench`, built beside `spotter` (its start-up part launches that `spotter`).
    static var benchPath: String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("spotter-bench").path
    }

    static var benchExists: Bool { FileManager.default.isExecutableFile(atPath: benchPath) }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `spotter ARGS` to completion with a temporary database, capturing its output.
    /// The waiting happens on a thread of its own: a blocked cooperative thread would starve the
    /// in-process servers that tests running in parallel depend on (there are two on this machine).
    @discardableResult
    /// - Parameter launcher: a command that runs the binary (e.g. `setpriv` to run it as another user).
    /// - Parameter binary: another binary than `spotter` (`benchPath`).
    static func run(
        _ arguments: [String], db: String, environment: [String: String] = [:], timeout: TimeInterval = 60,
        launcher: [String] = [], binary: String? = nil
    ) async throws -> Result {
        try await offThePool {
            try runBlocking(
                arguments, db: db, environment: environment, timeout: timeout, launcher: launcher, binary: binary)
        }
    }

    static func runBlocking(
        _ arguments: [String], db: String, environment: [String: String] = [:], timeout: TimeInterval = 60,
        launcher: [String] = [], binary: String? = nil
    ) throws
        -> Result
    {
        let path = binary ?? path
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? path)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [path] + arguments
        var env = ProcessInfo.processInfo.environment
        env["SPOTTER_DB"] = db
        env.removeValue(forKey: "SPOTTER_SERVER")
        env.removeValue(forKey: "SPOTTER_TOKEN")
        // The account file `spotter login` writes lives beside the test's database, never in the real home.
        env["XDG_CONFIG_HOME"] = configHome(for: db)
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Spawning.pipe()
        let err = Spawning.pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try Spawning.run(process)
        // Drain both pipes while it runs so a chatty process never blocks on a full pipe.
        let collected = OutputCollector()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.store(data, stdout: isOut)
                group.leave()
            }
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            group.wait()
        }
        process.waitUntilExit()
        let (outData, errData) = collected.value
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// The `XDG_CONFIG_HOME` a test's runs share: a directory beside its database.
    static func configHome(for db: String) -> String {
        URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("config").path
    }

    static func temporaryDatabase() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-e2e-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("spotter.db").path
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw HarnessError.notJSON(text)
        }
        return object
    }
}

/// Output gathered from two reader threads.
final class OutputCollector: Sendable {
    private struct Output {
        var out = Data()
        var err = Data()
    }

    private let output = Mutex(Output())

    func store(_ data: Data, stdout: Bool) {
        output.withLock { output in
            if stdout { output.out = data } else { output.err = data }
        }
    }

    var value: (Data, Data) { output.withLock { ($0.out, $0.err) } }
}

/// Every child the tests start is a `ChildProcess`, spawned under one lock, and every pipe they
/// read is made under it with close-on-exec set: a child that inherited another test's pipe (its
/// write end) kept that test waiting for an EOF until the child exited — a long-lived `spotter
/// serve` once deadlocked tests on each other. The child closes every descriptor past its three
/// streams as well.
enum Spawning {
    private static var lock: NSLock { ChildSpawning.lock }

    /// A pipe whose two ends no child inherits (a child's own stdout is dup'ed, which clears the flag).
    static func pipe() -> Pipe {
        lock.withLock {
            let pipe = Pipe()
            for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
                _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
            }
            return pipe
        }
    }

    static func run(_ process: ChildProcess) throws {
        try process.run()
    }
}

/// Runs blocking work (waiting on a child process, a socket, a poll loop) on a thread of its own.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

enum HarnessError: Error {
    case notJSON(String)
    case binaryMissing(String)
}

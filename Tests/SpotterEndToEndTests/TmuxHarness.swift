import Foundation

/// A detached tmux session on its own server socket, driving a real terminal for the UI:
/// `send-keys` in, `capture-pane -p` out, polled against a deadline rather than slept on.
final class TmuxSession {
    /// The tmux executable, or nil when tmux is not installed.
    static let executable: String? = {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// The `spotter` binary under test (`SPOTTER_BIN` overrides the package's debug build).
    static var spotterBinary: String {
        if let override = ProcessInfo.processInfo.environment["SPOTTER_BIN"] { return override }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/spotter").path
    }

    let socket: String
    let target = "spotter-ui"
    private let tmux: String

    /// Starts a session of `columns`×`rows` running a plain `sh` with a `$ ` prompt.
    init(tmux: String, columns: Int, rows: Int) throws {
        self.tmux = tmux
        socket = "spotter-e2e-\(UUID().uuidString.prefix(8))"
        try run(["-f", "/dev/null", "new-session", "-d", "-s", target, "-x", "\(columns)", "-y", "\(rows)", "env PS1='$ ' sh"])
        _ = try? run(["set-option", "-t", target, "status", "off"])
        _ = try? run(["set-option", "-g", "focus-events", "on"])
    }

    deinit {
        _ = try? run(["kill-server"])
    }

    /// Runs a tmux command on this session's server; returns its stdout.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tmux)
        process.arguments = ["-L", socket] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("tmux \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Types text literally (no key-name lookup).
    func type(_ text: String) throws {
        try run(["send-keys", "-t", target, "-l", text])
    }

    /// Presses named keys: "Enter", "Tab", "BTab", "C-u", "Escape", or single characters.
    func press(_ keys: String...) throws {
        try run(["send-keys", "-t", target] + keys)
    }

    /// The visible screen, one line per row.
    func capture() throws -> String {
        try run(["capture-pane", "-p", "-t", target])
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", target, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Polls the screen until `condition` holds or `timeout` passes; returns the last screen
    /// and whether the condition held.
    @discardableResult
    func waitFor(timeout: TimeInterval = 10, _ condition: (String) -> Bool) throws -> (screen: String, ok: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = try capture()
        while !condition(screen) {
            if Date() > deadline { return (screen, false) }
            Thread.sleep(forTimeInterval: 0.05)
            screen = try capture()
        }
        return (screen, true)
    }

    func waitFor(_ needle: String, timeout: TimeInterval = 10) throws -> (screen: String, ok: Bool) {
        try waitFor(timeout: timeout) { $0.contains(needle) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Shell quoting for the command line typed into the session.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

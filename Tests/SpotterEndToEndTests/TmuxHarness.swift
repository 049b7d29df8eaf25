import Foundation
import SpotterTestSupport

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
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/spotter").path
    }

    let socket: String
    let target = "spotter-ui"
    private let tmux: String
    /// The tmux server this session started, so cleanup can make sure it is gone.
    private var serverPID: pid_t?

    /// Starts a session of `columns`×`rows` running a plain `sh` with a `$ ` prompt.
    init(tmux: String, columns: Int, rows: Int) throws {
        self.tmux = tmux
        socket = "spotter-e2e-\(UUID().uuidString.prefix(8))"
        try startServer([
            "-f", "/dev/null", "new-session", "-d", "-s", target, "-x", "\(columns)", "-y", "\(rows)",
            "env PS1='$ ' sh",
        ])
        serverPID = (try? run(["display-message", "-p", "-t", target, "#{pid}"])).flatMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        _ = try? run(["set-option", "-t", target, "status", "off"])
        _ = try? run(["set-option", "-g", "focus-events", "on"])
    }

    deinit {
        _ = try? run(["kill-server"])
        // Belt and braces: this test's own server must not outlive it.
        if let serverPID, kill(serverPID, 0) == 0 { kill(serverPID, SIGKILL) }
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        unlink("\(directory)/tmux-\(getuid())/\(socket)")
    }

    /// Runs a tmux command on this session's server; returns its stdout.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: tmux)
        // -u and a UTF-8 locale: tmux then keeps and captures the UI's Unicode glyphs as they are.
        process.arguments = ["-u", "-L", socket] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        process.environment = environment
        let out = Spawning.pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try Spawning.run(process)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TmuxError("tmux \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The first command forks the tmux server, which keeps every descriptor the client had.
    /// Foundation's `Process` watches its child through descriptors of its own, so it would
    /// never see this client exit: spawn it directly, stdio on /dev/null, and reap it by pid.
    /// glibc's `posix_spawn_file_actions_addclosefrom_np`.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    private func startServer(_ arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        let argv = ([tmux, "-u", "-L", socket] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // A clean signal mask and default dispositions: the test runner's threads block some
        // signals, and a tmux server inheriting that would ignore kill-server's SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // Nothing else of the test process: the tmux server outlives this call, and a pipe it
        // inherited from another test's child would keep that test waiting for an EOF forever.
        // (glibc 2.34+ has the call; Swift's Glibc module does not show it, so it is looked up.)
        guard let closeFrom = Self.addCloseFrom else { throw TmuxError("this C library cannot close inherited files") }
        _ = closeFrom(&actions, 3)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw TmuxError("cannot start tmux: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else { throw TmuxError("tmux new-session failed with status \(status)") }
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
    func waitFor(timeout: TimeInterval = 20, _ condition: (String) -> Bool) async throws -> (screen: String, ok: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = try capture()
        while !condition(screen) {
            if Date() > deadline { return (screen, false) }
            try await Task.sleep(nanoseconds: 50_000_000)  // yields the thread to parallel tests
            screen = try capture()
        }
        return (screen, true)
    }

    func waitFor(_ needle: String, timeout: TimeInterval = 20) async throws -> (screen: String, ok: Bool) {
        try await waitFor(timeout: timeout) { $0.contains(needle) }
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Shell quoting for the command line typed into the session.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

import Foundation
import Synchronization

/// One lock every child process the tests start is spawned under, and every pipe they read is
/// made under (with close-on-exec set), so no child inherits another test's pipe.
public enum ChildSpawning {
    public static let lock = NSLock()

    /// Starts `process` under the lock.
    public static func run(_ process: ChildProcess) throws {
        try lock.withLock { try process.launch() }
    }
}

/// A child process for the tests, started with `posix_spawn`: the part of Foundation's
/// `Process` the tests use (the executable, its arguments and environment, pipes or files for
/// its three standard streams, signals, the wait and the exit status).
///
/// Not Foundation's `Process`: on Linux its `run()` reads every entry of `/proc/self/fd` by
/// copying a whole 256-byte `d_name`, past the end of a short entry, and crashes the whole test
/// process now and then (a bad pointer in `memcpy` under `Process.run()`) when the entry sits at
/// the end of a mapped page. Serialising the spawns does not help: it depends only on where the
/// kernel's entries land. Here the descriptors past the three streams are closed in the child by
/// glibc's `posix_spawn_file_actions_addclosefrom_np`, or, without it, from a scan of
/// `/proc/self/fd` that reads each name where it lies.
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String]?
    /// nil: the test process's own environment.
    public var environment: [String: String]?
    /// A `Pipe`, a `FileHandle`, or nil (the test process's own stream).
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private struct State {
        var pid: pid_t = 0
        /// The raw wait status once the child has been reaped.
        var status: Int32?
    }

    private let state = Mutex(State())

    public init() {}

    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// Starts the child (under `ChildSpawning.lock`).
    public func run() throws { try ChildSpawning.run(self) }

    fileprivate func launch() throws {
        guard let path = executableURL?.path else { throw SpawnError(message: "no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle] = []
        for (target, stream, reads) in [
            (Int32(0), standardInput, true), (Int32(1), standardOutput, false), (Int32(2), standardError, false),
        ] {
            switch stream {
            case let pipe as Pipe:
                let childEnd = reads ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                parentEnds.append(childEnd)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                break
            }
        }
        Self.closeTheRest(&actions)
        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned: Int32
        if let environment {
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        } else {
            spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        }
        guard spawned == 0 else {
            throw SpawnError(message: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        state.withLock { $0.pid = pid }
        // The child holds its ends now: the parent's copies go, so a reader sees EOF when the
        // child exits (as Foundation's `Process` does).
        for end in parentEnds { try? end.close() }
    }

    /// Every descriptor from 3 up is closed in the child.
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        while let entry = readdir(directory) {
            // The name is read where it lies, up to its NUL: never the whole 256-byte field.
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if let fd = Int32(name), fd > 2, fd != own { posix_spawn_file_actions_addclose(&actions, fd) }
        }
    }

    /// Reaps the child without waiting when it has exited; returns whether it still runs.
    public var isRunning: Bool {
        state.withLock { state in
            guard state.pid > 0, state.status == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(state.pid, &status, WNOHANG)
            if reaped == state.pid {
                state.status = status
                return false
            }
            return reaped == 0
        }
    }

    /// Waits for the child to exit (a short poll: no run loop, no cooperative thread held long).
    public func waitUntilExit() {
        while isRunning { usleep(2_000) }
    }

    /// The exit code, or the number of the signal that ended it.
    public var terminationStatus: Int32 {
        guard let status = state.withLock({ $0.status }) else { return 0 }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Whether a signal ended it.
    public var endedBySignal: Bool {
        guard let status = state.withLock({ $0.status }) else { return false }
        return (status & 0x7f) != 0
    }

    /// SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// SIGINT.
    public func interrupt() { signal(SIGINT) }

    public func signal(_ number: Int32) {
        let pid = processIdentifier
        if pid > 0, isRunning { kill(pid, number) }
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

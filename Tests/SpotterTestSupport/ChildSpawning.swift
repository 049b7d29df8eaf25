import Foundation

/// One lock every child process the tests start is spawned under, whichever module starts it
/// (the binary, tmux, python3, `scripts/pg-cluster`). Tests run in parallel, and Foundation's
/// `Process.run` on Linux once crashed in a copy inside it (a bad pointer in `memcpy`) while
/// other tests were spawning children of their own; one spawn at a time removes the race, and
/// the pipes made under the same lock keep their close-on-exec flag until the child is running.
public enum ChildSpawning {
    public static let lock = NSLock()

    /// Starts `process` under the lock.
    public static func run(_ process: Process) throws {
        try lock.withLock { try process.run() }
    }
}

import Foundation
import GRDB
import Synchronization

/// A connection of its own on the database file that only asks SQLite whether anything was
/// committed since it last asked (`PRAGMA data_version`), so a screen can follow the file
/// whoever wrote it: a CLI command, a second UI, `spotter sync`, this process's sync engine.
///
/// SQLite answers `data_version` per connection: the number changes when *another* connection
/// commits, and never because of the connection it is read on. So it is always read on this
/// one connection, opened read-only the first time it is asked and kept. The store's own
/// connections cannot serve: the pool's readers are handed out in turn (each has its own
/// count), and the writer is busy for as long as any write of the sync engine runs.
final class ChangeWatch: Sendable {
    private struct State {
        var connection: DatabaseQueue?
        /// Set once opening failed, so a file that cannot be watched is not reopened on every tick.
        var failed = false
    }

    /// Held while the connection is opened and read, as one caller at a time asks on it.
    private let state = Mutex(State())

    /// The current count on the watching connection, or nil when it cannot be read now (an
    /// in-memory database, a file that cannot be opened, SQLite busy recovering the WAL).
    func version(path: String) -> Int? {
        state.withLock { state in
            if state.connection == nil {
                guard !state.failed, !path.isEmpty, path != ":memory:", !path.hasPrefix("file::memory:") else {
                    return nil
                }
                var configuration = Configuration()
                configuration.readonly = true
                // Only a WAL recovery by another connection can keep it waiting, and that is short.
                configuration.busyMode = .timeout(0.05)
                do {
                    state.connection = try DatabaseQueue(path: path, configuration: configuration)
                } catch {
                    state.failed = true
                    return nil
                }
            }
            return try? state.connection?.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        }
    }
}

extension SpotterStore {
    /// A number that changes whenever a transaction commits to the database file — from another
    /// process, another store on the same file, or this store's own writes — and stays the same
    /// while nothing does. Cheap (no table is read), never waits for a writer: a screen reads it
    /// on every tick and re-reads what it shows only when it moved. Nil when it cannot be told;
    /// then nothing is known to have changed.
    public func changeToken() -> Int? {
        changeWatch.version(path: writer.path)
    }
}

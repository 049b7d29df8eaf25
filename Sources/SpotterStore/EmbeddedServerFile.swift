import Foundation
import GRDB
import SpotterCore

extension Preferences {
    /// The file the embedded server keeps beside the databases of a folder before each database
    /// had its own: every database of the folder synced with it, as one user.
    public static let sharedEmbeddedServerFile = "spotter-server.db"

    /// The name of the file (beside this database) of the embedded server this database syncs
    /// with when it has no account: its own, named after the whole file name ("work.db" →
    /// "work.db.server", as SQLite names its own "work.db-wal"), so no two databases of a folder
    /// ever share one ("lift", "lift.db" and "lift.sqlite" included). A name taken by a file
    /// that is a device's database is passed over ("work.db.server-2"). A database that already
    /// synced with the folder's shared file keeps it: its rows are stamped by that server, and a
    /// new one would refuse their edits as deleted elsewhere. The choice is kept in the database,
    /// so it holds whatever happens to the folder later.
    /// - Parameter folder: the folder of the database's real file (symbolic links followed), so a
    ///   database opened through a link elsewhere finds the same server.
    public func embeddedServerFileName(databaseFileName: String, folder: URL) throws -> String {
        // A kept name is a file name, never a path elsewhere (a damaged cell is not followed).
        if let chosen = try meta(MetaKey.embeddedServerFile), !chosen.isEmpty, !chosen.contains("/"),
            chosen != "." && chosen != ".."
        {
            return chosen
        }
        let device = QueueOwner.deviceID
        let synced = try writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS(SELECT 1 FROM meta WHERE key = ?)
                        OR EXISTS(SELECT 1 FROM outbox WHERE user_id = ? AND state = \(OperationState.succeeded.sql))
                        OR EXISTS(SELECT 1 FROM workouts WHERE account = ? AND server_version IS NOT NULL)
                        OR EXISTS(SELECT 1 FROM sets WHERE account = ? AND server_version IS NOT NULL)
                    """, arguments: [MetaKey.pullCursor, device, device, device]) ?? false
        }
        var name = Self.sharedEmbeddedServerFile
        if !synced {
            let own = "\(databaseFileName).server"
            name = own
            var attempt = 1
            while attempt < 100, Self.isDeviceDatabase(folder.appendingPathComponent(name).path) {
                attempt += 1
                name = "\(own)-\(attempt)"
            }
        }
        // A database opened read-only still syncs; the choice is then made again next time, the same.
        if !store.isReadOnly { try setMeta(MetaKey.embeddedServerFile, name) }
        return name
    }

    /// Whether the file at `path` is a device's database (it has an outbox): never taken as an
    /// embedded server's file.
    static func isDeviceDatabase(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        defer { try? queue.close() }
        return (try? queue.read { db in try db.tableExists("outbox") }) ?? false
    }
}

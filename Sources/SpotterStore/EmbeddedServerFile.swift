import Foundation
import GRDB
import SpotterCore

extension Preferences {
    /// The file the embedded server keeps beside the databases of a folder before each database
    /// had its own: every database of the folder synced with it, as one user.
    public static let sharedEmbeddedServerFile = "spotter-server.db"

    /// The name of the file (beside this database) of the embedded server this database syncs
    /// with when it has no account: its own ("work.db" → "work-server.db"; the default
    /// "spotter.db" → "spotter-server.db"), so two databases in one folder never exchange their
    /// sets. A database that already synced with the folder's shared file keeps it: its rows are
    /// stamped by that server, and a new one would refuse their edits as deleted elsewhere. The
    /// choice is kept in the database, so it holds whatever happens to the folder later.
    public func embeddedServerFileName(databaseFileName: String) throws -> String {
        let device = QueueOwner.deviceID
        let (chosen, synced) = try writer.read { db in
            (
                try String.fetchOne(
                    db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.embeddedServerFile]),
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS(SELECT 1 FROM meta WHERE key = ?)
                            OR EXISTS(SELECT 1 FROM outbox WHERE user_id = ? AND state = \(OperationState.succeeded.sql))
                            OR EXISTS(SELECT 1 FROM workouts WHERE account = ? AND server_version IS NOT NULL)
                            OR EXISTS(SELECT 1 FROM sets WHERE account = ? AND server_version IS NOT NULL)
                        """, arguments: [MetaKey.pullCursor, device, device, device]) ?? false
            )
        }
        // A kept name is a file name, never a path elsewhere (a damaged cell is not followed).
        if let chosen, !chosen.isEmpty, !chosen.contains("/"), chosen != "." && chosen != ".." { return chosen }
        let stem = (databaseFileName as NSString).deletingPathExtension
        let name = synced ? Self.sharedEmbeddedServerFile : "\(stem.isEmpty ? "spotter" : stem)-server.db"
        // A database opened read-only still syncs; the choice is then made again next time, the same.
        if !store.isReadOnly { try setMeta(MetaKey.embeddedServerFile, name) }
        return name
    }
}

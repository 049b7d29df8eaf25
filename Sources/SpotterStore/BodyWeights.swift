import Foundation
import GRDB
import SpotterCore

extension BodyWeight {
    /// Reads a `body_weights` row.
    init(row: Row) throws {
        try self.init(reading: RowCells(row, table: BodyWeight.Column.table))
    }
}

extension SpotterStore {
    /// Writes a weigh-in the server sent (the feed, or the answer to a write of it) as synced.
    func upsert(_ entry: BodyWeight, stamp: ServerStamp, db: Database, now: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO body_weights (\(BodyWeight.Column.columnList), updated_at, server_version, sync_state, account)
                VALUES (\(placeholders(BodyWeight.Column.allCases.count)), ?, ?, \(SyncState.synced.sql), ?)
                ON CONFLICT(id) DO UPDATE SET \(BodyWeight.Column.takeExcluded), updated_at = excluded.updated_at,
                    server_version = excluded.server_version, deleted_at = NULL, sync_state = \(SyncState.synced.sql),
                    sync_error = NULL, account = excluded.account
                WHERE \(visible("body_weights."))
                """
        ).execute(
            arguments: StatementArguments(
                entry.columnArguments + [
                    (stamp.updatedAt ?? now).databaseValue, stamp.serverVersion?.databaseValue ?? .null,
                    userID.databaseValue,
                ]))
        if db.changesCount == 0 { reportHeldByAnotherAccount("body_weights", entry.id) }
    }
}

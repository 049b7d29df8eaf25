import Foundation
import GRDB
import SpotterCore

/// What one undo did, for the message: "Undid: logged Squat (Barbell) 140 kg × 5".
public struct UndoneAction: Sendable, Equatable {
    public var description: String
}

/// The device's own actions, newest last, so the last one can be taken back (`U`, `spotter
/// undo`): a log, an edit, a delete of a set; a rename, notes or finish of a workout. Undoing is
/// itself a set of ordinary edits that sync (a new delete, the old values written back, a deleted
/// set logged again under a new id); it is not journalled, so pressing it again goes further back.
enum UndoSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-undo-journal") { db in
            try db.execute(
                sql: """
                    CREATE TABLE undo_journal (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        account TEXT NOT NULL,
                        action TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        before TEXT,
                        workout_created TEXT,
                        description TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        undone INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX undo_journal_by_account ON undo_journal(account, undone, seq);
                    """)
        }
    }
}

extension SpotterStore {
    enum JournalAction: String {
        case created, edited, deleted
    }

    /// Records an action of this device, in its transaction: what to put back to take it back.
    func journal(
        _ action: JournalAction, _ type: EntityType, id: String, before: [String: JSONValue]?,
        workoutCreated: String? = nil, description: String, db: Database, now: Date
    ) throws {
        try journal(
            action, type, id: id, beforeText: before.map { JSONValue.object($0).canonicalString },
            workoutCreated: workoutCreated, description: description, db: db, now: now)
    }

    func journal(
        _ action: JournalAction, _ type: EntityType, id: String, beforeText: String?, workoutCreated: String? = nil,
        description: String, db: Database, now: Date
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO undo_journal (account, action, entity_type, entity_id, before, workout_created,
                    description, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            userID, action.rawValue, type.rawValue, id, beforeText, workoutCreated, description,
            now.timeIntervalSince1970,
        ])
    }

    /// "Squat (Barbell) 140 kg × 5".
    static func describe(_ set: WorkoutSet) -> String {
        "\(set.exercise) \(Formatting.weight(set.weight, unit: set.unit)) × \(set.reps)"
    }
}

extension WorkoutLog {
    /// Takes back this device's last action not taken back yet; nil when there is none.
    @discardableResult
    public func undoLast() throws -> UndoneAction? {
        let now = self.now
        return try writer.write { db -> UndoneAction? in
            // Entries whose entity another device removed since are skipped, said as such.
            while let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT * FROM undo_journal WHERE account = ? AND undone = 0 ORDER BY seq DESC LIMIT 1"),
                arguments: [userID])
            {
                let seq: Int64 = row["seq"]
                try db.cachedStatement(sql: "UPDATE undo_journal SET undone = 1 WHERE seq = ?").execute(arguments: [seq]
                )
                guard let type = EntityType(rawValue: row["entity_type"]),
                    let action = SpotterStore.JournalAction(rawValue: row["action"])
                else { continue }
                let id: String = row["entity_id"]
                // An edit's before-image (wire fields); a deleted set whole (its own Codable form).
                let before = (row["before"] as String?).flatMap { JSONValue.parse($0)?.objectValue }
                let description: String = row["description"]
                guard let table = EntityTable.table(type) else { continue }
                let live =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE id = ? AND deleted_at IS NULL)",
                        arguments: [id]) ?? false
                switch action {
                case .created:
                    guard live else { continue }
                    if try !store.queueDelete(type: type, id: id, db: db, now: now) {
                        try db.cachedStatement(
                            sql: """
                                UPDATE \(table) SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql),
                                    sync_error = NULL WHERE id = ?
                                """
                        ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), id])
                    }
                    // A workout the log started goes with it, when nothing else is in it.
                    if let workoutID = row["workout_created"] as String?,
                        try Int.fetchOne(
                            db, sql: "SELECT COUNT(*) FROM sets WHERE workout_id = ? AND deleted_at IS NULL",
                            arguments: [workoutID]) == 0
                    {
                        if try !store.queueDelete(type: .workout, id: workoutID, db: db, now: now) {
                            try db.cachedStatement(
                                sql: """
                                    UPDATE workouts SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql)
                                    WHERE id = ?
                                    """
                            ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), workoutID])
                        }
                    }
                case .edited:
                    guard live, let before, let current = try EntityTable.wireFields(type, id: id, db: db) else {
                        continue
                    }
                    var restored = current
                    for (field, value) in before { restored[field] = value.isNull ? nil : value }
                    try store.applyChanges(type: type, id: id, from: current, to: restored, db: db, now: now)
                case .deleted:
                    // Logged again, under a new id: the server keeps the old one's tombstone.
                    guard type == .set, let text = row["before"] as String?,
                        var set = try? JSONDecoder().decode(WorkoutSet.self, from: Data(text.utf8))
                    else { continue }
                    guard
                        try Bool.fetchOne(
                            db, sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL)",
                            arguments: [set.workoutID.wireString]) == true
                    else { continue }
                    set.id = UUID.timeOrdered(at: now)
                    _ = try store.insertSet(set, db: db, now: now)
                    // Earlier actions on that set (its log, its edits) now mean the set logged again.
                    try db.cachedStatement(
                        sql: "UPDATE undo_journal SET entity_id = ? WHERE entity_id = ? AND undone = 0"
                    ).execute(arguments: [set.id.wireString, id])
                }
                try SpotterStore.refreshRecords(db)
                return UndoneAction(description: description)
            }
            return nil
        }
    }
}

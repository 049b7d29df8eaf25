import Foundation
import GRDB
import SpotterCore
import SpotterProtocol

// Where the field-level merge keeps its state, on SQLite and PostgreSQL alike: each field's last
// write (`field_clocks`: the edit's clock stamp and the change version it was stored under), and
// the conflicts the merge recorded (`conflicts`), which are entries of the user's change feed.

extension SQLiteServerTransaction {
    func fieldClocks(_ type: EntityType, id: String, owner: String) throws -> [String: FieldClock] {
        let rows = try NamedRow.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT field, stamp, version FROM field_clocks WHERE owner = ? AND entity_type = ? AND entity_id = ?"
            ), arguments: [owner, type.rawValue, id])
        return try StoredEntity.fieldClocks(rows)
    }

    func saveFieldClocks(_ clocks: [String: FieldClock], type: EntityType, id: String, owner: String) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO field_clocks (owner, entity_type, entity_id, field, stamp, version)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        for (field, clock) in clocks {
            try statement.execute(arguments: [owner, type.rawValue, id, field, clock.stamp.description, clock.version])
        }
    }

    func saveConflict(_ conflict: WireConflict, owner: String) throws {
        let record = conflict.record
        try db.cachedStatement(
            sql: """
                INSERT INTO conflicts (owner, id, entity_type, entity_id, field, kept, overridden, kept_stamp,
                    overridden_stamp, label, recorded_at, server_version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            owner, record.id.wireString, record.entityType.rawValue, record.entityID.wireString, record.field,
            record.kept.canonicalString, record.overridden.canonicalString, record.keptStamp.description,
            record.overriddenStamp.description, record.label, Timestamp.format(record.recordedAt),
            conflict.serverVersion,
        ])
    }
}

extension PostgresSchema {
    /// The conflicts of `user` after `version` in the feed's order, for one page.
    static func conflictChanges(
        _ session: PostgresSession, user: String, after version: Int64, limit: Int
    ) async throws -> [WireChange] {
        try await session.query(
            """
            SELECT * FROM conflicts WHERE owner = \(user) AND server_version > \(version)
            ORDER BY server_version LIMIT \(limit + 1)
            """
        ).rows.map { WireChange.conflict(try StoredEntity.conflict($0.makeRandomAccess())) }
    }
}

extension PostgresServerTransaction {
    func fieldClocks(_ type: EntityType, id: String, owner: String) async throws -> [String: FieldClock] {
        try await serialize(owner)
        let rows = try await session.query(
            """
            SELECT field, stamp, version FROM field_clocks
            WHERE owner = \(owner) AND entity_type = \(type.rawValue) AND entity_id = \(id)
            """
        ).rows.map { $0.makeRandomAccess() }
        return try StoredEntity.fieldClocks(rows)
    }

    func saveFieldClocks(_ clocks: [String: FieldClock], type: EntityType, id: String, owner: String) async throws {
        try await serialize(owner)
        for (field, clock) in clocks {
            try await session.query(
                """
                INSERT INTO field_clocks (owner, entity_type, entity_id, field, stamp, version)
                VALUES (\(owner), \(type.rawValue), \(id), \(field), \(clock.stamp.description), \(clock.version))
                ON CONFLICT (owner, entity_type, entity_id, field) DO UPDATE SET
                    stamp = EXCLUDED.stamp, version = EXCLUDED.version
                """)
        }
    }

    func saveConflict(_ conflict: WireConflict, owner: String) async throws {
        try await serialize(owner)
        let record = conflict.record
        try await session.query(
            """
            INSERT INTO conflicts (owner, id, entity_type, entity_id, field, kept, overridden, kept_stamp,
                overridden_stamp, label, recorded_at, server_version)
            VALUES (\(owner), \(record.id.wireString), \(record.entityType.rawValue), \(record.entityID.wireString),
                \(record.field), \(record.kept.canonicalString), \(record.overridden.canonicalString),
                \(record.keptStamp.description), \(record.overriddenStamp.description), \(record.label),
                \(Timestamp.format(record.recordedAt)), \(conflict.serverVersion))
            """)
    }
}

extension StoredEntity {
    static func fieldClocks(_ rows: [some StoredRow]) throws -> [String: FieldClock] {
        var clocks: [String: FieldClock] = [:]
        for row in rows {
            let field = try StoredCell.required(row.text("field"), "field")
            let text = try row.text("stamp") ?? ""
            guard let stamp = ClockStamp(text) else { throw StoredCell.Unreadable(column: "stamp", value: text) }
            clocks[field] = FieldClock(
                stamp: stamp, version: try StoredCell.required(row.integer("version"), "version"))
        }
        return clocks
    }

    static func conflict(_ row: some StoredRow) throws -> WireConflict {
        func json(_ column: String) throws -> JSONValue {
            let text = try StoredCell.required(row.text(column), column)
            guard let value = JSONValue.parse(Data(text.utf8)) else {
                throw StoredCell.Unreadable(column: column, value: text)
            }
            return value
        }
        func stamp(_ column: String) throws -> ClockStamp {
            let text = try row.text(column) ?? ""
            guard let stamp = ClockStamp(recorded: text) else {
                throw StoredCell.Unreadable(column: column, value: text)
            }
            return stamp
        }
        return WireConflict(
            record: ConflictRecord(
                id: try StoredCell.uuid(row, "id"), entityType: try StoredCell.enumeration(row, "entity_type"),
                entityID: try StoredCell.uuid(row, "entity_id"),
                field: try StoredCell.required(row.text("field"), "field"), kept: try json("kept"),
                overridden: try json("overridden"), keptStamp: try stamp("kept_stamp"),
                overriddenStamp: try stamp("overridden_stamp"),
                label: try StoredCell.required(row.text("label"), "label"),
                recordedAt: try StoredCell.date(row, "recorded_at")),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"))
    }
}

import Foundation
import GRDB
import PostgresNIO
import SpotterCore
import SpotterProtocol

// The routines on both server stores, side by side (their tables are made in SQLiteServerMigrations.swift
// and PostgresServerMigrations.swift, and SchemaDriftTests holds both to `Routine.Column`).

extension SQLiteServerStore {
    public func routines(user: String, includeDeleted: Bool) async throws -> [WireRoutine] {
        try await dbWriter.read { db in
            try NamedRow.fetchAll(
                db.makeStatement(
                    sql: """
                        SELECT * FROM routines WHERE owner = ? \(includeDeleted ? "" : "AND deleted = 0")
                        ORDER BY name, id
                        """), arguments: [user]
            ).map { try StoredEntity.routine($0) }
        }
    }
}

extension SQLiteServerTransaction {
    func routine(id: String, owner: String) throws -> WireRoutine? {
        try NamedRow.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM routines WHERE owner = ? AND id = ?"), arguments: [owner, id]
        ).map { try StoredEntity.routine($0) }
    }

    private static let saveRoutineSQL = """
        INSERT OR REPLACE INTO routines (\(Routine.Column.columnList), owner, \(ServerStampColumn.columnList))
        VALUES (\(placeholders(Routine.Column.allCases.count + 1 + ServerStampColumn.allCases.count)))
        """

    func saveRoutine(_ wire: WireRoutine, owner: String) throws {
        try db.cachedStatement(sql: Self.saveRoutineSQL).execute(
            arguments: StatementArguments(wire.routine.columnArguments + Self.rest(of: wire, owner)))
    }
}

extension PostgresServerStore {
    public func routines(user: String, includeDeleted: Bool) async throws -> [WireRoutine] {
        try await withSession { session in
            try await session.query(
                """
                SELECT * FROM routines WHERE owner = \(user) AND (\(includeDeleted) OR NOT deleted)
                ORDER BY name, id
                """
            ).rows.map { try StoredEntity.routine($0.makeRandomAccess()) }
        }
    }

    /// Routine changes after `version` (one more than `limit`), read in the feed's snapshot.
    static func routineChanges(
        _ session: PostgresSession, user: String, after version: Int64, limit: Int
    ) async throws -> [WireChange] {
        try await session.query(
            """
            SELECT * FROM routines WHERE owner = \(user) AND server_version > \(version)
            ORDER BY server_version LIMIT \(limit + 1)
            """
        ).rows.map { WireChange.routine(try StoredEntity.routine($0.makeRandomAccess())) }
    }
}

extension PostgresServerTransaction {
    func routine(id: String, owner: String) async throws -> WireRoutine? {
        try await serialize(owner)
        return try await session.query("SELECT * FROM routines WHERE owner = \(owner) AND id = \(id)").rows.first.map {
            try StoredEntity.routine($0.makeRandomAccess())
        }
    }

    func saveRoutine(_ wire: WireRoutine, owner: String) async throws {
        try await serialize(owner)
        try await session.query(
            Self.insert(
                wire.routine, into: Routine.Column.table, owner: owner, stamp: wire,
                "ON CONFLICT (owner, id) DO UPDATE SET \(Self.takeExcluded(Routine.Column.self))"))
    }
}

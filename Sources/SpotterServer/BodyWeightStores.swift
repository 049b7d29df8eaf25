import Foundation
import GRDB
import PostgresNIO
import SpotterCore
import SpotterProtocol

// The weigh-ins on both server stores, side by side (their tables are made in
// SQLiteServerMigrations.swift and PostgresServerMigrations.swift, and SchemaDriftTests holds both
// to `BodyWeight.Column`). A list is in the order they were taken.

extension SQLiteServerStore {
    public func bodyWeights(user: String, includeDeleted: Bool) async throws -> [WireBodyWeight] {
        try await dbWriter.read { db in
            try NamedRow.fetchAll(
                db.makeStatement(
                    sql: """
                        SELECT * FROM body_weights WHERE owner = ? \(includeDeleted ? "" : "AND deleted = 0")
                        ORDER BY measured_at, id
                        """), arguments: [user]
            ).map { try StoredEntity.bodyWeight($0) }
        }
    }
}

extension SQLiteServerTransaction {
    func bodyWeight(id: String, owner: String) throws -> WireBodyWeight? {
        try NamedRow.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM body_weights WHERE owner = ? AND id = ?"), arguments: [owner, id]
        ).map { try StoredEntity.bodyWeight($0) }
    }

    private static let saveBodyWeightSQL = """
        INSERT OR REPLACE INTO body_weights (\(BodyWeight.Column.columnList), owner, \(ServerStampColumn.columnList))
        VALUES (\(placeholders(BodyWeight.Column.allCases.count + 1 + ServerStampColumn.allCases.count)))
        """

    func saveBodyWeight(_ wire: WireBodyWeight, owner: String) throws {
        try db.cachedStatement(sql: Self.saveBodyWeightSQL).execute(
            arguments: StatementArguments(wire.bodyWeight.columnArguments + Self.rest(of: wire, owner)))
    }
}

extension PostgresServerStore {
    public func bodyWeights(user: String, includeDeleted: Bool) async throws -> [WireBodyWeight] {
        try await withSession { session in
            try await session.query(
                """
                SELECT * FROM body_weights WHERE owner = \(user) AND (\(includeDeleted) OR NOT deleted)
                ORDER BY measured_at, id
                """
            ).rows.map { try StoredEntity.bodyWeight($0.makeRandomAccess()) }
        }
    }

    /// Weigh-in changes after `version` (one more than `limit`), read in the feed's snapshot.
    static func bodyWeightChanges(
        _ session: PostgresSession, user: String, after version: Int64, limit: Int
    ) async throws -> [WireChange] {
        try await session.query(
            """
            SELECT * FROM body_weights WHERE owner = \(user) AND server_version > \(version)
            ORDER BY server_version LIMIT \(limit + 1)
            """
        ).rows.map { WireChange.bodyWeight(try StoredEntity.bodyWeight($0.makeRandomAccess())) }
    }
}

extension PostgresServerTransaction {
    func bodyWeight(id: String, owner: String) async throws -> WireBodyWeight? {
        try await serialize(owner)
        return try await session.query("SELECT * FROM body_weights WHERE owner = \(owner) AND id = \(id)").rows.first
            .map {
                try StoredEntity.bodyWeight($0.makeRandomAccess())
            }
    }

    func saveBodyWeight(_ wire: WireBodyWeight, owner: String) async throws {
        try await serialize(owner)
        try await session.query(
            Self.insert(
                wire.bodyWeight, into: BodyWeight.Column.table, owner: owner, stamp: wire,
                "ON CONFLICT (owner, id) DO UPDATE SET \(Self.takeExcluded(BodyWeight.Column.self))"))
    }
}

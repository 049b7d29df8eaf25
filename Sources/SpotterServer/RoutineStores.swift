import Foundation
import GRDB
import PostgresNIO
import SpotterCore
import SpotterProtocol

// The routines table on both server stores, kept beside each other so they cannot drift.

extension SQLiteServerStore {
    /// Routines arrived after the first schema: their own migration, appended.
    static func registerRoutineMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-routines") { db in
            try db.execute(
                sql: """
                    CREATE TABLE routines (
                        id TEXT NOT NULL,
                        owner TEXT NOT NULL,
                        name TEXT NOT NULL,
                        notes TEXT,
                        rest_s INTEGER,
                        exercises TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (owner, id)
                    );
                    CREATE INDEX routines_by_owner_version ON routines(owner, server_version);
                    """)
        }
        // A workout started from a routine carries its plan (canonical JSON, as sent).
        migrator.registerMigration("v4-workout-plans") { db in
            try db.execute(sql: "ALTER TABLE workouts ADD COLUMN plan TEXT")
        }
    }

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

    func saveRoutine(_ wire: WireRoutine, owner: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO routines
                    (id, owner, name, notes, rest_s, exercises, updated_at, server_version, deleted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            wire.routine.id.wireString, owner, wire.routine.name, wire.routine.notes, wire.routine.restSeconds,
            StoredEntity.exercisesText(wire.routine), wire.updatedAt.map(Timestamp.format) ?? "",
            wire.serverVersion ?? 0, wire.deleted ?? false,
        ])
    }
}

extension PostgresSchema {
    static let routineMigration: (name: String, statements: [String]) = (
        "v2-routines",
        [
            """
            CREATE TABLE routines (
                owner TEXT COLLATE "C" NOT NULL,
                id TEXT COLLATE "C" NOT NULL,
                name TEXT COLLATE "C" NOT NULL,
                notes TEXT,
                rest_s BIGINT,
                exercises TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                server_version BIGINT NOT NULL,
                deleted BOOLEAN NOT NULL DEFAULT FALSE,
                PRIMARY KEY (owner, id)
            )
            """,
            "CREATE INDEX routines_by_owner_version ON routines (owner, server_version)",
        ]
    )

    /// A workout started from a routine carries its plan (canonical JSON, as sent).
    static let workoutPlanMigration: (name: String, statements: [String]) = (
        "v3-workout-plans", ["ALTER TABLE workouts ADD COLUMN plan TEXT"]
    )
}

extension PostgresServerStore {
    public func routines(user: String, includeDeleted: Bool) async throws -> [WireRoutine] {
        try await withSession { session in
            try session.query(
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
    ) throws -> [WireChange] {
        try session.query(
            """
            SELECT * FROM routines WHERE owner = \(user) AND server_version > \(version)
            ORDER BY server_version LIMIT \(limit + 1)
            """
        ).rows.map { WireChange.routine(try StoredEntity.routine($0.makeRandomAccess())) }
    }
}

extension PostgresServerTransaction {
    func routine(id: String, owner: String) throws -> WireRoutine? {
        try serialize(owner)
        return try session.query("SELECT * FROM routines WHERE owner = \(owner) AND id = \(id)").rows.first.map {
            try StoredEntity.routine($0.makeRandomAccess())
        }
    }

    func saveRoutine(_ wire: WireRoutine, owner: String) throws {
        try serialize(owner)
        let restSeconds = wire.routine.restSeconds.map { Int64($0) }
        try session.query(
            """
            INSERT INTO routines
                (id, owner, name, notes, rest_s, exercises, updated_at, server_version, deleted)
            VALUES (\(wire.routine.id.wireString), \(owner), \(wire.routine.name), \(wire.routine.notes),
                    \(restSeconds), \(StoredEntity.exercisesText(wire.routine)),
                    \(wire.updatedAt.map(Timestamp.format) ?? ""), \(wire.serverVersion ?? 0), \(wire.deleted ?? false))
            ON CONFLICT (owner, id) DO UPDATE SET
                name = EXCLUDED.name, notes = EXCLUDED.notes, rest_s = EXCLUDED.rest_s,
                exercises = EXCLUDED.exercises, updated_at = EXCLUDED.updated_at,
                server_version = EXCLUDED.server_version, deleted = EXCLUDED.deleted
            """)
    }
}

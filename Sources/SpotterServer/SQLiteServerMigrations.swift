import Foundation
import GRDB
import SpotterCore

// The server's SQLite schema: every migration, in the order a database takes them. Nothing else
// lives here; the store's reads and writes are in SQLiteServerStore.swift and its neighbours.

extension SQLiteServerStore {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE workouts (
                        id TEXT PRIMARY KEY NOT NULL,
                        owner TEXT NOT NULL,
                        name TEXT NOT NULL,
                        started_at TEXT NOT NULL,
                        ended_at TEXT,
                        notes TEXT,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX workouts_by_owner_version ON workouts(owner, server_version);
                    CREATE TABLE sets (
                        id TEXT PRIMARY KEY NOT NULL,
                        owner TEXT NOT NULL,
                        workout_id TEXT NOT NULL,
                        exercise TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL,
                        reps INTEGER NOT NULL,
                        rpe REAL,
                        distance_m REAL,
                        duration_s REAL,
                        notes TEXT,
                        performed_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX sets_by_owner_version ON sets(owner, server_version);
                    CREATE INDEX sets_by_owner_workout ON sets(owner, workout_id);
                    CREATE TABLE favorites (
                        owner TEXT NOT NULL,
                        exercise TEXT NOT NULL COLLATE NOCASE,
                        PRIMARY KEY (owner, exercise)
                    );
                    CREATE TABLE change_sequence (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        value INTEGER NOT NULL
                    );
                    INSERT INTO change_sequence (id, value) VALUES (1, 0);
                    CREATE TABLE idempotency_records (
                        owner TEXT NOT NULL,
                        method TEXT NOT NULL,
                        path TEXT NOT NULL,
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        completed INTEGER NOT NULL DEFAULT 0,
                        status INTEGER,
                        content_type TEXT,
                        body BLOB,
                        token TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        locked_at REAL NOT NULL,
                        PRIMARY KEY (owner, method, path, key)
                    );
                    CREATE INDEX idempotency_by_created ON idempotency_records(created_at);
                    """)
        }
        migrator.registerMigration("v2-entity-ids-per-user") { db in
            // v1 keyed workouts and sets by id alone, so a second user sending an id another
            // user already had got a 409 that revealed it. The key is now (owner, id); rows
            // are copied as they are (v1 ids were unique, so no two rows collide).
            try db.execute(
                sql: """
                    CREATE TABLE workouts_v2 (
                        id TEXT NOT NULL,
                        owner TEXT NOT NULL,
                        name TEXT NOT NULL,
                        started_at TEXT NOT NULL,
                        ended_at TEXT,
                        notes TEXT,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (owner, id)
                    );
                    INSERT INTO workouts_v2
                        (id, owner, name, started_at, ended_at, notes, updated_at, server_version, deleted)
                    SELECT id, owner, name, started_at, ended_at, notes, updated_at, server_version, deleted
                    FROM workouts;
                    DROP TABLE workouts;
                    ALTER TABLE workouts_v2 RENAME TO workouts;
                    CREATE INDEX workouts_by_owner_version ON workouts(owner, server_version);
                    CREATE TABLE sets_v2 (
                        id TEXT NOT NULL,
                        owner TEXT NOT NULL,
                        workout_id TEXT NOT NULL,
                        exercise TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL,
                        reps INTEGER NOT NULL,
                        rpe REAL,
                        distance_m REAL,
                        duration_s REAL,
                        notes TEXT,
                        performed_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (owner, id)
                    );
                    INSERT INTO sets_v2
                        (id, owner, workout_id, exercise, position, kind, weight, unit, reps, rpe, distance_m,
                         duration_s, notes, performed_at, updated_at, server_version, deleted)
                    SELECT id, owner, workout_id, exercise, position, kind, weight, unit, reps, rpe, distance_m,
                         duration_s, notes, performed_at, updated_at, server_version, deleted
                    FROM sets;
                    DROP TABLE sets;
                    ALTER TABLE sets_v2 RENAME TO sets;
                    CREATE INDEX sets_by_owner_version ON sets(owner, server_version);
                    CREATE INDEX sets_by_owner_workout ON sets(owner, workout_id);
                    """)
        }
        registerRoutineMigrations(&migrator)
        registerMergeMigrations(&migrator)
        migrator.registerMigration(exerciseNotesMigration.name) { db in
            for statement in exerciseNotesMigration.statements { try db.execute(sql: statement) }
        }
        registerBodyWeightMigration(&migrator)
        // The superset a set's exercise is in within its workout.
        migrator.registerMigration(PostgresSchema.supersetMigration.name) { db in
            try db.execute(sql: "ALTER TABLE sets ADD COLUMN superset INTEGER")
        }
        // The accounts the server runs (`spotter serve users`), by the hash of their token.
        migrator.registerMigration(PostgresSchema.accountsMigration.name) { db in
            try db.execute(
                sql: """
                    CREATE TABLE accounts (
                        name TEXT PRIMARY KEY NOT NULL,
                        token_hash TEXT NOT NULL UNIQUE,
                        created_at REAL NOT NULL,
                        last_used_at REAL
                    )
                    """)
        }
        // This database's name, drawn once when it is made (see `ServerStore.identity`).
        migrator.registerMigration(PostgresSchema.identityMigration.name) { db in
            try db.execute(sql: "CREATE TABLE server_identity (id TEXT PRIMARY KEY NOT NULL)")
            try db.execute(
                sql: "INSERT INTO server_identity (id) VALUES (?)", arguments: [UUID.timeOrdered().wireString])
        }
        return migrator
    }

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

    static func registerMergeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-field-clocks-and-conflicts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE field_clocks (
                        owner TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        field TEXT NOT NULL,
                        stamp TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        PRIMARY KEY (owner, entity_type, entity_id, field)
                    );
                    CREATE TABLE conflicts (
                        owner TEXT NOT NULL,
                        id TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        field TEXT NOT NULL,
                        kept TEXT NOT NULL,
                        overridden TEXT NOT NULL,
                        kept_stamp TEXT NOT NULL,
                        overridden_stamp TEXT NOT NULL,
                        label TEXT NOT NULL,
                        recorded_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        PRIMARY KEY (owner, id)
                    );
                    CREATE INDEX conflicts_by_owner_version ON conflicts(owner, server_version);
                    """)
        }
    }

    /// Weigh-ins arrived after routines: their own table, appended, with the same owner key and
    /// stamp as every synced entity and an index for the change feed.
    static func registerBodyWeightMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-body-weights") { db in
            try db.execute(
                sql: """
                    CREATE TABLE body_weights (
                        id TEXT NOT NULL,
                        owner TEXT NOT NULL,
                        measured_at TEXT NOT NULL,
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL,
                        notes TEXT,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (owner, id)
                    );
                    CREATE INDEX body_weights_by_owner_version ON body_weights(owner, server_version);
                    """)
        }
    }

    /// A note on each exercise of a workout (a JSON object, by exercise name): the same statement
    /// on SQLite and PostgreSQL.
    static let exerciseNotesMigration = PostgresSchema.exerciseNotesMigration
}

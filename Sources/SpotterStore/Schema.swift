import Foundation
import GRDB

/// The client schema, in one migrator so every database, old or new,
/// reaches the same shape before anything reads it.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    CREATE TABLE exercises (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        category TEXT,
                        equipment TEXT,
                        is_custom INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE workouts (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        started_at TEXT NOT NULL,
                        ended_at TEXT,
                        notes TEXT,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER,
                        deleted_at TEXT,
                        sync_state TEXT NOT NULL CHECK (sync_state IN ('synced','pending','rejected')),
                        sync_error TEXT
                    );
                    CREATE INDEX workouts_by_start ON workouts(started_at);
                    CREATE TABLE sets (
                        id TEXT PRIMARY KEY NOT NULL,
                        workout_id TEXT NOT NULL REFERENCES workouts(id) ON DELETE CASCADE,
                        exercise TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('normal','warmup','failure','drop')),
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL CHECK (unit IN ('kg','lb')),
                        reps INTEGER NOT NULL,
                        rpe REAL,
                        distance_m REAL,
                        duration_s REAL,
                        notes TEXT,
                        performed_at TEXT NOT NULL,
                        e1rm_kg REAL,
                        is_pr INTEGER NOT NULL DEFAULT 0,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER,
                        deleted_at TEXT,
                        sync_state TEXT NOT NULL CHECK (sync_state IN ('synced','pending','rejected')),
                        sync_error TEXT
                    );
                    CREATE INDEX sets_by_workout ON sets(workout_id, position);
                    CREATE INDEX sets_by_exercise ON sets(exercise, performed_at) WHERE deleted_at IS NULL;
                    CREATE INDEX sets_best_e1rm ON sets(exercise, e1rm_kg)
                        WHERE deleted_at IS NULL AND kind != 'warmup';
                    CREATE TABLE outbox (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        op_id TEXT NOT NULL UNIQUE,
                        user_id TEXT NOT NULL,
                        entity_type TEXT NOT NULL CHECK (entity_type IN ('workout','set','favorite')),
                        entity_id TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('create','update','delete')),
                        payload TEXT NOT NULL,
                        before TEXT,
                        idempotency_key TEXT NOT NULL UNIQUE,
                        state TEXT NOT NULL CHECK (state IN
                            ('pending','in_flight','succeeded','failed_transient','failed_permanent','blocked')),
                        attempt_count INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at REAL,
                        lease_expires_at REAL,
                        depends_on TEXT,
                        last_status INTEGER,
                        last_error TEXT,
                        created_at REAL NOT NULL,
                        updated_at REAL NOT NULL,
                        completed_at REAL,
                        first_sent_at REAL
                    );
                    CREATE INDEX outbox_by_entity ON outbox(entity_type, entity_id, seq);
                    CREATE INDEX outbox_by_user_state ON outbox(user_id, state, seq);
                    CREATE INDEX outbox_by_dependency ON outbox(depends_on);
                    CREATE TABLE favorites (
                        exercise TEXT PRIMARY KEY NOT NULL COLLATE NOCASE
                    );
                    CREATE TABLE favorite_pending (
                        exercise TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                        action TEXT NOT NULL CHECK (action IN ('add','remove')),
                        op_id TEXT NOT NULL
                    );
                    CREATE TABLE sync_metrics (
                        name TEXT PRIMARY KEY NOT NULL,
                        value INTEGER NOT NULL
                    );
                    CREATE TABLE sync_latency (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        ms REAL NOT NULL
                    );
                    """)
            try Catalog.seed(db)
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
                arguments: [MetaKey.deviceID, UUID().uuidString.lowercased()]
            )
        }
        migrator.registerMigration("v2-accounts") { db in
            // Whose data each row is (per-account scoping): the device's own data
            // ('local', adopted by the first login) or an account's. Existing rows are the device's.
            try db.execute(
                sql: """
                    ALTER TABLE workouts ADD COLUMN account TEXT NOT NULL DEFAULT 'local';
                    ALTER TABLE sets ADD COLUMN account TEXT NOT NULL DEFAULT 'local';
                    CREATE INDEX workouts_by_account ON workouts(account);
                    CREATE INDEX sets_by_account ON sets(account);
                    """)
        }
        migrator.registerMigration("v3: pulled changes wait, leases name their process") { db in
            // Changes from the server that cannot be applied yet: the entity has operations queued
            // here, or (parent_id) a set whose workout has not arrived. Never dropped.
            try db.execute(
                sql: """
                    CREATE TABLE pulled_waiting (
                        account TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        parent_id TEXT,
                        server_version INTEGER,
                        change TEXT NOT NULL,
                        PRIMARY KEY (account, entity_type, entity_id)
                    );
                    CREATE INDEX pulled_waiting_by_parent ON pulled_waiting(account, parent_id)
                        WHERE parent_id IS NOT NULL;
                    ALTER TABLE outbox ADD COLUMN lease_owner TEXT;
                    """)
        }
        // Records (PR / rep record per set, in `is_pr`) depend on every earlier set of the exercise.
        // Any change to a set marks its exercise here, whoever makes it (an action, an import,
        // a pull, a rollback); the store recomputes marked exercises before it next reads sets.
        // (NOT EXISTS rather than OR IGNORE: an upsert's conflict clause overrides a trigger's.)
        migrator.registerMigration("v4-records") { db in
            try db.execute(
                sql: """
                    CREATE TABLE records_dirty (exercise TEXT PRIMARY KEY NOT NULL);
                    CREATE INDEX sets_high_reps ON sets(exercise, weight)
                        WHERE deleted_at IS NULL AND kind != 'warmup' AND reps > 12;
                    INSERT OR IGNORE INTO records_dirty SELECT DISTINCT exercise FROM sets;
                    CREATE TRIGGER sets_records_insert AFTER INSERT ON sets BEGIN
                        INSERT INTO records_dirty (exercise) SELECT NEW.exercise
                            WHERE NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = NEW.exercise);
                    END;
                    CREATE TRIGGER sets_records_update
                    AFTER UPDATE OF exercise, kind, weight, unit, reps, performed_at, deleted_at, workout_id, position
                    ON sets BEGIN
                        INSERT INTO records_dirty (exercise) SELECT OLD.exercise
                            WHERE NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = OLD.exercise);
                        INSERT INTO records_dirty (exercise) SELECT NEW.exercise
                            WHERE NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = NEW.exercise);
                    END;
                    CREATE TRIGGER sets_records_delete AFTER DELETE ON sets BEGIN
                        INSERT INTO records_dirty (exercise) SELECT OLD.exercise
                            WHERE NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = OLD.exercise);
                    END;
                    """)
        }
        // Rows made by an import: their ids come from their content, so deleting one before it
        // was ever sent still sends its create and its delete (see Coalescing.decide).
        migrator.registerMigration("v5-imported") { db in
            try db.execute(
                sql: """
                    ALTER TABLE workouts ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE sets ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // A change that waits is kept in the store's own format (SpotterCore's Codable values), no
        // longer in the wire's: rows kept the old way are dropped and every feed is read again from
        // its start, which brings them back (merging a change twice changes nothing).
        migrator.registerMigration("v6-waiting-local-format") { db in
            try db.execute(
                sql: """
                    DELETE FROM pulled_waiting;
                    DELETE FROM meta WHERE key = '\(MetaKey.pullCursor)' OR key LIKE '\(MetaKey.pullCursor)|%';
                    """)
        }
        RoutineSchema.register(&migrator)
        ConflictSchema.register(&migrator)
        // A give-up without a definite answer (timeouts, dropped replies, 5xx) is not a refusal:
        // the operation says so, so that nothing calls it rejected and it goes back to the queue
        // when the server answers again. Rows written before knew it only by their message.
        migrator.registerMigration("v9-no-answer") { db in
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN no_answer INTEGER NOT NULL DEFAULT 0;
                    UPDATE outbox SET no_answer = 1
                        WHERE state = 'failed_permanent' AND last_error LIKE 'gave up after %';
                    """)
        }
        RestoreSchema.register(&migrator)
        UndoSchema.register(&migrator)
        return migrator
    }
}

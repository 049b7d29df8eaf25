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
        // (v17 takes the insert trigger off and puts each test in its trigger's WHEN.)
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
        // A note on each exercise of a workout (a JSON object, by exercise name).
        migrator.registerMigration("v12-exercise-notes") { db in
            try db.execute(sql: "ALTER TABLE workouts ADD COLUMN exercise_notes TEXT")
        }
        // Weigh-ins: a synced entity with the same bookkeeping columns as routines, so the
        // outbox machinery (coalescing, reconcile, rollback, pull merge) takes them as it is.
        migrator.registerMigration("v13-body-weights") { db in
            try RoutineSchema.allowOperations(
                db, from: "'workout','set','favorite','routine'",
                to: "'workout','set','favorite','routine','body_weight'")
            try db.execute(
                sql: """
                    CREATE TABLE body_weights (
                        id TEXT PRIMARY KEY NOT NULL,
                        measured_at TEXT NOT NULL,
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL CHECK (unit IN ('kg','lb')),
                        notes TEXT,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER,
                        deleted_at TEXT,
                        sync_state TEXT NOT NULL CHECK (sync_state IN ('synced','pending','rejected')),
                        sync_error TEXT,
                        account TEXT NOT NULL DEFAULT 'local',
                        imported INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX body_weights_by_time ON body_weights(account, measured_at);
                    """)
            // Assisted and bodyweight lifts kept an estimate made from the logged weight (the
            // assistance): walked again, by the load moved.
            try SpotterStore.markBodyWeightLiftsDirty(db: db)
        }
        // The superset a set's exercise is in within its workout (synced with the set).
        migrator.registerMigration("v14-set-supersets") { db in
            try db.execute(sql: "ALTER TABLE sets ADD COLUMN superset INTEGER")
        }
        // The muscles a custom exercise works, as its lifter named them (catalogue exercises
        // carry theirs in the catalogue file). This table stays on this device: it does not
        // sync, and another device knows only the muscles set there.
        migrator.registerMigration("v15-exercise-muscles") { db in
            try db.execute(
                sql: """
                    CREATE TABLE exercise_muscles (
                        exercise TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                        primary_muscles TEXT NOT NULL,
                        secondary_muscles TEXT NOT NULL DEFAULT ''
                    );
                    """)
        }
        // Every CHECK that lists its allowed values is written as comparisons (see `CheckLists`).
        migrator.registerMigration("v16-checks-as-comparisons") { db in try CheckLists.rewriteTables(db) }
        // The records marks without a trigger on insert (see `markRecordsStale`), and the change
        // and delete triggers with their test in WHEN: an INSERT … SELECT that reads the table it
        // writes stages its row in a temporary b-tree, made and dropped for every set changed.
        migrator.registerMigration("v17-records-marks") { db in
            let changed = "exercise, kind, weight, unit, reps, performed_at, deleted_at, workout_id, position"
            try db.execute(
                sql: """
                    DROP TRIGGER sets_records_insert;
                    DROP TRIGGER sets_records_update;
                    DROP TRIGGER sets_records_delete;
                    CREATE TRIGGER sets_records_update_old AFTER UPDATE OF \(changed) ON sets
                    WHEN NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = OLD.exercise) BEGIN
                        INSERT INTO records_dirty (exercise) VALUES (OLD.exercise);
                    END;
                    CREATE TRIGGER sets_records_update_new AFTER UPDATE OF \(changed) ON sets
                    WHEN NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = NEW.exercise) BEGIN
                        INSERT INTO records_dirty (exercise) VALUES (NEW.exercise);
                    END;
                    CREATE TRIGGER sets_records_delete AFTER DELETE ON sets
                    WHEN NOT EXISTS (SELECT 1 FROM records_dirty WHERE exercise = OLD.exercise) BEGIN
                        INSERT INTO records_dirty (exercise) VALUES (OLD.exercise);
                    END;
                    """)
        }
        // What an edit wrote, beside what it replaced: undoing it writes a field back only while
        // the field still holds this edit's value, never over what another device set since.
        migrator.registerMigration("v18-undo-edit-after") { db in
            try db.execute(sql: "ALTER TABLE undo_journal ADD COLUMN after TEXT")
        }
        return migrator
    }
}

/// `CHECK (x IN ('a','b','c'))` written as `CHECK (x = 'a' OR x = 'b' OR x = 'c')`.
///
/// SQLite evaluates an IN list of more than two values by building a temporary b-tree of the list
/// each time a statement runs: every insert into the outbox built three (entity type, kind,
/// state) and every set two, which was about a quarter of what an import of 100 000 rows cost.
/// The comparisons mean exactly the same, so no stored row can break them and none is rewritten:
/// the tables' definitions are edited in place, with a new schema version, the way SQLite
/// documents for changing a CHECK without making the table again.
enum CheckLists {
    /// `sql` with each `CHECK (column IN (values))` written as comparisons; anything else as it is.
    static func comparisons(_ sql: String) -> String {
        sql.replacing(/CHECK \((\w+) IN\s*\(([^()]*)\)\)/) { match in
            let column = String(match.output.1)
            let values = match.output.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return "CHECK (" + values.map { "\(column) = \($0)" }.joined(separator: " OR ") + ")"
        }
    }

    static func rewriteTables(_ db: Database) throws {
        let tables = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%CHECK (%IN%'")
        var changed: [(name: String, sql: String)] = []
        for table in tables {
            let name: String = table["name"]
            let sql: String = table["sql"]
            let rewritten = comparisons(sql)
            if rewritten != sql { changed.append((name, rewritten)) }
        }
        guard !changed.isEmpty else { return }
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        for table in changed {
            try db.execute(
                sql: "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                arguments: [table.sql, table.name])
        }
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
    }
}

// MARK: The migrations of the routines, conflicts, restored workouts and undo journal

/// The routine tables: `routines` syncs like workouts (same bookkeeping columns); `routine_plans`
/// is this device's record of workouts started from a routine — one row per planned set, with
/// its targets and whether it was logged (and as which set) or skipped. Plans never leave the
/// device: the sets logged from them are what syncs.
enum RoutineSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-routines") { db in
            try allowRoutineOperations(db)
            try db.execute(
                sql: """
                    CREATE TABLE routines (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        notes TEXT,
                        rest_s INTEGER,
                        exercises TEXT NOT NULL DEFAULT '[]',
                        updated_at TEXT NOT NULL,
                        server_version INTEGER,
                        deleted_at TEXT,
                        sync_state TEXT NOT NULL CHECK (sync_state IN ('synced','pending','rejected')),
                        sync_error TEXT,
                        account TEXT NOT NULL DEFAULT 'local',
                        imported INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE routine_plans (
                        id TEXT PRIMARY KEY NOT NULL,
                        workout_id TEXT NOT NULL REFERENCES workouts(id) ON DELETE CASCADE,
                        routine_id TEXT NOT NULL,
                        ordinal INTEGER NOT NULL,
                        exercise_index INTEGER NOT NULL,
                        set_index INTEGER NOT NULL,
                        exercise TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        weight REAL NOT NULL,
                        unit TEXT NOT NULL,
                        reps INTEGER NOT NULL,
                        reps_max INTEGER,
                        rpe REAL,
                        rest_s INTEGER,
                        superset INTEGER,
                        hint TEXT,
                        status TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned','done','skipped')),
                        set_id TEXT,
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX routine_plans_by_workout ON routine_plans(workout_id, ordinal);
                    CREATE INDEX routine_plans_by_routine ON routine_plans(routine_id, exercise);
                    """)
        }
        // The workout carries its plan to every device (the targets it was started with), so a
        // routine's progression reads the same history everywhere. `routine_id` is the plan's,
        // kept beside it to find a routine's workouts without reading every plan. A planned row
        // says whether it came with a pulled workout (its set never takes the row's id there)
        // and whether it has no target weight (it is never logged as 0).
        migrator.registerMigration("v8-workout-plans") { db in
            try db.execute(
                sql: """
                    ALTER TABLE workouts ADD COLUMN plan TEXT;
                    ALTER TABLE workouts ADD COLUMN routine_id TEXT;
                    CREATE INDEX workouts_by_routine ON workouts(routine_id, started_at) WHERE routine_id IS NOT NULL;
                    ALTER TABLE routine_plans ADD COLUMN pulled INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE routine_plans ADD COLUMN needs_weight INTEGER NOT NULL DEFAULT 0;
                    UPDATE routine_plans SET needs_weight = 1
                        WHERE weight = 0 AND hint = 'no estimated 1RM for ' || exercise || ' yet: enter the weight';
                    """)
        }
    }

    /// The outbox's CHECK on entity_type names the entity types it may hold; SQLite cannot change
    /// a CHECK in place, so the table is rebuilt from its own stored definition (whatever columns
    /// later migrations added) with 'routine' allowed, and every index and trigger it had is
    /// made again — including ones a migration registered before this one may have added.
    static func allowRoutineOperations(_ db: Database) throws {
        try allowOperations(db, from: "'workout','set','favorite'", to: "'workout','set','favorite','routine'")
    }

    /// Widens the outbox's CHECK on `entity_type` from the list `old` to `new` (SQLite cannot
    /// alter a CHECK: the table is made again, its rows, indexes and triggers kept).
    static func allowOperations(_ db: Database, from old: String, to new: String) throws {
        // Written as a list by the first migrations, as comparisons since v16 (`CheckLists`).
        var oldCheck = "CHECK (entity_type IN (\(old)))"
        var newCheck = "CHECK (entity_type IN (\(new)))"
        guard
            let definition = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'outbox'")
        else { return }
        if !definition.contains(oldCheck) {
            (oldCheck, newCheck) = (CheckLists.comparisons(oldCheck), CheckLists.comparisons(newCheck))
            guard definition.contains(oldCheck) else { return }
        }
        let dependents = try String.fetchAll(
            db,
            sql: """
                SELECT sql FROM sqlite_master WHERE tbl_name = 'outbox' AND type IN ('index', 'trigger')
                AND sql IS NOT NULL ORDER BY type, name
                """)
        let rebuilt =
            definition
            .replacingOccurrences(of: oldCheck, with: newCheck)
            // SQLite keeps a renamed table's name quoted ("outbox") in its definition.
            .replacingOccurrences(of: "CREATE TABLE \"outbox\"", with: "CREATE TABLE outbox_widened")
            .replacingOccurrences(of: "CREATE TABLE outbox ", with: "CREATE TABLE outbox_widened ")
            .replacingOccurrences(of: "CREATE TABLE outbox(", with: "CREATE TABLE outbox_widened(")
        try db.execute(sql: rebuilt)
        try db.execute(sql: "INSERT INTO outbox_widened SELECT * FROM outbox")
        try db.execute(sql: "DROP TABLE outbox")
        try db.execute(sql: "ALTER TABLE outbox_widened RENAME TO outbox")
        for statement in dependents { try db.execute(sql: statement) }
    }
}

enum ConflictSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        // Values the server's merge overrode, and the clock stamp and base version every update
        // carries so the server can merge it field by field.
        migrator.registerMigration("v8-conflicts-and-edit-clocks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE conflicts (
                        id TEXT PRIMARY KEY NOT NULL,
                        account TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        field TEXT NOT NULL,
                        kept TEXT NOT NULL,
                        overridden TEXT NOT NULL,
                        kept_stamp TEXT NOT NULL,
                        overridden_stamp TEXT NOT NULL,
                        label TEXT NOT NULL,
                        recorded_at TEXT NOT NULL,
                        status TEXT NOT NULL DEFAULT 'open',
                        announced INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX conflicts_by_account ON conflicts(account, status);
                    ALTER TABLE outbox ADD COLUMN clock_stamp TEXT;
                    ALTER TABLE outbox ADD COLUMN base_version INTEGER;
                    """)
        }
    }
}

enum RestoreSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        // Which copy holds the sets of a workout deleted on another device (so every set of it
        // that turns up, now or at a later answer, joins the same copy), and how many moved there
        // that `spotter sync` has not told yet.
        migrator.registerMigration("v10-restored-workouts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE restored_workouts (
                        workout_id TEXT PRIMARY KEY NOT NULL,
                        restored_id TEXT NOT NULL,
                        account TEXT NOT NULL,
                        name TEXT NOT NULL,
                        restored_name TEXT NOT NULL,
                        untold INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
    }
}

/// The device's own actions, newest last, so the last one can be taken back (`U`, `spotter
/// undo`): a log, an edit, a delete of a set; a rename, notes or finish of a workout. Undoing is
/// itself a set of ordinary edits that sync (a new delete, the fields an edit changed written back,
/// a deleted set or workout logged again under new ids); it is not journalled, so pressing it again
/// goes further back. An action that can no longer be taken back (another device deleted what it
/// changed) is never skipped silently: that undo says so and changes nothing.
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

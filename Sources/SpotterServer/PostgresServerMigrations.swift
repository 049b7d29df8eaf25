import Foundation
import PostgresNIO
import SpotterCore

// The server's PostgreSQL schema: every migration, in the order a database takes them, and how
// instances apply them. Nothing else lives here.

/// The tables on PostgreSQL: those of `SQLiteServerStore`, with a counter row per user instead of
/// one global counter. Text that is compared or sorted is `COLLATE "C"` (bytewise, as SQLite's
/// BINARY), whatever the database's default collation, so both stores list in the same order.
enum PostgresSchema {
    /// The advisory lock instances take while migrating ("Spotter" in ASCII).
    static let migrationLock: Int64 = 0x53_706F_7474_6572

    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE workouts (
                    owner TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    name TEXT NOT NULL,
                    started_at TEXT COLLATE "C" NOT NULL,
                    ended_at TEXT,
                    notes TEXT,
                    updated_at TEXT NOT NULL,
                    server_version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL DEFAULT FALSE,
                    PRIMARY KEY (owner, id)
                )
                """,
                "CREATE INDEX workouts_by_owner_version ON workouts (owner, server_version)",
                """
                CREATE TABLE sets (
                    owner TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    workout_id TEXT COLLATE "C" NOT NULL,
                    exercise TEXT NOT NULL,
                    position BIGINT NOT NULL,
                    kind TEXT NOT NULL,
                    weight DOUBLE PRECISION NOT NULL,
                    unit TEXT NOT NULL,
                    reps BIGINT NOT NULL,
                    rpe DOUBLE PRECISION,
                    distance_m DOUBLE PRECISION,
                    duration_s DOUBLE PRECISION,
                    notes TEXT,
                    performed_at TEXT COLLATE "C" NOT NULL,
                    updated_at TEXT NOT NULL,
                    server_version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL DEFAULT FALSE,
                    PRIMARY KEY (owner, id)
                )
                """,
                "CREATE INDEX sets_by_owner_version ON sets (owner, server_version)",
                "CREATE INDEX sets_by_owner_workout ON sets (owner, workout_id)",
                """
                CREATE TABLE favorites (
                    owner TEXT COLLATE "C" NOT NULL,
                    folded TEXT COLLATE "C" NOT NULL,
                    exercise TEXT NOT NULL,
                    PRIMARY KEY (owner, folded)
                )
                """,
                """
                CREATE TABLE change_counters (
                    owner TEXT COLLATE "C" PRIMARY KEY,
                    value BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE idempotency_records (
                    owner TEXT COLLATE "C" NOT NULL,
                    method TEXT COLLATE "C" NOT NULL,
                    path TEXT COLLATE "C" NOT NULL,
                    key TEXT COLLATE "C" NOT NULL,
                    fingerprint TEXT NOT NULL,
                    completed BOOLEAN NOT NULL DEFAULT FALSE,
                    status BIGINT,
                    content_type TEXT,
                    body BYTEA,
                    token TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    locked_at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (owner, method, path, key)
                )
                """,
                "CREATE INDEX idempotency_by_created ON idempotency_records (created_at)",
            ]
        ),
        routineMigration,
        workoutPlanMigration,
        mergeMigration,
        exerciseNotesMigration,
        bodyWeightMigration,
        supersetMigration,
        accountsMigration,
        identityMigration,
    ]

    /// Applies the migrations not yet recorded, all in one transaction under an advisory lock:
    /// instances that start together wait for each other, and the first one's work is the only one.
    static func migrate(_ session: PostgresSession) async throws {
        try await session.transaction {
            try await session.query("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try await session.query(
                """
                CREATE TABLE IF NOT EXISTS spotter_migrations (
                    name TEXT PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let applied = Set(
                try await session.query("SELECT name FROM spotter_migrations").rows.map {
                    try StoredCell.required($0.makeRandomAccess().text("name"), "name")
                })
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements { try await session.query(PostgresQuery(unsafeSQL: statement)) }
                try await session.query("INSERT INTO spotter_migrations (name) VALUES (\(migration.name))")
            }
        }
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

    static let mergeMigration: (name: String, statements: [String]) = (
        "v5-field-clocks-and-conflicts",
        [
            """
            CREATE TABLE field_clocks (
                owner TEXT COLLATE "C" NOT NULL,
                entity_type TEXT COLLATE "C" NOT NULL,
                entity_id TEXT COLLATE "C" NOT NULL,
                field TEXT COLLATE "C" NOT NULL,
                stamp TEXT COLLATE "C" NOT NULL,
                version BIGINT NOT NULL,
                PRIMARY KEY (owner, entity_type, entity_id, field)
            )
            """,
            """
            CREATE TABLE conflicts (
                owner TEXT COLLATE "C" NOT NULL,
                id TEXT COLLATE "C" NOT NULL,
                entity_type TEXT NOT NULL,
                entity_id TEXT COLLATE "C" NOT NULL,
                field TEXT NOT NULL,
                kept TEXT NOT NULL,
                overridden TEXT NOT NULL,
                kept_stamp TEXT NOT NULL,
                overridden_stamp TEXT NOT NULL,
                label TEXT NOT NULL,
                recorded_at TEXT NOT NULL,
                server_version BIGINT NOT NULL,
                PRIMARY KEY (owner, id)
            )
            """,
            "CREATE INDEX conflicts_by_owner_version ON conflicts (owner, server_version)",
        ]
    )

    /// A note on each exercise of a workout (a JSON object, by exercise name).
    static let exerciseNotesMigration: (name: String, statements: [String]) = (
        "v6-exercise-notes", ["ALTER TABLE workouts ADD COLUMN exercise_notes TEXT"]
    )
}

extension PostgresSchema {
    /// Weigh-ins, synced like routines: the same owner key and stamp, in the change feed.
    /// The superset a set's exercise is in within its workout: the same statement on SQLite.
    static let supersetMigration: (name: String, statements: [String]) = (
        "v8-set-supersets", ["ALTER TABLE sets ADD COLUMN superset BIGINT"]
    )

    static let bodyWeightMigration: (name: String, statements: [String]) = (
        "v7-body-weights",
        [
            """
            CREATE TABLE body_weights (
                owner TEXT COLLATE "C" NOT NULL,
                id TEXT COLLATE "C" NOT NULL,
                measured_at TEXT COLLATE "C" NOT NULL,
                weight DOUBLE PRECISION NOT NULL,
                unit TEXT NOT NULL,
                notes TEXT,
                updated_at TEXT NOT NULL,
                server_version BIGINT NOT NULL,
                deleted BOOLEAN NOT NULL DEFAULT FALSE,
                PRIMARY KEY (owner, id)
            )
            """,
            "CREATE INDEX body_weights_by_owner_version ON body_weights (owner, server_version)",
        ]
    )

    /// This database's name, drawn once when it is made (see `ServerStore.identity`): instances
    /// that migrate together take the one the advisory lock's holder wrote.
    static let identityMigration: (name: String, statements: [String]) = (
        "v10-server-identity",
        [
            "CREATE TABLE server_identity (id TEXT COLLATE \"C\" PRIMARY KEY)",
            // Drawn by PostgreSQL as the migration runs, never by this process once for every database.
            "INSERT INTO server_identity (id) VALUES (md5(random()::text || clock_timestamp()::text))",
        ]
    )

    /// The accounts the server runs (`spotter serve users`), by the hash of their token.
    static let accountsMigration: (name: String, statements: [String]) = (
        "v9-accounts",
        [
            """
            CREATE TABLE accounts (
                name TEXT COLLATE "C" PRIMARY KEY,
                token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
                created_at DOUBLE PRECISION NOT NULL,
                last_used_at DOUBLE PRECISION
            )
            """
        ]
    )
}

import Foundation
import GRDB
import Logging
import PostgresNIO
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterTestSupport
import Synchronization
import Testing

/// Every synced entity is defined once (`EntityColumn`: each field's name, type and nullability).
/// These tests read the three real schemas — a device's database, the server's SQLite file and
/// a PostgreSQL server database, each made by its own migrations — and fail on any drift: a field
/// missing from a table, a type or a nullability that differs, or a column no definition or
/// list below explains.
@Suite("One definition per entity: the device's, the server's SQLite and PostgreSQL schemas follow it")
struct SchemaDriftTests {
    /// A column as a schema declares it.
    struct Declared: Equatable, CustomStringConvertible {
        var type: String
        var notNull: Bool
        var description: String { "\(type)\(notNull ? " NOT NULL" : "")" }
    }

    typealias Schema = [String: [String: Declared]]

    /// The entities' tables and what each schema must hold for each field.
    static func expected<Column: EntityColumn>(
        _: Column.Type, type: (ColumnType) -> String
    ) -> (table: String, columns: [String: Declared]) {
        var columns: [String: Declared] = [:]
        for column in Column.allCases {
            columns[column.name] = Declared(type: type(column.type), notNull: !column.isOptional)
        }
        return (Column.table, columns)
    }

    /// Columns a table holds besides its entity's fields, with why; anything else is drift.
    static let deviceOnly: [String: Set<String>] = [
        // The device's sync bookkeeping, the account a row belongs to, whether it was imported.
        "workouts": [
            "updated_at", "server_version", "deleted_at", "sync_state", "sync_error", "account", "imported",
            "routine_id",  // the plan's routine, kept beside it to find a routine's workouts
        ],
        "sets": [
            "updated_at", "server_version", "deleted_at", "sync_state", "sync_error", "account", "imported",
            "e1rm_kg", "is_pr",  // records, derived on the device
        ],
        "routines": [
            "updated_at", "server_version", "deleted_at", "sync_state", "sync_error", "account", "imported",
        ],
        "body_weights": [
            "updated_at", "server_version", "deleted_at", "sync_state", "sync_error", "account", "imported",
        ],
        "favorites": [],
    ]
    /// The server's: whose row it is and its stamp (`ServerStampColumn`); PostgreSQL keys a
    /// favorite by its case-folded name.
    static let serverOnly: [String: Set<String>] = [
        "workouts": ["owner"], "sets": ["owner"], "routines": ["owner"], "body_weights": ["owner"],
        "favorites": ["owner"],
    ]
    static let postgresOnly: [String: Set<String>] = ["favorites": ["folded"]]

    static let stamped: Set<String> = ["workouts", "sets", "routines", "body_weights"]

    static func check(
        _ schema: Schema, named where_: String, type: (ColumnType) -> String, extra: [String: Set<String>],
        stamp: Bool
    ) {
        let entities = [
            expected(Workout.Column.self, type: type), expected(WorkoutSet.Column.self, type: type),
            expected(Routine.Column.self, type: type), expected(BodyWeight.Column.self, type: type),
            expected(Favorite.Column.self, type: type),
        ]
        for (table, wanted) in entities {
            guard let actual = schema[table] else {
                Issue.record("\(where_): no table \(table)")
                continue
            }
            var wanted = wanted
            if stamp, stamped.contains(table) {
                for column in ServerStampColumn.allCases {
                    wanted[column.name] = Declared(type: type(column.type), notNull: true)
                }
            }
            for (name, declared) in wanted.sorted(by: { $0.key < $1.key }) {
                #expect(
                    actual[name] == declared,
                    "\(where_): \(table).\(name) is \(actual[name]?.description ?? "missing"), the definition says \(declared)"
                )
            }
            let unexplained = Set(actual.keys).subtracting(wanted.keys).subtracting(extra[table] ?? [])
            #expect(
                unexplained.isEmpty, "\(where_): \(table) has columns no definition explains: \(unexplained.sorted())")
        }
    }

    static func sqliteSchema(_ path: String) throws -> Schema {
        let database = try DatabaseQueue(path: path)
        return try database.read { db in
            var schema: Schema = [:]
            for table in ["workouts", "sets", "routines", "body_weights", "favorites"] {
                var columns: [String: Declared] = [:]
                for row in try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))") {
                    // A primary key column of a rowid table is never null, whatever it declares.
                    let notNull = (row["notnull"] as Int) == 1 || (row["pk"] as Int) > 0
                    columns[row["name"]] = Declared(type: (row["type"] as String).uppercased(), notNull: notNull)
                }
                if !columns.isEmpty { schema[table] = columns }
            }
            return schema
        }
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString)-\(name)").path
    }

    @Test("the device's database holds every field of every entity as defined, and nothing unexplained")
    func deviceSchema() throws {
        let path = Self.temporaryPath("device.sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try SpotterStore.open(path: path, userID: "alice")
        let schema = try Self.sqliteSchema(path)
        // The device keeps its own sync columns (nullable server version, deleted_at), not the
        // server's stamp; and a favorite's row is the name alone.
        Self.check(
            schema, named: "device", type: { $0.sqliteDeclaration }, extra: Self.deviceOnly, stamp: false)
        #expect(schema["sets"]?["server_version"] == Declared(type: "INTEGER", notNull: false))
    }

    @Test("the server's SQLite file holds every field, the owner and the server's stamp")
    func serverSQLiteSchema() async throws {
        let path = Self.temporaryPath("server.sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteServerStore(path: path)
        try await store.close()
        Self.check(
            try Self.sqliteSchema(path), named: "server SQLite", type: { $0.sqliteDeclaration },
            extra: Self.serverOnly, stamp: true)
    }

    @Test(
        "PostgreSQL holds every field, the owner and the server's stamp, with the same types",
        .enabled(
            if: TestPostgres.unavailableReason == nil,
            Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")))
    func postgresSchema() async throws {
        let url = try await TestPostgres.freshDatabase()
        var logger = Logger(label: "test.drift")
        logger.logLevel = .critical
        let store = try await PostgresServerStore.open(try PostgresLocation(url: url), poolSize: 1, logger: logger)
        try await store.close()
        let rows = SchemaRows()
        let quiet = logger
        try await TestPostgres.administer(url) { connection in
            let result = try await connection.query(
                """
                SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
                WHERE table_schema = 'public'
                """, logger: quiet)
            for try await (table, column, type, nullable) in result.decode((String, String, String, String).self) {
                rows.add(table, column, Declared(type: type, notNull: nullable == "NO"))
            }
        }
        await TestPostgres.dropDatabase(url)
        var extra = Self.serverOnly
        for (table, columns) in Self.postgresOnly { extra[table, default: []].formUnion(columns) }
        Self.check(rows.schema, named: "PostgreSQL", type: { $0.postgresDataType }, extra: extra, stamp: true)
    }

    @Test("a field missing from a schema, or declared with another type or nullability, is reported")
    func driftIsCaught() async throws {
        // The check itself must fail on drift: a server file whose sets lost `notes` and whose
        // `rpe` became NOT NULL TEXT.
        let path = Self.temporaryPath("drifted.sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteServerStore(path: path)
        try await store.close()
        var schema = try Self.sqliteSchema(path)
        schema["sets"]?["notes"] = nil
        schema["sets"]?["rpe"] = Declared(type: "TEXT", notNull: true)
        schema["sets"]?["mood"] = Declared(type: "TEXT", notNull: false)
        await withKnownIssue {
            Self.check(schema, named: "drifted", type: { $0.sqliteDeclaration }, extra: Self.serverOnly, stamp: true)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("sets.notes is missing") || text.contains("sets.rpe is TEXT NOT NULL")
                || text.contains("mood")
        }
    }
}

/// Rows read on PostgreSQL's event loop, handed back to the test.
final class SchemaRows: Sendable {
    private let rows = Mutex<SchemaDriftTests.Schema>([:])

    func add(_ table: String, _ column: String, _ declared: SchemaDriftTests.Declared) {
        rows.withLock { $0[table, default: [:]][column] = declared }
    }

    var schema: SchemaDriftTests.Schema { rows.withLock { $0 } }
}

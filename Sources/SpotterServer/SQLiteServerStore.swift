import Foundation
import GRDB
import SpotterCore
import SpotterProtocol

/// The server store in one SQLite file (WAL), the default for `spotter serve` and the embedded server.
///
/// One writer at a time is SQLite's nature; that serialises idempotency claims inside a
/// process, and the claim record itself (not memory) is what other requests consult.
public struct SQLiteServerStore: ServerStore {
    /// Reads only: every write goes through `groupCommit`.
    let dbWriter: any DatabaseWriter
    /// Every write goes through here: concurrent writes share one transaction and one flush.
    let groupCommit: GroupCommitWriter
    public let identity: String

    /// Opens (creating if needed) the database at `path` and migrates it.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        // Two instances (or `serve users`) started at once on a new file: one creates it and its
        // tables, the other waits for that and finds them made.
        let pool = try DirectoryLock.holding(directory) { () throws -> DatabasePool in
            let pool = try DatabasePool(path: path, configuration: configuration)
            // An answered write survives a power cut: the WAL is flushed at every commit. GRDB sets
            // a pool's writer to NORMAL as it turns WAL on (after `prepareDatabase`), so FULL is set
            // here, on the one writer connection. Group commit, not a weaker setting, is what keeps
            // it affordable.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // The writer's page cache (SQLite's default is 2 MiB): creates land on random leaves of
                // the id and key indexes, and a leaf evicted between two writes is read back from the
                // file by the one writer every request waits for.
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
                // Checkpoints, run by the writer after its commit, every 4 000 WAL pages instead of 1 000:
                // the pages every commit rewrites (the tails of the tables and of the version indexes,
                // the change counter) are copied back once per checkpoint rather than four times, with a
                // quarter of the database-file flushes. The WAL stays bounded (about 16 MiB).
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.walAutocheckpointPages)")
                // Every write runs in a savepoint of the group's transaction, and a savepoint keeps the
                // first image of each page it changes in a sub-journal: a temporary file by default,
                // written with a syscall per page. In memory, it costs a copy. (Nothing durable is in
                // it: it only undoes a savepoint, and is gone at commit or crash either way.)
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
            try Self.migrator.migrate(pool)
            return pool
        }
        identity =
            try pool.read { db in
                try String.fetchOne(db, sql: "SELECT id FROM server_identity")
            } ?? ""
        dbWriter = pool
        groupCommit = GroupCommitWriter(writer: pool)
    }

    /// The writer connection's page cache, in KiB.
    static let writerCacheKiB = 32 * 1024

    /// WAL pages after which the writer checkpoints (SQLite's default is 1 000).
    static let walAutocheckpointPages = 4000

    /// How many transactions the writes so far were grouped into.
    var groupedTransactions: Int { groupCommit.groupCount }

    /// The writer connection's `PRAGMA synchronous` (2 is FULL) as a write of this kind runs.
    func synchronousMode(durable: Bool = true) async throws -> Int {
        try await groupCommit.write(durable: durable) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// One writer: see `ServerStore.claimsWithTheEffect`.
    public var claimsWithTheEffect: Bool { true }

    /// Runs `work` in the next group's transaction. Its calls answer at once (SQLite), so it runs
    /// to its end on the group's queue, inside the transaction (`InlineAsync`).
    public func write<T: Sendable>(
        _ work: @escaping @Sendable (any ServerTransaction) async throws -> T
    ) async throws -> T {
        try await groupCommit.write { db in
            let transaction = SQLiteServerTransaction(db: db)
            let result = try InlineAsync.run { try await work(transaction) }
            try transaction.storeChangeVersion()
            return result
        }
    }

    public func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval,
        staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        // Fast path without taking the write lock: a completed, unexpired record with the same
        // fingerprint can only ever replay (completed records are never changed, only purged).
        let replay: StoredResponse? = try await dbWriter.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT status, content_type, body FROM idempotency_records
                        WHERE owner = ? AND method = ? AND path = ? AND key = ? AND completed = 1
                          AND fingerprint = ? AND created_at > ?
                        """,
                    arguments: [
                        scope.user, scope.method, scope.path, scope.key, fingerprint,
                        now.timeIntervalSince1970 - expiresAfter,
                    ])
            else { return nil }
            return StoredResponse(status: row["status"], contentType: row["content_type"], body: row["body"] ?? Data())
        }
        if let replay { return .completed(replay) }
        return try await groupCommit.write(durable: false) { db in
            try SQLiteServerTransaction(db: db).claimIdempotencyKey(
                scope, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter, staleAfter: staleAfter)
        }
    }

    public func releaseIdempotencyKey(_ scope: IdempotencyScope, token: String) async throws {
        try await groupCommit.write { db in
            try db.execute(
                sql: """
                    DELETE FROM idempotency_records
                    WHERE owner = ? AND method = ? AND path = ? AND key = ? AND token = ? AND completed = 0
                    """, arguments: [scope.user, scope.method, scope.path, scope.key, token])
        }
    }

    public func purgeIdempotencyRecords(createdBefore cutoff: Date) async throws -> Int {
        try await groupCommit.write { db in
            try db.execute(
                sql: "DELETE FROM idempotency_records WHERE created_at < ?",
                arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    public func idempotencyRecord(_ scope: IdempotencyScope) async throws -> IdempotencyRecord? {
        try await dbWriter.read { db in try SQLiteServerTransaction(db: db).record(scope) }
    }

    public func workouts(user: String, includeDeleted: Bool) async throws -> [WireWorkout] {
        try await dbWriter.read { db in
            try NamedRow.fetchAll(
                db.makeStatement(
                    sql:
                        "SELECT * FROM workouts WHERE owner = ? \(includeDeleted ? "" : "AND deleted = 0") ORDER BY started_at, id"
                ), arguments: [user]
            ).map { try StoredEntity.workout($0) }
        }
    }

    public func sets(user: String, workoutID: String?, includeDeleted: Bool) async throws -> [WireSet] {
        try await dbWriter.read { db in
            var sql = "SELECT * FROM sets WHERE owner = ?"
            var arguments: StatementArguments = [user]
            if let workoutID {
                sql += " AND workout_id = ?"
                arguments += [workoutID]
            }
            if !includeDeleted { sql += " AND deleted = 0" }
            sql += " ORDER BY workout_id, position, performed_at, id"
            return try NamedRow.fetchAll(db.makeStatement(sql: sql), arguments: arguments).map {
                try StoredEntity.set($0)
            }
        }
    }

    public func favorites(user: String) async throws -> [String] {
        try await dbWriter.read { db in
            try String.fetchAll(
                db, sql: "SELECT exercise FROM favorites WHERE owner = ? ORDER BY exercise", arguments: [user])
        }
    }

    public func changes(user: String, after version: Int64, limit: Int) async throws -> ChangeSlice {
        try await dbWriter.read { db in
            // The page ends at the `limit`-th smallest version over the tables (read from the
            // (owner, server_version) indexes, versions only); then only the rows up to it are
            // read and decoded. Versions come from one counter, so none is in two tables.
            var versions: [Int64] = []
            for table in Self.feedTables {
                versions += try Int64.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT server_version FROM \(table) WHERE owner = ? AND server_version > ?
                            ORDER BY server_version LIMIT ?
                            """), arguments: [user, version, limit + 1])
            }
            guard !versions.isEmpty else { return ChangeSlice(changes: [], hasMore: false) }
            versions.sort()
            let last = versions[min(limit, versions.count) - 1]
            func rows(_ table: String) throws -> [NamedRow] {
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT * FROM \(table) WHERE owner = ? AND server_version > ? AND server_version <= ?
                        ORDER BY server_version
                        """)
                return try NamedRow.fetchAll(statement, arguments: [user, version, last])
            }
            var changes: [WireChange] = []
            changes.reserveCapacity(min(limit, versions.count))
            changes += try rows("workouts").map { WireChange.workout(try StoredEntity.workout($0)) }
            changes += try rows("sets").map { WireChange.set(try StoredEntity.set($0)) }
            changes += try rows("routines").map { WireChange.routine(try StoredEntity.routine($0)) }
            changes += try rows("body_weights").map { WireChange.bodyWeight(try StoredEntity.bodyWeight($0)) }
            changes += try rows("conflicts").map { WireChange.conflict(try StoredEntity.conflict($0)) }
            changes.sort { $0.serverVersion < $1.serverVersion }
            return ChangeSlice(changes: changes, hasMore: versions.count > limit)
        }
    }

    /// The tables the change feed reads, each indexed on (owner, server_version).
    static let feedTables = ["workouts", "sets", "routines", "body_weights", "conflicts"]

    /// One sequence numbers every user's changes: its value bounds each feed.
    public func feedHead(user: String) async throws -> Int64 {
        try await dbWriter.read { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM change_sequence WHERE id = 1") ?? 0
        }
    }

    public func ping() async throws {
        _ = try await dbWriter.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    public func close() async throws {
        try dbWriter.close()
    }
}

extension WireChange {
    var serverVersion: Int64 {
        switch self {
        case .workout(let workout): workout.serverVersion ?? 0
        case .set(let set): set.serverVersion ?? 0
        case .routine(let routine): routine.serverVersion ?? 0
        case .bodyWeight(let entry): entry.serverVersion ?? 0
        case .conflict(let conflict): conflict.serverVersion
        }
    }
}

/// One write transaction of `SQLiteServerStore`.
struct SQLiteServerTransaction: ServerTransaction {
    let db: Database
    private let versions = ChangeVersions()

    /// The versions one write hands out (a batch: one per operation). The first is taken from the
    /// counter; the others are counted here and the last is stored once, when the write's work is
    /// done (`storeChangeVersion`), instead of the counter being updated a hundred times. An
    /// operation undone by its savepoint leaves its version unused: the feed only needs versions
    /// to grow, never to be consecutive.
    final class ChangeVersions {
        var last: Int64?
        var stored = true
    }

    /// One global counter: SQLite's single writer already orders every commit.
    func nextChangeVersion(owner: String) throws -> Int64 {
        if let last = versions.last {
            versions.last = last + 1
            versions.stored = false
            return last + 1
        }
        let first =
            try Int64.fetchOne(
                db.cachedStatement(sql: "UPDATE change_sequence SET value = value + 1 WHERE id = 1 RETURNING value"))
            ?? 0
        versions.last = first
        return first
    }

    /// Stores the last version this write handed out, in its transaction (see `ChangeVersions`).
    func storeChangeVersion() throws {
        guard !versions.stored, let last = versions.last else { return }
        try db.cachedStatement(sql: "UPDATE change_sequence SET value = ? WHERE id = 1").execute(arguments: [last])
        versions.stored = true
    }

    func workout(id: String, owner: String) throws -> WireWorkout? {
        try NamedRow.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM workouts WHERE owner = ? AND id = ?"), arguments: [owner, id]
        ).map { try StoredEntity.workout($0) }
    }

    func workoutIsLive(id: String, owner: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: "SELECT EXISTS (SELECT 1 FROM workouts WHERE owner = ? AND id = ? AND deleted = 0)"),
            arguments: [owner, id]) ?? false
    }

    func saveWorkout(_ workout: WireWorkout, owner: String) throws {
        try db.cachedStatement(sql: Self.saveWorkoutSQL).execute(
            arguments: StatementArguments(workout.workout.columnArguments + Self.rest(of: workout, owner)))
    }

    // The statements' text, made once from the entities' columns (not at every request: building
    // it cost a write a few microseconds of string work before the statement cache could answer).
    private static let saveWorkoutSQL = """
        INSERT OR REPLACE INTO workouts (\(Workout.Column.columnList), owner, \(ServerStampColumn.columnList))
        VALUES (\(placeholders(Workout.Column.allCases.count + 1 + ServerStampColumn.allCases.count)))
        """
    private static let saveSetSQL = """
        INSERT OR REPLACE INTO sets (\(WorkoutSet.Column.columnList), owner, \(ServerStampColumn.columnList))
        VALUES (\(setPlaceholders))
        """
    private static let insertNewSetSQL = """
        INSERT INTO sets (\(WorkoutSet.Column.columnList), owner, \(ServerStampColumn.columnList))
        SELECT \(setPlaceholders)
        WHERE EXISTS (SELECT 1 FROM workouts WHERE owner = ? AND id = ? AND deleted = 0)
        ON CONFLICT (owner, id) DO NOTHING
        """

    func set(id: String, owner: String) throws -> WireSet? {
        try NamedRow.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM sets WHERE owner = ? AND id = ?"), arguments: [owner, id]
        ).map { try StoredEntity.set($0) }
    }

    func saveSet(_ set: WireSet, owner: String) throws {
        try db.cachedStatement(sql: Self.saveSetSQL).execute(arguments: Self.setValues(set, owner: owner))
    }

    func insertNewSet(_ set: WireSet, owner: String) throws -> Bool {
        try db.cachedStatement(sql: Self.insertNewSetSQL).execute(
            arguments: Self.setValues(set, owner: owner) + [owner, set.workoutID.wireString])
        return db.changesCount == 1
    }

    private static let setPlaceholders = placeholders(
        WorkoutSet.Column.allCases.count + 1 + ServerStampColumn.allCases.count)

    /// A set row's values, in the column order `saveSet` and `insertNewSet` write.
    private static func setValues(_ set: WireSet, owner: String) -> StatementArguments {
        StatementArguments(set.set.columnArguments + rest(of: set, owner))
    }

    /// The owner and the server's stamp, in `ServerStampColumn` order, after an entity's columns.
    static func rest(of stamped: some StampedRow, _ owner: String) -> [DatabaseValue] {
        [owner.databaseValue] + stamped.stampValues.map(\.databaseValue)
    }

    func liveSets(workoutID: String, owner: String) throws -> [WireSet] {
        try NamedRow.fetchAll(
            db.cachedStatement(
                sql: "SELECT * FROM sets WHERE owner = ? AND workout_id = ? AND deleted = 0 ORDER BY position, id"),
            arguments: [owner, workoutID]
        ).map { try StoredEntity.set($0) }
    }

    func addFavorite(_ exercise: String, owner: String) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO favorites (owner, exercise) VALUES (?, ?)").execute(
            arguments: [owner, exercise])
        return db.changesCount > 0
    }

    func removeFavorite(_ exercise: String, owner: String) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM favorites WHERE owner = ? AND exercise = ?").execute(arguments: [
            owner, exercise,
        ])
        return db.changesCount > 0
    }

    func record(_ scope: IdempotencyScope) throws -> IdempotencyRecord? {
        try NamedRow.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT fingerprint, completed, status, content_type, body, created_at, locked_at
                    FROM idempotency_records WHERE owner = ? AND method = ? AND path = ? AND key = ?
                    """), arguments: [scope.user, scope.method, scope.path, scope.key]
        ).map { try StoredEntity.idempotencyRecord($0) }
    }

    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval, staleAfter: TimeInterval
    ) throws -> IdempotencyClaim {
        let arguments: StatementArguments = [scope.user, scope.method, scope.path, scope.key]
        let token = ClaimToken.fresh()
        let nowSeconds = now.timeIntervalSince1970
        // The common case in one statement: a key nobody used. Only when a record is there is it
        // read and judged (replay, 422, 409, expired, stale).
        try db.cachedStatement(
            sql: """
                INSERT INTO idempotency_records
                    (owner, method, path, key, fingerprint, completed, token, created_at, locked_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
                ON CONFLICT (owner, method, path, key) DO NOTHING
                """
        ).execute(arguments: arguments + [fingerprint, token, nowSeconds, nowSeconds])
        if db.changesCount == 1 { return .claimed(token: token) }
        switch ClaimDecision.decide(
            existing: try record(scope), fingerprint: fingerprint, now: now, expiresAfter: expiresAfter,
            staleAfter: staleAfter)
        {
        case .settled(let claim):
            return claim
        case .insert:
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO idempotency_records
                        (owner, method, path, key, fingerprint, completed, token, created_at, locked_at)
                    VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
                    """
            ).execute(arguments: arguments + [fingerprint, token, nowSeconds, nowSeconds])
        case .takeOver:
            try db.cachedStatement(
                sql: """
                    UPDATE idempotency_records SET token = ?, locked_at = ?
                    WHERE owner = ? AND method = ? AND path = ? AND key = ?
                    """
            ).execute(arguments: [token, nowSeconds] + arguments)
        }
        return .claimed(token: token)
    }

    func savepoint(_ work: () async throws -> Bool) async throws {
        try await db.inPreparedSavepoint(work)
    }

    func completeIdempotencyRecord(_ scope: IdempotencyScope, token: String, response: StoredResponse) throws {
        try db.cachedStatement(
            sql: """
                UPDATE idempotency_records SET completed = 1, status = ?, content_type = ?, body = ?
                WHERE owner = ? AND method = ? AND path = ? AND key = ? AND token = ? AND completed = 0
                """
        ).execute(arguments: [
            response.status, response.contentType, response.body, scope.user, scope.method, scope.path,
            scope.key, token,
        ])
        guard db.changesCount == 1 else { throw IdempotencyClaimLost() }
    }
}

/// A SQLite row read as a stored row. Its cells are found in the statement's column names, read
/// once for all its rows: GRDB's lookup by name lower-cases every column name on each call, and
/// `Row.columnNames` copies every cell on each walk (a feed page of sets walked it for each of a
/// row's 15 cells: a quarter of a pull's time).
struct NamedRow: StoredRow {
    let row: Row
    let names: [String]

    /// Every row of `statement`.
    static func fetchAll(_ statement: Statement, arguments: StatementArguments) throws -> [NamedRow] {
        let names = statement.columnNames
        return try Row.fetchAll(statement, arguments: arguments).map { NamedRow(row: $0, names: names) }
    }

    /// The first row of `statement`, if any.
    static func fetchOne(_ statement: Statement, arguments: StatementArguments) throws -> NamedRow? {
        try Row.fetchOne(statement, arguments: arguments).map { NamedRow(row: $0, names: statement.columnNames) }
    }

    func text(_ column: String) throws -> String? { try cell(column) }
    func integer(_ column: String) throws -> Int64? { try cell(column) }
    func real(_ column: String) throws -> Double? { try cell(column) }
    func flag(_ column: String) throws -> Bool? { try cell(column) }
    func bytes(_ column: String) throws -> Data? { try cell(column) }

    private func cell<Value: DatabaseValueConvertible>(_ column: String) throws -> Value? {
        guard let index = names.firstIndex(of: column) else {
            throw StoredCell.Unreadable(column: column, value: "no such column")
        }
        return try row.decode(Value?.self, atIndex: index)
    }
}

extension JSONValue {
    /// The SQLite value a field is stored as: a flag as 0 or 1, a document as its canonical text.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .bool(let value): (value ? 1 : 0).databaseValue
        case .int(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .string(let value): value.databaseValue
        case .array, .object: canonicalString.databaseValue
        }
    }
}

extension ColumnValues {
    /// The entity's columns as statement arguments, in `Column.names` order.
    var columnArguments: [DatabaseValue] { columnValues.map(\.databaseValue) }
}

extension EntityColumn {
    /// `a, b, c`: the columns, for an INSERT.
    static var columnList: String { names.joined(separator: ", ") }
}

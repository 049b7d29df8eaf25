import Foundation
import Logging
import PostgresNIO
import SpotterCore
import SpotterProtocol
import Synchronization

/// The server store on PostgreSQL, shared by any number of `spotter serve` instances.
///
/// Everything that makes the idempotency contract hold lives in the database, never in an
/// instance's memory:
/// - the claim is a row under the primary key (user, method, path, key): inserted with
///   `ON CONFLICT DO NOTHING`, or read `FOR UPDATE`, so two instances racing on one key see one
///   winner, and the loser a record in progress (409) or the stored answer (a replay);
/// - the effect and the completed record commit in one transaction;
/// - every write transaction first locks its user's row in `change_counters`, so one user's
///   writes run one after another on every instance (what SQLite's single writer gives for free)
///   and their change versions commit in the order they were taken: a feed cursor never skips a
///   change that commits late.
public struct PostgresServerStore: ServerStore {
    let pool: PostgresPool
    public let identity: String
    /// Whose transaction runs now from this instance, and who waits for their turn.
    let turns = UserTurns()

    /// Connects, applies the migrations (under an advisory lock, so instances starting together
    /// apply them once) and returns the store. `poolSize` bounds connections and concurrent
    /// transactions of this instance.
    public static func open(
        _ location: PostgresLocation, poolSize: Int, logger: Logger
    ) async throws -> PostgresServerStore {
        let pool = PostgresPool(location: location, size: poolSize, logger: logger)
        let identity: String
        do {
            identity = try await pool.withSession { session in
                try await PostgresSchema.migrate(session)
                let rows = try await session.query("SELECT id FROM server_identity").rows
                return try rows.first.map { try StoredCell.required($0.makeRandomAccess().text("id"), "id") } ?? ""
            }
        } catch {
            await pool.close()
            throw ServerStartError("cannot use PostgreSQL at \(location.redacted): \(error)")
        }
        return PostgresServerStore(pool: pool, identity: identity)
    }

    /// Runs `body` in a session; a pooled connection found dead before anything ran (PostgreSQL
    /// restarted since it was last used) is replaced and the body run again on a fresh one.
    func withSession<T: Sendable>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            do {
                return try await pool.withSession(body)
            } catch let stale as PostgresStaleConnection {
                attempts += 1
                guard attempts <= pool.size else { throw stale.underlying }
            }
        }
    }

    public func write<T: Sendable>(
        _ work: @escaping @Sendable (any ServerTransaction) async throws -> T
    ) async throws -> T {
        var attempts = 0
        while true {
            do {
                return try await withSession { session in
                    try await session.transaction { try await work(PostgresServerTransaction(session: session)) }
                }
            } catch let error as PostgresStatementError where error.isRetryable {
                // A deadlock or serialization failure undid the whole transaction: run it again.
                attempts += 1
                guard attempts < 5 else { throw ServerStoreUnavailable("\(error), five times in a row") }
            }
        }
    }

    /// One transaction of `user`'s at a time from this instance: the others wait here, holding no
    /// connection, instead of each taking one of the pool's to wait on the user's counter lock —
    /// one account's burst could otherwise hold the whole pool while other accounts wait.
    public func write<T: Sendable>(
        of user: String, _ work: @escaping @Sendable (any ServerTransaction) async throws -> T
    ) async throws -> T {
        await turns.begin(user)
        defer { turns.end(user) }
        return try await write(work)
    }

    public func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval,
        staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        try await withSession { session in
            // The common case in one round trip: a new key, inserted on its own (autocommit).
            if let token = try await PostgresIdempotency.insertFresh(
                scope, fingerprint: fingerprint, now: now, in: session)
            {
                return .claimed(token: token)
            }
            // A completed, unexpired record with this fingerprint can only replay: no lock needed.
            if let record = try await PostgresIdempotency.record(scope, in: session), record.isCompleted,
                record.fingerprint == fingerprint, now.timeIntervalSince(record.createdAt) < expiresAfter,
                let response = record.response
            {
                return .completed(response)
            }
            return try await session.transaction {
                try await PostgresIdempotency.claim(
                    scope, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter, staleAfter: staleAfter,
                    in: session)
            }
        }
    }

    public func releaseIdempotencyKey(_ scope: IdempotencyScope, token: String) async throws {
        _ = try await withSession { session in
            try await session.execute(
                """
                DELETE FROM idempotency_records
                WHERE owner = \(scope.user) AND method = \(scope.method) AND path = \(scope.path)
                  AND key = \(scope.key) AND token = \(token) AND NOT completed
                """)
        }
    }

    public func purgeIdempotencyRecords(createdBefore cutoff: Date) async throws -> Int {
        try await withSession { session in
            try await session.execute(
                "DELETE FROM idempotency_records WHERE created_at < \(cutoff.timeIntervalSince1970)")
        }
    }

    public func idempotencyRecord(_ scope: IdempotencyScope) async throws -> IdempotencyRecord? {
        try await withSession { session in try await PostgresIdempotency.record(scope, in: session) }
    }

    public func workouts(user: String, includeDeleted: Bool) async throws -> [WireWorkout] {
        try await withSession { session in
            try await session.query(
                """
                SELECT * FROM workouts WHERE owner = \(user) AND (\(includeDeleted) OR NOT deleted)
                ORDER BY started_at, id
                """
            ).rows.map { try StoredEntity.workout($0.makeRandomAccess()) }
        }
    }

    public func sets(user: String, workoutID: String?, includeDeleted: Bool) async throws -> [WireSet] {
        try await withSession { session in
            // An absent workout is spelled out in the SQL: a NULL parameter has no type to compare.
            let query: PostgresQuery =
                if let workoutID {
                    """
                    SELECT * FROM sets WHERE owner = \(user) AND workout_id = \(workoutID)
                      AND (\(includeDeleted) OR NOT deleted)
                    ORDER BY workout_id, position, performed_at, id
                    """
                } else {
                    """
                    SELECT * FROM sets WHERE owner = \(user) AND (\(includeDeleted) OR NOT deleted)
                    ORDER BY workout_id, position, performed_at, id
                    """
                }
            return try await session.query(query).rows.map { try StoredEntity.set($0.makeRandomAccess()) }
        }
    }

    public func favorites(user: String) async throws -> [String] {
        try await withSession { session in
            try await session.query("SELECT exercise FROM favorites WHERE owner = \(user) ORDER BY folded").rows.map {
                try StoredCell.required($0.makeRandomAccess().text("exercise"), "exercise")
            }
        }
    }

    public func changes(user: String, after version: Int64, limit: Int) async throws -> ChangeSlice {
        try await withSession { session in
            // Every table is read in one snapshot: a commit between two reads would otherwise let
            // the cursor pass a change of a table read before it.
            try await session.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                let workouts = try await session.query(
                    """
                    SELECT * FROM workouts WHERE owner = \(user) AND server_version > \(version)
                    ORDER BY server_version LIMIT \(limit + 1)
                    """
                ).rows.map { WireChange.workout(try StoredEntity.workout($0.makeRandomAccess())) }
                let sets = try await session.query(
                    """
                    SELECT * FROM sets WHERE owner = \(user) AND server_version > \(version)
                    ORDER BY server_version LIMIT \(limit + 1)
                    """
                ).rows.map { WireChange.set(try StoredEntity.set($0.makeRandomAccess())) }
                let routines = try await Self.routineChanges(session, user: user, after: version, limit: limit)
                let bodyWeights = try await Self.bodyWeightChanges(session, user: user, after: version, limit: limit)
                let conflicts = try await PostgresSchema.conflictChanges(
                    session, user: user, after: version, limit: limit)
                let merged = (workouts + sets + routines + bodyWeights + conflicts).sorted {
                    $0.serverVersion < $1.serverVersion
                }
                return ChangeSlice(changes: Array(merged.prefix(limit)), hasMore: merged.count > limit)
            }
        }
    }

    public func feedHead(user: String) async throws -> Int64 {
        try await withSession { session in
            let rows = try await session.query("SELECT value FROM change_counters WHERE owner = \(user)").rows
            return try rows.first.map { try StoredCell.required($0.makeRandomAccess().integer("value"), "value") } ?? 0
        }
    }

    public func ping() async throws {
        _ = try await withSession { session in try await session.execute("SELECT 1") }
    }

    public func close() async throws {
        await pool.close()
    }
}

/// One write transaction of `PostgresServerStore`.
final class PostgresServerTransaction: ServerTransaction {
    let session: PostgresSession
    /// Users whose counter row this transaction holds locked (forgotten when a savepoint is
    /// rolled back: PostgreSQL releases the locks taken after it).
    private var lockedOwners: Set<String> = []
    /// The version each locked user's counter gave when it was locked, until a write takes it.
    private var reserved: [String: Int64] = [:]
    /// The session's statement count right after BEGIN: equal to it, nothing has run yet.
    private var sentAtBegin: Int

    /// `session` has just begun the transaction.
    init(session: PostgresSession) {
        self.session = session
        sentAtBegin = session.progress.sent
    }

    /// Locks `owner`'s counter row until the transaction ends, before anything of theirs is
    /// read or written: their writes on every instance queue here, one at a time. The same
    /// statement counts once and keeps that version for this transaction's first write, so the
    /// lock costs no round trip of its own (a transaction that writes nothing leaves its version
    /// unused: the feed only needs versions to grow, never to be consecutive).
    func serialize(_ owner: String) async throws {
        guard !lockedOwners.contains(owner) else { return }
        let counted = try await session.query(
            """
            INSERT INTO change_counters (owner, value) VALUES (\(owner), 1)
            ON CONFLICT (owner) DO UPDATE SET value = change_counters.value + 1 RETURNING value
            """)
        lockedOwners.insert(owner)
        reserved[owner] = try Self.counterValue(counted)
    }

    func nextChangeVersion(owner: String) async throws -> Int64 {
        try await serialize(owner)
        if let version = reserved.removeValue(forKey: owner) { return version }
        return try Self.counterValue(
            await session.query("UPDATE change_counters SET value = value + 1 WHERE owner = \(owner) RETURNING value"))
    }

    private static func counterValue(_ result: PostgresQueryResult) throws -> Int64 {
        guard let row = result.rows.first else { throw StoredCell.Unreadable(column: "value", value: "no counter") }
        return try StoredCell.required(row.makeRandomAccess().integer("value"), "value")
    }

    func workout(id: String, owner: String) async throws -> WireWorkout? {
        try await serialize(owner)
        return try await session.query("SELECT * FROM workouts WHERE owner = \(owner) AND id = \(id)").rows.first.map {
            try StoredEntity.workout($0.makeRandomAccess())
        }
    }

    func workoutIsLive(id: String, owner: String) async throws -> Bool {
        try await serialize(owner)
        let found = try await session.query(
            "SELECT 1 FROM workouts WHERE owner = \(owner) AND id = \(id) AND NOT deleted")
        return !found.rows.isEmpty
    }

    func saveWorkout(_ workout: WireWorkout, owner: String) async throws {
        try await serialize(owner)
        try await session.query(
            Self.insert(
                workout.workout, into: Workout.Column.table, owner: owner, stamp: workout,
                "ON CONFLICT (owner, id) DO UPDATE SET \(Self.takeExcluded(Workout.Column.self))"))
    }

    func set(id: String, owner: String) async throws -> WireSet? {
        try await serialize(owner)
        return try await session.query("SELECT * FROM sets WHERE owner = \(owner) AND id = \(id)").rows.first.map {
            try StoredEntity.set($0.makeRandomAccess())
        }
    }

    /// One statement: the row goes in only when its workout is live and its id is free.
    func insertNewSet(_ set: WireSet, owner: String) async throws -> Bool {
        try await serialize(owner)
        let written = try await session.query(
            Self.insert(
                set.set, into: WorkoutSet.Column.table, owner: owner, stamp: set,
                "ON CONFLICT (owner, id) DO NOTHING RETURNING id", onlyInLiveWorkout: set.workoutID.wireString))
        return !written.rows.isEmpty
    }

    func saveSet(_ set: WireSet, owner: String) async throws {
        try await insertSet(
            set, owner: owner, onConflict: "DO UPDATE SET \(Self.takeExcluded(WorkoutSet.Column.self))")
    }

    /// Writes a set row; `conflict` (SQL) says what a row already there under its id gets.
    /// Returns whether a row was written.
    @discardableResult
    private func insertSet(_ set: WireSet, owner: String, onConflict conflict: String) async throws -> Bool {
        try await serialize(owner)
        let written = try await session.query(
            Self.insert(
                set.set, into: WorkoutSet.Column.table, owner: owner, stamp: set,
                "ON CONFLICT (owner, id) \(conflict) RETURNING id"))
        return !written.rows.isEmpty
    }

    /// `INSERT INTO table (the entity's columns, owner, the stamp's) VALUES ($1, …) tail`, every
    /// value bound: one statement for every entity, its columns read from its definition.
    /// With `onlyInLiveWorkout`, the row is written only when `owner` has that workout, not deleted.
    static func insert<Entity: ColumnValues>(
        _ entity: Entity, into table: String, owner: String, stamp: some StampedRow, _ tail: String,
        onlyInLiveWorkout workoutID: String? = nil
    ) -> PostgresQuery {
        var bindings = PostgresBindings()
        for value in entity.columnValues + [.string(owner)] + stamp.stampValues {
            switch value {
            case .null: bindings.appendNull()
            case .string(let text): bindings.append(text)
            case .int(let number): bindings.append(number)
            case .double(let number): bindings.append(number)
            case .bool(let flag): bindings.append(flag)
            case .array, .object: bindings.append(value.canonicalString)
            }
        }
        let columns = Entity.Column.names + ["owner"] + ServerStampColumn.names
        let parameters = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        var source = "VALUES (\(parameters))"
        if let workoutID {
            let ownerParameter = Entity.Column.names.count + 1
            bindings.append(workoutID)
            source = """
                SELECT \(parameters) WHERE EXISTS (
                    SELECT 1 FROM workouts WHERE owner = $\(ownerParameter) AND id = $\(columns.count + 1) AND NOT deleted)
                """
        }
        return PostgresQuery(
            unsafeSQL: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) \(source) \(tail)", binds: bindings)
    }

    /// `a = EXCLUDED.a, …` for every column but the id, and the stamp's: an upsert taking the row whole.
    static func takeExcluded<Column: EntityColumn>(_: Column.Type) -> String {
        (Column.names.filter { $0 != "id" } + ServerStampColumn.names).map { "\($0) = EXCLUDED.\($0)" }
            .joined(separator: ", ")
    }

    func liveSets(workoutID: String, owner: String) async throws -> [WireSet] {
        try await serialize(owner)
        return try await session.query(
            """
            SELECT * FROM sets WHERE owner = \(owner) AND workout_id = \(workoutID) AND NOT deleted
            ORDER BY position, id
            """
        ).rows.map { try StoredEntity.set($0.makeRandomAccess()) }
    }

    func addFavorite(_ exercise: String, owner: String) async throws -> Bool {
        // The user's lock first, as for every other write: two batches touching the same
        // favorites in opposite orders would otherwise deadlock.
        try await serialize(owner)
        return try await session.execute(
            """
            INSERT INTO favorites (owner, folded, exercise) VALUES (\(owner), \(PostgresSchema.folded(exercise)), \(exercise))
            ON CONFLICT (owner, folded) DO NOTHING
            """) > 0
    }

    func removeFavorite(_ exercise: String, owner: String) async throws -> Bool {
        try await serialize(owner)
        return try await session.execute(
            "DELETE FROM favorites WHERE owner = \(owner) AND folded = \(PostgresSchema.folded(exercise))") > 0
    }

    func completeIdempotencyRecord(_ scope: IdempotencyScope, token: String, response: StoredResponse) async throws {
        let changed = try await session.execute(
            """
            UPDATE idempotency_records
            SET completed = TRUE, status = \(response.status), content_type = \(response.contentType),
                body = \(response.body)
            WHERE owner = \(scope.user) AND method = \(scope.method) AND path = \(scope.path)
              AND key = \(scope.key) AND token = \(token) AND NOT completed
            """)
        guard changed == 1 else { throw IdempotencyClaimLost() }
    }

    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval, staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        // The user's lock first, as every write of theirs takes it: a claim inside a write
        // transaction never waits for a record while holding what that record's writer needs.
        try await serialize(scope.user)
        return try await PostgresIdempotency.claim(
            scope, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter, staleAfter: staleAfter,
            in: session)
    }

    /// A savepoint, or — when nothing has run since BEGIN, as for every single route and the
    /// first operation of a batch — the transaction itself: undoing it is then ROLLBACK and a new
    /// BEGIN, and two round trips (SAVEPOINT, RELEASE) are saved on every write.
    func savepoint(_ work: () async throws -> Bool) async throws {
        let pristine = session.progress.sent == sentAtBegin
        if !pristine { try await session.query("SAVEPOINT spotter_write") }
        let keep: Bool
        do {
            keep = try await work()
        } catch let error as ServerStoreUnavailable {
            throw error  // the link is gone, and the whole transaction with it
        } catch {
            try await undo(pristine: pristine)
            throw error
        }
        if !keep {
            try await undo(pristine: pristine)
        } else if !pristine {
            try await session.query("RELEASE SAVEPOINT spotter_write")
        }
    }

    private func undo(pristine: Bool) async throws {
        if pristine {
            try await session.query("ROLLBACK")
            try await session.query("BEGIN")
            sentAtBegin = session.progress.sent
        } else {
            try await session.query("ROLLBACK TO SAVEPOINT spotter_write")
            try await session.query("RELEASE SAVEPOINT spotter_write")
        }
        lockedOwners.removeAll()
        reserved.removeAll()
    }
}

/// The idempotency record's statements on PostgreSQL; the decision itself is `ClaimDecision`'s.
enum PostgresIdempotency {
    static func record(
        _ scope: IdempotencyScope, in session: PostgresSession, forUpdate: Bool = false
    ) async throws
        -> IdempotencyRecord?
    {
        try await session.query(
            """
            SELECT fingerprint, completed, status, content_type, body, created_at, locked_at
            FROM idempotency_records
            WHERE owner = \(scope.user) AND method = \(scope.method) AND path = \(scope.path) AND key = \(scope.key)
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """
        ).rows.first.map { try StoredEntity.idempotencyRecord($0.makeRandomAccess()) }
    }

    /// Inserts an in-progress record for a key nobody holds; its token, or nil when a record
    /// exists (after waiting for a transaction that is creating one to end).
    static func insertFresh(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, in session: PostgresSession
    ) async throws -> String? {
        let token = UUID().uuidString
        let seconds = now.timeIntervalSince1970
        let inserted = try await session.execute(
            """
            INSERT INTO idempotency_records
                (owner, method, path, key, fingerprint, completed, token, created_at, locked_at)
            VALUES (\(scope.user), \(scope.method), \(scope.path), \(scope.key), \(fingerprint), FALSE,
                    \(token), \(seconds), \(seconds))
            ON CONFLICT (owner, method, path, key) DO NOTHING
            """)
        return inserted == 1 ? token : nil
    }

    /// Claims `scope` inside the session's open transaction. The insert either creates the
    /// record (ours) or finds one — waiting, if another transaction is creating it, until that
    /// one commits or rolls back; the record found is then read under a row lock and decided on.
    static func claim(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval,
        staleAfter: TimeInterval, in session: PostgresSession
    ) async throws -> IdempotencyClaim {
        let token = UUID().uuidString
        let seconds = now.timeIntervalSince1970
        // A record purged between the insert and the read is simply tried again.
        for _ in 0..<3 {
            if let fresh = try await insertFresh(scope, fingerprint: fingerprint, now: now, in: session) {
                return .claimed(token: fresh)
            }
            guard let existing = try await record(scope, in: session, forUpdate: true) else { continue }
            switch ClaimDecision.decide(
                existing: existing, fingerprint: fingerprint, now: now, expiresAfter: expiresAfter,
                staleAfter: staleAfter)
            {
            case .settled(let claim):
                return claim
            case .insert:
                try await session.query(
                    """
                    UPDATE idempotency_records
                    SET fingerprint = \(fingerprint), completed = FALSE, status = NULL, content_type = NULL,
                        body = NULL, token = \(token), created_at = \(seconds), locked_at = \(seconds)
                    WHERE owner = \(scope.user) AND method = \(scope.method) AND path = \(scope.path)
                      AND key = \(scope.key)
                    """)
                return .claimed(token: token)
            case .takeOver:
                try await session.query(
                    """
                    UPDATE idempotency_records SET token = \(token), locked_at = \(seconds)
                    WHERE owner = \(scope.user) AND method = \(scope.method) AND path = \(scope.path)
                      AND key = \(scope.key)
                    """)
                return .claimed(token: token)
            }
        }
        throw ServerStoreUnavailable("the idempotency record of \(scope.key) kept disappearing")
    }
}

/// A pooled connection that turned out dead at its transaction's first statement: nothing ran,
/// so the work may go again on another connection.
struct PostgresStaleConnection: Error {
    var underlying: ServerStoreUnavailable
}

// The accessors are public only because `ColumnReader` is: the conformance itself is the server's.
extension PostgresRandomAccessRow: StoredRow {
    public func text(_ column: String) throws -> String? { try cell(column, as: String.self) }
    public func integer(_ column: String) throws -> Int64? { try cell(column, as: Int64.self) }
    public func real(_ column: String) throws -> Double? { try cell(column, as: Double.self) }
    public func flag(_ column: String) throws -> Bool? { try cell(column, as: Bool.self) }
    public func bytes(_ column: String) throws -> Data? { try cell(column, as: Data.self) }

    private func cell<Value: PostgresDecodable>(_ column: String, as type: Value.Type) throws -> Value? {
        guard contains(column) else { throw StoredCell.Unreadable(column: column, value: "no such column") }
        let cell = self[column]
        guard cell.bytes != nil else { return nil }
        do {
            return try cell.decode(Value.self)
        } catch {
            throw StoredCell.Unreadable(column: column, value: "a \(cell.dataType) cell")
        }
    }
}

extension PostgresSchema {
    /// A favorite's key: ASCII letters folded, as SQLite's NOCASE folds them, so both stores
    /// take "bench press" and "Bench Press" for the same favorite and list them in the same order.
    static func folded(_ exercise: String) -> String {
        String(
            decoding: exercise.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// One turn at a time per user, handed to the next in the order they asked; a user nobody waits
/// for costs nothing.
final class UserTurns: Sendable {
    private struct Queue {
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// Users with a turn running; their queued waiters.
    private let running = Mutex<[String: Queue]>([:])

    func begin(_ user: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = running.withLock { running -> Bool in
                guard running[user] != nil else {
                    running[user] = Queue()
                    return true
                }
                running[user]!.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func end(_ user: String) {
        let next = running.withLock { running -> CheckedContinuation<Void, Never>? in
            guard var queue = running[user], !queue.waiting.isEmpty else {
                running[user] = nil
                return nil
            }
            let next = queue.waiting.removeFirst()
            running[user] = queue
            return next
        }
        next?.resume()
    }
}

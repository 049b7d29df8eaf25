import Foundation
import GRDB
import SpotterCore

/// A workout as the workouts list shows it.
public struct WorkoutSummary: Sendable, Equatable {
    public var workout: Workout
    /// Its live sets (of every account); nil when the read left them uncounted (the UI's list,
    /// which shows no counts, asks only for the selected workout's: see `liveSetCount`).
    public var setCount: Int?
    public var syncState: SyncState
    public var syncError: String?
}

/// A set as the sets pane shows it, with what the server knows of it.
public struct SetRow: Sendable, Equatable {
    public var set: WorkoutSet
    public var syncState: SyncState
    public var syncError: String?
    /// The set was an estimated-1RM record when performed (`record == .oneRepMax`).
    public var isPR: Bool
    public var serverVersion: Int64?
    /// The record the set set among the sets performed before it; recomputed for its exercise
    /// after any edit, delete, import or pull there (see `refreshRecords`).
    public var record: RecordKind?
}

extension SpotterStore {
    /// Brings records up to date before sets are read; a database that cannot be written
    /// (read-only file) keeps the records it has.
    func refreshRecordsBeforeReading() {
        do { try refreshRecords() } catch {}
    }

    static func workoutSummary(_ row: Row) throws -> WorkoutSummary {
        let cells = RowCells(row, table: "workouts")
        return WorkoutSummary(
            workout: try Workout(row: row), setCount: try cells.value("set_count") as Int?,
            syncState: try cells.enumeration("sync_state"), syncError: try cells.value("sync_error"))
    }

    /// A listed row still under a waiting owner says so (pending: it has not been sent).
    func markedSetRow(_ row: Row) throws -> SetRow {
        var set = try Self.setRow(row)
        if !waitingOwners.isEmpty, let owner = row["account"] as String?, waitingOwners.contains(owner) {
            set.syncState = .pending
            set.syncError = Self.waitingForTokenCheck
        }
        return set
    }

    func markedWorkoutSummary(_ row: Row) throws -> WorkoutSummary {
        var summary = try Self.workoutSummary(row)
        if !waitingOwners.isEmpty, let owner = row["account"] as String?, waitingOwners.contains(owner) {
            summary.syncState = .pending
            summary.syncError = Self.waitingForTokenCheck
        }
        return summary
    }

    static func setRow(_ row: Row) throws -> SetRow {
        let cells = RowCells(row, table: "sets")
        let record = RecordKind(rawValue: try cells.value("is_pr") as Int? ?? 0)
        return SetRow(
            set: try WorkoutSet(row: row), syncState: try cells.enumeration("sync_state"),
            syncError: try cells.value("sync_error"), isPR: record == .oneRepMax,
            serverVersion: try cells.value("server_version"), record: record)
    }

    static func countQueue(_ db: Database, userID: String) throws -> QueueCounts {
        var counts = QueueCounts()
        let rows = try Row.fetchAll(
            db.cachedStatement(
                // The states listed, not "!= succeeded": the index (user_id, state, seq) then seeks
                // each state's rows instead of walking every succeeded operation kept as history
                // (the engine counts after each batch of a drain).
                sql: """
                    SELECT state, COUNT(*) AS n FROM outbox
                    WHERE user_id = ? AND state IN \(Outbox.unfinishedStates)
                    GROUP BY state
                    """
            ),
            arguments: [userID])
        for row in rows {
            let n: Int = row["n"]
            switch OperationState(rawValue: row["state"]) {
            case .pending, .failedTransient: counts.pending += n
            case .inFlight:
                counts.pending += n
                counts.inFlight += n
            case .failedPermanent: counts.failed += n
            case .blocked: counts.blocked += n
            default: break
            }
        }
        // Those that gave up without an answer, and what waits on them, are no refusal: counted apart.
        if counts.failed > 0 || counts.blocked > 0 {
            let gaveUp =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT COUNT(*) FROM outbox WHERE user_id = ? AND state = \(OperationState.failedPermanent.sql)
                                AND no_answer = 1
                            """), arguments: [userID]) ?? 0
            counts.failed -= gaveUp
            counts.gaveUp = gaveUp
        }
        if counts.blocked > 0 {
            let blocked = try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT depends_on FROM outbox WHERE user_id = ? AND state = \(OperationState.blocked.sql)"),
                arguments: [userID])
            let waiting = try blocked.filter { try Outbox.waitsOnNoAnswer($0, db: db) }.count
            counts.blocked -= waiting
            counts.blockedOnNoAnswer = waiting
        }
        return counts
    }

    /// Sets store the catalogue's spelling; queries look it up first so they hit the index exactly.
    /// The list's spelling of a name; else the catalogue name it is an alias of ("squat" is
    /// Squat (Barbell)); else the name as given.
    static func canonicalExercise(_ name: String, db: Database) throws -> String {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT name FROM exercises WHERE name = ? COLLATE NOCASE"), arguments: [name])
            ?? Catalog.namesByKey[Catalog.aliasKey(name)] ?? Catalog.aliases[Catalog.aliasKey(name)] ?? name
    }

    /// `text` as a LIKE pattern that matches it literally (with `ESCAPE '\\'`): the escape
    /// character itself first, then the wildcards.
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

extension Queries {
    /// The spelling a name is stored under ("squat" is Squat (Barbell)); the name as given when
    /// the list lacks it. Nothing is added to the list.
    /// The stored spelling of a known exercise (catalogue, alias or custom); nil when none is known.
    public func knownExercise(_ name: String) throws -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return try writer.read { db in
            if let stored = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM exercises WHERE name = ? COLLATE NOCASE"),
                arguments: [trimmed])
            {
                return stored
            }
            let key = Catalog.aliasKey(trimmed)
            return Catalog.namesByKey[key] ?? Catalog.aliases[key]
        }
    }

    public func exerciseName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return try writer.read { db in try SpotterStore.canonicalExercise(trimmed, db: db) }
    }

    /// Workouts newest first, with their live set counts.
    /// How many workouts the current view holds (what `workoutSummaries` can list).
    public func workoutCount() throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM workouts WHERE deleted_at IS NULL AND \(store.visible())")
                ?? 0
        }
    }

    ///
    /// - Parameter countingSets: false leaves `setCount` nil. Counting reads every listed
    ///   workout's set entries (random ids: a page or two each, ~550 pages for 200 workouts of a
    ///   million-set database), which the UI's first screen does not show.
    public func workoutSummaries(limit: Int = 200, countingSets: Bool = true) throws -> [WorkoutSummary] {
        try writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: workoutSummariesSQL(countingSets: countingSets)), arguments: [limit]
            )
            .compactMap { try store.readable([$0], store.markedWorkoutSummary).first }
        }
    }

    func workoutSummariesSQL(countingSets: Bool) -> String {
        let setCount =
            countingSets
            ? "(SELECT COUNT(*) FROM sets s WHERE s.workout_id = w.id AND s.deleted_at IS NULL)" : "NULL"
        return """
            SELECT w.*, \(setCount) AS set_count
            FROM workouts w WHERE w.deleted_at IS NULL AND \(store.listed("w.")) ORDER BY w.started_at DESC LIMIT ?
            """
    }

    /// A workout's live sets (of every account), as `setCount` counts them.
    public func liveSetCount(workoutID: UUID) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM sets WHERE workout_id = ? AND deleted_at IS NULL"),
                arguments: [workoutID.wireString]) ?? 0
        }
    }

    /// A workout's live sets in order; all live sets when `workoutID` is nil.
    public func sets(workoutID: UUID?) throws -> [SetRow] {
        store.refreshRecordsBeforeReading()
        return try writer.read { db in
            let rows: [Row]
            if let workoutID {
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql:
                            "SELECT * FROM sets WHERE workout_id = ? AND deleted_at IS NULL AND \(store.listed()) ORDER BY position"
                    ),
                    arguments: [workoutID.wireString])
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM sets WHERE deleted_at IS NULL AND \(store.listed())
                        ORDER BY performed_at, workout_id, position
                        """)
            }
            return try store.readable(rows, store.markedSetRow)
        }
    }

    /// Whether the set is here and not deleted (`set(id:)` also reads a delete's tombstone).
    public func setIsLive(id: UUID) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM sets WHERE id = ? AND deleted_at IS NULL AND \(store.visible()))",
                arguments: [id.wireString]) ?? false
        }
    }

    public func set(id: UUID) throws -> SetRow? {
        store.refreshRecordsBeforeReading()
        return try writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM sets WHERE id = ? AND \(store.visible())", arguments: [id.wireString]
            )
            .map { try SpotterStore.setRow($0) }
        }
    }

    public func workout(id: UUID) throws -> WorkoutSummary? {
        try writer.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT w.*, (SELECT COUNT(*) FROM sets s WHERE s.workout_id = w.id AND s.deleted_at IS NULL) AS set_count
                    FROM workouts w WHERE w.id = ? AND w.deleted_at IS NULL AND \(store.visible("w."))
                    """, arguments: [id.wireString]
            ).map { try SpotterStore.workoutSummary($0) }
        }
    }

    /// The newest operations of this user, newest first (the debug pane and `spotter outbox`).
    public func outbox(limit: Int = 20) throws -> [OutboxOperation] {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM outbox WHERE user_id = ? ORDER BY seq DESC LIMIT ?"),
                arguments: [userID, limit]
            )
            return try store.readable(rows) { try OutboxOperation(row: $0) }
        }
    }

    public func operation(id: String) throws -> OutboxOperation? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE op_id = ?", arguments: [id]).map {
                try OutboxOperation(row: $0)
            }
        }
    }

    /// The badge's numbers for this user.
    public func queueCounts() throws -> QueueCounts {
        try writer.read { db in try SpotterStore.countQueue(db, userID: userID) }
    }

    /// The exercise's last set in one workout (by place), or nil: what the next set of it there
    /// is prefilled from.
    public func lastSet(exercise: String, workoutID: UUID) throws -> WorkoutSet? {
        try writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM sets WHERE workout_id = ? AND exercise = ? AND deleted_at IS NULL
                            AND \(store.visible())
                        ORDER BY position DESC, performed_at DESC LIMIT 1
                        """), arguments: [workoutID.wireString, try SpotterStore.canonicalExercise(exercise, db: db)]
            ).flatMap { try store.readable([$0]) { try WorkoutSet(row: $0) }.first }
        }
    }

    /// The last set logged of an exercise, to prefill the form.
    public func lastSet(exercise: String) throws -> WorkoutSet? {
        try writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM sets WHERE exercise = ? AND deleted_at IS NULL AND \(store.visible())
                        ORDER BY performed_at DESC LIMIT 1
                        """), arguments: [try SpotterStore.canonicalExercise(exercise, db: db)]
            ).flatMap { try store.readable([$0]) { try WorkoutSet(row: $0) }.first }
        }
    }

    /// Catalogue names matching a type-ahead query: starred first, then those the lifter has sets
    /// of ("dead" is Deadlift (Barbell) before Dead Bug), then prefix matches, then the rest.
    public func exercises(matching query: String, limit: Int = 10) throws -> [String] {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        // No exercise name is longer: a longer query matches nothing, and costs nothing.
        guard trimmed.count <= Validation.maxExerciseLength else { return [] }
        let starred = Set(try favorites().map { $0.lowercased() })
        return try writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, EXISTS(SELECT 1 FROM sets WHERE exercise = exercises.name AND deleted_at IS NULL) AS used
                    FROM exercises WHERE name LIKE ? ESCAPE '\\'
                    """,
                arguments: ["%" + SpotterStore.likeEscaped(trimmed) + "%"])
            let lower = trimmed.lowercased()
            let keyed = rows.compactMap { row -> (key: (Int, Int, Int, String), name: String)? in
                // A name that does not read (a damaged file) is no suggestion.
                guard let name = row.cell("name", as: String.self) else { return nil }
                let used = row.cell("used", as: Bool.self) ?? false
                let folded = name.lowercased()
                return (
                    (starred.contains(folded) ? 0 : 1, used ? 0 : 1, folded.hasPrefix(lower) ? 0 : 1, folded), name
                )
            }
            return keyed.sorted { $0.key < $1.key }.prefix(limit).map(\.name)
        }
    }

    public func exerciseCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM exercises") ?? 0 }
    }

    /// The best estimated 1RM (kg) of an exercise, excluding warm-ups.
    public func bestOneRepMax(exercise: String) throws -> Double? {
        try writer.read { db in
            try Double.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MAX(e1rm_kg) FROM sets WHERE exercise = ? AND deleted_at IS NULL AND kind != \(SetKind.warmup.sql)
                        AND \(store.visible()) AND reps <= \(OneRepMax.maxReps)
                        """),
                arguments: [try SpotterStore.canonicalExercise(exercise, db: db)])
        }
    }

    // MARK: Meta
}

extension Preferences {
    public func meta(_ key: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    public func setMeta(_ key: String, _ value: String?) throws {
        try writer.write { db in
            if let value {
                try db.execute(
                    sql:
                        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
        }
    }

    /// The persisted airplane switch: while on, the engine makes no network I/O.
    /// The airplane switch. A value that is neither on nor off is an error, which every caller
    /// takes as "on": nothing is sent on a guess.
    public var isAirplaneOn: Bool {
        get throws {
            switch try meta(MetaKey.airplane) {
            case nil, "0": return false
            case "1": return true
            case let other?:
                throw UnreadableRow(table: "meta", id: MetaKey.airplane, reason: "holds '\(other)', not 0 or 1")
            }
        }
    }

    /// The switch as everything that may send acts on it: one that cannot be read is on, so
    /// nothing leaves on a guess; `unreadable` is told why.
    public func airplaneIsOn(unreadable: (any Error) -> Void = { _ in }) -> Bool {
        do {
            return try isAirplaneOn
        } catch {
            unreadable(error)
            return true
        }
    }

    /// Turning airplane mode off also puts back in the queue what gave up without an answer
    /// (the network is back: it may well go through now).
    public func setAirplane(_ on: Bool) throws {
        try setMeta(MetaKey.airplane, on ? "1" : "0")
        if !on { try store.queue.requeueNoAnswer() }
    }
}

/// Keys of the `meta` table.
public enum MetaKey {
    public static let airplane = "airplane"
    public static let pullCursor = "pull_cursor"
    public static let lastSyncAt = "last_sync_at"
    public static let deviceID = "device_id"
    public static let authRequired = "auth_required"
    /// The embedded server's file name this database syncs with (`embeddedServerFileName`).
    public static let embeddedServerFile = "embedded_server_file"
}

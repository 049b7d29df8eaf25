import Foundation
import GRDB
import SpotterCore

/// One row of the outbox: a user intent on its way to the server.
public struct OutboxOperation: Sendable, Equatable {
    public var seq: Int64
    public var opID: String
    public var userID: String
    public var entityType: EntityType
    public var entityID: String
    public var kind: OperationKind
    public var payload: [String: JSONValue]
    public var before: [String: JSONValue]
    public var idempotencyKey: String
    public var state: OperationState
    public var attemptCount: Int
    public var nextAttemptAt: Date?
    public var leaseExpiresAt: Date?
    public var dependsOn: String?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var completedAt: Date?
    /// When a try first left, so that the operation may have reached the server; nil while none
    /// can have (never claimed, or only claims that never left: not sent, or no connection made).
    public var firstSentAt: Date?

    /// Whether the claim now holding this operation is the one that set `firstSentAt`: a claim
    /// stamps `updated_at` and, when it is the first send, `first_sent_at` with the same instant,
    /// and anything after the claim (an answer, a release) moves `updated_at` on. A claim that
    /// never left may take back only a first send of its own.
    var firstSendIsThisClaims: Bool { firstSentAt != nil && firstSentAt == updatedAt }
    /// The process holding the lease (pid and start time), while one does.
    var leaseOwner: String?
    /// An update's clock stamp: when its (latest) edit was made, for the server's merge.
    public var clockStamp: String?
    /// Where a workout delete's payload lists the sets the device held (`Outbox.deleteContext`).
    public static let seenSetsKey = "seen_sets"
    /// The entity's server version the update was made on.
    public var baseVersion: Int64?
    /// It failed because the engine gave up without a definite answer (not a refusal).
    public var noAnswer = false

    /// Reads an `outbox` row. A row that cannot be read (a BLOB payload, an unknown kind or
    /// state) throws `UnreadableRow`: syncing made-up defaults would send an empty create.
    public init(row: Row) throws {
        try self.init(row: row, columns: nil)
    }

    /// - Parameter columns: each column's index, found once for many rows of one statement.
    init(row: Row, columns: [String: Int]?) throws {
        let cells = RowCells(row, table: "outbox", idColumn: "op_id", columns: columns)
        seq = try cells.value("seq")
        opID = try cells.value("op_id")
        userID = try cells.value("user_id")
        entityType = try cells.enumeration("entity_type")
        entityID = try cells.value("entity_id")
        kind = try cells.enumeration("kind")
        guard let payload = JSONValue.parse(try cells.value("payload") as String)?.objectValue else {
            throw cells.unreadable("payload", "a JSON object")
        }
        self.payload = payload
        if let text = try cells.value("before") as String? {
            guard let before = JSONValue.parse(text)?.objectValue else {
                throw cells.unreadable("before", "a JSON object")
            }
            self.before = before
        } else {
            before = [:]
        }
        idempotencyKey = try cells.value("idempotency_key")
        state = try cells.enumeration("state")
        attemptCount = try cells.value("attempt_count")
        nextAttemptAt = (try cells.value("next_attempt_at") as Double?).map(Date.init(timeIntervalSince1970:))
        leaseExpiresAt = (try cells.value("lease_expires_at") as Double?).map(Date.init(timeIntervalSince1970:))
        dependsOn = try cells.value("depends_on")
        lastStatus = try cells.value("last_status")
        lastError = try cells.value("last_error")
        createdAt = Date(timeIntervalSince1970: try cells.value("created_at"))
        updatedAt = Date(timeIntervalSince1970: try cells.value("updated_at"))
        completedAt = (try cells.value("completed_at") as Double?).map(Date.init(timeIntervalSince1970:))
        firstSentAt = (try cells.value("first_sent_at") as Double?).map(Date.init(timeIntervalSince1970:))
        leaseOwner = try cells.value("lease_owner")
        clockStamp = try cells.value("clock_stamp")
        baseVersion = try cells.value("base_version")
        noAnswer = (try cells.value("no_answer") as Int?) == 1
    }
}

/// The outbox row as a GRDB record: read with the throwing `init(row:)` above (a corrupt row is
/// an error, never defaults), written back by `updateChanges(_:from:)` with only the columns a
/// transition changed.
extension OutboxOperation: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "outbox"

    /// The table's columns, named once.
    public enum Columns {
        public static let seq = Column("seq")
        public static let opID = Column("op_id")
        public static let userID = Column("user_id")
        public static let entityType = Column("entity_type")
        public static let entityID = Column("entity_id")
        public static let kind = Column("kind")
        public static let payload = Column("payload")
        public static let before = Column("before")
        public static let idempotencyKey = Column("idempotency_key")
        public static let state = Column("state")
        public static let attemptCount = Column("attempt_count")
        public static let nextAttemptAt = Column("next_attempt_at")
        public static let leaseExpiresAt = Column("lease_expires_at")
        public static let leaseOwner = Column("lease_owner")
        public static let dependsOn = Column("depends_on")
        public static let lastStatus = Column("last_status")
        public static let lastError = Column("last_error")
        public static let createdAt = Column("created_at")
        public static let updatedAt = Column("updated_at")
        public static let completedAt = Column("completed_at")
        public static let firstSentAt = Column("first_sent_at")
        public static let clockStamp = Column("clock_stamp")
        public static let baseVersion = Column("base_version")
        public static let noAnswer = Column("no_answer")
    }

    public func encode(to container: inout PersistenceContainer) {
        container[Columns.seq] = seq
        container[Columns.opID] = opID
        container[Columns.userID] = userID
        container[Columns.entityType] = entityType.rawValue
        container[Columns.entityID] = entityID
        container[Columns.kind] = kind.rawValue
        container[Columns.payload] = JSONValue.object(payload).canonicalString
        container[Columns.before] = before.isEmpty ? nil : JSONValue.object(before).canonicalString
        container[Columns.idempotencyKey] = idempotencyKey
        container[Columns.state] = state.rawValue
        container[Columns.attemptCount] = attemptCount
        container[Columns.nextAttemptAt] = nextAttemptAt?.timeIntervalSince1970
        container[Columns.leaseExpiresAt] = leaseExpiresAt?.timeIntervalSince1970
        container[Columns.leaseOwner] = leaseOwner
        container[Columns.dependsOn] = dependsOn
        container[Columns.lastStatus] = lastStatus
        container[Columns.lastError] = lastError
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
        container[Columns.updatedAt] = updatedAt.timeIntervalSince1970
        container[Columns.completedAt] = completedAt?.timeIntervalSince1970
        container[Columns.firstSentAt] = firstSentAt?.timeIntervalSince1970
        container[Columns.clockStamp] = clockStamp
        container[Columns.baseVersion] = baseVersion
        container[Columns.noAnswer] = noAnswer ? 1 : 0
    }
}

/// What enqueueing an intent did to the queue.
enum EnqueueOutcome: Equatable {
    case appended(opID: String)
    case rewritten(opID: String)
    /// A never-sent create met its delete: the operation is gone and nothing will be sent.
    case cancelled
}

enum Outbox {
    static let queuedStates = OperationState.sqlList(OperationState.queued)
    /// What a claim may take (before each batch of a drain).
    static let claimableStates = OperationState.sqlList([.pending, .failedTransient])
    /// Every state but succeeded: what the queue's counts are made of.
    static let unfinishedStates = OperationState.sqlList(OperationState.allCases.filter { $0 != .succeeded })

    /// The entity's newest operation that is still queued or blocked.
    static func newestQueued(_ db: Database, type: EntityType, id: String) throws -> QueuedOperation? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox
                    WHERE entity_type = ? AND entity_id = ? AND state IN \(queuedStates)
                    ORDER BY seq DESC LIMIT 1
                    """), arguments: [type.rawValue, id])
        guard let row else { return nil }
        let op = try OutboxOperation(row: row)
        let sent = (row["first_sent_at"] as DatabaseValue? ?? .null) != .null
        return QueuedOperation(
            opID: op.opID, kind: op.kind, state: op.state,
            attemptCount: sent ? max(1, op.attemptCount) : op.attemptCount, payload: op.payload, before: op.before)
    }

    /// The entity's create when the server refused it (or the engine gave up on it).
    static func rejectedCreate(_ db: Database, type: EntityType, id: String) throws -> OutboxOperation? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ? AND kind = \(OperationKind.create.sql)
                        AND state = \(OperationState.failedPermanent.sql)
                    ORDER BY seq DESC LIMIT 1
                    """), arguments: [type.rawValue, id]
        ).map { try OutboxOperation(row: $0) }
    }

    /// Whether the entity's create is certain never to have reached the server: it was never
    /// sent (blocked behind a refused parent), or the server refused it. A create the engine
    /// gave up on after tries without a definite answer (dropped replies, 5xx) may well exist
    /// there, so it is not "never accepted".
    static func createNeverAccepted(_ db: Database, type: EntityType, id: String) throws -> Bool {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT * FROM outbox WHERE entity_type = ? AND entity_id = ? AND kind = \(OperationKind.create.sql)
                        AND state IN \(OperationState.sqlList([.failedPermanent, .blocked]))
                    """), arguments: [type.rawValue, id])
        return try rows.contains { row in
            let op = try OutboxOperation(row: row)
            return OutboxMachine.createNeverAccepted(
                .init(
                    kind: op.kind, state: op.state, attemptCount: op.attemptCount, everSent: op.firstSentAt != nil,
                    lastStatus: op.lastStatus, gaveUpWithoutAnswer: op.noAnswer))
        }
    }

    static func hasQueued(_ db: Database, type: EntityType, id: String, excluding opID: String? = nil) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM outbox WHERE entity_type = ? AND entity_id = ?
                        AND state IN \(queuedStates) AND op_id != ?)
                    """), arguments: [type.rawValue, id, opID ?? ""]) ?? false
    }

    /// Inserts a new operation row.
    static func insert(
        _ db: Database, user: String, type: EntityType, id: String, kind: OperationKind,
        payload: [String: JSONValue], before: [String: JSONValue], dependsOn: String?, blocked: Bool, now: Date
    ) throws -> String {
        let opID = UUID.timeOrdered().wireString
        // An update says when it was made and on which version, for the server's field merge; so
        // does a delete, so the server can tell an edit the delete overrides unseen.
        let clock = kind != .create ? try editClock(db, type: type, id: id, now: now) : nil
        try db.cachedStatement(
            sql: """
                INSERT INTO outbox (op_id, user_id, entity_type, entity_id, kind, payload, before, idempotency_key,
                    state, attempt_count, depends_on, last_error, created_at, updated_at, clock_stamp, base_version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            opID, user, type.rawValue, id, kind.rawValue, JSONValue.object(payload).canonicalString,
            before.isEmpty ? nil : JSONValue.object(before).canonicalString, UUID.timeOrdered().wireString,
            blocked ? OperationState.blocked.rawValue : OperationState.pending.rawValue, dependsOn,
            blocked ? try waitReason(dependsOn, db: db) : nil, now.timeIntervalSince1970, now.timeIntervalSince1970,
            clock?.stamp, clock?.base,
        ])
        return opID
    }

    /// Adds an intent to the queue, coalescing it into a never-sent operation where the coalescing rules allow (`Coalescing`).
    /// - Parameter dependency: an operation of another entity this one must follow (a set's workout create).
    static func enqueue(
        _ db: Database, user: String, type: EntityType, id: String, kind: OperationKind,
        payload: [String: JSONValue], before: [String: JSONValue], dependency: String? = nil,
        contentDerivedID: Bool = false, now: Date
    ) throws -> EnqueueOutcome {
        let existing = try newestQueued(db, type: type, id: id)
        var payload = payload
        if kind == .delete, type == .workout { payload = try deleteContext(ofWorkout: id, db: db) }
        switch Coalescing.decide(
            existing: existing, kind: kind, payload: payload, before: before, contentDerivedID: contentDerivedID)
        {
        case .rewrite(let newKind, let newPayload, let newBefore):
            let opID = existing!.opID
            let newKey = newKind != existing!.kind
            // A rewritten update carries its latest edit's stamp; its base stays the first edit's.
            // A delete that replaces a queued update is based on what the device holds now.
            let clock = newKind != .create ? try editClock(db, type: type, id: id, now: now) : nil
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET kind = ?, payload = ?, before = ?, updated_at = ?,
                        idempotency_key = CASE WHEN ? THEN ? ELSE idempotency_key END,
                        clock_stamp = ?, base_version = CASE WHEN ? THEN ? ELSE COALESCE(base_version, ?) END
                    WHERE op_id = ?
                    """
            ).execute(arguments: [
                newKind.rawValue, JSONValue.object(newPayload).canonicalString,
                newBefore.isEmpty ? nil : JSONValue.object(newBefore).canonicalString, now.timeIntervalSince1970,
                newKey, UUID.timeOrdered().wireString, clock?.stamp, newKind == .delete, clock?.base, clock?.base,
                opID,
            ])
            return .rewritten(opID: opID)
        case .cancel:
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [existing!.opID])
            return .cancelled
        case .append(let dependsOn):
            let parent = dependsOn ?? dependency
            let blocked = try blocksDependants(parent, db: db)
            let opID = try insert(
                db, user: user, type: type, id: id, kind: kind, payload: payload, before: before, dependsOn: parent,
                blocked: blocked, now: now)
            return .appended(opID: opID)
        }
    }

    /// A workout delete's payload: each set of the workout this device holds, with the server
    /// version it has of it (null: not answered yet). The server records as overridden any set the
    /// delete takes that is not listed, or that another device edited since.
    static func deleteContext(ofWorkout id: String, db: Database) throws -> [String: JSONValue] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT id, server_version FROM sets WHERE workout_id = ? AND deleted_at IS NULL ORDER BY id"),
            arguments: [id])
        let seen: [JSONValue] = rows.map { row in
            // A version that does not read is sent as none: the server then counts the set as
            // unseen here, the careful side.
            let version = row.cell(at: 1, as: Int64.self)
            return .object(["id": .string(row[0]), "server_version": version.map { .int($0) } ?? .null])
        }
        return [OutboxOperation.seenSetsKey: .array(seen)]
    }

    /// The clock stamp and base version of an update queued now (see `SpotterStore.editClock`).
    static func editClock(
        _ db: Database, type: EntityType, id: String, now: Date
    ) throws -> (
        stamp: String, base: Int64?
    ) {
        let device =
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.deviceID])
            ?? QueueOwner.deviceID
        let last = try String.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [SpotterStore.clockKey]
        ).flatMap { ClockStamp($0) }
        let stamp = ClockStamp.next(after: last, now: now, device: device)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").execute(arguments: [
            SpotterStore.clockKey, stamp.description,
        ])
        guard let table = EntityTable.table(type) else { return (stamp.description, nil) }
        let base = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT server_version FROM \(table) WHERE id = ?"), arguments: [id])
        return (stamp.description, base)
    }

    /// Whether an operation queued behind `parent` must wait as blocked: the parent is a create
    /// the server refused, or is itself blocked.
    static func blocksDependants(_ parent: String?, db: Database) throws -> Bool {
        guard let parent,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT state, kind FROM outbox WHERE op_id = ?"), arguments: [parent])
        else { return false }
        let state: String = row["state"]
        return state == OperationState.blocked.rawValue
            || (state == OperationState.failedPermanent.rawValue && row["kind"] == OperationKind.create.rawValue)
    }

    /// The create a blocked operation ultimately waits on (following blocked parents up), if any.
    static func blockingCreate(_ parent: String?, db: Database) throws -> OutboxOperation? {
        var next = parent
        var seen: Set<String> = []
        while let current = next, seen.insert(current).inserted {
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE op_id = ?"), arguments: [current])
            else { return nil }
            let op = try OutboxOperation(row: row)
            if op.state == .failedPermanent { return op }
            guard op.state == .blocked else { return nil }
            next = op.dependsOn
        }
        return nil
    }

    /// Why an operation queued behind `parent` waits: a refused create, or one that gave up
    /// without an answer (which is not a refusal, and goes back to the queue by itself).
    static func waitReason(_ parent: String?, db: Database) throws -> String {
        let root = try blockingCreate(parent, db: db)
        if let root, root.noAnswer {
            return
                "waiting on \(root.entityType.rawValue) \(root.entityID.prefix(8)), which \(OutboxMachine.gaveUpPrefix)"
        }
        return "waiting on a rejected operation"
    }

    /// Whether what waits behind `parent` waits on a give-up without an answer rather than a refusal.
    static func waitsOnNoAnswer(_ parent: String?, db: Database) throws -> Bool {
        try blockingCreate(parent, db: db)?.noAnswer ?? false
    }

    /// Queues the create of a brand-new entity: nothing can be queued for it yet, so there is
    /// nothing to coalesce with. Returns the op and whether it waits blocked behind `dependency`.
    static func appendCreate(
        _ db: Database, user: String, type: EntityType, id: String, payload: [String: JSONValue], dependency: String?,
        now: Date
    ) throws -> (opID: String, blocked: Bool) {
        let blocked = try blocksDependants(dependency, db: db)
        let opID = try insert(
            db, user: user, type: type, id: id, kind: .create, payload: payload, before: [:], dependsOn: dependency,
            blocked: blocked, now: now)
        return (opID, blocked)
    }

    /// Every operation that waits on `opID`, directly or not.
    static func dependants(of opID: String, db: Database) throws -> [String] {
        var result: [String] = []
        var frontier = [opID]
        while let current = frontier.popLast() {
            let direct = try String.fetchAll(
                db.cachedStatement(sql: "SELECT op_id FROM outbox WHERE depends_on = ?"), arguments: [current])
            result.append(contentsOf: direct)
            frontier.append(contentsOf: direct)
        }
        return result
    }

    /// Recomputes an entity's sync_state from its operations.
    static func refreshSyncState(type: EntityType, id: String, db: Database) throws {
        guard let table = EntityTable.table(type) else { return }
        if try hasQueued(db, type: type, id: id) {
            try db.cachedStatement(
                sql: """
                    UPDATE \(table) SET sync_state = \(SyncState.pending.sql)
                    WHERE id = ? AND sync_state != \(SyncState.rejected.sql)
                    """
            ).execute(arguments: [id])
        } else {
            try db.cachedStatement(
                sql:
                    """
                    UPDATE \(table) SET sync_state = \(SyncState.synced.sql), sync_error = NULL
                    WHERE id = ? AND sync_state = \(SyncState.pending.sql)
                    """
            ).execute(arguments: [id])
        }
    }
}

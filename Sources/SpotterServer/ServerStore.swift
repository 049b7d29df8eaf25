import Foundation
import SpotterCore
import SpotterProtocol

/// Where an idempotency record lives: the same key from two users, or on two routes, is two records.
public struct IdempotencyScope: Sendable, Hashable {
    public var user: String
    public var method: String
    public var path: String
    public var key: String

    public init(user: String, method: String, path: String, key: String) {
        self.user = user
        self.method = method
        self.path = path
        self.key = key
    }
}

/// A response as it was first sent, kept so a replay can send the very same bytes.
public struct StoredResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var body: Data

    public init(status: Int, contentType: String?, body: Data) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key is ours: run the handler, then complete the record with `token`.
    case claimed(token: String)
    /// The same request already completed: replay this.
    case completed(StoredResponse)
    /// The same request is still running elsewhere (or in this process).
    case inProgress
    /// The key was used for a different request.
    case fingerprintMismatch
}

/// The state of one idempotency record, as tests and operators see it.
public struct IdempotencyRecord: Sendable, Equatable {
    public var fingerprint: String
    public var isCompleted: Bool
    public var response: StoredResponse?
    public var createdAt: Date
    public var lockedAt: Date
}

/// The claim behind an idempotency record no longer belongs to the request finishing it
/// (another instance took the stale record over); its effect must not be committed.
public struct IdempotencyClaimLost: Error, CustomStringConvertible {
    public var description: String { "the idempotency key was taken over by another request" }
}

/// The database behind the store cannot be reached (it is restarting, the network to it is down,
/// every connection failed): the request did not happen as far as this instance can tell, and is
/// answered 503 with `Retry-After` — a retry replays or runs it once the database is back.
public struct ServerStoreUnavailable: Error, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { "the server database is unavailable: \(reason)" }
}

/// The writes one request makes, all inside one database transaction.
///
/// Handlers see only this, so the business effect and the idempotency record they
/// complete commit together or not at all — whichever database is underneath.
public protocol ServerTransaction {
    /// The next value of `owner`'s change sequence; every write stamps its row with one. Values
    /// only grow, and a reader never sees a higher one committed before a lower one, so a feed
    /// cursor can only move forward (SQLite: one global counter under its single writer;
    /// PostgreSQL: a counter row per user, locked until the transaction ends).
    func nextChangeVersion(owner: String) async throws -> Int64
    /// The workout `owner` has under `id`, deleted or not. Entity ids are scoped per user:
    /// another user's workout with the same id is a different entity, never seen here.
    func workout(id: String, owner: String) async throws -> WireWorkout?
    /// Whether `owner` has a workout under `id` that is not deleted: what a set's write checks,
    /// without reading the workout.
    func workoutIsLive(id: String, owner: String) async throws -> Bool
    func saveWorkout(_ workout: WireWorkout, owner: String) async throws
    /// The set `owner` has under `id`, deleted or not (per-user, like workouts).
    func set(id: String, owner: String) async throws -> WireSet?
    func saveSet(_ set: WireSet, owner: String) async throws
    /// Inserts a new set, unless `owner` already has a set with its id or its workout is not live
    /// (missing or deleted); returns whether it did. A create's usual case in one statement.
    func insertNewSet(_ set: WireSet, owner: String) async throws -> Bool
    /// Sets of a workout that are not deleted.
    func liveSets(workoutID: String, owner: String) async throws -> [WireSet]
    /// Returns false when the exercise was already a favorite.
    func addFavorite(_ exercise: String, owner: String) async throws -> Bool
    /// Returns false when the exercise was not a favorite.
    func removeFavorite(_ exercise: String, owner: String) async throws -> Bool
    /// The routine `owner` has under `id`, deleted or not (per-user, like workouts).
    func routine(id: String, owner: String) async throws -> WireRoutine?
    func saveRoutine(_ routine: WireRoutine, owner: String) async throws
    /// The weigh-in `owner` has under `id`, deleted or not (per-user, like workouts).
    func bodyWeight(id: String, owner: String) async throws -> WireBodyWeight?
    func saveBodyWeight(_ entry: WireBodyWeight, owner: String) async throws
    /// Each field's last write of an entity (a field not edited since the create has none).
    func fieldClocks(_ type: EntityType, id: String, owner: String) async throws -> [String: FieldClock]
    /// Stores the clocks of the fields a write changed.
    func saveFieldClocks(_ clocks: [String: FieldClock], type: EntityType, id: String, owner: String) async throws
    /// Records a value the merge overrode, as an entry of the user's change feed.
    func saveConflict(_ conflict: WireConflict, owner: String) async throws
    /// Marks the claimed record completed with the response; throws `IdempotencyClaimLost`
    /// when the record no longer carries `token`.
    func completeIdempotencyRecord(_ scope: IdempotencyScope, token: String, response: StoredResponse) async throws
    /// Claims a key inside this transaction. The batch path claims, runs and records every
    /// operation in one transaction, so nobody else ever sees those claims in progress.
    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval, staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim
    /// Runs `work` in a savepoint: when it returns false (or throws) its writes are undone and the
    /// rest of the transaction goes on — one batch operation's 5xx leaves the others committed.
    func savepoint(_ work: () async throws -> Bool) async throws
}

/// One read of the change feed: the changes, oldest first, and whether more follow them.
public struct ChangeSlice: Sendable, Equatable {
    public var changes: [WireChange]
    public var hasMore: Bool

    public init(changes: [WireChange], hasMore: Bool) {
        self.changes = changes
        self.hasMore = hasMore
    }
}

/// The server's storage: entities, the change sequence and idempotency records.
///
/// A protocol so that SQLite (one file, the default) and PostgreSQL (shared by several
/// instances) can both sit behind the same handlers. Idempotency claims live
/// in the database, never in process memory, so a retry that reaches another instance
/// still finds its record.
public protocol ServerStore: Sendable {
    /// The database's name, drawn once when it was made and never changed: a device that synced
    /// with a database that was then lost (restored from nothing, replaced) sees another name on
    /// the change feed, so it knows its cursor and its "synced" rows refer to what is gone.
    var identity: String { get }

    /// Runs `work` in one write transaction; a thrown error rolls everything back.
    /// `work` may run more than once when the database asks for it (a PostgreSQL serialization
    /// failure or deadlock); only the committed run's effect remains. A database that cannot be
    /// reached throws `ServerStoreUnavailable`. `work` reaches the database only through its
    /// transaction: a call back into the store from it would wait for itself (`StoreWriting`).
    func write<T: Sendable>(_ work: @escaping @Sendable (any ServerTransaction) async throws -> T) async throws -> T

    /// `write` for a transaction of `user`'s, which begins by locking their feed's counter: a
    /// store whose transactions would wait for that lock holding a connection makes them wait for
    /// their turn before they take one (PostgreSQL); the others simply write.
    func write<T: Sendable>(
        of user: String, _ work: @escaping @Sendable (any ServerTransaction) async throws -> T
    ) async throws -> T

    /// True when the store runs its writes one after another (one writer, as SQLite): a single
    /// route's idempotency claim then commits in the same transaction as its effect and record.
    /// Committed alone first, the claim would only say "in progress" while the effect runs — and
    /// while the effect runs, that one writer runs nothing else: a request with the same key waits
    /// for the writer and then finds the stored answer, whichever way the claim went. Alone it
    /// costs a second pass through the writer for every request. False (the default; PostgreSQL,
    /// whose instances write side by side): the claim commits first, so a request with the same
    /// key elsewhere is told 409 at once instead of waiting on the first one's lock.
    var claimsWithTheEffect: Bool { get }

    /// Atomically claims `scope` for a request with `fingerprint`, or reports what holds it.
    /// An expired record (older than `expiresAfter`) is replaced; an in-progress record
    /// whose claim is older than `staleAfter` is taken over.
    func claimIdempotencyKey(
        _ scope: IdempotencyScope, fingerprint: String, now: Date, expiresAfter: TimeInterval,
        staleAfter: TimeInterval
    ) async throws -> IdempotencyClaim

    /// Forgets an in-progress claim (the request ended in a 5xx), so a retry runs again.
    func releaseIdempotencyKey(_ scope: IdempotencyScope, token: String) async throws

    /// Deletes records created before `cutoff`; returns how many went.
    @discardableResult
    func purgeIdempotencyRecords(createdBefore cutoff: Date) async throws -> Int

    func idempotencyRecord(_ scope: IdempotencyScope) async throws -> IdempotencyRecord?

    /// Workouts of `user`, deleted ones included when asked.
    func workouts(user: String, includeDeleted: Bool) async throws -> [WireWorkout]
    /// Sets of `user` (optionally of one workout), deleted ones included when asked.
    func sets(user: String, workoutID: String?, includeDeleted: Bool) async throws -> [WireSet]
    func favorites(user: String) async throws -> [String]
    /// Routines of `user` by name, deleted ones included when asked.
    func routines(user: String, includeDeleted: Bool) async throws -> [WireRoutine]
    /// Weigh-ins of `user` in the order they were taken, deleted ones included when asked.
    func bodyWeights(user: String, includeDeleted: Bool) async throws -> [WireBodyWeight]
    /// A page of one of `user`'s lists (live rows only): at most `limit` rows after `cursor`, in
    /// the list's order, and the next page's cursor when more follow (`ListPages.swift`).
    func listPage(
        _ list: ListedEntity, user: String, workoutID: String?, after cursor: ListCursor, limit: Int
    ) async throws -> ListSlice
    /// Changes of `user` stamped after `version`, oldest first, at most `limit` (+ whether more exist).
    func changes(user: String, after version: Int64, limit: Int) async throws -> ChangeSlice

    /// The highest change version this database has handed out to `user`'s feed (0 when none): a
    /// cursor past it was not handed out by this database's history (it was restored from an
    /// older copy).
    func feedHead(user: String) async throws -> Int64

    /// Answers when the store is reachable (health check).
    func ping() async throws
    /// Releases the database; the store is unusable afterwards.
    func close() async throws
}

extension ServerStore {
    public func write<T: Sendable>(
        of user: String, _ work: @escaping @Sendable (any ServerTransaction) async throws -> T
    ) async throws -> T {
        try await write(work)
    }

    public var claimsWithTheEffect: Bool { false }

    /// Every live set of `user`; what a test counts to prove "no duplicates on the server".
    public func allSets(user: String) async throws -> [WireSet] {
        try await sets(user: user, workoutID: nil, includeDeleted: false)
    }

    public func allWorkouts(user: String) async throws -> [WireWorkout] {
        try await workouts(user: user, includeDeleted: false)
    }
}

import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    fileprivate func setPending(_ name: String, add: Bool, opID: String, db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO favorite_pending (exercise, action, op_id) VALUES (?, ?, ?)
                ON CONFLICT(exercise) DO UPDATE SET action = excluded.action, op_id = excluded.op_id
                """
        ).execute(arguments: [name, add ? "add" : "remove", opID])
    }
}

extension Queries {
    /// Starred exercises as the user sees them: the last server list, with pending additions
    /// and removals laid over it (pending wins).
    public func favorites() throws -> [String] {
        try starredExercises().map(\.exercise)
    }
}

extension WorkoutLog {
    /// Stars or unstars an exercise; returns whether it is starred now. Toggling back and forth
    /// offline keeps at most one call per exercise in the queue.
    @discardableResult
    public func toggleFavorite(exercise: String) throws -> Bool {
        let now = self.now
        return try writer.write { db in
            let name = try store.resolveExercise(exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
            let onServer = try Favorite.filter(Favorite.Column.exercise == name).fetchCount(db) > 0
            let pending = try String.fetchOne(
                db.cachedStatement(sql: "SELECT action FROM favorite_pending WHERE exercise = ?"), arguments: [name])
            let starred = pending.map { $0 == "add" } ?? onServer
            let wantStarred = !starred
            let kind: OperationKind = wantStarred ? .create : .delete
            let existing = try Outbox.newestQueued(db, type: .favorite, id: name)
            if let existing, existing.isRewritable {
                if wantStarred == onServer {
                    // Back where the server already is: the unsent call is not needed at all.
                    try db.cachedStatement(sql: "DELETE FROM outbox WHERE op_id = ?").execute(arguments: [existing.opID]
                    )
                    try db.cachedStatement(sql: "DELETE FROM favorite_pending WHERE exercise = ?").execute(arguments: [
                        name
                    ])
                } else {
                    try db.cachedStatement(
                        sql: "UPDATE outbox SET kind = ?, idempotency_key = ?, updated_at = ? WHERE op_id = ?"
                    ).execute(arguments: [
                        kind.rawValue, UUID.timeOrdered().wireString, now.timeIntervalSince1970, existing.opID,
                    ])
                    try store.setPending(name, add: wantStarred, opID: existing.opID, db: db)
                }
                return wantStarred
            }
            let opID = try Outbox.insert(
                db, user: userID, type: .favorite, id: name, kind: kind, payload: [:], before: [:],
                dependsOn: existing?.opID, blocked: false, now: now)
            try store.setPending(name, add: wantStarred, opID: opID, db: db)
            return wantStarred
        }
    }
}

extension SpotterStore {
    /// Queues a star for every starred exercise of the server list that has no call of its own
    /// queued: the list of a server that lost it (`PullMerge.checkServerIdentity`). Returns how many.
    func requeueServerFavorites(
        db: Database, now: Date, for owner: String? = nil, except kept: Set<String> = []
    )
        throws -> Int
    {
        var count = 0
        for favorite in try Favorite.fetchAll(db) where !kept.contains(favorite.exercise.lowercased()) {
            let pending =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM favorite_pending WHERE exercise = ?)"),
                    arguments: [favorite.exercise]) ?? false
            guard !pending else { continue }
            let opID = try Outbox.insert(
                db, user: owner ?? userID, type: .favorite, id: favorite.exercise, kind: .create, payload: [:],
                before: [:], dependsOn: nil, blocked: false, now: now)
            try setPending(favorite.exercise, add: true, opID: opID, db: db)
            count += 1
        }
        return count
    }
}

extension PullMerge {
    /// Replaces the server list with a freshly fetched one (pending entries stay on top).
    public func replaceServerFavorites(_ names: [String]) throws {
        let now = self.now
        try writer.write { db in
            // Stars of the device's embedded server, on a database whose own data waits for its
            // login: not on this account's list, and not to be dropped by it. They wait with the
            // device's data (stranded), and the login sends them.
            if userID != QueueOwner.deviceID, try Accounts.unadoptedDeviceOperations(db) > 0 {
                _ = try store.requeueServerFavorites(
                    db: db, now: now, for: QueueOwner.deviceID, except: Set(names.map { $0.lowercased() }))
            }
            _ = try Favorite.deleteAll(db)
            for name in names { try Favorite(exercise: name).insert(db, onConflict: .ignore) }
        }
    }
}

/// A starred exercise and whether the server has its latest star or unstar.
public struct StarredExercise: Sendable, Equatable {
    public var exercise: String
    /// `synced`, `pending` (a star not yet sent) or `rejected` (the server refused it).
    public var syncState: SyncState
}

extension Queries {
    /// Starred exercises as the user sees them, each with its sync state.
    public func starredExercises() throws -> [StarredExercise] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.exercise AS exercise, NULL AS state, 0 AS no_answer FROM favorites f
                    WHERE f.exercise NOT IN (SELECT exercise FROM favorite_pending)
                    UNION ALL
                    SELECT p.exercise, COALESCE(o.state, \(OperationState.pending.sql)), COALESCE(o.no_answer, 0)
                    FROM favorite_pending p
                    LEFT JOIN outbox o ON o.op_id = p.op_id WHERE p.action = 'add'
                    ORDER BY 1 COLLATE NOCASE
                    """
            ).compactMap { row in
                // A name that does not read (a damaged file) is left out.
                guard let exercise = row.cell("exercise", as: String.self) else { return nil }
                let state = row.cell("state", as: String.self)
                let noAnswer = row.cell("no_answer", as: Bool.self) ?? false
                let syncState: SyncState =
                    switch state.map(OperationState.init(rawValue:)) {
                    case nil, .some(.succeeded): .synced  // nil: the server's own list
                    // A give-up without an answer is no refusal: it goes back to the queue by itself.
                    case .some(.failedPermanent): noAnswer ? .pending : .rejected
                    default: .pending
                    }
                return StarredExercise(exercise: exercise, syncState: syncState)
            }
        }
    }
}

extension WorkoutLog {
    /// Stars (`true`) or unstars an exercise through the same toggle as the UI's `f`, so repeated
    /// offline changes still queue at most one operation. Returns false when it already was so.
    @discardableResult
    public func setStarred(_ exercise: String, _ starred: Bool) throws -> Bool {
        let name = exercise.trimmingCharacters(in: .whitespacesAndNewlines)
        try store.checked { () throws(ValidationError) in try Validation.exercise(name) }
        let current = try store.queries.favorites().contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        guard current != starred else { return false }
        try toggleFavorite(exercise: name)
        return true
    }
}

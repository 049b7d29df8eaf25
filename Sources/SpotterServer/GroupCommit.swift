import Foundation
import GRDB
import Synchronization

/// Group commit for the SQLite server store: writes that arrive while a commit is being made
/// wait, and then all run in ONE transaction — each in its own savepoint — with one commit and
/// so one flush of the WAL (`synchronous = FULL`), instead of one flush each.
///
/// What every write still has alone:
/// - its own savepoint: a write that throws is rolled back by itself and gets its own error;
///   the others in its group commit without it;
/// - its answer only after the commit that holds it is durable: no caller hears "done" for a
///   write a power cut could still take back;
/// - the order it arrived in: a group runs its writes in arrival order, one after another, so
///   the single change counter still commits in order.
///
/// A commit that fails (disk full, I/O error), or a transaction SQLite rolled back on its own
/// midway, fails every write of the group that was not already failing alone: none of them is
/// answered as done. Writes of the group that had not run yet go into the next group.
final class GroupCommitWriter: Sendable {
    /// The most writes one transaction takes; the rest wait for the next one.
    static let maxGroup = 256

    private struct Job: Sendable {
        /// Whether the caller may only hear "done" once the write survives a power cut.
        let durable: Bool
        /// Runs the write in its own savepoint and keeps what it came to.
        let run: @Sendable (Database) -> Void
        /// Answers the caller once its group committed (nil) or failed (the error).
        let finish: @Sendable (Error?) -> Void
    }

    /// What arriving writes and the draining queue share.
    private struct Intake {
        var waiting: [Job] = []
        var draining = false
        /// Transactions made so far.
        var groups = 0
    }

    private let writer: any DatabaseWriter
    private let intake = Mutex(Intake())
    /// The groups run one at a time on it.
    private let queue = DispatchQueue(label: "spotter.server.group-commit")
    /// The writer connection's synchronous mode as last set. Only read and written on `queue`, so
    /// its lock is never waited for; it is a lock so the writer stays checked `Sendable`.
    private let flushing = Mutex(true)

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// How many transactions the writes were grouped into so far (the tests read it).
    var groupCount: Int { intake.withLock { $0.groups } }

    /// Runs `work` in the next group. A write that need not survive a power cut (`durable:
    /// false`: an idempotency claim, which only keeps others out while its request runs) lets a
    /// group made only of such writes commit without waiting for the flush; the next flushed
    /// commit carries it to disk too (the WAL is written in order). A claim lost to a power cut
    /// takes nothing with it: the effect it guards commits later, flushed, or not at all.
    func write<T: Sendable>(
        durable: Bool = true, _ work: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        StoreWriting.assertOutside()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let outcome = OutcomeBox<T>()
            enqueue(
                Job(
                    durable: durable,
                    run: { db in
                        do {
                            var value: T?
                            try db.inPreparedSavepoint {
                                value = try work(db)
                                return true
                            }
                            guard let value else { throw GroupCommitFailed(reason: "a write gave no result") }
                            outcome.result = .success(value)
                        } catch {
                            outcome.result = .failure(error)
                        }
                    },
                    finish: { groupError in
                        switch (outcome.result, groupError) {
                        case (.success, let error?): continuation.resume(throwing: error)
                        case (let result?, _): continuation.resume(with: result)
                        case (nil, let error):
                            continuation.resume(throwing: error ?? GroupCommitFailed(reason: "not run"))
                        }
                    }))
        }
    }

    private func enqueue(_ job: Job) {
        let start = intake.withLock { intake in
            intake.waiting.append(job)
            if intake.draining { return false }
            intake.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        var carried: [Job] = []
        while true {
            let group: [Job] = intake.withLock { intake in
                let room = Self.maxGroup - carried.count
                let taken = Array(intake.waiting.prefix(max(0, room)))
                intake.waiting.removeFirst(taken.count)
                let group = carried + taken
                if group.isEmpty { intake.draining = false }
                return group
            }
            if group.isEmpty { return }
            carried = runGroup(group)
        }
    }

    /// Runs one group; returns the writes it did not get to (the transaction ended under them).
    private func runGroup(_ group: [Job]) -> [Job] {
        intake.withLock { $0.groups += 1 }
        var ran = 0
        var groupError: Error?
        do {
            try writer.writeWithoutTransaction { db in
                let flush = group.contains(where: \.durable)
                if flush != flushing.withLock({ $0 }) {
                    try db.execute(sql: flush ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                    flushing.withLock { $0 = flush }
                }
                try db.execute(sql: "BEGIN IMMEDIATE")
                for job in group {
                    job.run(db)
                    ran += 1
                    // SQLite rolls a whole transaction back on some errors (full disk, I/O):
                    // then nothing run so far in this group is saved.
                    if !db.isInsideTransaction {
                        throw GroupCommitFailed(reason: "the database rolled the transaction back")
                    }
                }
                do {
                    try db.execute(sql: "COMMIT")
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        } catch {
            groupError = error
        }
        for job in group.prefix(ran) { job.finish(groupError) }
        if groupError != nil && ran == 0 {
            // Not even BEGIN worked: every write of the group hears why.
            for job in group { job.finish(groupError) }
            return []
        }
        return Array(group.dropFirst(ran))
    }
}

extension Database {
    /// Runs `work` in a savepoint of the transaction under way, kept when it returns true, undone
    /// when it returns false or throws — GRDB's `inSavepoint`, with its statements prepared once
    /// for the connection instead of parsed anew each time: every server write runs in one such
    /// savepoint (a single route's in two), one after another on the one writer.
    func inPreparedSavepoint(_ work: () throws -> Bool) throws {
        guard isInsideTransaction else {
            // A top-level savepoint would open a deferred transaction; GRDB opens an immediate one.
            try inSavepoint { try work() ? .commit : .rollback }
            return
        }
        try cachedStatement(sql: "SAVEPOINT spotter").execute()
        try endSavepoint(Result { try work() })
    }

    /// `inPreparedSavepoint` for an `async` write, always inside the group's transaction.
    func inPreparedSavepoint(_ work: () async throws -> Bool) async throws {
        guard isInsideTransaction else { throw GroupCommitFailed(reason: "a savepoint outside a transaction") }
        try cachedStatement(sql: "SAVEPOINT spotter").execute()
        let outcome: Result<Bool, Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        try endSavepoint(outcome)
    }

    /// Releases the savepoint the work kept, or rolls it back; the work's error wins over one of
    /// the rollback's.
    private func endSavepoint(_ outcome: Result<Bool, Error>) throws {
        var firstError: Error?
        switch outcome {
        case .success(true):
            // A RELEASE that fails leaves the savepoint open: it is rolled back below, never
            // carried into the group's commit with its caller told it failed.
            do {
                try cachedStatement(sql: "RELEASE SAVEPOINT spotter").execute()
                return
            } catch {
                firstError = error
            }
        case .success(false): break
        case .failure(let error): firstError = error
        }
        do {
            // Rolling back to a savepoint keeps it on SQLite's stack: it is released after.
            try cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT spotter").execute()
            try cachedStatement(sql: "RELEASE SAVEPOINT spotter").execute()
        } catch {
            if firstError == nil { firstError = error }
        }
        if let firstError { throw firstError }
    }
}

/// Why a grouped write was not committed.
struct GroupCommitFailed: Error, CustomStringConvertible {
    let reason: String
    var description: String { "write not committed: \(reason)" }
}

/// What one write came to: set by the group's run, read by its finish, both on the group's queue.
private final class OutcomeBox<T: Sendable>: Sendable {
    private let stored = Mutex<Result<T, Error>?>(nil)

    var result: Result<T, Error>? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

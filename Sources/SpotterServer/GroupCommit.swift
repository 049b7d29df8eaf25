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
///
/// A write's work is async (the `ServerTransaction` seam is, for PostgreSQL's sake), yet on SQLite
/// nothing in it waits for anything: every statement runs at once on the writer connection. The
/// groups run in a task whose executor is `WriterExecutor`, which runs each of that task's jobs
/// inside one access to the writer connection: the whole group — BEGIN, every write's async work,
/// COMMIT — runs on the writer as one synchronous stretch, as it did when the work was
/// synchronous, with no hop per statement.
final class GroupCommitWriter: Sendable {
    /// The most writes one transaction takes; the rest wait for the next one.
    static let maxGroup = 256

    private struct Job: Sendable {
        /// Whether the caller may only hear "done" once the write survives a power cut.
        let durable: Bool
        /// Runs the write in its own savepoint and keeps what it came to.
        let run: @Sendable (Database) async -> Void
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
    /// Where the groups run, one at a time, each inside the writer's access.
    private let executor: WriterExecutor
    /// The writer connection's synchronous mode as last set. Only read and written by the group
    /// that is running, so its lock is never waited for; it is a lock so the writer stays checked
    /// `Sendable`.
    private let flushing = Mutex(true)

    init(writer: any DatabaseWriter) {
        self.writer = writer
        executor = WriterExecutor(writer: writer)
    }

    /// How many transactions the writes were grouped into so far (the tests read it).
    var groupCount: Int { intake.withLock { $0.groups } }

    /// Runs `work` in the next group. A write that need not survive a power cut (`durable:
    /// false`: an idempotency claim, which only keeps others out while its request runs) lets a
    /// group made only of such writes commit without waiting for the flush; the next flushed
    /// commit carries it to disk too (the WAL is written in order). A claim lost to a power cut
    /// takes nothing with it: the effect it guards commits later, flushed, or not at all.
    func write<T: Sendable>(
        durable: Bool = true, _ work: @escaping @Sendable (Database) async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let outcome = OutcomeBox<T>()
            enqueue(
                Job(
                    durable: durable,
                    run: { db in
                        do {
                            var value: T?
                            try await db.inPreparedSavepoint {
                                value = try await work(db)
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
        if start { Task(executorPreference: executor) { await self.drain() } }
    }

    private func drain() async {
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
            carried = await runGroup(group)
        }
    }

    /// Runs one group; returns the writes it did not get to (the transaction ended under them).
    private func runGroup(_ group: [Job]) async -> [Job] {
        intake.withLock { $0.groups += 1 }
        var ran = 0
        var groupError: Error?
        do {
            // This task runs inside the writer's access (`WriterExecutor`): the connection is
            // lent here, not opened anew.
            let db = writer.unsafeReentrantWrite { $0 }
            let flush = group.contains(where: \.durable)
            if flush != flushing.withLock({ $0 }) {
                try db.execute(sql: flush ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                flushing.withLock { $0 = flush }
            }
            try db.execute(sql: "BEGIN IMMEDIATE")
            for job in group {
                await job.run(db)
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

/// The executor of the group commit's task: each job of it runs on a serial queue of its own,
/// inside one access to the writer connection (GRDB's `writeWithoutTransaction`). So the group's
/// async code may use the writer connection directly, as the synchronous code in a GRDB write
/// closure does — GRDB checks, at every statement, that it runs inside such an access.
///
/// On SQLite a group's job never suspends (no statement waits for anything), so a group is one
/// job: one access, from BEGIN to COMMIT. Were a write ever to suspend, its task would go on in
/// a later access, its transaction still open; the writer connection is set to allow that
/// (`allowsUnsafeTransactions`), and nothing else writes through it meanwhile: every write goes
/// through the group commit, and the groups run one at a time.
final class WriterExecutor: TaskExecutor {
    private let writer: any DatabaseWriter
    private let queue = DispatchQueue(label: "spotter.server.group-commit")

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            writer.writeWithoutTransaction { _ in job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

extension Database {
    /// Runs `work` in a savepoint of the transaction under way, kept when it returns true, undone
    /// when it returns false or throws — GRDB's `inSavepoint`, with its statements prepared once
    /// for the connection instead of parsed anew each time: every server write runs in one such
    /// savepoint (a single route's in two), one after another on the one writer. Outside a
    /// transaction it opens an immediate one (a top-level savepoint would open a deferred one).
    func inPreparedSavepoint(_ work: () async throws -> Bool) async throws {
        guard isInsideTransaction else {
            try execute(sql: "BEGIN IMMEDIATE")
            let keep: Bool
            do { keep = try await work() } catch {
                if isInsideTransaction { try? execute(sql: "ROLLBACK") }
                throw error
            }
            do { try execute(sql: keep ? "COMMIT" : "ROLLBACK") } catch {
                if isInsideTransaction { try? execute(sql: "ROLLBACK") }
                throw error
            }
            return
        }
        try cachedStatement(sql: "SAVEPOINT spotter").execute()
        var firstError: Error?
        do {
            if try await work() {
                try cachedStatement(sql: "RELEASE SAVEPOINT spotter").execute()
                return
            }
        } catch {
            firstError = error
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

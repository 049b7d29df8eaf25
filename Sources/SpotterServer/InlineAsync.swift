import Dispatch
import Synchronization

/// Runs an `async` closure to its end on the calling thread, for the SQLite store.
///
/// The handlers are written once, against `ServerTransaction`, whose calls are `async` so that
/// PostgreSQL can await each statement's answer without holding a thread. SQLite answers at once:
/// its transaction lives inside GRDB's synchronous writer closure (on the writer's queue, called
/// from the group commit's), and cannot be held across a suspension. So the SQLite store runs the handler's closure here: a task
/// that prefers this thread as its executor, whose jobs this thread runs itself until the task
/// ends. The SQLite calls never suspend, so the whole closure usually runs in one job; should it
/// await something elsewhere, this thread waits for the task's next job (it owns the SQLite
/// connection meanwhile, exactly as a synchronous closure would).
enum InlineAsync {
    static func run<T>(_ body: @escaping () async throws -> T) throws -> T {
        let executor = InlineTaskExecutor()
        let outcome = Mutex<Handover<Result<T, Error>>?>(nil)
        let work = Handover(value: body)
        Task(executorPreference: executor) {
            let result: Result<T, Error>
            do {
                result = .success(try await StoreWriting.$inside.withValue(true) { try await work.value() })
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = Handover(value: result) }
            executor.finish()
        }
        executor.runUntilFinished()
        guard let result = outcome.withLock({ $0.take() }) else {
            preconditionFailure("the inline task ended without a result")
        }
        return try result.value.get()
    }
}

/// The closure and its result, handed to the inline task and back. Safe unchecked: the calling
/// thread does nothing but run the task's jobs from the hand-over until the result is back, so
/// the values (a transaction on a SQLite connection, which is not `Sendable`) are never used
/// from two places at once.
private struct Handover<Value>: @unchecked Sendable {
    var value: Value
}

/// The task executor behind `InlineAsync`: jobs are queued by whoever enqueues them and run by
/// the one thread inside `runUntilFinished`.
private final class InlineTaskExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var finished = false
    }

    private let queue = Mutex(Queue())
    /// Signalled once per job queued and once when the task finished.
    private let ready = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let late = queue.withLock { queue in
            queue.jobs.append(job)
            return queue.finished
        }
        // Nothing of the task runs after it finished; a job that did would never be run.
        precondition(!late, "a job reached the inline executor after its task ended")
        ready.signal()
    }

    func finish() {
        queue.withLock { $0.finished = true }
        ready.signal()
    }

    func runUntilFinished() {
        while true {
            ready.wait()
            let (job, finished): (UnownedJob?, Bool) = queue.withLock { queue in
                queue.jobs.isEmpty ? (nil, queue.finished) : (queue.jobs.removeFirst(), false)
            }
            if let job { job.runSynchronously(on: asUnownedTaskExecutor()) } else if finished { return }
        }
    }
}

/// Whether the running code is a write's own work (a handler inside its transaction). That work
/// must not call the store again: on SQLite the inner write would wait for the group its own
/// transaction holds, on PostgreSQL for a turn or a user's lock it holds itself — a hang, not an
/// error. Debug builds stop at the call instead.
enum StoreWriting {
    @TaskLocal static var inside = false

    static func assertOutside(_ entry: StaticString = #function) {
        assert(!inside, "\(entry) called from inside a write's own work: it would wait for itself")
    }
}

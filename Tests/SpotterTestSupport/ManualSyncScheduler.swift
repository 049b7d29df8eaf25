import Foundation
import SpotterSync
import Synchronization

/// A scheduler whose timers fire only when a test advances it (with its `ManualClock`), so
/// backoff and the periodic tick run without sleeping.
public final class ManualSyncScheduler: SyncScheduler {
    private final class Entry: ScheduledWork {
        let due: TimeInterval
        let queue: DispatchQueue
        let work: @Sendable () -> Void
        private let cancelled = Atomic(false)

        init(due: TimeInterval, queue: DispatchQueue, work: @escaping @Sendable () -> Void) {
            self.due = due
            self.queue = queue
            self.work = work
        }

        func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }
        var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
    }

    private struct Timers {
        var entries: [Entry] = []
        var now: TimeInterval = 0
    }

    private let timers = Mutex(Timers())

    public init() {}

    public func schedule(
        after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
    ) -> any ScheduledWork {
        timers.withLock { timers in
            let entry = Entry(due: timers.now + max(0, delay), queue: queue, work: work)
            timers.entries.append(entry)
            return entry
        }
    }

    /// Moves time forward and runs every timer that came due, in due order.
    public func advance(by seconds: TimeInterval) {
        let due: [Entry] = timers.withLock { timers in
            timers.now += seconds
            let now = timers.now
            let ready = timers.entries.filter { $0.due <= now }.sorted { $0.due < $1.due }
            timers.entries.removeAll { $0.due <= now }
            return ready
        }
        for entry in due where !entry.isCancelled {
            entry.queue.sync { entry.work() }
        }
    }

    /// Delays of the live timers from now, soonest first.
    public var pendingDelays: [TimeInterval] {
        timers.withLock { timers in timers.entries.filter { !$0.isCancelled }.map { $0.due - timers.now }.sorted() }
    }
}

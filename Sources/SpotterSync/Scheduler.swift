import Foundation

/// A timer the engine can cancel.
public protocol ScheduledWork: Sendable {
    func cancel()
}

/// Where the engine's timers come from: `DispatchSourceTimer`s on its queue in production,
/// a hand-cranked scheduler in tests so backoff and the periodic tick run without sleeping.
public protocol SyncScheduler: Sendable {
    /// Runs `work` on `queue` after `delay` seconds.
    func schedule(
        after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
    ) -> any ScheduledWork
}

/// Timers as `DispatchSourceTimer`s.
public struct DispatchSyncScheduler: SyncScheduler {
    public init() {}

    public func schedule(
        after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
    ) -> any ScheduledWork {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + max(0, delay), leeway: .milliseconds(20))
        timer.setEventHandler(handler: work)
        timer.resume()
        return DispatchTimerWork(timer: timer)
    }
}

// @unchecked Sendable: DispatchSourceTimer's cancel is thread-safe.
struct DispatchTimerWork: ScheduledWork, @unchecked Sendable {
    let timer: any DispatchSourceTimer
    func cancel() { timer.cancel() }
}

/// A scheduler whose timers fire only when a test advances it (with its `ManualClock`).
// @unchecked Sendable: `entries` and `now` are only touched under `lock`.
public final class ManualSyncScheduler: SyncScheduler, @unchecked Sendable {
    private final class Entry: ScheduledWork, @unchecked Sendable {
        let due: TimeInterval
        let queue: DispatchQueue
        let work: @Sendable () -> Void
        let lock = NSLock()
        var cancelled = false
        init(due: TimeInterval, queue: DispatchQueue, work: @escaping @Sendable () -> Void) {
            self.due = due
            self.queue = queue
            self.work = work
        }
        func cancel() { lock.withLock { cancelled = true } }
        var isCancelled: Bool { lock.withLock { cancelled } }
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var now: TimeInterval = 0

    public init() {}

    public func schedule(
        after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void
    ) -> any ScheduledWork {
        lock.withLock {
            let entry = Entry(due: now + max(0, delay), queue: queue, work: work)
            entries.append(entry)
            return entry
        }
    }

    /// Moves time forward and runs every timer that came due, in due order.
    public func advance(by seconds: TimeInterval) {
        let due: [Entry] = lock.withLock {
            now += seconds
            let ready = entries.filter { $0.due <= now }.sorted { $0.due < $1.due }
            entries.removeAll { $0.due <= now }
            return ready
        }
        for entry in due where !entry.isCancelled {
            entry.queue.sync { entry.work() }
        }
    }

    /// Delays of the live timers from now, soonest first.
    public var pendingDelays: [TimeInterval] {
        lock.withLock { entries.filter { !$0.isCancelled }.map { $0.due - now }.sorted() }
    }
}

import Foundation

/// A timer the engine can cancel.
public protocol ScheduledWork: Sendable {
    func cancel()
}

/// Where the engine's timers come from: `DispatchSourceTimer`s on its queue in production,
/// a hand-cranked scheduler in tests (the test support's `ManualSyncScheduler`) so backoff and the periodic tick run without sleeping.
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
        // At most a year: a time read from a damaged row must not overflow the deadline.
        timer.schedule(deadline: .now() + min(max(0, delay.isNaN ? 0 : delay), 366 * 86_400), leeway: .milliseconds(20))
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

import Foundation

/// The time source every schedule reads (backoff, leases, periodic sync, rest timer),
/// injected so tests can move time by hand instead of sleeping.
public protocol SpotterClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemClock: SpotterClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to; for deterministic tests of time-based rules.
// @unchecked Sendable: the only state, `current`, is read and written under `lock`.
public final class ManualClock: SpotterClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = start
    }

    public func now() -> Date {
        lock.withLock { current }
    }

    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        lock.withLock { current = date }
    }
}

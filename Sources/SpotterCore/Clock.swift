import Foundation

/// The time source every schedule reads (backoff, leases, periodic sync, rest timer),
/// injected so tests can move time by hand instead of sleeping.
public protocol SpotterClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemClock: SpotterClock {
    public init() {}
    public func now() -> Date { Date().addingTimeInterval(Self.offset) }

    /// Seconds this process's clock is off by: `SPOTTER_CLOCK_OFFSET` (e.g. 7200, or -86400), read
    /// once; 0 when unset or not a number. It makes a device whose clock is wrong, for the tests
    /// and the soak of the field merge (which orders edits by when a device says they were made).
    public static let offset: TimeInterval = {
        guard let text = ProcessInfo.processInfo.environment["SPOTTER_CLOCK_OFFSET"], let seconds = Double(text),
            seconds.isFinite, abs(seconds) < 100 * 365 * 86_400
        else { return 0 }
        return seconds
    }()
}

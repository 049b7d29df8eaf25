import Foundation
import SpotterCore
import Synchronization

/// A clock that only moves when told to; for deterministic tests of time-based rules. Lives with
/// the test support, not in the product: nothing that ships reads a hand-moved clock.
public final class ManualClock: SpotterClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date {
        current.withLock { $0 }
    }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}

import Foundation
import Synchronization
import Testing

@testable import SpotterServer

/// The closure that tells other instances of a write (PostgreSQL scale-out) is called once per
/// write. It used to be kept as a lock's value and came back from each call wrapped in two more
/// reabstraction thunks: after n writes a call went 2n frames deep, so calls slowed down without
/// end and enough writes would have overflowed the calling thread's stack — a crash of the
/// instance.
@Suite("The change relay's callback")
struct ChangeRelayChainTests {
    @Test("the ten-thousandth announce of a write runs exactly as deep as the first")
    func announcingDoesNotDeepenTheCallback() {
        let waiters = ChangeWaiters(limit: 10)
        let depths = Mutex<[Int]>([])
        waiters.relay { _ in
            let depth = Thread.callStackReturnAddresses.count
            depths.withLock { $0.append(depth) }
        }
        for _ in 0..<10_000 { waiters.changed("alice") }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 10_000, "every write is announced")
        #expect(
            seen.first == seen.last,
            "the stack under the callback stays as it was: \(seen.first ?? 0) → \(seen.last ?? 0)")
    }
}

import Foundation
import Logging
import ServiceLifecycle
import SpotterCore

/// Deletes expired idempotency records at start-up and then periodically.
///
/// Expired records are already ignored by claims; purging only keeps the table from
/// growing without bound on a long-running server.
struct IdempotencyPurgeService: Service {
    let store: any ServerStore
    let clock: any SpotterClock
    let timeToLive: TimeInterval
    let interval: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await purgePeriodically() }
        } catch is CancellationError {
            // Graceful shutdown: nothing left to do.
        }
    }

    private func purgePeriodically() async throws {
        while !Task.isCancelled {
            do {
                let purged = try await store.purgeIdempotencyRecords(
                    createdBefore: clock.now().addingTimeInterval(-timeToLive))
                if purged > 0 { logger.info("purged expired idempotency records", metadata: ["count": "\(purged)"]) }
            } catch {
                logger.warning("purging idempotency records failed", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: interval)
        }
    }
}

import Foundation
import Logging
import Synchronization

/// Idempotency claims whose release failed because the database was gone when their request
/// failed: released again in the background, a quarter of a second after the failure and then
/// with backoff up to 2 s, so that once the database is back a retry of the key runs (or replays
/// what did commit) instead of meeting 409 "in progress" until the claim is stale.
///
/// A release only removes a claim still in progress under its own token: if the request's effect
/// did commit before the link went down, its record is complete and the release changes nothing.
/// Each release is tried until the claim would be stale anyway (then any request takes it over).
final class OwedReleases: Sendable {
    private struct Owed {
        let scope: IdempotencyScope
        let token: String
        let until: ContinuousClock.Instant
    }

    private struct State {
        var owed: [Owed] = []
        var retrying = false
    }

    private let state = Mutex(State())

    func owe(
        _ scope: IdempotencyScope, token: String, store: any ServerStore, staleAfter: TimeInterval, logger: Logger
    ) {
        let start = state.withLock { state -> Bool in
            state.owed.append(Owed(scope: scope, token: token, until: .now + .seconds(staleAfter)))
            defer { state.retrying = true }
            return !state.retrying
        }
        if start { Task { await self.retry(store: store, logger: logger) } }
    }

    private func retry(store: any ServerStore, logger: Logger) async {
        var delay = Duration.milliseconds(250)
        while true {
            try? await Task.sleep(for: delay)
            let batch = state.withLock { state -> [Owed]? in
                guard !state.owed.isEmpty else {
                    state.retrying = false
                    return nil
                }
                defer { state.owed = [] }
                return state.owed
            }
            guard let batch else { return }
            var still: [Owed] = []
            for owed in batch {
                do {
                    try await store.releaseIdempotencyKey(owed.scope, token: owed.token)
                    logger.notice(
                        "idempotency key released after the database came back",
                        metadata: ["method": "\(owed.scope.method)", "path": "\(owed.scope.path)"])
                } catch  where ContinuousClock.now < owed.until {
                    still.append(owed)
                } catch {
                    logger.warning(
                        "gave up releasing an idempotency key; it is stale now and the next request takes it over",
                        metadata: ["error": "\(error)"])
                }
            }
            state.withLock { $0.owed.append(contentsOf: still) }
            delay = still.isEmpty ? .milliseconds(250) : min(delay * 2, .seconds(2))
        }
    }
}

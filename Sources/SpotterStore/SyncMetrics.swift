import Foundation
import GRDB
import SpotterCore

/// Sync counters kept in the database, so `spotter status` shows them across runs.
public struct SyncMetricsSnapshot: Sendable, Equatable {
    public var counters: [String: Int]
    /// Milliseconds from enqueue to success over the recent successes.
    public var latencyP50ms: Double?
    public var latencyP95ms: Double?
}

/// The sync counters, named once: the engine counts them, `spotter status` shows them by `name`.
public enum SyncCounter: Hashable, Sendable {
    /// HTTP requests made (a batch is one).
    case requests
    /// Operations sent (a batch counts each of its operations).
    case sent
    case succeeded
    /// Answers the server replayed from its idempotency store.
    case replays
    case permanentFailures
    /// Operations the safety valve gave up on.
    case gaveUp
    /// Entities changed here by the change feed.
    case pulled
    /// A try that will be retried, by why.
    case retried(TransientReason)

    /// The counter's name in the database and in `spotter status`.
    public var name: String {
        switch self {
        case .requests: "requests"
        case .sent: "sent"
        case .succeeded: "succeeded"
        case .replays: "replays"
        case .permanentFailures: "permanent_failures"
        case .gaveUp: "gave_up"
        case .pulled: "pulled"
        case .retried(let reason): "retried_\(reason.rawValue)"
        }
    }
}

extension OutboxQueue {
    public func incrementMetrics(_ deltas: [SyncCounter: Int]) throws {
        guard !deltas.isEmpty else { return }
        try writer.write { db in
            for (counter, delta) in deltas where delta != 0 {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO sync_metrics (name, value) VALUES (?, ?)
                        ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                        """
                ).execute(arguments: [counter.name, delta])
            }
        }
    }
}

extension Queries {
    public func syncMetrics() throws -> SyncMetricsSnapshot {
        try writer.read { db in
            var counters: [String: Int] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT name, value FROM sync_metrics")) {
                counters[row["name"]] = row["value"]
            }
            let latencies = try Double.fetchAll(db.cachedStatement(sql: "SELECT ms FROM sync_latency ORDER BY ms"))
            func percentile(_ p: Double) -> Double? {
                guard !latencies.isEmpty else { return nil }
                let index = min(latencies.count - 1, Int((p * Double(latencies.count - 1)).rounded()))
                return latencies[index]
            }
            return SyncMetricsSnapshot(
                counters: counters, latencyP50ms: percentile(0.5), latencyP95ms: percentile(0.95))
        }
    }
}

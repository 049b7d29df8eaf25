import Foundation
import GRDB

/// Sync counters kept in the database, so `spotter status` shows them across runs.
public struct SyncMetricsSnapshot: Sendable, Equatable {
    public var counters: [String: Int]
    /// Milliseconds from enqueue to success over the recent successes.
    public var latencyP50ms: Double?
    public var latencyP95ms: Double?
}

extension SpotterStore {
    public func incrementMetrics(_ deltas: [String: Int]) throws {
        guard !deltas.isEmpty else { return }
        try writer.write { db in
            for (name, delta) in deltas where delta != 0 {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO sync_metrics (name, value) VALUES (?, ?)
                        ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                        """
                ).execute(arguments: [name, delta])
            }
        }
    }

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

import Foundation

/// A fault chaos mode injected, as its metrics label names it.
enum InjectedFault: String, Sendable {
    case fail
    case rateLimit = "429"
    case drop
}

/// Counters the server exposes at `GET /metrics` in the Prometheus text format.
///
/// Kept in memory per process: they describe this instance's traffic, while the
/// idempotency records that matter for correctness live in the store.
// @unchecked Sendable: every stored property is read and written only under `lock`.
public final class ServerMetrics: @unchecked Sendable {
    private struct RequestLabel: Hashable {
        var route: String
        var status: Int
    }

    private let lock = NSLock()
    private var requests: [RequestLabel: Int] = [:]
    private var batchOperations: [RequestLabel: Int] = [:]
    private var replays = 0
    private var keyReused = 0
    private var keyInUse = 0
    private var injected: [String: Int] = [:]

    public init() {}

    func recordRequest(route: String, status: Int) {
        lock.withLock { requests[RequestLabel(route: route, status: status), default: 0] += 1 }
    }

    func recordBatchOperation(route: String, status: Int) {
        lock.withLock { batchOperations[RequestLabel(route: route, status: status), default: 0] += 1 }
    }

    func recordReplay() { lock.withLock { replays += 1 } }
    func recordKeyReused() { lock.withLock { keyReused += 1 } }
    func recordKeyInUse() { lock.withLock { keyInUse += 1 } }
    func recordInjectedFault(_ kind: InjectedFault) { lock.withLock { injected[kind.rawValue, default: 0] += 1 } }

    /// Idempotent replays served so far.
    public var replayCount: Int { lock.withLock { replays } }
    /// 422 answers to a key reused with a different body.
    public var keyReusedCount: Int { lock.withLock { keyReused } }
    /// 409 answers to a key whose first request was still running.
    public var keyInUseCount: Int { lock.withLock { keyInUse } }

    /// The Prometheus exposition text.
    public func prometheusText() -> String {
        lock.withLock {
            var out = ""
            out += "# HELP spotter_http_requests_total HTTP requests by route and status.\n"
            out += "# TYPE spotter_http_requests_total counter\n"
            for (label, count) in requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) })
            {
                out +=
                    "spotter_http_requests_total{route=\"\(escape(label.route))\",status=\"\(label.status)\"} \(count)\n"
            }
            out += "# HELP spotter_batch_operations_total Operations inside POST /v1/batch by route and status.\n"
            out += "# TYPE spotter_batch_operations_total counter\n"
            for (label, count) in batchOperations.sorted(by: {
                ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
            }) {
                out +=
                    "spotter_batch_operations_total{route=\"\(escape(label.route))\",status=\"\(label.status)\"} \(count)\n"
            }
            out += "# HELP spotter_idempotency_replays_total Responses replayed from an idempotency record.\n"
            out += "# TYPE spotter_idempotency_replays_total counter\n"
            out += "spotter_idempotency_replays_total \(replays)\n"
            out += "# HELP spotter_idempotency_key_reused_total Keys reused with a different request (422).\n"
            out += "# TYPE spotter_idempotency_key_reused_total counter\n"
            out += "spotter_idempotency_key_reused_total \(keyReused)\n"
            out += "# HELP spotter_idempotency_in_progress_total Keys whose first request was still running (409).\n"
            out += "# TYPE spotter_idempotency_in_progress_total counter\n"
            out += "spotter_idempotency_in_progress_total \(keyInUse)\n"
            out += "# HELP spotter_chaos_injected_total Faults injected by chaos mode, by kind.\n"
            out += "# TYPE spotter_chaos_injected_total counter\n"
            for (kind, count) in injected.sorted(by: { $0.key < $1.key }) {
                out += "spotter_chaos_injected_total{kind=\"\(kind)\"} \(count)\n"
            }
            return out
        }
    }

    private func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

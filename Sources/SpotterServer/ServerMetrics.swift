import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// The names of the server's metrics, in one place.
enum MetricName: String, CaseIterable, Sendable {
    /// HTTP requests by route and status.
    case httpRequests = "spotter_http_requests_total"
    /// Time from a request's head to its response, by route.
    case httpRequestDuration = "spotter_http_request_duration_seconds"
    /// Operations inside `POST /v1/batch` by route and status.
    case batchOperations = "spotter_batch_operations_total"
    /// Responses replayed from an idempotency record.
    case idempotencyReplays = "spotter_idempotency_replays_total"
    /// Keys reused with a different request (422).
    case idempotencyKeyReused = "spotter_idempotency_key_reused_total"
    /// Keys whose first request was still running (409).
    case idempotencyInProgress = "spotter_idempotency_in_progress_total"
    /// Faults injected by chaos mode, by kind.
    case chaosInjected = "spotter_chaos_injected_total"
    /// Requests waiting for a user's change feed to move (`GET /v1/changes?wait=`).
    case changesWaiting = "spotter_changes_waiting"
    /// 1 while the instance listens for other instances' changes on PostgreSQL, else 0.
    case changeRelayListening = "spotter_change_relay_listening"
}

/// A fault chaos mode injected, as its metrics label names it.
enum InjectedFault: String, Sendable {
    case fail
    case rateLimit = "429"
    case drop
}

/// The server's metrics, recorded through swift-metrics into a Prometheus registry of this
/// server's own and served at `GET /metrics` in the Prometheus text format.
///
/// No `MetricsSystem.bootstrap`: the factory is handed to each metric, so several servers in
/// one process (the tests start many) each count only their own traffic. Kept in memory per
/// process: they describe this instance, while the idempotency records that matter for
/// correctness live in the store.
public final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let replays: CoreMetrics.Counter
    private let keyReused: CoreMetrics.Counter
    private let keyInUse: CoreMetrics.Counter
    private let changesWaiting: Prometheus.Gauge
    private let relayListening: Prometheus.Gauge
    /// Handles made once per label set (routes are templates, so there are few): making one
    /// asks the registry under its lock, which every request paid before.
    private let requestCounters = Mutex<[RequestLabels: CoreMetrics.Counter]>([:])
    private let requestTimers = Mutex<[String: CoreMetrics.Timer]>([:])
    private let batchCounters = Mutex<[RequestLabels: CoreMetrics.Counter]>([:])

    private struct RequestLabels: Hashable {
        let route: String
        let status: Int
    }

    public init() {
        factory = PrometheusMetricsFactory(registry: registry)
        // Created up front so that they read 0 before the first event.
        replays = CoreMetrics.Counter(label: MetricName.idempotencyReplays.rawValue, factory: factory)
        keyReused = CoreMetrics.Counter(label: MetricName.idempotencyKeyReused.rawValue, factory: factory)
        keyInUse = CoreMetrics.Counter(label: MetricName.idempotencyInProgress.rawValue, factory: factory)
        changesWaiting = registry.makeGauge(name: MetricName.changesWaiting.rawValue)
        changesWaiting.set(Int64(0))
        relayListening = registry.makeGauge(name: MetricName.changeRelayListening.rawValue)
        relayListening.set(Int64(0))
    }

    /// Whether the change relay listens now.
    func recordRelayListening(_ listening: Bool) { relayListening.set(Int64(listening ? 1 : 0)) }

    /// How many requests wait on a change feed now.
    func recordWaiting(_ count: Int) { changesWaiting.set(Int64(count)) }

    func recordRequest(route: String, status: Int, duration: Duration) {
        counter(.httpRequests, RequestLabels(route: route, status: status), in: requestCounters).increment()
        let timer = requestTimers.withLock { timers in
            if let known = timers[route] { return known }
            let made = CoreMetrics.Timer(
                label: MetricName.httpRequestDuration.rawValue, dimensions: [("route", route)], factory: factory)
            timers[route] = made
            return made
        }
        timer.recordNanoseconds(duration.nanoseconds)
    }

    func recordBatchOperation(route: String, status: Int) {
        counter(.batchOperations, RequestLabels(route: route, status: status), in: batchCounters).increment()
    }

    private func counter(
        _ name: MetricName, _ labels: RequestLabels, in cache: borrowing Mutex<[RequestLabels: CoreMetrics.Counter]>
    ) -> CoreMetrics.Counter {
        cache.withLock { counters in
            if let known = counters[labels] { return known }
            let made = CoreMetrics.Counter(
                label: name.rawValue, dimensions: [("route", labels.route), ("status", String(labels.status))],
                factory: factory)
            counters[labels] = made
            return made
        }
    }

    func recordReplay() { replays.increment() }
    func recordKeyReused() { keyReused.increment() }
    func recordKeyInUse() { keyInUse.increment() }

    func recordInjectedFault(_ kind: InjectedFault) {
        CoreMetrics.Counter(
            label: MetricName.chaosInjected.rawValue, dimensions: [("kind", kind.rawValue)], factory: factory
        ).increment()
    }

    /// Idempotent replays served so far.
    public var replayCount: Int { value(of: .idempotencyReplays) }
    /// 422 answers to a key reused with a different body.
    public var keyReusedCount: Int { value(of: .idempotencyKeyReused) }
    /// 409 answers to a key whose first request was still running.
    public var keyInUseCount: Int { value(of: .idempotencyInProgress) }

    /// The Prometheus exposition text.
    public func prometheusText() -> String { registry.emitToString() }

    /// The value of an unlabelled counter, as the exposition reports it.
    private func value(of name: MetricName) -> Int {
        let prefix = name.rawValue + " "
        for line in prometheusText().split(separator: "\n") where line.hasPrefix(prefix) {
            return Int(line.dropFirst(prefix.count)) ?? 0
        }
        return 0
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterSync
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// Two instances on one PostgreSQL behind HAProxy, with the repository's `deploy/haproxy.cfg`
/// (the README's recipe): a real device drains through the balancer while an instance stops.
@Suite(
    "Two instances behind HAProxy with the repository's configuration",
    .enabled(
        if: TestPostgres.unavailableReason == nil,
        Comment(rawValue: "PostgreSQL tests skipped: \(TestPostgres.unavailableReason ?? "")")),
    .enabled(
        if: HAProxy.unavailableReason == nil,
        Comment(rawValue: "HAProxy tests skipped: \(HAProxy.unavailableReason ?? "")")))
struct HAProxyTests {
    @Test("a drain through HAProxy reaches both instances; one stops midway and every set lands exactly once")
    func aDrainThroughTheBalancerSurvivesAnInstanceStopping() async throws {
        // A little latency, so the drain is still going when the second instance stops.
        let first = try await TestServer.start(.postgres) { $0.chaos.latencyMS = 10 }
        let second = try await TestServer.start(.postgres, in: first.directory) { $0.chaos.latencyMS = 10 }
        let balancer: HAProxy
        do {
            balancer = try await HAProxy.start(before: (first.baseURL, second.baseURL))
        } catch {
            await second.stop(removingFiles: false)
            await first.stop()
            throw error
        }
        defer { balancer.stop() }
        let device = try Device(server: nil, baseURL: balancer.baseURL, batchSize: 10)
        let logged = try device.logOffline(300)
        device.engine.setAirplane(false)
        let draining = Task { await device.sync(120) }

        // The second instance stops once part of the queue has landed (bounded wait).
        let landed = try await first.untilLanded(60)
        let servedBySecond = second.server.metrics.prometheusText().split(separator: "\n").contains {
            $0.hasPrefix("spotter_http_requests_total") && $0.contains("/v1/batch")
        }
        await second.stop(removingFiles: false)
        #expect(landed >= 60 && landed < 300, "the stop falls in the middle of the drain (\(landed) landed)")

        #expect(await draining.value, "the queue drains through the instance left")
        #expect(servedBySecond, "round-robin: the second instance took batches before it stopped")
        let onServer = try await first.store.allSets(user: "alice")
        #expect(onServer.count == 300)
        #expect(Set(onServer.map(\.id.wireString)) == logged, "every set exactly once")
        #expect(try device.store.queries.queueCounts() == QueueCounts())
        #expect(try device.store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        await first.stop()
    }
}

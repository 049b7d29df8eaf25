import Foundation
import Logging
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Testing

/// A real device draining to a server that holds each account to one request at a time: the
/// engine's pipelined batches and its other requests meet 429s, retry them, and every set still
/// lands exactly once.
@Suite("A drain under the account's concurrency limit (real server)")
struct FairnessSyncTests {
    @Test func aDrainThroughTheLimitLandsEverySetOnce() async throws {
        let server = try await TestServer.start { configuration in
            configuration.maxUserConcurrency = 1
            configuration.chaos.latencyMS = 20  // each batch takes a while, so the next one overlaps it
        }
        let phone = try Device(server: nil, baseURL: server.baseURL, batchSize: 5)
        let laptop = try Device(server: nil, baseURL: server.baseURL, batchSize: 5)
        try phone.store.preferences.setAirplane(true)
        try laptop.store.preferences.setAirplane(true)
        var logged: Set<String> = []
        for index in 0..<60 {
            let device = index % 2 == 0 ? phone : laptop
            logged.insert(
                try device.store.workoutLog.logSet(
                    LogSetInput(exercise: "Squat 💪🏽 e\u{301}", weight: Double(60 + index), reps: 5)
                ).set.id.wireString)
        }
        phone.engine.setAirplane(false)
        laptop.engine.setAirplane(false)
        async let phoneDrained = phone.sync(120)
        async let laptopDrained = laptop.sync(120)
        let drained = await (phoneDrained, laptopDrained)
        #expect(drained.0 && drained.1, "both queues drain through the 429s")

        let stored = try await server.store.allSets(user: "alice").filter { $0.deleted != true }
        #expect(stored.count == 60, "every set once")
        #expect(Set(stored.map(\.id.wireString)) == logged)
        let refused = server.server.metrics.prometheusText().split(separator: "\n").contains {
            $0.contains("status=\"429\"") && !$0.hasSuffix(" 0")
        }
        #expect(refused, "the limit was met on the way (429s in /metrics)")
        // One more pull each (the first to finish drained before the other had sent everything):
        // both show what the server has.
        #expect(await phone.sync(60))
        #expect(await laptop.sync(60))
        #expect(try phone.shownSets() == describe(stored), "the phone shows what the server has")
        #expect(try laptop.shownSets() == describe(stored), "and so does the laptop")
        await server.stop()
    }
}

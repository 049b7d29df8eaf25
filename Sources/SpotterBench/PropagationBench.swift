import Foundation
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync

extension BenchmarkSuite {
    /// `propagation`: device A logs `count` sets one at a time, each pushed at once, while device
    /// B, signed in to the same account, keeps its wait on the change feed open (as the UI does,
    /// its periodic pull ten minutes away); from A's commit of each set to B having it in its
    /// database. One in-process server on loopback (SQLite); with `--database-url`, also two
    /// instances on that PostgreSQL database, A writing through one and B waiting at the other
    /// (a fresh user each run, so B's first pull is empty).
    static func propagationBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 20 : 200
        let token = UUID().uuidString
        let server = try await startServer(options, token: token)
        var result = try await propagation(
            options, count: count, token: token, user: "bench", from: server.baseURL, to: server.baseURL)
        await server.stop()
        if let url = options.serverDatabaseURL {
            let user = "bench-propagation-\(UUID().wireString.prefix(8))"
            var configuration = ServerConfiguration(databasePath: "", tokens: [token: user])
            configuration.databaseURL = url
            let first = try await BackgroundServer.start(configuration, logger: quietLogger())
            let second = try await BackgroundServer.start(configuration, logger: quietLogger())
            do {
                // Both instances listen for each other's notices before the first set.
                for instance in [first, second] {
                    var listening = false
                    for _ in 0..<500 where !listening {
                        listening = instance.metrics.prometheusText().contains("spotter_change_relay_listening 1")
                        if !listening { try await Task.sleep(for: .milliseconds(10)) }
                    }
                    guard listening else { throw BenchError("an instance did not listen on PostgreSQL in 5 s") }
                }
                result["postgres_two_instances"] = .object(
                    try await propagation(
                        options, count: count, token: token, user: user, from: first.baseURL, to: second.baseURL))
            } catch {
                await first.stop()
                await second.stop()
                throw error
            }
            await first.stop()
            await second.stop()
        }
        return .object(result)
    }

    /// A logs through `from`, B waits at `to`; the figures of one run.
    private static func propagation(
        _ options: BenchOptions, count: Int, token: String, user: String, from: String, to: String
    ) async throws -> [String: JSONValue] {
        let phone = try SpotterStore.open(path: freshPath(options, "propagation-a"), userID: user)
        let laptop = try SpotterStore.open(path: freshPath(options, "propagation-b"), userID: user)
        var pushing = SyncConfiguration()
        pushing.pullEnabled = false
        let sender = SyncEngine(
            store: phone, transport: HTTPSyncTransport(baseURL: from, token: token), configuration: pushing,
            logger: quietLogger())
        var watching = SyncConfiguration()
        watching.watchChanges = true
        watching.periodicInterval = 600
        let receiver = SyncEngine(
            store: laptop, transport: HTTPSyncTransport(baseURL: to, token: token), configuration: watching,
            logger: quietLogger())
        receiver.start()
        defer { receiver.stop() }
        var samples = Samples(capacity: count)
        let workout = try phone.workoutLog.createWorkout(name: "Propagation")
        _ = await sender.drain(timeout: 30)
        for index in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            let logged = try phone.workoutLog.logSet(
                LogSetInput(
                    exercise: lifts[index % lifts.count], weight: 100, reps: 5, workout: .existing(workout.id)))
            sender.trigger(.enqueue)
            let deadline = start + 30_000_000_000
            while try laptop.queries.set(id: logged.set.id) == nil {
                guard DispatchTime.now().uptimeNanoseconds < deadline else {
                    throw BenchError("set \(index) did not reach the watching device in 30 s")
                }
                try await Task.sleep(nanoseconds: 200_000)
            }
            samples.record(DispatchTime.now().uptimeNanoseconds - start)
        }
        return [
            "sets": .int(Int64(count)), "p50_ms": .double(rounded(samples.percentileMicros(0.5) / 1000, 2)),
            "p99_ms": .double(rounded(samples.percentileMicros(0.99) / 1000, 2)),
            "max_ms": .double(rounded(samples.percentileMicros(1) / 1000, 2)),
        ]
    }
}

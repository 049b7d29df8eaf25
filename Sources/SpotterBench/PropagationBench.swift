import Foundation
import SpotterCore
import SpotterServer
import SpotterStore
import SpotterSync

extension BenchmarkSuite {
    /// `propagation`: device A logs `count` sets one at a time, each pushed at once, while device
    /// B, signed in to the same account, keeps its wait on the change feed open (as the UI does,
    /// its periodic pull ten minutes away); from A's commit of each set to B having it in its
    /// database. One in-process server on loopback (SQLite).
    static func propagationBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 20 : 200
        let token = UUID().uuidString
        let server = try await startServer(options, token: token)
        let phone = try SpotterStore.open(path: freshPath(options, "propagation-a"), userID: "bench")
        let laptop = try SpotterStore.open(path: freshPath(options, "propagation-b"), userID: "bench")
        var pushing = SyncConfiguration()
        pushing.pullEnabled = false
        let sender = SyncEngine(
            store: phone, transport: HTTPSyncTransport(baseURL: server.baseURL, token: token),
            configuration: pushing, logger: quietLogger())
        var watching = SyncConfiguration()
        watching.watchChanges = true
        watching.periodicInterval = 600
        let receiver = SyncEngine(
            store: laptop, transport: HTTPSyncTransport(baseURL: server.baseURL, token: token),
            configuration: watching, logger: quietLogger())
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
                    await server.stop()
                    throw BenchError("set \(index) did not reach the watching device in 30 s")
                }
                try await Task.sleep(nanoseconds: 200_000)
            }
            samples.record(DispatchTime.now().uptimeNanoseconds - start)
        }
        await server.stop()
        return .object([
            "sets": .int(Int64(count)), "p50_ms": .double(rounded(samples.percentileMicros(0.5) / 1000, 2)),
            "p99_ms": .double(rounded(samples.percentileMicros(0.99) / 1000, 2)),
            "max_ms": .double(rounded(samples.percentileMicros(1) / 1000, 2)),
        ])
    }
}

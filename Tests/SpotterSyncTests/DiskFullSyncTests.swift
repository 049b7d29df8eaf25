import Foundation
import SpotterCore
import SpotterProtocol
import SpotterSync
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterStore

/// The real transport to the real server, which fills the device's disk the moment a batch's
/// answer is back (once armed) and before the engine records it: the one moment a full disk costs an
/// answer the server already committed.
final class DiskFillingTransport: SyncTransport {
    private let base: HTTPSyncTransport
    private let fill: @Sendable () -> Void
    private let armed = Mutex(false)

    init(base: HTTPSyncTransport, fill: @escaping @Sendable () -> Void) {
        self.base = base
        self.fill = fill
    }

    /// The next batch's answer fills the disk.
    func arm() { armed.withLock { $0 = true } }

    func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) {
        base.send(request) { [self] result in
            let fillNow =
                request.path == Route.batch
                && armed.withLock { armed in
                    defer { armed = false }
                    return armed
                }
            if fillNow { fill() }
            completion(result)
        }
    }
}

@Suite("A full disk between an answer and its record", .enabled(if: Tmpfs.works, "needs root and a tmpfs"))
struct DiskFullSyncTests {
    @Test("answers that found the disk full are asked again once there is room: every set on the server once")
    func answersNotRecordedAreAskedAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-full-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #require(Tmpfs.mount(on: folder, size: "16m"))
        defer {
            Tmpfs.unmount(folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let store = try SpotterStore.open(path: folder + "/device.db", userID: "local")
        func log(_ weight: Int) throws -> String {
            try store.workoutLog.logSet(LogSetInput(exercise: "Bench Press (Barbell)", weight: Double(weight), reps: 5))
                .set.id.wireString
        }
        let server = try await TestServer.start()
        let filler = folder + "/filler"
        let transport = DiskFillingTransport(
            base: HTTPSyncTransport(baseURL: server.baseURL, token: TestServer.aliceToken),
            fill: {
                // Every byte but none: the record of the answer that just came finds no room.
                let room = Tmpfs.free(folder)
                FileManager.default.createFile(atPath: filler, contents: Data(count: Int(room)))
            })
        var configuration = SyncConfiguration()
        configuration.diskFullRetry = 0.2
        configuration.pullEnabled = false
        let engine = SyncEngine(store: store, transport: transport, configuration: configuration)
        // The workout and a first set go out while there is room.
        var logged: Set<String> = [try log(60)]
        #expect(await engine.drain(timeout: 30))
        for index in 1...50 { logged.insert(try log(60 + index)) }

        // An emptied WAL: every page the record writes needs new room (a WAL that was reset keeps
        // its file, and writes into it need none).
        #expect(store.reclaimJournalSpace())
        transport.arm()
        await engine.syncOnce()
        #expect(engine.diskFullReason != nil, "the engine says the disk is full")
        #expect(try await server.sets().count == 51, "the server committed the batch")
        let stuck = try store.queries.queueCounts()
        #expect(stuck.pending == 50, "nothing recorded: all still waits, none called sent (\(stuck))")
        await engine.syncOnce()
        #expect(try store.queries.queueCounts().pending == 50, "with no room nothing moves")

        try FileManager.default.removeItem(atPath: filler)
        #expect(await engine.drain(timeout: 30), "once there is room the queue drains by itself")
        #expect(engine.diskFullReason == nil)
        let onServer = try await server.sets()
        #expect(Set(onServer.map(\.id.wireString)) == logged, "every set on the server")
        #expect(onServer.count == 51, "each once")
        #expect(try store.queries.sets(workoutID: nil).allSatisfy { $0.syncState == .synced })
        let replays = try store.queries.syncMetrics().counters["replays"] ?? 0
        #expect(replays >= 50, "the answers not recorded were answered again from the server's store (\(replays))")
        await server.stop()
    }
}

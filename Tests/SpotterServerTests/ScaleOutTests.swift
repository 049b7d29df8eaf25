import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// Several `spotter serve` instances on one PostgreSQL: one idempotency contract,
/// whichever instance a request or its retry reaches.
@Suite("Scale-out: several instances on one PostgreSQL", .postgresRequired)
struct ScaleOutTests {
    /// Instances on one fresh database: the first creates it, the others join it.
    private func instances(
        _ count: Int, adjust: @escaping (Int, inout ServerConfiguration) -> Void = { _, _ in }
    ) async throws -> [TestServer] {
        let first = try await TestServer.start(.postgres) { adjust(0, &$0) }
        var servers = [first]
        for index in 1..<count {
            servers.append(try await TestServer.start(.postgres, in: first.directory) { adjust(index, &$0) })
        }
        return servers
    }

    /// Runs `body` with `count` instances on one fresh database, then stops them all (and drops
    /// the database), whether `body` threw or not.
    private func withInstances(
        _ count: Int, adjust: @escaping (Int, inout ServerConfiguration) -> Void = { _, _ in },
        _ body: ([TestServer]) async throws -> Void
    ) async throws {
        let servers = try await instances(count, adjust: adjust)
        func stopAll() async {
            for server in servers.dropFirst() { await server.stop(removingFiles: false) }
            await servers[0].stop()
        }
        do {
            try await body(servers)
        } catch {
            await stopAll()
            throw error
        }
        await stopAll()
    }

    @Test("instances starting together on an empty database apply each migration once")
    func migrationsRunOnceUnderTheAdvisoryLock() async throws {
        let directory = try TestServer.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try #require(try await StoreBackend.postgres.freshLocation(in: directory))
        let stores = try await withThrowingTaskGroup(of: (any ServerStore).self) { group in
            for _ in 0..<4 { group.addTask { try await StoreBackend.openStore(path: "", url: url) } }
            return try await group.reduce(into: [any ServerStore]()) { $0.append($1) }
        }
        let postgres = try #require(stores[0] as? PostgresServerStore)
        let applied = try await postgres.pool.withSession { session in
            try await session.query("SELECT name FROM spotter_migrations ORDER BY name").rows.map {
                try $0.makeRandomAccess().text("name") ?? ""
            }
        }
        // One database, one name: every instance gives the change feed the same identity.
        #expect(Set(stores.map(\.identity)).count == 1)
        #expect(stores[0].identity.count == 32, "drawn by PostgreSQL: \(stores[0].identity)")
        // By name, as text sorts them ("v10" before "v2"), on both sides.
        #expect(applied.sorted() == PostgresSchema.migrations.map(\.name).sorted())
        for store in stores { try await store.close() }
    }

    @Test("a retry sent to the other instance replays byte-identically, marked; one effect")
    func retryOnTheOtherInstanceReplays() async throws {
        try await withInstances(2) { servers in
            let (a, b) = (servers[0], servers[1])
            let workoutID = try await a.createWorkout()
            let key = UUID().uuidString
            let body = Fixtures.set(workoutID: workoutID)
            let original = try await a.send(.POST, Route.sets, json: body, key: key)
            #expect(original.status == 201)
            #expect(!original.replayed)
            let onB = try await b.send(.POST, Route.sets, json: body, key: key)
            #expect(onB.status == 201)
            #expect(onB.replayed)
            #expect(onB.body == original.body, "the very bytes the first instance sent")
            #expect(onB.contentType == original.contentType)
            let backOnA = try await a.send(.POST, Route.sets, json: body, key: key)
            #expect(backOnA.replayed && backOnA.body == original.body)
            // The same key with another body is refused on either instance.
            let changed = Fixtures.set(workoutID: workoutID, weight: 120)
            #expect(try await b.send(.POST, Route.sets, json: changed, key: key).status == 422)
            #expect(try await a.store.allSets(user: "alice").count == 1)
            #expect(try await b.store.allSets(user: "alice").count == 1)
        }
    }

    /// The first instance commits each operation and then drops the connection (a reply lost on
    /// the way back); the client sends every retry to the next instance in turn.
    @Test("50 operations, each committed by an instance that drops the reply, retried on the others: each once")
    func droppedRepliesRetriedElsewhere() async throws {
        let dropFirst: (Int, inout ServerConfiguration) -> Void = { index, configuration in
            if index == 0 {
                configuration.chaos.dropRate = 1
                configuration.chaos.seed = 7
            }
        }
        try await withInstances(3, adjust: dropFirst) { servers in
            let workoutID = try await servers[1].createWorkout()
            var created: [String] = []
            for index in 0..<50 {
                let id = UUID().wireString
                let key = UUID().uuidString
                let body = Fixtures.set(id: id, workoutID: workoutID, weight: Double(40 + index))
                await #expect(throws: (any Error).self, "the dropping instance never answers") {
                    try await servers[0].send(.POST, Route.sets, json: body, key: key)
                }
                let retry = try await servers[1 + index % 2].send(.POST, Route.sets, json: body, key: key)
                #expect(retry.status == 201)
                #expect(retry.replayed, "the dropping instance had committed; the other one replays")
                let again = try await servers[2 - index % 2].send(.POST, Route.sets, json: body, key: key)
                #expect(again.replayed && again.body == retry.body)
                created.append(id)
            }
            let stored = try await servers[2].store.allSets(user: "alice")
            #expect(stored.count == 50)
            #expect(Set(stored.map(\.id.wireString)) == Set(created))
        }
    }

    @Test("20 parallel requests with one key split across two instances: one effect, the rest replay or 409")
    func parallelRequestsAcrossInstances() async throws {
        try await withInstances(2) { servers in
            let workoutID = try await servers[0].createWorkout()
            for round in 0..<3 {
                let key = UUID().uuidString
                let body = Fixtures.set(workoutID: workoutID, weight: Double(100 + round))
                let responses = try await inParallel(20) { index in
                    try await servers[index % 2].send(.POST, Route.sets, json: body, key: key)
                }
                expectOneEffect(responses)
            }
            #expect(try await servers[0].store.allSets(user: "alice").count == 3)
        }
    }

    @Test("batches of one user on two instances at once: every op once, the feed in commit order")
    func concurrentBatchesAcrossInstances() async throws {
        try await withInstances(2) { servers in
            let workoutID = try await servers[0].createWorkout()
            // Each batch is sent to both instances at the same time: same keys, racing.
            var expected = Set<String>()
            for _ in 0..<5 {
                var ops: [BatchOp] = []
                for _ in 0..<20 {
                    let id = UUID().wireString
                    expected.insert(id)
                    ops.append(
                        BatchOp(
                            idempotencyKey: UUID().uuidString, method: "POST", path: Route.sets,
                            body: Fixtures.set(id: id, workoutID: workoutID)))
                }
                let body = BatchRequest(ops: ops).json.canonicalString
                let answers = try await withThrowingTaskGroup(of: WireResponse.self) { group in
                    for server in servers { group.addTask { try await server.send(.POST, Route.batch, body: body) } }
                    return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
                }
                for answer in answers {
                    #expect(answer.status == 200)
                    let results = try answer.decode(BatchResponse.self).results
                    #expect(results.allSatisfy { $0.status == 201 || $0.status == 409 }, "\(results.map(\.status))")
                }
            }
            let stored = try await servers[1].store.allSets(user: "alice")
            #expect(Set(stored.map(\.id.wireString)) == expected)
            #expect(stored.count == expected.count)
            let feed = try await servers[0].store.changes(user: "alice", after: 0, limit: 5000).changes
            let versions = feed.map(\.serverVersion)
            #expect(versions == versions.sorted() && Set(versions).count == versions.count)
        }
    }

    @Test("batches touching the same favorites in opposite orders on two instances: never a 5xx")
    func favoritesInOppositeOrdersDoNotDeadlock() async throws {
        try await withInstances(2) { servers in
            for round in 0..<10 {
                let names = ["Squat \(round)", "Deadlift \(round)"]
                let orders = [names, names.reversed()]
                let answers = try await inParallel(2) { index in
                    let ops = orders[index].map { name in
                        BatchOp(
                            idempotencyKey: UUID().uuidString, method: "PUT",
                            path: "/v1/favorites/" + name.replacingOccurrences(of: " ", with: "%20"), body: nil)
                    }
                    return try await servers[index].send(
                        .POST, Route.batch, body: BatchRequest(ops: ops).json.canonicalString)
                }
                for answer in answers {
                    #expect(answer.status == 200)
                    let statuses = try answer.decode(BatchResponse.self).results.map(\.status)
                    #expect(statuses == [204, 204], "round \(round): \(statuses)")
                }
            }
            #expect(try await servers[0].store.favorites(user: "alice").count == 20)
        }
    }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterTestSupport
import Synchronization

extension BenchmarkSuite {
    /// `scale`: many users at once, as a server with a following meets them. 50 users, each with
    /// 4 connections of its own; every connection sends a mix — three idempotent creates (a new
    /// workout), one edit (a rename of a workout it made, under a key of its own) and one read of
    /// the user's change feed (a page of 100) — until it has sent its share. Run against one
    /// instance on a SQLite file; with `--database-url`, against one instance on that PostgreSQL
    /// database and against two on it, behind HAProxy with the repository's `deploy/haproxy.cfg`
    /// where `haproxy` is installed (else each connection is bound to one of the two in turn). Reported per run: creates/s and requests/s over the whole
    /// run, p50/p99 per kind of request, and, for two instances, the ratio to one.
    ///
    /// Then fairness: a light user reading its feed one request at a time, alone and while a
    /// heavy user sends creates on 16 connections (twice the default per-user limit, so some are
    /// answered 429 and sent again after a moment): the light user's p99 in both.
    static func scaleBench(_ options: BenchOptions) async throws -> JSONValue {
        let users = options.quick ? 5 : 50
        let perConnection = options.quick ? 10 : 40
        var result: [String: JSONValue] = [
            "users": .int(Int64(users)), "connections_per_user": .int(Int64(Self.scaleConnections)),
            "requests_per_connection": .int(Int64(perConnection)),
        ]
        let sqlite = try await scaleRun(options, users: users, perConnection: perConnection, instances: 1, url: nil)
        result["sqlite_one_instance"] = .object(sqlite.figures)
        result["fairness_sqlite"] = .object(try await fairnessRun(options, url: nil))
        if let url = options.serverDatabaseURL {
            let one = try await scaleRun(options, users: users, perConnection: perConnection, instances: 1, url: url)
            let two = try await scaleRun(options, users: users, perConnection: perConnection, instances: 2, url: url)
            result["postgresql_one_instance"] = .object(one.figures)
            result["postgresql_two_instances"] = .object(two.figures)
            result["two_over_one"] = .double(rounded(two.createsPerSecond / max(one.createsPerSecond, 1e-9), 2))
            result["postgresql_one_over_sqlite"] = .double(
                rounded(one.createsPerSecond / max(sqlite.createsPerSecond, 1e-9), 2))
            result["fairness_postgresql"] = .object(try await fairnessRun(options, url: url))
        }
        return .object(result)
    }

    static let scaleConnections = 4

    /// What one request of the mix is.
    enum ScaleKind: String, CaseIterable {
        case create, edit, feed
    }

    /// The latencies of one run, by kind, gathered from every connection.
    final class ScaleSamples: Sendable {
        private let samples = Mutex([ScaleKind: [UInt64]]())
        private let busy = Atomic(0)
        private let failure = Mutex<String?>(nil)
        private let stopping = Atomic(false)

        /// The first error of any connection.
        func fail(_ error: any Error) { failure.withLock { $0 = $0 ?? "\(error)" } }
        var firstFailure: String? { failure.withLock { $0 } }

        /// Tells open-ended loops to end.
        func stop() { stopping.store(true, ordering: .relaxed) }
        var stopped: Bool { stopping.load(ordering: .relaxed) }

        func record(_ kind: ScaleKind, _ nanoseconds: UInt64) {
            samples.withLock { $0[kind, default: []].append(nanoseconds) }
        }

        /// A 429 (the user's limit): sent again after a moment, counted here.
        func refused() { busy.add(1, ordering: .relaxed) }

        var refusals: Int { busy.load(ordering: .relaxed) }

        func figures() -> (counts: [ScaleKind: Int], p50: [ScaleKind: Double], p99: [ScaleKind: Double]) {
            samples.withLock { all in
                var counts: [ScaleKind: Int] = [:]
                var p50: [ScaleKind: Double] = [:]
                var p99: [ScaleKind: Double] = [:]
                for (kind, values) in all where !values.isEmpty {
                    let sorted = values.sorted()
                    func at(_ quantile: Double) -> Double {
                        Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]) / 1e6
                    }
                    counts[kind] = sorted.count
                    p50[kind] = at(0.5)
                    p99[kind] = at(0.99)
                }
                return (counts, p50, p99)
            }
        }
    }

    struct ScaleResult {
        var figures: [String: JSONValue]
        var createsPerSecond: Double
    }

    /// Starts `instances` servers on one store (a fresh SQLite file, or `url`), with a token per user.
    static func scaleServers(
        _ options: BenchOptions, tokens: [String: String], instances: Int, url: String?
    ) async throws -> [BackgroundServer] {
        var configuration = ServerConfiguration(databasePath: freshPath(options, "scale"), tokens: tokens)
        configuration.databaseURL = url
        var servers: [BackgroundServer] = []
        do {
            for _ in 0..<instances {
                servers.append(try await BackgroundServer.start(configuration, logger: quietLogger()))
            }
        } catch {
            for server in servers { await server.stop() }
            throw error
        }
        return servers
    }

    static func scaleRun(
        _ options: BenchOptions, users: Int, perConnection: Int, instances: Int, url: String?
    ) async throws -> ScaleResult {
        let run = UUID().wireString.prefix(8)
        let accounts = (0..<users).map { (token: UUID().uuidString, user: "scale-\(run)-\($0)") }
        let servers = try await scaleServers(
            options, tokens: Dictionary(uniqueKeysWithValues: accounts.map { ($0.token, $0.user) }),
            instances: instances, url: url)
        // Two instances sit behind HAProxy with the repository's deploy/haproxy.cfg where it is
        // installed; elsewhere each connection is bound to one of them in turn.
        var balancer: HAProxy?
        var balanced = "none"
        if servers.count == 2 {
            if let reason = HAProxy.unavailableReason {
                balanced = "each connection bound to one instance in turn (\(reason))"
            } else {
                do {
                    balancer = try await HAProxy.start(before: (servers[0].baseURL, servers[1].baseURL))
                    balanced = "haproxy, deploy/haproxy.cfg (round-robin per request)"
                } catch {
                    for server in servers { await server.stop() }
                    throw error
                }
            }
        }
        let bases = balancer.map { [$0.baseURL] } ?? servers.map(\.baseURL)
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)))
        let samples = ScaleSamples()
        let elapsed = await seconds {
            await withTaskGroup(of: Void.self) { group in
                var slot = 0
                for account in accounts {
                    for _ in 0..<Self.scaleConnections {
                        let base = bases[slot % bases.count]
                        slot += 1
                        group.addTask {
                            do {
                                try await scaleConnection(
                                    client: client, base: base, token: account.token, requests: perConnection,
                                    samples: samples)
                            } catch {
                                samples.fail(error)
                            }
                        }
                    }
                }
            }
        }
        try? await client.shutdown()
        balancer?.stop()
        for server in servers { await server.stop() }
        if let message = samples.firstFailure { throw BenchError("scale: \(message)") }
        let (counts, p50, p99) = samples.figures()
        let creates = Double(counts[.create] ?? 0)
        let total = Double(counts.values.reduce(0, +))
        var figures: [String: JSONValue] = [
            "instances": .int(Int64(instances)), "store": .string(url == nil ? "sqlite" : "postgresql"),
            "balancer": .string(balanced),
            "seconds": .double(rounded(elapsed, 2)), "creates_per_s": .double(rounded(creates / elapsed)),
            "requests_per_s": .double(rounded(total / elapsed)), "refused_429": .int(Int64(samples.refusals)),
        ]
        for kind in ScaleKind.allCases {
            figures["\(kind.rawValue)_p50_ms"] = p50[kind].map { .double(rounded($0, 2)) }
            figures["\(kind.rawValue)_p99_ms"] = p99[kind].map { .double(rounded($0, 2)) }
        }
        return ScaleResult(figures: figures, createsPerSecond: creates / elapsed)
    }

    /// One connection's share of the mix, one request at a time.
    static func scaleConnection(
        client: HTTPClient, base: String, token: String, requests: Int, samples: ScaleSamples
    ) async throws {
        var mine: [UUID] = []
        for index in 0..<requests {
            let kind: ScaleKind =
                switch index % 5 {
                case 3 where !mine.isEmpty: .edit
                case 4: .feed
                default: .create
                }
            var request: HTTPClientRequest
            switch kind {
            case .create:
                let id = UUID.timeOrdered()
                request = HTTPClientRequest(url: base + Route.workouts)
                request.method = .POST
                request.body = .bytes(
                    ByteBuffer(
                        string: WireWorkout(id: id, name: "Scale \(index)", startedAt: Timestamp.truncated(Date())).json
                            .canonicalString))
                mine.append(id)
            case .edit:
                request = HTTPClientRequest(url: base + Route.workouts + "/" + mine[index % mine.count].wireString)
                request.method = .PATCH
                request.body = .bytes(ByteBuffer(string: #"{"name":"Renamed \#(index)"}"#))
            case .feed:
                request = HTTPClientRequest(url: base + Route.changes + "?since=0&limit=100")
                request.method = .GET
            }
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            if kind != .feed {
                request.headers.add(name: "Idempotency-Key", value: UUID.timeOrdered().wireString)
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            try await timedRequest(client: client, request, kind: kind, samples: samples)
        }
    }

    /// Sends one request until it is answered other than 429 (the user's limit: again after a
    /// moment, as the engine does), and records the time of the answered try.
    static func timedRequest(
        client: HTTPClient, _ request: HTTPClientRequest, kind: ScaleKind, samples: ScaleSamples
    ) async throws {
        for _ in 0..<200 {
            let start = DispatchTime.now().uptimeNanoseconds
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 4 << 20)
            let took = DispatchTime.now().uptimeNanoseconds - start
            if response.status.code == 429 {
                samples.refused()
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            guard response.status.code < 300 else {
                throw BenchError("\(request.method) \(request.url) answered \(response.status.code)")
            }
            samples.record(kind, took)
            return
        }
        throw BenchError("\(request.method) \(request.url) was refused 429 two hundred times")
    }

    /// A light user's feed reads, alone and beside a heavy user's creates on 16 connections.
    static func fairnessRun(_ options: BenchOptions, url: String?) async throws -> [String: JSONValue] {
        let light = (token: UUID().uuidString, user: "light-\(UUID().wireString.prefix(8))")
        let heavy = (token: UUID().uuidString, user: "heavy-\(UUID().wireString.prefix(8))")
        let servers = try await scaleServers(
            options, tokens: [light.token: light.user, heavy.token: heavy.user], instances: 1, url: url)
        let server = servers[0]
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)))
        let reads = options.quick ? 50 : 400
        func lightReads() async throws -> Double {
            let samples = ScaleSamples()
            for _ in 0..<reads {
                var request = HTTPClientRequest(url: server.baseURL + Route.changes + "?since=0&limit=100")
                request.headers.add(name: "Authorization", value: "Bearer \(light.token)")
                try await timedRequest(client: client, request, kind: .feed, samples: samples)
            }
            return samples.figures().p99[.feed] ?? 0
        }
        do {
            let idle = try await lightReads()
            let heavySamples = ScaleSamples()
            let loaded = try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        var index = 0
                        while !heavySamples.stopped {
                            var request = HTTPClientRequest(url: server.baseURL + Route.workouts)
                            request.method = .POST
                            request.headers.add(name: "Authorization", value: "Bearer \(heavy.token)")
                            request.headers.add(name: "Idempotency-Key", value: UUID.timeOrdered().wireString)
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(
                                ByteBuffer(
                                    string: WireWorkout(
                                        id: .timeOrdered(), name: "Heavy \(index)",
                                        startedAt: Timestamp.truncated(Date())
                                    ).json.canonicalString))
                            try await timedRequest(client: client, request, kind: .create, samples: heavySamples)
                            index += 1
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(300))  // the heavy user at full load first
                let p99 = try await lightReads()
                heavySamples.stop()
                try await group.waitForAll()
                return p99
            }
            try? await client.shutdown()
            await server.stop()
            let heavyCreates = heavySamples.figures().counts[.create] ?? 0
            return [
                "store": .string(url == nil ? "sqlite" : "postgresql"), "light_reads": .int(Int64(reads)),
                "light_idle_p99_ms": .double(rounded(idle, 2)), "light_loaded_p99_ms": .double(rounded(loaded, 2)),
                "loaded_over_idle": .double(rounded(loaded / max(idle, 1e-9), 2)),
                "heavy_creates": .int(Int64(heavyCreates)), "heavy_refused_429": .int(Int64(heavySamples.refusals)),
            ]
        } catch {
            try? await client.shutdown()
            await server.stop()
            throw error
        }
    }
}

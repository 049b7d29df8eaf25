import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Synchronization

/// What `spotter-bench` runs and how big.
public struct BenchOptions: Sendable {
    /// Small sizes, only to prove every part works.
    public var quick = false
    /// Where the temporary databases go (removed afterwards).
    public var directory: URL
    /// Which parts to run; all when empty.
    public var parts: Set<String> = []
    /// Renders one full frame of the UI for a database (the `frame` and `startup` parts).
    public var frameProbe: (any FrameProbe)?
    /// A PostgreSQL database for the `server` part instead of a temporary SQLite file; the bench
    /// adds its own rows there (user "bench", fresh ids and keys) and removes none.
    public var serverDatabaseURL: String?

    public init(directory: URL) { self.directory = directory }

    func wants(_ part: String) -> Bool { parts.isEmpty || parts.contains(part) }
}

/// The UI's side of the frame and start-up measurements: the bench knows no UI types.
public protocol FrameProbe: Sendable {
    /// Opens the UI state over `store` at a terminal size; returns something that renders.
    func makeSession(store: SpotterStore, columns: Int, rows: Int) throws -> any FrameSession
    /// The same over an exercise's chart (`c`, the exercise logged most): each press moves the
    /// cursor a session and renders the whole screen.
    func makeChartSession(store: SpotterStore, columns: Int, rows: Int) throws -> any FrameSession
    /// The command line of a fresh process that opens `databasePath`, renders the first frame and
    /// reports its clock and memory (the `startup` part); nil when there is no such process.
    func startupCommand(databasePath: String) -> [String]?
}

/// One UI state that can take a key and render a full frame into its screen buffer.
public protocol FrameSession {
    /// Presses a navigation key, updates the state, renders the whole screen into the buffer.
    mutating func pressKeyAndRender() throws
}

/// The performance suite behind `spotter-bench`. Every figure names its unit.
public enum BenchmarkSuite {
    public static func run(_ options: BenchOptions, log: @Sendable (String) -> Void) async throws -> JSONValue {
        try FileManager.default.createDirectory(at: options.directory, withIntermediateDirectories: true)
        var result: [String: JSONValue] = [:]
        if options.wants("write") {
            log("write: \(options.quick ? 500 : 10_000) log-set actions")
            result["write"] = try writeBench(options)
        }
        if options.wants("frame"), let probe = options.frameProbe {
            log("frame: key → state → full render with \(options.quick ? 2_000 : 100_000) sets")
            result["frame"] = try frameBench(options, probe: probe)
        }
        if options.wants("drain") {
            log("drain: \(options.quick ? 300 : 10_000) queued operations to a loopback server")
            result["drain"] = try await drainBench(options)
        }
        if options.wants("limit") {
            log("limit: the drain's durable work without HTTP, \(options.quick ? 300 : 10_000) operations")
            result["limit"] = try await limitBench(options)
        }
        if options.wants("pull") {
            log("pull: \(options.quick ? 2_000 : 100_000) sets from another device, beside the bare parse and insert")
            result["pull"] = try await pullBench(options)
        }
        if options.wants("startup"), let probe = options.frameProbe {
            log("startup: open \(options.quick ? 20_000 : 1_000_000) sets and render the first frame")
            result["startup"] = try startupBench(options, probe: probe)
        }
        if options.wants("import") {
            log("import: a Strong export of \(options.quick ? 2_000 : 100_000) rows, beside the bare bulk insert")
            result["import"] = try await importBench(options)
        }
        if options.wants("json") {
            log("json: the pull's pages and the drain's batches read and written by hand and by Foundation")
            result["json"] = try jsonBench(options)
        }
        if options.wants("propagation") {
            log("propagation: \(options.quick ? 20 : 200) sets from one device to another that waits on the feed")
            result["propagation"] = try await propagationBench(options)
        }
        if options.wants("waiting") {
            log("waiting: \(options.quick ? 200 : 10_000) devices waiting on the feed of one instance")
            result["waiting"] = try await waitingBench(options)
        }
        if options.wants("scale") {
            log("scale: \(options.quick ? 5 : 50) users on 4 connections each, creates, edits and feed reads")
            result["scale"] = try await scaleBench(options)
        }
        if options.wants("server") {
            log("server: idempotent creates, replays and health checks per second")
            result["server"] = try await serverBench(options)
        }
        // What the drain reaches of the limit, when both ran: the figure the drain is judged by.
        if case .object(var drain)? = result["drain"], let batched = drain["batched_ops_per_s"]?.doubleValue,
            let limit = result["limit"]?.objectValue?["ops_per_s"]?.doubleValue, limit > 0
        {
            drain["of_limit"] = .double(rounded(batched / limit, 2))
            result["drain"] = .object(drain)
        }
        // What Foundation's JSON would add to the pull and the drain, as a share of each, when
        // they ran beside the json part: the hand path is kept while this is over 10 %.
        if case .object(var json)? = result["json"] {
            func share(_ directions: [String], of whole: Double?) -> JSONValue? {
                guard let whole, whole > 0 else { return nil }
                let extra = directions.compactMap { json["\($0)_foundation_extra_s"]?.doubleValue }.reduce(0, +)
                return .double(rounded(extra / whole, 2))
            }
            let pullSeconds = result["pull"]?.objectValue?["seconds"]?.doubleValue
            let drain = result["drain"]?.objectValue
            let drainSeconds = drain.flatMap { drain in
                drain["batched_ops_per_s"]?.doubleValue.flatMap { rate in
                    drain["operations"]?.doubleValue.map { $0 / max(rate, 1e-9) }
                }
            }
            json["pull_foundation_share"] = share(["pull_read", "pull_write"], of: pullSeconds)
            json["pull_uuid_foundation_share"] = share(["uuid_read", "uuid_write"], of: pullSeconds)
            json["drain_foundation_share"] = share(["drain_read", "drain_write"], of: drainSeconds)
            result["json"] = .object(json)
        }
        result["machine"] = .object(machineDescription().mapValues { .string($0) })
        return .object(result)
    }

    static func freshPath(_ options: BenchOptions, _ name: String) -> String {
        let path = options.directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).db").path
        return path
    }

    // MARK: write

    static let lifts = [
        "Bench Press (Barbell)", "Squat (Barbell)", "Deadlift (Barbell)", "Overhead Press (Barbell)", "Pull Up",
    ]

    static func writeBench(_ options: BenchOptions) throws -> JSONValue {
        let count = options.quick ? 500 : 10_000
        let store = try SpotterStore.open(path: freshPath(options, "write"), userID: "bench")
        let workout = try store.workoutLog.createWorkout(name: "Bench")
        var actions = Samples(capacity: count)
        for index in 0..<count {
            let input = LogSetInput(
                exercise: lifts[index % lifts.count], weight: Double(60 + index % 80), reps: 1 + index % 12,
                rpe: index % 3 == 0 ? 8 : nil, workout: .existing(workout.id))
            _ = try actions.time { try store.workoutLog.logSet(input) }
        }

        // The same two rows, inserted bare in one transaction (no validation, no coalescing): the floor.
        let barePath = freshPath(options, "bare")
        let bareStore = try SpotterStore.open(path: barePath, userID: "bench")
        let bareWorkout = try bareStore.workoutLog.createWorkout(name: "Bare").id
        let bare = try BenchFixtures(path: barePath, userID: "bench")
        var bareSamples = Samples(capacity: count)
        for index in 0..<count {
            _ = try bareSamples.time {
                try bare.insertBareSet(workoutID: bareWorkout, exercise: lifts[index % lifts.count], position: index)
            }
        }
        let p99 = actions.percentileMicros(0.99)
        let bareP99 = bareSamples.percentileMicros(0.99)
        return .object([
            "actions": .int(Int64(count)),
            "p50_us": .double(actions.percentileMicros(0.5)), "p99_us": .double(p99),
            "bare_p50_us": .double(bareSamples.percentileMicros(0.5)), "bare_p99_us": .double(bareP99),
            "ratio": .double(rounded(p99 / max(bareP99, 0.001), 2)),
        ])
    }

    // MARK: frame and startup

    /// Fills a database with `count` sets in `count / 20` workouts, fast (bulk SQL in one transaction).
    static func populate(_ store: SpotterStore, sets count: Int) throws {
        try BenchFixtures(path: store.path, userID: store.userID).populateSynced(
            sets: count, exercises: lifts, store: store)
    }

    static func frameBench(_ options: BenchOptions, probe: any FrameProbe) throws -> JSONValue {
        let store = try SpotterStore.open(path: freshPath(options, "frame"), userID: "bench")
        try populate(store, sets: options.quick ? 2_000 : 100_000)
        var sizes: [String: JSONValue] = [:]
        for (columns, rows) in [(80, 24), (200, 60)] {
            var session = try probe.makeSession(store: store, columns: columns, rows: rows)
            let frames = options.quick ? 200 : 2_000
            for _ in 0..<50 { try session.pressKeyAndRender() }  // warm caches, as a running UI has
            var samples = Samples(capacity: frames)
            for _ in 0..<frames { try samples.time { try session.pressKeyAndRender() } }
            sizes["\(columns)x\(rows)"] = .object([
                "p50_us": .double(samples.percentileMicros(0.5)), "p99_us": .double(samples.percentileMicros(0.99)),
            ])
        }
        // Beside it, a chart of 1 000 sessions (twenty sets each, one exercise): the cursor moves
        // a session, the series is cut and drawn again, the whole screen rendered.
        let sessions = options.quick ? 100 : 1_000
        let chartStore = try SpotterStore.open(path: freshPath(options, "chart"), userID: "bench")
        try BenchFixtures(path: chartStore.path, userID: "bench").populateSynced(
            sets: sessions * 20, exercises: ["Squat (Barbell)"], store: chartStore)
        for (columns, rows) in [(80, 24), (200, 60)] {
            var session = try probe.makeChartSession(store: chartStore, columns: columns, rows: rows)
            let frames = options.quick ? 50 : 500
            for _ in 0..<20 { try session.pressKeyAndRender() }
            var samples = Samples(capacity: frames)
            for _ in 0..<frames { try samples.time { try session.pressKeyAndRender() } }
            sizes["chart_\(sessions)_sessions_\(columns)x\(rows)"] = .object([
                "p50_us": .double(samples.percentileMicros(0.5)), "p99_us": .double(samples.percentileMicros(0.99)),
            ])
        }
        return .object(sizes)
    }

    /// Start-up as a user meets it: the database is filled and closed here, then a fresh process
    /// (the `spotter` binary, see `FrameProbe.startupCommand`) opens it and renders the first 80×24
    /// frame, several times. `ms` runs from just before the child is spawned to its first frame,
    /// so it includes exec, dynamic loading and the runtime's start; `open_ms` is the part after
    /// the child's command began (open, first reads, render), `launch_ms` the part before.
    /// `rss_mb` is the child's peak resident memory (VmHWM), the most any run held.
    static func startupBench(_ options: BenchOptions, probe: any FrameProbe) throws -> JSONValue {
        let count = options.quick ? 20_000 : 1_000_000
        let path = freshPath(options, "startup")
        do {
            let store = try SpotterStore.open(path: path, userID: "bench")
            try populate(store, sets: count)
        }  // closed: the last connection checkpoints and removes the WAL, as quitting the app does
        guard let command = probe.startupCommand(databasePath: path), let executable = command.first else {
            throw BenchError("no child process for start-up: is `spotter` built beside `spotter-bench`?")
        }
        let runs = options.quick ? 2 : 7
        var runsMade: [StartupRun] = []
        for _ in 0..<runs {
            runsMade.append(try startupRun(executable: executable, arguments: Array(command.dropFirst())))
        }
        guard let shown = runsMade.first, shown.workouts > 0, shown.sets > 0 else {
            throw BenchError("the first frame showed no workouts or no sets")
        }
        func median(_ values: [Double]) -> Double { rounded(values.sorted()[values.count / 2]) }
        let totals = runsMade.map(\.totalMillis)
        return .object([
            "sets": .int(Int64(count)), "runs": .int(Int64(runs)),
            "ms": .double(median(totals)), "ms_min": .double(rounded(totals.min() ?? 0)),
            "ms_max": .double(rounded(totals.max() ?? 0)),
            "open_ms": .double(median(runsMade.map(\.openMillis))),
            "launch_ms": .double(median(runsMade.map(\.launchMillis))),
            "rss_mb": .double(runsMade.map(\.peakResidentMiB).max() ?? 0),
            "rss_after_frame_mb": .double(median(runsMade.map(\.residentMiB))),
        ])
    }

    /// One child's start-up, from its own report.
    struct StartupRun {
        var launchMillis: Double
        var openMillis: Double
        var totalMillis: Double { launchMillis + openMillis }
        var residentMiB: Double
        var peakResidentMiB: Double
        var workouts: Int
        var sets: Int
    }

    static func startupRun(executable: String, arguments: [String]) throws -> StartupRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let spawnedAt = monotonicNanoseconds()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let report = JSONValue.parse(data),
            let started = report["started_ns"]?.intValue, let framed = report["framed_ns"]?.intValue,
            let resident = report["rss_mb"]?.doubleValue, let peak = report["peak_rss_mb"]?.doubleValue
        else {
            throw BenchError(
                "the start-up child exited with \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
        }
        return StartupRun(
            launchMillis: Double(started - Int(spawnedAt)) / 1e6, openMillis: Double(framed - started) / 1e6,
            residentMiB: resident, peakResidentMiB: peak, workouts: report["workouts"]?.intValue ?? 0,
            sets: report["sets"]?.intValue ?? 0)
    }

    // MARK: drain and pull

    static func quietLogger() -> Logger {
        var logger = Logger(label: "spotter.bench")
        logger.logLevel = .critical
        return logger
    }

    static func startServer(_ options: BenchOptions, token: String) async throws -> BackgroundServer {
        try await BackgroundServer.start(
            ServerConfiguration(databasePath: freshPath(options, "server"), tokens: [token: "bench"]),
            logger: quietLogger())
    }

    /// A device with `count` operations queued: one workout and its sets, logged as a user would.
    static func queuedDevice(_ options: BenchOptions, _ name: String, count: Int) throws -> SpotterStore {
        let store = try SpotterStore.open(path: freshPath(options, name), userID: "bench")
        let workout = try store.workoutLog.createWorkout(name: "Drain")
        for index in 0..<(count - 1) {
            try store.workoutLog.logSet(
                LogSetInput(exercise: lifts[index % lifts.count], weight: 100, reps: 5, workout: .existing(workout.id)))
        }
        return store
    }

    static func drainRate(_ options: BenchOptions, count: Int, batchSize: Int) async throws -> Double {
        let token = UUID().uuidString
        let server = try await startServer(options, token: token)
        let store = try queuedDevice(options, "drain", count: count)
        var configuration = SyncConfiguration()
        configuration.batchSize = batchSize
        configuration.pullEnabled = false
        let engine = SyncEngine(
            store: store, transport: HTTPSyncTransport(baseURL: server.baseURL, token: token),
            configuration: configuration,
            logger: quietLogger())
        let elapsed = await seconds { _ = await engine.drain(timeout: 600) }
        let left = try store.queries.queueCounts().pending
        await server.stop()
        guard left == 0 else { throw BenchError("drain left \(left) operations queued") }
        return Double(count) / elapsed
    }

    static func drainBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 300 : 10_000
        let batched = try await drainRate(options, count: count, batchSize: 100)
        let naive = try await drainRate(options, count: count, batchSize: 1)
        return .object([
            "operations": .int(Int64(count)), "batched_ops_per_s": .double(rounded(batched)),
            "naive_ops_per_s": .double(rounded(naive)), "ratio": .double(rounded(batched / naive, 2)),
        ])
    }

    /// The drain's durable SQLite work with the network taken away, one step after another in
    /// one process: claim a batch of 100 (a transaction on the device), run it through the batch
    /// route's code on the server's store (one transaction: each entity and its idempotency
    /// record with its SHA-256 fingerprint), record the answers (a transaction on the device).
    /// Both databases as the drain has them: WAL, `synchronous=FULL`. The same operations as
    /// `drain`, the same JSON in and out.
    static func limitBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 300 : 10_000
        let server = try await DirectBatchServer(
            ServerConfiguration(databasePath: freshPath(options, "limit-server"), tokens: ["limit": "bench"]),
            logger: quietLogger())
        let store = try queuedDevice(options, "limit", count: count)
        var sent = 0
        // Each phase's share of the time: where the next gain is.
        var claiming = 0.0, serving = 0.0, recording = 0.0
        let elapsed = try await seconds {
            while true {
                var mark = monotonicNanoseconds()
                func lap() -> Double {
                    let now = monotonicNanoseconds()
                    defer { mark = now }
                    return Double(now - mark) / 1e9
                }
                let claimed = try store.queue.claimEligible(limit: 100)
                claiming += lap()
                if claimed.isEmpty { break }
                let (status, body) = await server.batch(try OperationRequest.batchBody(claimed), user: "bench")
                serving += lap()
                guard status == 200, let answer = JSONValue.parse(body).flatMap({ try? BatchResponse(json: $0) }),
                    answer.results.count == claimed.count
                else { throw BenchError("the batch route answered \(status)") }
                let outcomes = zip(claimed, answer.results).map { op, result in
                    guard (200..<300).contains(result.status) else {
                        return OperationOutcome(
                            opID: op.opID, result: .permanent(status: result.status, error: "HTTP \(result.status)"))
                    }
                    return OperationOutcome(
                        opID: op.opID,
                        result: .succeeded(
                            status: result.status,
                            row: result.body.flatMap { WireChange.answer(op.entityType, body: $0) }))
                }
                try store.queue.complete(outcomes)
                recording += lap()
                sent += claimed.count
            }
        }
        await server.close()
        let left = try store.queries.queueCounts()
        guard sent == count, left.pending == 0, left.failed == 0 else {
            throw BenchError("limit sent \(sent) of \(count); \(left.pending) pending, \(left.failed) failed")
        }
        let perOperation = { (spent: Double) in JSONValue.double(rounded(spent / Double(count) * 1e6)) }
        return .object([
            "operations": .int(Int64(count)), "ops_per_s": .double(rounded(Double(count) / elapsed)),
            "us_per_op": .object([
                "claim": perOperation(claiming), "server": perOperation(serving), "record": perOperation(recording),
            ]),
        ])
    }

    static func pullBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 2_000 : 100_000
        let token = UUID().uuidString
        let server = try await startServer(options, token: token)
        // "Another device" made these sets: written straight into the server's store.
        let stamp = Timestamp.truncated(Date())
        let perWorkout = 20
        for chunk in stride(from: 0, to: count, by: 5_000) {
            let upper = min(count, chunk + 5_000)
            try await server.store.write { tx in
                var workoutID = UUID.timeOrdered()
                for index in chunk..<upper {
                    if index % perWorkout == 0 {
                        workoutID = UUID.timeOrdered()
                        try await tx.saveWorkout(
                            WireWorkout(
                                id: workoutID, name: "Workout \(index / perWorkout)", startedAt: stamp,
                                updatedAt: stamp,
                                serverVersion: try await tx.nextChangeVersion(owner: "bench"), deleted: false),
                            owner: "bench"
                        )
                    }
                    try await tx.saveSet(
                        WireSet(
                            id: .timeOrdered(), workoutID: workoutID, exercise: lifts[index % lifts.count],
                            position: index % perWorkout + 1, kind: .normal, weight: 100, unit: .kg, reps: 5,
                            performedAt: stamp, updatedAt: stamp,
                            serverVersion: try await tx.nextChangeVersion(owner: "bench"),
                            deleted: false),
                        owner: "bench")
                }
            }
        }
        let store = try SpotterStore.open(path: freshPath(options, "pull"), userID: "bench")
        let engine = SyncEngine(
            store: store, transport: HTTPSyncTransport(baseURL: server.baseURL, token: token), logger: quietLogger())
        let elapsed = await seconds { await engine.syncOnce() }
        let pulled = try BenchFixtures(path: store.path, userID: store.userID).storedSetCount()
        await server.stop()
        guard pulled == count else { throw BenchError("pulled \(pulled) of \(count) sets") }
        // The floor: pages of as many sets, read by hand and their rows inserted bare.
        let pages = feedPages(sets: count, pageSize: options.quick ? 500 : 5_000)
        let floorStore = try SpotterStore.open(path: freshPath(options, "pull-bare"), userID: "bench")
        let floor = try BenchFixtures(path: floorStore.path, userID: floorStore.userID)
        let updatedAt = Timestamp.format(Date())
        var bare = 0
        let bareSeconds = try await seconds {
            for data in pages {
                guard let json = JSONValue.parse(data) else { throw BenchError("a page does not parse") }
                let page = try WireChangesPage(json: json)
                var sets: [WorkoutSet] = []
                var versions: [Int64] = []
                for case .set(let set) in page.changes {
                    sets.append(set.set)
                    versions.append(set.serverVersion ?? 0)
                }
                try floor.insertBarePulled(sets, versions: versions, updatedAt: updatedAt)
                bare += sets.count
            }
        }
        guard bare == count else { throw BenchError("the bare floor stored \(bare) of \(count) sets") }
        return .object([
            "sets": .int(Int64(count)), "seconds": .double(rounded(elapsed, 2)),
            "bare_parse_insert_s": .double(rounded(bareSeconds, 2)),
        ])
    }

    // MARK: server

    static func serverBench(_ options: BenchOptions) async throws -> JSONValue {
        let token = UUID().uuidString
        var configuration = ServerConfiguration(databasePath: freshPath(options, "server"), tokens: [token: "bench"])
        configuration.databaseURL = options.serverDatabaseURL
        let server = try await BackgroundServer.start(configuration, logger: quietLogger())
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let count = options.quick ? 300 : 5_000
        let concurrency = 8
        let bodies: [(key: String, body: String)] = (0..<count).map { index in
            let body = WireWorkout(id: .timeOrdered(), name: "W\(index)", startedAt: Timestamp.truncated(Date())).json
                .canonicalString
            return (UUID.timeOrdered().wireString, body)
        }
        func blast(_ method: HTTPMethod, _ path: String, withBodies: Bool) async throws -> (rate: Double, replays: Int)
        {
            let counter = ReplayCounter()
            let elapsed = try await seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<concurrency {
                        group.addTask {
                            var index = worker
                            while index < count {
                                var request = HTTPClientRequest(url: server.baseURL + path)
                                request.method = method
                                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                                if withBodies {
                                    request.headers.add(name: "Idempotency-Key", value: bodies[index].key)
                                    request.headers.add(name: "Content-Type", value: "application/json")
                                    request.body = .bytes(ByteBuffer(string: bodies[index].body))
                                }
                                let response = try await client.execute(request, timeout: .seconds(30))
                                _ = try await response.body.collect(upTo: 1 << 20)
                                guard response.status.code < 300 else {
                                    throw BenchError("\(method) \(path) answered \(response.status.code)")
                                }
                                if response.headers.first(name: "Idempotent-Replayed") == "true" { counter.add() }
                                index += concurrency
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            return (Double(count) / elapsed, counter.value)
        }
        let creates = try await blast(.POST, Route.workouts, withBodies: true)
        let replays = try await blast(.POST, Route.workouts, withBodies: true)
        let health = try await blast(.GET, Route.healthz, withBodies: false)
        try await client.shutdown()
        await server.stop()
        guard creates.replays == 0, replays.replays == count else {
            throw BenchError(
                "expected \(count) replays and no replayed creates, saw \(replays.replays) and \(creates.replays)")
        }
        return .object([
            "requests": .int(Int64(count)), "concurrency": .int(Int64(concurrency)),
            "creates_per_s": .double(rounded(creates.rate)), "replays_per_s": .double(rounded(replays.rate)),
            "healthz_per_s": .double(rounded(health.rate)), "ratio": .double(rounded(replays.rate / creates.rate, 2)),
            "store": .string(options.serverDatabaseURL == nil ? "sqlite" : "postgresql"),
        ])
    }
}

/// A bench that could not produce an honest figure.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

final class ReplayCounter: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

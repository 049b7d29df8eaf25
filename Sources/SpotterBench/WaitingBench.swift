import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterTestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension BenchmarkSuite {
    /// `waiting`: what idle devices waiting on the change feed cost one instance (SQLite). A child
    /// process (this binary, `--hold-waits`) opens `count` connections to 127.0.0.1, each holding
    /// `GET /v1/changes?wait=25` (a few hundred at a time, as devices arrive), so this process
    /// holds only the server's side of them. Reported: the latency of ordinary requests (an
    /// authenticated `GET /v1/workouts?limit=1`, one at a time) before and while they wait, the
    /// resident memory before and while, the CPU the server spends while they only wait, and how
    /// long one write takes to answer every one of them.
    static func waitingBench(_ options: BenchOptions) async throws -> JSONValue {
        let wanted = options.quick ? 200 : 10_000
        let count = min(wanted, raiseDescriptorLimit(to: wanted + 1_000) - 500)
        guard count > 0 else { throw BenchError("too few file descriptors to hold any waiting request") }
        let token = UUID().uuidString
        var configuration = ServerConfiguration(databasePath: freshPath(options, "waiting"), tokens: [token: "bench"])
        configuration.maxWaiting = count + 10
        // The devices share one account here, so that one write answers them all: its limits
        // (waits, and requests in progress while they arrive together) are the instance's.
        configuration.maxWaitingPerUser = count + 10
        configuration.maxUserConcurrency = count + 10
        let server = try await BackgroundServer.start(configuration, logger: quietLogger())
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let holder = Process()
        do {
            let requests = options.quick ? 200 : 2_000
            func ordinaryLatency() async throws -> (p50: Double, p99: Double) {
                var samples = Samples(capacity: requests)
                for _ in 0..<requests {
                    var request = HTTPClientRequest(url: server.baseURL + Route.workouts + "?limit=1")
                    request.headers.add(name: HeaderName.authorization, value: "Bearer \(token)")
                    let start = DispatchTime.now().uptimeNanoseconds
                    let response = try await client.execute(request, timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    guard response.status.code == 200 else { throw BenchError("GET workouts: \(response.status)") }
                    samples.record(DispatchTime.now().uptimeNanoseconds - start)
                }
                return (samples.percentileMicros(0.5) / 1000, samples.percentileMicros(0.99) / 1000)
            }
            let idle = try await ordinaryLatency()
            let memoryBefore = ProcessMemory.current().residentMiB

            holder.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            holder.arguments = ["--hold-waits", "\(server.port),\(count),\(token)"]
            let output = Pipe()
            holder.standardOutput = output
            holder.standardError = FileHandle.standardError
            let opening = DispatchTime.now().uptimeNanoseconds
            try holder.run()
            let lines = LineReader(output.fileHandleForReading)
            try await untilWaiting(server, count, seconds: 120)
            let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - opening) / 1e9
            let memoryWaiting = ProcessMemory.current().residentMiB
            let cpuStart = processCPUSeconds()
            try await Task.sleep(for: .seconds(3))
            let idleCPU = (processCPUSeconds() - cpuStart) / 3
            let busy = try await ordinaryLatency()

            // One write answers them all.
            let write = DispatchTime.now().uptimeNanoseconds
            var create = HTTPClientRequest(url: server.baseURL + Route.workouts)
            create.method = .POST
            create.headers.add(name: HeaderName.authorization, value: "Bearer \(token)")
            create.headers.add(name: "Content-Type", value: "application/json")
            create.headers.add(name: HeaderName.idempotencyKey, value: UUID().wireString)
            create.body = .bytes(
                Array(
                    WireWorkout(id: .timeOrdered(), name: "Wake", startedAt: Timestamp.truncated(Date())).json
                        .canonicalString.utf8))
            let created = try await client.execute(create, timeout: .seconds(30))
            _ = try await created.body.collect(upTo: 1 << 20)
            guard created.status.code == 201 else { throw BenchError("the write was answered \(created.status)") }
            let report = await lines.next()
            let fanOutSeconds = Double(DispatchTime.now().uptimeNanoseconds - write) / 1e9
            guard let report, report == "answered \(count)" else {
                throw BenchError("the waiting requests were not all answered: \(report ?? "no report")")
            }
            holder.waitUntilExit()
            try await client.shutdown()
            await server.stop()
            var result: [String: JSONValue] = [
                "waiting": .int(Int64(count)), "open_s": .double(rounded(openSeconds, 2)),
                "idle_p50_ms": .double(rounded(idle.p50, 3)), "idle_p99_ms": .double(rounded(idle.p99, 3)),
                "waiting_p50_ms": .double(rounded(busy.p50, 3)), "waiting_p99_ms": .double(rounded(busy.p99, 3)),
                "rss_before_mib": .double(memoryBefore), "rss_waiting_mib": .double(memoryWaiting),
                "server_cpu_while_waiting_percent": .double(rounded(idleCPU * 100, 1)),
                "one_write_answers_all_s": .double(rounded(fanOutSeconds, 3)),
            ]
            if count < wanted {
                result["note"] = .string("the descriptor limit allowed \(count) of \(wanted)")
            }
            return .object(result)
        } catch {
            if holder.isRunning { holder.terminate() }
            try? await client.shutdown()
            await server.stop()
            throw error
        }
    }

    /// The child's side of `waiting` (`spotter-bench --hold-waits PORT,COUNT,TOKEN`): opens the
    /// waiting requests, then prints "answered N" once N of them have received a 200 (or 120 s
    /// passed) and exits.
    public static func holdWaits(_ spec: String) throws {
        let parts = spec.split(separator: ",", maxSplits: 2).map(String.init)
        guard parts.count == 3, let port = Int(parts[0]), let count = Int(parts[1]) else {
            throw BenchError("--hold-waits takes PORT,COUNT,TOKEN")
        }
        _ = raiseDescriptorLimit(to: count + 100)
        let request = Array(
            ("GET \(Route.changes)?since=0&wait=25 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(parts[2])\r\n\r\n").utf8)
        var connections: [Int32] = []
        defer { for fd in connections { close(fd) } }
        while connections.count < count {
            for _ in 0..<min(250, count - connections.count) {
                let fd = try LoopbackSocket.connect(port: port)
                connections.append(fd)
                let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == request.count else { throw BenchError("could not send a waiting request") }
            }
            usleep(20_000)  // the devices arrive; the listen backlog is finite
        }
        var pending = Set(connections)
        var answered = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(120)
        while !pending.isEmpty, Date() < deadline {
            var polled = pending.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                let read = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) }
                if read > 0, buffer.starts(with: Array("HTTP/1.1 200".utf8)) { answered += 1 }
                pending.remove(entry.fd)
            }
        }
        FileHandle.standardOutput.write(Data("answered \(answered)\n".utf8))
    }

    /// User and system CPU seconds this process has used.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Raises this process's descriptor limit towards `wanted` (as far as it may); returns the limit.
    private static func raiseDescriptorLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if Int(limit.rlim_cur) >= wanted { return Int(limit.rlim_cur) }
        var raised = limit
        raised.rlim_cur = rlim_t(min(wanted, Int(limit.rlim_max)))
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else { return Int(limit.rlim_cur) }
        return Int(raised.rlim_cur)
    }

    private static func untilWaiting(_ server: BackgroundServer, _ count: Int, seconds: Double) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let line = server.metrics.prometheusText().split(separator: "\n").first {
                $0.hasPrefix("spotter_changes_waiting ")
            }
            if let value = line.flatMap({ Double($0.split(separator: " ").last ?? "") }), Int(value) >= count {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError("fewer than \(count) requests were waiting after \(Int(seconds)) s")
    }
}

/// The lines a child process writes, read on a thread of their own.
private final class LineReader: Sendable {
    private let handle: FileHandle

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line, or nil at the end of the output.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [handle] in
                var line = Data()
                while let byte = try? handle.read(upToCount: 1), let first = byte.first {
                    if first == UInt8(ascii: "\n") { break }
                    line.append(first)
                }
                continuation.resume(returning: line.isEmpty ? nil : String(decoding: line, as: UTF8.self))
            }
        }
    }
}

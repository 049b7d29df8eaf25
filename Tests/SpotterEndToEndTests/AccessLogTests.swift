import AsyncHTTPClient
import Foundation
import NIOCore
import SpotterTestSupport
import Testing

/// `spotter serve` writes its access log off the request path; a graceful shutdown still
/// leaves one line for every request answered.
@Suite("spotter serve's access log", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct AccessLogTests {
    @Test func sigtermLeavesALineForEveryRequestAnswered() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let logPath = directory.appendingPathComponent("serve.log").path
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: SpotterBinary.path)
        process.arguments = [
            "serve", "--port", "0", "--db", directory.appendingPathComponent("server.db").path, "--token",
            "alice=log-secret", "--log-level", "info", "--chaos-latency", "1500",
        ]
        let out = Spawning.pipe()
        process.standardOutput = out
        process.standardError = log
        try Spawning.run(process)
        let url = try await offThePool { () throws -> String in
            var buffer = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { throw HarnessError.binaryMissing("spotter serve did not report its address") }
                buffer.append(chunk)
                let text = String(decoding: buffer, as: UTF8.self)
                if let range = text.range(of: "listening on "), let end = text[range.upperBound...].firstIndex(of: "\n")
                {
                    return String(text[range.upperBound..<end])
                }
            }
        }

        let requests = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for _ in stride(from: worker, to: requests, by: 6) {
                        var request = HTTPClientRequest(url: url + "/v1/workouts")
                        request.headers.add(name: "Authorization", value: "Bearer log-secret")
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        #expect(response.status.code == 200)
                    }
                }
            }
            try await group.waitForAll()
        }
        // A write still being handled when the signal comes is answered, and its line is one of
        // the last things the server logs before it exits.
        var write = HTTPClientRequest(url: url + "/v1/workouts")
        write.method = .POST
        write.headers.add(name: "Authorization", value: "Bearer log-secret")
        write.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        write.headers.add(name: "Content-Type", value: "application/json")
        write.body = .bytes(
            ByteBuffer(
                string:
                    #"{"id":"\#(UUID().uuidString.lowercased())","name":"Late","started_at":"2026-11-22T08:00:00.000Z"}"#
            ))
        async let answer = HTTPClient.shared.execute(write, timeout: .seconds(20))
        try await Task.sleep(nanoseconds: 500_000_000)
        kill(process.processIdentifier, SIGTERM)
        #expect(try await answer.status.code == 201)
        let status = try await offThePool { () -> Int32 in
            process.waitUntilExit()
            return process.terminationStatus
        }
        try log.close()
        #expect(status == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        let access = lines.filter { $0.contains("http.route=GET /v1/workouts") }
        #expect(access.count == requests, "one access line a request, none lost at shutdown")
        #expect(access.allSatisfy { $0.contains("http.status=200") && $0.contains("user=alice") })
        #expect(
            lines.filter { $0.contains("http.route=POST /v1/workouts") && $0.contains("http.status=201") }.count == 1)
        #expect(!lines.contains { $0.contains("log lines dropped") })
    }
}

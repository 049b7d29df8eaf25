import Foundation
import Logging
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterServer

#if canImport(Glibc)
    import Glibc
#endif

/// The server's log is written off the request path: every accepted line arrives whole and in
/// order once flushed, and a full buffer drops lines only with a count written in their place.
@Suite("The buffered log sink")
struct BufferedLogSinkTests {
    /// A pipe whose read end is drained into memory by a thread of its own until EOF.
    final class DrainedPipe: Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        /// Written by the reader thread before `done` is signalled, and read after waiting on it.
        private let collected = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)

        init() {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        /// Fills the pipe until a write would block, so the sink's next write waits for a reader.
        func fill() -> Int {
            let flags = fcntl(writeEnd, F_GETFL)
            _ = fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK)
            let chunk = [UInt8](repeating: UInt8(ascii: "#"), count: 4096)
            var filled = 0
            while true {
                let written = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                filled += written
            }
            _ = fcntl(writeEnd, F_SETFL, flags)
            return filled
        }

        func startDraining() {
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    collected.withLock { $0.append(contentsOf: buffer[0..<count]) }
                }
                done.signal()
            }.start()
        }

        /// Closes the write end and returns everything read, the filler taken out.
        func finish() -> [String] {
            close(writeEnd)
            done.wait()
            close(readEnd)
            let bytes = collected.withLock { $0.filter { $0 != UInt8(ascii: "#") } }
            return String(decoding: bytes, as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }
    }

    @Test func everyLineArrivesInOrderWithItsMetadataOnceFlushed() throws {
        let output = DrainedPipe()
        output.startDraining()
        let sink = BufferedLogSink(descriptor: output.writeEnd)
        var logger = Logger(label: "spotter.server") { BufferedLogHandler(label: $0, sink: sink) }
        logger[metadataKey: "hb.request.id"] = "7"
        for index in 0..<2_000 {
            logger.info("request", metadata: ["http.status": "200", "n": "\(index)"])
        }
        logger.debug("below the level: not written")
        sink.flush()
        sink.close()
        let lines = output.finish()
        #expect(lines.count == 2_000)
        #expect(
            lines.map { $0.components(separatedBy: " n=").last?.split(separator: " ").first }
                == (0..<2_000).map { Substring("\($0)") })
        let first = try #require(lines.first)
        #expect(
            first.contains(" info spotter.server: hb.request.id=7 http.status=200 n=0 [SpotterServerTests] request"),
            "\(first)")
        #expect(sink.droppedLines == 0)
    }

    @Test func aFullBufferDropsLinesAndWritesHowMany() throws {
        let output = DrainedPipe()
        #expect(output.fill() > 0)
        // Nothing reads the pipe yet: the writer blocks on its first batch, so at most that
        // batch and `capacity` more lines are accepted.
        let capacity = 10
        let sink = BufferedLogSink(descriptor: output.writeEnd, capacity: capacity)
        let logger = Logger(label: "spotter.server") { BufferedLogHandler(label: $0, sink: sink) }
        for index in 0..<100 { logger.info("line \(index)") }
        let dropped = sink.droppedLines
        #expect(dropped >= 100 - 2 * capacity)
        output.startDraining()
        sink.flush()
        sink.close()
        let lines = output.finish()
        let written = lines.filter { $0.contains("] line ") }
        #expect(written.count == 100 - dropped, "every accepted line is written")
        let numbers = written.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(numbers == numbers.sorted(), "in the order they were logged")
        // The writer may catch up while lines are still being dropped: then the count comes in
        // more than one notice, and together they name every dropped line.
        let notices = lines.filter { $0.contains("log lines dropped") }
        #expect(!notices.isEmpty)
        let counted = notices.compactMap { notice in
            notice.components(separatedBy: "log.dropped=").last?.split(separator: " ").first.flatMap { Int($0) }
        }
        #expect(counted.count == notices.count, "\(notices)")
        #expect(counted.reduce(0, +) == dropped, "\(notices)")
        #expect(notices.allSatisfy { $0.contains(" warning spotter.log:") })
    }

    @Test func linesLoggedAfterCloseAreCountedNotLost() {
        let output = DrainedPipe()
        output.startDraining()
        let sink = BufferedLogSink(descriptor: output.writeEnd)
        let logger = Logger(label: "spotter.server") { BufferedLogHandler(label: $0, sink: sink) }
        logger.info("before")
        sink.close()
        logger.info("after")
        #expect(sink.droppedLines == 1)
        #expect(output.finish().filter { $0.hasSuffix("] before") }.count == 1)
    }
}

import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines kept off the request path: a handler hands its event to the sink and returns; one
/// writer thread formats the lines and writes each batch with as few `write` calls as it can.
///
/// Why: one access line per request, formatted and written (`fwrite` and `fflush` of stderr)
/// synchronously on the request's thread, cost `spotter serve` about a third of its `/healthz` rate.
///
/// The buffer is bounded: while `capacity` lines wait, a new one is counted and dropped, and once
/// the writer catches up it writes the count as a line of its own ("… log lines dropped …"), so a
/// loss is never silent. Lines keep the order they were logged in, and read as
/// `StreamLogHandler`'s do. `flush()` returns once every accepted line is written: the server
/// calls it on its way out, so a graceful shutdown loses nothing.
// @unchecked Sendable: `pending`, `dropped`, `droppedInAll`, `writing` and `stopping` are only
// touched under `condition`'s lock; the rest is set once in init. It stays a condition (not a
// Mutex) because the writer thread and `flush()` sleep on it until the buffer changes.
public final class BufferedLogSink: @unchecked Sendable {
    /// Lines that may wait before new ones are dropped: seconds of a saturated server's access
    /// lines, and tens of megabytes at most (an access line's event holds well under 1 KB).
    public static let defaultCapacity = 65_536

    private let descriptor: Int32
    private let capacity: Int
    private let condition = NSCondition()
    private var pending: [Line] = []
    private var dropped = 0
    private var droppedInAll = 0
    private var writing = false
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    /// How long the writer lets lines gather after each batch (also the most a line waits).
    static let gatherMicroseconds: UInt32 = 2_000

    /// - Parameters:
    ///   - descriptor: where the lines go (stderr for `spotter serve`); the sink does not close it.
    ///   - capacity: lines that may wait to be written.
    public init(descriptor: Int32, capacity: Int = BufferedLogSink.defaultCapacity) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        pending.reserveCapacity(1024)
        let thread = Thread { [self] in writeUntilStopped() }
        thread.name = "spotter.log-writer"
        thread.start()
    }

    /// Makes every logger created from now on without a handler of its own write through one sink
    /// on stderr (process-wide; swift-log allows this once).
    public static func bootstrapStandardError(capacity: Int = defaultCapacity) -> BufferedLogSink {
        let sink = BufferedLogSink(descriptor: STDERR_FILENO, capacity: capacity)
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, sink: sink) }
        return sink
    }

    /// Lines dropped because the buffer was full, since the sink was made.
    public var droppedLines: Int {
        condition.withLock { droppedInAll }
    }

    /// A line as logged: formatted later, on the writer's thread.
    struct Line: Sendable {
        var event: LogEvent
        var label: String
        /// The handler's metadata and its provider's, merged under the event's by the writer.
        var context: Logger.Metadata
        /// When it was logged (whole seconds, as the line shows).
        var time: time_t
    }

    func enqueue(_ line: Line) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, pending.count < capacity else {
            dropped += 1
            droppedInAll += 1
            return
        }
        pending.append(line)
        // The writer waits only on an empty buffer; flush() waiters share the condition.
        if pending.count == 1 { condition.broadcast() }
    }

    /// Returns once every line accepted so far (and the count of any dropped) is written.
    public func flush() {
        condition.lock()
        while !pending.isEmpty || dropped > 0 || writing { condition.wait() }
        condition.unlock()
    }

    /// Flushes, then stops the writer thread; lines logged afterwards are counted as dropped.
    public func close() {
        condition.lock()
        let alreadyStopping = stopping
        stopping = true
        condition.broadcast()
        condition.unlock()
        if !alreadyStopping { finished.wait() }
    }

    private func writeUntilStopped() {
        var batch: [Line] = []
        batch.reserveCapacity(1024)
        var formatter = LogLineFormatter()
        while true {
            condition.lock()
            while pending.isEmpty && dropped == 0 && !stopping { condition.wait() }
            if pending.isEmpty && dropped == 0 {
                condition.unlock()
                finished.signal()
                return
            }
            swap(&batch, &pending)
            let lost = dropped
            dropped = 0
            writing = true
            condition.unlock()

            var bytes: [UInt8] = []
            bytes.reserveCapacity(batch.count * 256)
            for line in batch { formatter.append(line, to: &bytes) }
            if lost > 0 {
                let notice = LogEvent(
                    level: .warning, message: "log lines dropped: more than \(capacity) were waiting to be written",
                    metadata: ["log.dropped": "\(lost)"], source: "SpotterServer", file: #fileID, function: #function,
                    line: #line)
                formatter.append(Line(event: notice, label: "spotter.log", context: [:], time: time(nil)), to: &bytes)
            }
            writeAll(bytes)
            batch.removeAll(keepingCapacity: true)

            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
            // Let lines gather for a moment rather than wake for each one: the loggers then take
            // a lock nobody waits on, and a busy second is a few hundred writes, not thousands.
            usleep(Self.gatherMicroseconds)
        }
    }

    /// Writes every byte (a pipe may take a batch in parts); gives up only on a real error,
    /// as a logger must never stop the server.
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// A swift-log handler that hands every event to a `BufferedLogSink`: nothing is formatted or
/// written on the caller's thread.
public struct BufferedLogHandler: LogHandler {
    private let label: String
    private let sink: BufferedLogSink
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info

    public init(
        label: String, sink: BufferedLogSink,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.label = label
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var context = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { context.merge(provided) { $1 } }
        sink.enqueue(BufferedLogSink.Line(event: event, label: label, context: context, time: time(nil)))
    }
}

/// Formats lines as `StreamLogHandler` does: `TIME LEVEL LABEL: KEY=VALUE … [SOURCE] MESSAGE`.
struct LogLineFormatter {
    private var second: time_t = -1
    private var stamp: [UInt8] = []

    mutating func append(_ line: BufferedLogSink.Line, to bytes: inout [UInt8]) {
        let event = line.event
        let label = line.label
        bytes.append(contentsOf: timestamp(line.time))
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: event.level.rawValue.utf8)
        if !label.isEmpty {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: label.utf8)
        }
        bytes.append(UInt8(ascii: ":"))
        // The handler's and the provider's metadata, under the event's (as StreamLogHandler merges).
        var metadata = line.context
        if let explicit = event.metadata { metadata.merge(explicit) { $1 } }
        if let error = event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: key.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: value.description.utf8)
        }
        bytes.append(contentsOf: " [".utf8)
        bytes.append(contentsOf: event.source.utf8)
        bytes.append(contentsOf: "] ".utf8)
        bytes.append(contentsOf: event.message.description.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The local time to the second, formatted once for all the lines of that second.
    private mutating func timestamp(_ time: time_t) -> [UInt8] {
        var now = time
        if now != second {
            second = now
            var local = tm()
            var buffer = [CChar](repeating: 0, count: 64)
            if localtime_r(&now, &local) != nil, strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local) > 0 {
                stamp = Array(String(cString: buffer).utf8)
            } else {
                stamp = Array("<unknown>".utf8)
            }
        }
        return stamp
    }
}

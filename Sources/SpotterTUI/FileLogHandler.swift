import Foundation
import Logging
import SpotterCore

#if canImport(Glibc)
    import Glibc
#endif

/// A swift-log handler that appends lines to a file: the UI owns the screen, so its logs
/// (and the engine's, when they share the logger) never reach the terminal.
struct FileLogHandler: LogHandler {
    /// An append-only descriptor; one `write` per line keeps lines whole across threads.
    private let descriptor: Int32
    private let label: String
    /// Stamps each line: the UI's clock, so a log reads in the same time as the screen.
    private let clock: any SpotterClock
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    init(label: String, descriptor: Int32, clock: any SpotterClock) {
        self.label = label
        self.descriptor = descriptor
        self.clock = clock
    }

    /// Opens (creating) `path` for appending; nil when it cannot be opened.
    static func openDescriptor(path: String) -> Int32? {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let details =
            merged.isEmpty
            ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line =
            "\(ISO8601DateFormatter().string(from: clock.now())) \(event.level) \(label): \(event.message)\(details)\n"
        let bytes = Array(line.utf8)
        bytes.withUnsafeBufferPointer { pointer in _ = write(descriptor, pointer.baseAddress, pointer.count) }
    }
}

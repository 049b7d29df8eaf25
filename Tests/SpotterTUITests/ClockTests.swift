import Foundation
import Logging
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterTUI

/// The UI reads time from the clock it is given (the rest timer, the ticks, the logs),
/// never from `Date()`, so a test's clock is the only time it sees.
@Suite("The injected clock is the UI's only time")
struct ClockTests {
    @Test("log lines are stamped by the injected clock")
    func logLinesUseTheClock() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-log-\(UUID()).log").path
        let descriptor = try #require(FileLogHandler.openDescriptor(path: path))
        defer { close(descriptor) }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000_000_000))
        let logger = Logger(label: "test") { label in
            FileLogHandler(label: label, descriptor: descriptor, clock: clock)
        }
        logger.info("hello")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.hasPrefix("2001-09-09T01:46:40Z info test: hello"), "\(written)")
    }

    @Test("no source file of the UI reads the wall clock itself")
    func noDateInTheUI() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SpotterTUI").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("Reducer.swift"), "found the sources at \(sources.path)")
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("Date()"), "\(file) reads Date(): use the injected SpotterClock")
        }
    }
}

import SpotterBench
import SpotterStore

/// Connects the bench's frame and start-up measurements to the terminal UI's pure renderer.
struct UIFrameProbe: FrameProbe {
    func makeSession(store: SpotterStore, columns: Int, rows: Int) throws -> any FrameSession {
        throw UIUnavailable()
    }
}

struct UIUnavailable: Error, CustomStringConvertible {
    var description: String { "the terminal UI is not part of this build yet" }
}

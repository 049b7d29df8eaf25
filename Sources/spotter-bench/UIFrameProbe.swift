import Foundation
import SpotterBench
import SpotterStore
import SpotterTUI

/// Connects the bench's frame and start-up measurements to the terminal UI: the same
/// controller, reducer and pure renderer the app runs, minus the terminal.
struct UIFrameProbe: FrameProbe {
    func makeSession(store: SpotterStore, columns: Int, rows: Int) throws -> any FrameSession {
        UIFrameSession(
            controller: AppController(store: store, sync: nil, columns: columns, rows: rows),
            buffer: ScreenBuffer(width: columns, height: rows))
    }

    func makeChartSession(store: SpotterStore, columns: Int, rows: Int) throws -> any FrameSession {
        let controller = AppController(store: store, sync: nil, columns: columns, rows: rows)
        controller.handle(.character("c"))
        guard case .progress = controller.state.overlay else {
            throw BenchProbeError(message: "c opened no chart: \(controller.state.message?.text ?? "no message")")
        }
        // The cursor moves back ten sessions and forward again.
        return UIFrameSession(
            controller: controller, buffer: ScreenBuffer(width: columns, height: rows), keys: (.left, .right))
    }

    /// The `spotter` binary built beside this one, as `spotter --db DB --startup-probe`: the UI's
    /// command, so start-up is measured on the binary a user runs. Nil when it is not there.
    func startupCommand(databasePath: String) -> [String]? {
        guard let spotter = Self.spotterBinary() else { return nil }
        return [spotter, "--db", databasePath, "--startup-probe"]
    }

    /// `spotter` in this executable's directory, if it is there and can run.
    static func spotterBinary() -> String? {
        guard let executable = Bundle.main.executablePath else { return nil }
        let sibling = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("spotter").path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : nil
    }
}

/// Presses one key ten times and the other ten times — by default the workouts selection down
/// and back up, each move loading that workout's sets — rendering the whole screen after each:
/// key press → state → full frame.
struct UIFrameSession: FrameSession {
    let controller: AppController
    var buffer: ScreenBuffer
    var keys: (forth: Key, back: Key) = (.down, .up)
    var presses = 0

    mutating func pressKeyAndRender() throws {
        controller.handle(presses % 20 < 10 ? keys.forth : keys.back)
        presses += 1
        controller.render(into: &buffer)
    }
}

struct BenchProbeError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

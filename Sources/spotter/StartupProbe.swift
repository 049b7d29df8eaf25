import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI

/// The child of the bench's `startup` part (`spotter --db DB --startup-probe`): a fresh process
/// that parses its arguments as `spotter` does, opens the database as the UI does and renders
/// its first 80×24 frame through the same controller and renderer, then reports its own clock
/// and memory on stdout as one JSON object. Only the terminal is missing (curses draws what the
/// buffer holds), and the sync engine and embedded server, which start beside the UI.
enum StartupProbe {
    static func run(global: GlobalOptions, launchedAt: UInt64) throws -> JSONValue {
        let store = try global.openStore()
        let openedAt = monotonicNanoseconds()
        let controller = AppController(store: store, sync: nil, columns: 80, rows: 24)
        let hint = try store.accounts.strandedQueues().first.map { resolveHint(for: $0.owner) }
        controller.showAccount(shortAccountLabel(store.owner), strandedHint: hint)
        let loadedAt = monotonicNanoseconds()
        var buffer = ScreenBuffer(width: 80, height: 24)
        controller.render(into: &buffer)
        let framedAt = monotonicNanoseconds()
        let memory = ProcessMemory.current()
        // What the frame showed, so the parent can tell a frame of data from an empty screen.
        return .object([
            "started_ns": .int(Int64(launchedAt)), "opened_ns": .int(Int64(openedAt)),
            "loaded_ns": .int(Int64(loadedAt)), "framed_ns": .int(Int64(framedAt)),
            "rss_mb": .double(memory.residentMiB), "peak_rss_mb": .double(memory.peakResidentMiB),
            "workouts": .int(Int64(controller.state.workouts.count)),
            "sets": .int(Int64(controller.state.sets.count)),
        ])
    }
}

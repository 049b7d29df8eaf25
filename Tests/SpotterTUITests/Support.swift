import Foundation
import SpotterCore
import SpotterStore
import SpotterSync
import SpotterTUI
import SpotterTestSupport
import Synchronization

/// An engine stand-in that records what the UI asked of it.
final class RecordingSync: SyncControlling, Sendable {
    enum Call: Equatable, Sendable {
        case trigger(SyncTrigger)
        case airplane(Bool)
    }

    private let recorded = Mutex<[Call]>([])

    var calls: [Call] { recorded.withLock { $0 } }

    func trigger(_ reason: SyncTrigger) { recorded.withLock { $0.append(.trigger(reason)) } }
    func setAirplane(_ on: Bool) { recorded.withLock { $0.append(.airplane(on)) } }
}

/// A store on a temporary SQLite file with a hand-moved clock.
final class Fixture {
    let directory: URL
    let store: SpotterStore
    let clock: ManualClock

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Noon local time, so "today" and the time-of-day workout name are stable.
        let noon = Calendar.current.date(
            bySettingHour: 12, minute: 0, second: 0, of: Date(timeIntervalSince1970: 1_790_000_000))!
        clock = ManualClock(noon)
        store = try SpotterStore.open(
            path: directory.appendingPathComponent("client.db").path, userID: "local", clock: clock)
    }

    // No clean-up in deinit: ARC may end a fixture's life right after its last use in a test,
    // while a controller still holds its store, and a DatabasePool opens reader connections
    // lazily — deleting the file then made a later read fail now and then. The files are
    // small and live in the temporary directory.

    func controller(
        columns: Int = 80, rows: Int = 24, sync: (any SyncControlling)? = RecordingSync(), glyphs: Glyphs = .unicode
    )
        -> AppController
    {
        AppController(store: store, sync: sync, clock: clock, columns: columns, rows: rows, glyphs: glyphs)
    }

    @discardableResult
    func log(
        _ exercise: String, _ weight: Double, _ reps: Int, rpe: Double? = nil, workout: UUID? = nil
    ) throws -> LoggedSet {
        clock.advance(by: 60)
        return try store.workoutLog.logSet(
            LogSetInput(
                exercise: exercise, weight: weight, reps: reps, rpe: rpe,
                workout: workout.map { .existing($0) } ?? .current))
    }

    /// Sends every queued operation as the engine would, ending each with `result`.
    func completeAll(_ result: (OutboxOperation) -> OperationResult) throws {
        while true {
            let claimed = try store.queue.claimEligible(limit: 100)
            if claimed.isEmpty { return }
            for op in claimed { try store.queue.complete(opID: op.opID, result: result(op)) }
        }
    }
}

extension AppController {
    func type(_ text: String) {
        for character in text { handle(.character(character)) }
    }

    var screen: ScreenBuffer { Renderer.render(state) }

    /// Types `weight` and `reps` over what the open form holds, then Enter: a set logged by keys.
    func submitNumbers(weight: String, reps: String) {
        handle(.tab)
        handle(.control("u"))
        type(weight)
        handle(.tab)
        handle(.control("u"))
        type(reps)
        handle(.enter)
    }
}

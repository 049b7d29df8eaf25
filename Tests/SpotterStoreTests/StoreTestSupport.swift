import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport

@testable import SpotterStore

/// A store on a fresh SQLite file in a temporary directory (real files, WAL, as in production).
func makeStore(user: String = "alice", clock: ManualClock = ManualClock()) throws -> SpotterStore {
    let path = temporaryDatabasePath()
    return try SpotterStore.open(path: path, userID: user, clock: clock)
}

func temporaryDatabasePath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("spotter.db").path
}

extension SpotterStore {
    func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }

    func operations() throws -> [OutboxOperation] {
        try queries.outbox(limit: 10_000).reversed()
    }

    @discardableResult
    func log(
        _ exercise: String = "Bench Press (Barbell)", weight: Double = 100, reps: Int = 5,
        workout: WorkoutChoice = .current
    )
        throws -> LoggedSet
    {
        try workoutLog.logSet(LogSetInput(exercise: exercise, weight: weight, reps: reps, workout: workout))
    }
}

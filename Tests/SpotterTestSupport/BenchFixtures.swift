import Foundation
import GRDB
import SpotterCore
import SpotterStore

/// What `spotter-bench` writes and reads beside the store's actions: the floor a logged set is
/// measured against, and a big synced history made fast. It opens a connection of its own on the
/// store's file (as another process would), so the store's writer stays the store's alone.
public struct BenchFixtures {
    private let database: DatabaseQueue
    private let userID: String

    /// Opens `path`, a database a `SpotterStore` has already created and migrated, with the
    /// store's own durability (`PRAGMA synchronous = FULL`) and statement journals in memory, so
    /// the floor pays what a logged set pays.
    public init(path: String, userID: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.userID = userID
    }

    /// Inserts one set row and one outbox row for it in one transaction, with no validation,
    /// coalescing or records: the least a logged set can cost.
    public func insertBareSet(workoutID: UUID, exercise: String, position: Int, at now: Date = Date()) throws {
        let setID = UUID().wireString
        let stamp = Timestamp.format(now)
        try database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO sets (id, workout_id, exercise, position, kind, weight, unit, reps, performed_at,
                        updated_at, sync_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                setID, workoutID.wireString, exercise, position, SetKind.normal.rawValue, 100.0,
                WeightUnit.kg.rawValue, 5, stamp, stamp, SyncState.pending.rawValue,
            ])
            try db.cachedStatement(
                sql: """
                    INSERT INTO outbox (op_id, user_id, entity_type, entity_id, kind, payload, idempotency_key,
                        state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                UUID().uuidString, userID, EntityType.set.rawValue, setID, OperationKind.create.rawValue,
                UUID().uuidString, OperationState.pending.rawValue, now.timeIntervalSince1970,
                now.timeIntervalSince1970,
            ])
        }
    }

    /// Fills the database with `count` synced sets of `exercises`, twenty to a workout, one day
    /// apart, in one transaction; `store` then computes the records once, as the app keeps them.
    public func populateSynced(sets count: Int, exercises: [String], store: SpotterStore) throws {
        precondition(!exercises.isEmpty, "populateSynced needs at least one exercise")
        try database.write { db in
            let perWorkout = 20
            var workoutID = ""
            let insertWorkout = try db.makeStatement(
                sql: """
                    INSERT INTO workouts (id, name, started_at, updated_at, server_version, sync_state)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
            let insertSet = try db.makeStatement(
                sql: """
                    INSERT INTO sets (id, workout_id, exercise, position, kind, weight, unit, reps, performed_at, e1rm_kg,
                        updated_at, server_version, sync_state)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let start = Date(timeIntervalSince1970: 1_600_000_000)
            let synced = SyncState.synced.rawValue
            for index in 0..<count {
                if index % perWorkout == 0 {
                    workoutID = UUID().wireString
                    let day = Timestamp.format(start.addingTimeInterval(Double(index / perWorkout) * 86_400))
                    try insertWorkout.execute(arguments: [
                        workoutID, "Workout \(index / perWorkout)", day, day, index, synced,
                    ])
                }
                let weight = Double(40 + index % 120)
                let reps = 1 + index % 10
                let when = Timestamp.format(
                    start.addingTimeInterval(Double(index / perWorkout) * 86_400 + Double(index % perWorkout) * 120))
                try insertSet.execute(arguments: [
                    UUID().wireString, workoutID, exercises[index % exercises.count], index % perWorkout + 1,
                    SetKind.normal.rawValue, weight, WeightUnit.kg.rawValue, reps, when,
                    OneRepMax.epley(weight: weight, reps: reps), when, index, synced,
                ])
            }
            // Rows inserted here mark nothing themselves (the store's inserts mark their exercise).
            for exercise in exercises {
                try db.execute(sql: "INSERT OR IGNORE INTO records_dirty (exercise) VALUES (?)", arguments: [exercise])
            }
        }
        try store.refreshRecords()
    }

    /// Stores a page of pulled sets bare, in one transaction: each row straight into `sets`
    /// (its workout's row made first when new), with no merge, no lookups, no records — the
    /// floor of what a pull does with the page.
    public func insertBarePulled(_ sets: [WorkoutSet], versions: [Int64], updatedAt: String) throws {
        try database.write { db in
            let insertWorkout = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO workouts (id, name, started_at, updated_at, server_version, sync_state)
                    VALUES (?, 'Pulled', ?, ?, 0, ?)
                    """)
            let insertSet = try db.cachedStatement(
                sql: """
                    INSERT INTO sets (id, workout_id, exercise, position, kind, weight, unit, reps, rpe, notes,
                        performed_at, e1rm_kg, updated_at, server_version, sync_state)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let synced = SyncState.synced.rawValue
            var workout = ""
            for (set, version) in zip(sets, versions) {
                let performed = Timestamp.format(set.performedAt)
                if set.workoutID.wireString != workout {
                    workout = set.workoutID.wireString
                    try insertWorkout.execute(arguments: [workout, performed, updatedAt, synced])
                }
                try insertSet.execute(arguments: [
                    set.id.wireString, workout, set.exercise, set.position, set.kind.rawValue, set.weight,
                    set.unit.rawValue, set.reps, set.rpe, set.notes, performed, set.estimatedOneRepMaxKg, updatedAt,
                    version, synced,
                ])
            }
        }
    }

    /// Sets stored on this device, deleted ones included (every account).
    public func storedSetCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sets") ?? 0 }
    }
}

import Foundation
import GRDB
import SpotterCore

/// `insertSet` for the new sets of one imported workout, with what it looks up per set read once.
///
/// Every set of an imported workout is performed at the workout's start and waits on the same
/// workout create, so of `insertSet`'s statements only the set's row and its operation are the
/// set's own: the workout's queued create (and whether it blocks) is read once per workout, and
/// the record of an appended set is asked only while it can still be one — not once the
/// exercise is marked for a recompute (`records_dirty`, which only a recompute empties) or has a new set of this workout already (performed at the same time,
/// so never "before"). The rows written are `insertSet`'s, the import's mark included.
struct ImportedSetWriter {
    let store: SpotterStore
    let workoutKey: String
    /// The workout's queued create and whether it blocks its sets, once read.
    private var parent: (opID: String?, blocked: Bool)?
    /// Exercises with a new set in this workout.
    private var written: Set<[UInt8]> = []

    init(store: SpotterStore, workoutKey: String) {
        self.store = store
        self.workoutKey = workoutKey
    }

    /// Inserts `set` as `insertSet` does, marked imported. `dirty`: exercises known to be marked
    /// for a recompute in this transaction.
    mutating func insert(_ set: WorkoutSet, db: Database, now: Date, dirty: inout Set<[UInt8]>) throws {
        let exerciseKey = Array(set.exercise.utf8)
        let appended: RecordKind??
        if dirty.contains(exerciseKey) || written.contains(exerciseKey) {
            appended = nil
        } else {
            appended = try SpotterStore.appendedRecord(set, db: db)
        }
        let record = appended ?? nil
        let setKey = set.id.wireString
        try store.insertSetRow(set, record: record, imported: true, db: db, now: now)
        written.insert(exerciseKey)
        if appended == nil, !dirty.contains(exerciseKey) {
            try SpotterStore.markRecordsStale(set.exercise, db: db)
            dirty.insert(exerciseKey)
        }
        let parent = try self.parent ?? readParent(db: db)
        self.parent = parent
        _ = try Outbox.insert(
            db, user: store.userID, type: .set, id: setKey, kind: .create, payload: set.wireFields, before: [:],
            dependsOn: parent.opID, blocked: parent.blocked, now: now)
        if parent.blocked { try SpotterStore.markWaiting(setKey, on: parent.opID, db: db) }
    }

    private func readParent(db: Database) throws -> (opID: String?, blocked: Bool) {
        let workoutCreate = try SpotterStore.unfinishedWorkoutCreate(workoutKey, db: db)
        return (workoutCreate, try Outbox.blocksDependants(workoutCreate, db: db))
    }
}

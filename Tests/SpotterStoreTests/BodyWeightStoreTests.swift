import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

@Suite("Body weight: weigh-ins on the device, and the load a bodyweight lift moved")
struct BodyWeightStoreTests {
    let clock = ManualClock()

    /// The stored estimate and record mark of a set, as every reader sees them.
    private func marks(_ store: SpotterStore, _ logged: LoggedSet) throws -> (e1rm: Double?, record: RecordKind?) {
        let row = try #require(try store.queries.set(id: logged.set.id))
        let estimate = try store.writer.read { db in
            try Double.fetchOne(db, sql: "SELECT e1rm_kg FROM sets WHERE id = ?", arguments: [logged.set.id.wireString])
        }
        return (estimate, row.record)
    }

    @Test("assisted pull-ups at 80 kg body weight: 30 kg of help × 6 is less than 20 kg × 6 and no record; 10 kg is")
    func moreAssistanceIsNeverARecord() throws {
        let store = try makeStore(clock: clock)
        try store.workoutLog.logBodyWeight(80, unit: .kg, at: clock.now().addingTimeInterval(-3600))
        let twenty = try store.log("Pull Up (Assisted)", weight: 20, reps: 6)
        clock.advance(by: 120)
        let thirty = try store.log("Pull Up (Assisted)", weight: 30, reps: 6)
        #expect(thirty.isPR == false, "more help is less load")
        #expect(try marks(store, thirty).record == nil)
        let estimate20 = try #require(try marks(store, twenty).e1rm)
        let estimate30 = try #require(try marks(store, thirty).e1rm)
        #expect(abs(estimate20 - 60 * (1 + 6.0 / 30)) < 1e-9, "(80 − 20) kg × 6")
        #expect(estimate30 < estimate20)
        clock.advance(by: 120)
        let ten = try store.log("Pull Up (Assisted)", weight: 10, reps: 6)
        #expect(ten.isPR == true, "less help is more load: the new record")
        let stats = try #require(try store.queries.exerciseStats(exercise: "Pull Up (Assisted)").first)
        #expect(abs((stats.bestOneRepMaxKg ?? 0) - 70 * 1.2) < 1e-9)
        #expect(stats.bestOneRepMaxSet?.id == ten.set.id)
        #expect(stats.heaviestKg == nil, "the heaviest assistance is no lift")
        #expect(stats.loadType == .assisted)
    }

    @Test("weighted dips add the belt to the body; the week's volume counts the body too")
    func weightedDipsAdd() throws {
        let store = try makeStore(clock: clock)
        try store.workoutLog.logBodyWeight(176.37, unit: .lb, at: clock.now().addingTimeInterval(-60))  // 80 kg
        let dips = try store.log("Chest Dip", weight: 20, reps: 5)
        let estimate = try #require(try marks(store, dips).e1rm)
        #expect(abs(estimate - 100.0 * (1 + 5.0 / 30)) < 0.01)
        let week = try #require(try store.queries.weeklyVolume(exercise: "Chest Dip").first)
        #expect(abs(week.volumeKg - 500) < 0.1)
    }

    @Test("a weigh-in logged after a set is not used for it; one logged before is, and deleting it takes it back")
    func aLaterWeighInIsNotUsed() throws {
        let store = try makeStore(clock: clock)
        let pullUp = try store.log("Pull Up (Assisted)", weight: 20, reps: 6)
        try store.workoutLog.logBodyWeight(80, unit: .kg, at: clock.now().addingTimeInterval(60))
        #expect(try marks(store, pullUp).e1rm == nil, "no body weight was known when it was done")
        #expect(try store.queries.exerciseStats(exercise: "Pull Up (Assisted)").first?.bestOneRepMaxKg == nil)
        let earlier = try store.workoutLog.logBodyWeight(82, unit: .kg, at: clock.now().addingTimeInterval(-86_400))
        #expect(abs((try marks(store, pullUp).e1rm ?? 0) - 62 * 1.2) < 1e-9)
        try store.workoutLog.editBodyWeight(earlier.id, weight: 84)
        #expect(abs((try marks(store, pullUp).e1rm ?? 0) - 64 * 1.2) < 1e-9, "an edit moves the load")
        try store.workoutLog.deleteBodyWeight(earlier.id)
        #expect(try marks(store, pullUp).e1rm == nil, "and a delete takes it away")
    }

    @Test("with no weigh-in at all, bodyweight lifts rank by reps: no estimate, no 1RM record")
    func noBodyWeightRanksByReps() throws {
        let store = try makeStore(clock: clock)
        try store.log("Pull Up (Assisted)", weight: 20, reps: 6)
        clock.advance(by: 60)
        let more = try store.log("Pull Up (Assisted)", weight: 30, reps: 8)
        #expect(try marks(store, more) == (nil, .reps), "more reps is a reps record, whatever the help")
        clock.advance(by: 60)
        let fewer = try store.log("Pull Up (Assisted)", weight: 5, reps: 7)
        #expect(try marks(store, fewer).record == nil)
    }

    @Test(
        "a weigh-in is one row and one queued create; an edit queues only what changed; a delete of an unsent one leaves nothing"
    )
    func weighInsGoThroughTheOutbox() throws {
        let store = try makeStore(clock: clock)
        let entry = try store.workoutLog.logBodyWeight(81.4, unit: .kg, notes: "  after breakfast  ")
        #expect(entry.notes == "after breakfast")
        var operations = try store.operations().filter { $0.entityType == .bodyWeight }
        #expect(operations.map(\.kind) == [.create])
        #expect(operations.first?.payload["weight"] == .double(81.4))
        try store.workoutLog.editBodyWeight(entry.id, notes: .some(nil))
        operations = try store.operations().filter { $0.entityType == .bodyWeight }
        #expect(operations.count == 1, "an edit of a create still queued folds into it")
        #expect([nil, .null].contains(operations.first?.payload["notes"]), "the cleared note is not sent")
        try store.workoutLog.deleteBodyWeight(entry.id)
        #expect(try store.operations().filter { $0.entityType == .bodyWeight }.isEmpty)
        #expect(try store.queries.bodyWeights().isEmpty)
        #expect(throws: StoreError.self) { try store.workoutLog.deleteBodyWeight(entry.id) }
    }

    @Test("an edit of a weight alone sends its unit with it, for a set and a weigh-in: one reading, never half of one")
    func aWeightTravelsWithItsUnit() throws {
        let store = try makeStore(clock: clock)
        let set = try store.log("Bench Press (Barbell)", weight: 100)
        let entry = try store.workoutLog.logBodyWeight(180, unit: .lb)
        // Sent and answered, so the next edits are updates of their own.
        try store.writer.write { db in try db.execute(sql: "UPDATE outbox SET state = 'succeeded'") }
        try store.workoutLog.editSet(id: set.set.id, changes: SetChanges(weight: 102.5))
        try store.workoutLog.editBodyWeight(entry.id, weight: 181)
        let updates = try store.operations().filter { $0.kind == .update }
        let setEdit = try #require(updates.first { $0.entityType == .set })
        #expect(setEdit.payload["weight"] == .double(102.5) && setEdit.payload["unit"] == .string("kg"))
        let weighInEdit = try #require(updates.first { $0.entityType == .bodyWeight })
        #expect(weighInEdit.payload["weight"] == .double(181) && weighInEdit.payload["unit"] == .string("lb"))
        // A note alone is sent alone.
        try store.workoutLog.editBodyWeight(entry.id, notes: .some("after run"))
        let noteEdit = try #require(try store.operations().last)
        #expect(noteEdit.payload["unit"] == nil || noteEdit.payload["weight"] != nil, "\(noteEdit.payload)")
    }

    @Test("a weigh-in no one weighs, or a note with a control character, is refused and changes nothing")
    func refusals() throws {
        let store = try makeStore(clock: clock)
        for (weight, unit) in [(8.1, WeightUnit.kg), (0, .kg), (-80, .kg), (.infinity, .kg), (.nan, .kg), (2000, .lb)] {
            #expect(throws: StoreError.self, "\(weight) \(unit)") {
                try store.workoutLog.logBodyWeight(weight, unit: unit)
            }
        }
        for note in ["a\u{7}b", "\u{202E}gnp.exe", "nul\u{0}byte"] {
            #expect(throws: StoreError.self, "\(note.unicodeScalars.map(\.value))") {
                try store.workoutLog.logBodyWeight(80, unit: .kg, notes: note)
            }
        }
        #expect(try store.queries.bodyWeights().isEmpty)
        #expect(try store.operations().isEmpty)
    }

    @Test("hostile text in a note is kept exactly: emoji with modifiers, combining marks, right-to-left")
    func hostileNotesReadBack() throws {
        let store = try makeStore(clock: clock)
        let notes = ["👩🏽‍🚀 🏋🏿‍♂️ after 🇳🇴", "e\u{301}\u{302}\u{303} Zalgơ̸̢", "بعد الفطور 81.4 كغ", "multi\nline"]
        for note in notes { try store.workoutLog.logBodyWeight(80, unit: .kg, notes: note) }
        let read = Set(try store.queries.bodyWeights().compactMap(\.bodyWeight.notes))
        #expect(read == Set(notes))
    }

    @Test("the weigh-in in force is the latest at or before a time")
    func weighInInForce() throws {
        let store = try makeStore(clock: clock)
        let now = clock.now()
        try store.workoutLog.logBodyWeight(80, unit: .kg, at: now.addingTimeInterval(-7200))
        try store.workoutLog.logBodyWeight(81, unit: .kg, at: now.addingTimeInterval(-3600))
        #expect(try store.queries.bodyWeight(at: now.addingTimeInterval(-5000))?.weight == 80)
        #expect(try store.queries.bodyWeight(at: now.addingTimeInterval(-3600))?.weight == 81)
        #expect(try store.queries.bodyWeight(at: now.addingTimeInterval(-9000)) == nil)
    }
}

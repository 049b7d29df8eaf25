import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

@Suite("Supersets in any workout: exercises done in turn, rest after the round")
struct SupersetStoreTests {
    let clock = ManualClock()

    private func log(_ store: SpotterStore, _ exercise: String, superset: Bool = false) throws -> LoggedSet {
        clock.advance(by: 30)
        return try store.workoutLog.logSet(
            LogSetInput(exercise: exercise, weight: 60, reps: 10, superset: superset))
    }

    @Test("--superset pairs a set's exercise with the one before; later sets of either are in it; the round turns")
    func logIntoASuperset() throws {
        let store = try makeStore(clock: clock)
        let curl = try log(store, "Bicep Curl (Dumbbell)")
        let pushdown = try log(store, "Triceps Pushdown (Cable)", superset: true)
        #expect(pushdown.set.superset == 1)
        #expect(try store.queries.set(id: curl.set.id)?.set.superset == 1, "the exercise before joins it")
        let again = try log(store, "Bicep Curl (Dumbbell)")
        #expect(again.set.superset == 1, "a set of an exercise in the superset is in it")
        let workout = pushdown.set.workoutID
        let afterCurl = try #require(try store.queries.supersetNext(after: "Bicep Curl (Dumbbell)", workoutID: workout))
        #expect(afterCurl.next == "Triceps Pushdown (Cable)" && !afterCurl.endsRound)
        let afterPushdown = try #require(
            try store.queries.supersetNext(after: "Triceps Pushdown (Cable)", workoutID: workout))
        #expect(afterPushdown.next == "Bicep Curl (Dumbbell)" && afterPushdown.endsRound, "the round ends: rest")
        // A third lift logged on its own is in no superset; a fourth joins a second superset.
        let squat = try log(store, "Squat (Barbell)")
        #expect(squat.set.superset == nil)
        let lunge = try log(store, "Lunge (Dumbbell)", superset: true)
        #expect(lunge.set.superset == 2)
        // The first set of a workout has nothing before it to pair with: no superset, no error.
        let fresh = try store.workoutLog.logSet(
            LogSetInput(exercise: "Row (Cable)", weight: 50, reps: 10, workout: .new(name: "Back"), superset: true))
        #expect(fresh.set.superset == nil)
    }

    @Test(
        "L on a set pairs its exercise with the one before it, queued as edits; again takes it out, and a superset of one is none"
    )
    func toggleASuperset() throws {
        let store = try makeStore(clock: clock)
        let bench = try log(store, "Bench Press (Barbell)")
        let row = try log(store, "Bent Over Row (Barbell)")
        let change = try store.workoutLog.toggleSuperset(setID: row.set.id)
        #expect(change == .grouped(group: 1, exercises: ["Bench Press (Barbell)", "Bent Over Row (Barbell)"]))
        #expect(try store.queries.set(id: bench.set.id)?.set.superset == 1)
        let edits = try store.operations().filter { $0.entityType == .set && $0.payload["superset"] != nil }
        #expect(edits.count == 2, "each set's group travels as an edit (folded into its queued create here)")
        let out = try store.workoutLog.toggleSuperset(setID: row.set.id)
        #expect(out == .ungrouped(exercise: "Bent Over Row (Barbell)"))
        #expect(try store.queries.set(id: bench.set.id)?.set.superset == nil, "a superset of one is none")
        #expect(try store.queries.set(id: row.set.id)?.set.superset == nil)
        #expect(throws: StoreError.self, "the first exercise has nothing before it") {
            try store.workoutLog.toggleSuperset(setID: bench.set.id)
        }
    }

    @Test("a superset number outside 1-999 is refused on the device as on the server")
    func supersetRange() throws {
        for bad in [0, -1, 1000] {
            #expect(throws: ValidationError.self) { try Validation.superset(bad) }
        }
        #expect(throws: Never.self) { try Validation.superset(nil) }
        #expect(throws: Never.self) { try Validation.superset(999) }
    }
}

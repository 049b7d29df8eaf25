import Foundation
import SpotterCore
import Testing

@testable import SpotterStore

/// Two sets with the same estimated 1RM: the one performed first holds the record, whichever
/// order a device received them in and whichever id sorts first.
@Suite struct RecordTieTests {
    let workout = Workout(
        id: UUID(uuidString: "01900000-0000-7000-8000-000000000001")!, name: "Push",
        startedAt: Timestamp.parse("2026-03-01T09:00:00.000Z")!)

    /// The earlier set has the larger id, so an order by id alone would pick the later one.
    var sets: [WorkoutSet] {
        [
            WorkoutSet(
                id: UUID(uuidString: "01900000-0000-7000-8000-0000000000a0")!, workoutID: workout.id,
                exercise: "Bench Press (Barbell)", position: 0, weight: 50, reps: 5,
                performedAt: Timestamp.parse("2026-03-01T09:00:00.000Z")!),
            WorkoutSet(
                id: UUID(uuidString: "01900000-0000-7000-8000-0000000000ff")!, workoutID: workout.id,
                exercise: "Bench Press (Barbell)", position: 1, weight: 60, reps: 7,
                performedAt: Timestamp.parse("2026-03-13T09:00:00.000Z")!),
            WorkoutSet(
                id: UUID(uuidString: "01900000-0000-7000-8000-000000000011")!, workoutID: workout.id,
                exercise: "Bench Press (Barbell)", position: 2, weight: 60, reps: 7,
                performedAt: Timestamp.parse("2026-03-17T09:00:00.000Z")!),
        ]
    }

    func device(receiving order: [Int]) throws -> SpotterStore {
        let store = try makeStore()
        var version: Int64 = 1
        var entities = [serverRow(workout, version: version)]
        for index in order {
            version += 1
            entities.append(serverRow(sets[index], version: version))
        }
        _ = try store.pull.mergePulled(entities, cursor: "\(version)")
        return store
    }

    @Test func theEarlierSetHoldsATiedRecordOnEveryDevice() throws {
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let store = try device(receiving: order)
            let stats = try #require(try store.queries.exerciseStats(exercise: "Bench Press (Barbell)").first)
            #expect(stats.bestOneRepMaxSet?.id == sets[1].id, "received in order \(order)")
            let records = try store.queries.sets(workoutID: nil).map { ($0.set.id, $0.record) }
            #expect(records.first { $0.0 == sets[1].id }?.1 == .oneRepMax, "received in order \(order)")
            #expect(records.first { $0.0 == sets[2].id }?.1 == nil, "received in order \(order)")
        }
    }

    @Test func theRuleItselfPicksTheFirstPerformed() {
        let sets = self.sets
        let holder = PerformedOrder.holder(of: 74, among: sets.reversed()) {
            OneRepMax.epley(weight: $0.weight, reps: $0.reps)
        }
        #expect(holder?.id == sets[1].id)
        // Same time: the place in the workout, then the id decide, never the order given.
        var twin = sets[2]
        twin.performedAt = sets[1].performedAt
        #expect(PerformedOrder.precedes(sets[1], twin))
        twin.position = sets[1].position
        #expect(PerformedOrder.precedes(twin, sets[1]))
        var tracker = RecordTracker()
        #expect(tracker.add(weightKg: 50, reps: 5, kind: .normal) == nil)
        #expect(tracker.add(weightKg: 60, reps: 7, kind: .normal) == .oneRepMax)
        #expect(tracker.add(weightKg: 60, reps: 7, kind: .normal) == nil)
    }
}

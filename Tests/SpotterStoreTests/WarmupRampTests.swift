import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// A warm-up ramp planned before a work set: planned rows like a routine's, logged one each.
@Suite("Warm-up ramps in the store")
struct WarmupRampTests {
    @Test func theRampAndTheWorkSetArePlannedRowsThatLogAsWarmUpsThenTheWorkSet() throws {
        let store = try makeStore()
        let planned = try store.workoutLog.planWarmups(
            LogSetInput(exercise: "squat (barbell)", weight: 140, unit: .kg, reps: 5, rpe: 8))
        #expect(planned.createdWorkout)
        #expect(planned.rows.map(\.weight) == [20, 55, 82.5, 110, 140])
        #expect(planned.rows.map(\.reps) == [10, 5, 3, 2, 5])
        #expect(planned.rows.map(\.kind) == [.warmup, .warmup, .warmup, .warmup, .normal])
        #expect(planned.rows.allSatisfy { $0.exercise == "Squat (Barbell)" && $0.isWarmupRamp })
        #expect(planned.rows.last?.rpe == 8)
        #expect(planned.rows.first?.hint == "warm-up 1/4 before 140 kg × 5: bar only (20 kg)")
        // Planned rows queue nothing until logged.
        #expect(try store.operations().filter { $0.entityType == .set }.isEmpty)
        for row in planned.rows { try store.routines.logPlanned(row.id) }
        let sets = try store.queries.sets(workoutID: planned.workout.id)
        #expect(sets.map(\.set.kind) == [.warmup, .warmup, .warmup, .warmup, .normal])
        #expect(sets.map(\.set.weight) == [20, 55, 82.5, 110, 140])
        #expect(try store.operations().filter { $0.entityType == .set }.count == 5)
        // No routine's history counts them.
        #expect(try store.routines.all().isEmpty)
    }

    @Test func theLiftersPlatesAndSchemeAreUsedAndADumbbellLiftRoundsToItsStep() throws {
        let store = try makeStore()
        try store.preferences.setPlates(unit: .kg, bar: 15, plates: [10, 5, 2.5])
        try store.preferences.setWarmupScheme(try WarmupScheme.parse("bar:8,50:5,75:2"))
        let squat = try store.workoutLog.planWarmups(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, unit: .kg, reps: 5))
        #expect(squat.rows.map(\.weight) == [15, 50, 75, 100])
        let press = try store.workoutLog.planWarmups(
            LogSetInput(
                exercise: "Bench Press (Dumbbell)", weight: 36, unit: .kg, reps: 8, workout: .existing(squat.workout.id)
            ))
        #expect(press.rows.map(\.weight) == [17.5, 25, 36], "half and three quarters, down to 2.5 kg steps")
        #expect(press.rows.first?.hint?.contains("per side") == false, "no plates off a bar")
    }

    @Test func inARoutineWorkoutTheRampGoesBeforeTheLiftsFirstRowStillToDo() throws {
        let store = try makeStore()
        try store.routines.create(
            name: "Legs",
            exercises: [
                RoutineExercise(exercise: "Leg Press (Machine)", sets: [PlannedSet(weight: 200, reps: 10)]),
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 120, reps: 5), count: 3)),
            ])
        let started = try store.routines.start("Legs")
        let ramp = try store.workoutLog.planWarmups(
            LogSetInput(
                exercise: "Squat (Barbell)", weight: 120, unit: .kg, reps: 5, workout: .existing(started.workout.id)))
        let rows = try store.routines.plannedRows(workoutID: started.workout.id)
        #expect(rows.map(\.exercise).first == "Leg Press (Machine)")
        #expect(Array(rows.dropFirst().prefix(ramp.rows.count).map(\.id)) == ramp.rows.map(\.id))
        #expect(rows.count == 1 + ramp.rows.count + 3)
        #expect(Array(rows.suffix(3).map(\.weight)) == [120, 120, 120])
        // The routine plans the work sets: the ramp adds warm-ups only, never a fourth work set.
        #expect(ramp.rows.allSatisfy { $0.kind == .warmup }, "\(ramp.rows.map(\.kind))")
        #expect(rows.filter { $0.exercise == "Squat (Barbell)" && $0.kind != .warmup }.count == 3)
    }

    @Test func aLightWorkSetAndBadInputPlanNothing() throws {
        let store = try makeStore()
        #expect(throws: StoreError.self) {
            try store.workoutLog.planWarmups(LogSetInput(exercise: "Squat (Barbell)", weight: 25, unit: .kg, reps: 5))
        }
        for input in [
            LogSetInput(exercise: "Squat (Barbell)", weight: .nan, unit: .kg, reps: 5),
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, unit: .kg, reps: -1),
            LogSetInput(exercise: "Squat\u{202E} (Barbell)", weight: 100, unit: .kg, reps: 5),
            LogSetInput(exercise: "", weight: 100, unit: .kg, reps: 5),
        ] {
            #expect(throws: StoreError.self) { try store.workoutLog.planWarmups(input) }
        }
        #expect(try store.queries.workoutSummaries().isEmpty, "no workout was started for nothing")
        #expect(try store.operations().isEmpty)
    }

    /// A routine on a bar progresses to what the lifter's plates load: +2.5 kg with only 5 kg
    /// plates is +10 kg, said in the hint, never a stall at the same weight.
    @Test func aRoutinesProgressionLandsOnTheLiftersPlates() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.preferences.setPlates(unit: .kg, bar: 20, plates: [20, 10, 5])
        try store.routines.create(
            name: "Squat day",
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3),
                    progression: .linear, increment: 2.5)
            ])
        let first = try store.routines.start("Squat day")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        try store.workoutLog.editWorkout(id: first.workout.id, changes: WorkoutChanges(endedAt: clock.now()))
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Squat day")
        #expect(second.workout.id != first.workout.id)
        #expect(second.rows.map(\.weight) == [110, 110, 110])
        #expect(
            second.rows.first?.hint?.hasPrefix("+10 kg (+2.5 cannot be loaded)") == true,
            "\(second.rows.first?.hint ?? "")")
    }
}

import Foundation
import SpotterCore
import Testing

/// The progression rules as pure functions: each rule on a hit, a miss, three misses in a row
/// and (double progression) the top of the rep range.
@Suite("Progression rules")
struct ProgressionTests {
    let utc = TimeZone(identifier: "UTC")!
    /// Mon 16 Nov 2026, noon UTC.
    let monday = Date(timeIntervalSince1970: 1_794_830_400)

    func day(_ offset: Int) -> Date { monday.addingTimeInterval(Double(offset) * 86_400) }

    func exercise(_ rule: ProgressionRule, reps: Int = 5, top: Int? = nil, sets: Int = 3) -> RoutineExercise {
        RoutineExercise(
            exercise: "Squat (Barbell)", unit: .kg,
            sets: Array(repeating: PlannedSet(weight: 100, reps: reps, repsMax: top), count: sets),
            progression: rule, increment: 2.5)
    }

    func targets(_ weight: Double, _ reps: Int, sets: Int = 3) -> [SetTarget] {
        Array(repeating: SetTarget(weight: weight, reps: reps), count: sets)
    }

    /// A performance at `weight` × `reps` in which the last set got `lastReps`.
    func performance(_ date: Date, _ weight: Double, _ reps: Int, lastReps: Int? = nil) -> PastPerformance {
        var performed = Array(repeating: PerformedSet?.some(PerformedSet(weight: weight, reps: reps)), count: 3)
        if let lastReps { performed[2] = PerformedSet(weight: weight, reps: lastReps) }
        return PastPerformance(date: date, targets: targets(weight, reps), performed: performed)
    }

    func next(_ exercise: RoutineExercise, _ history: [PastPerformance]) -> ProgressionOutcome {
        Progression.next(for: exercise, written: targets(100, exercise.sets[0].reps), history: history, timeZone: utc)
    }

    @Test func linearAddsTheIncrementWhenEveryPlannedRepWasDone() {
        let outcome = next(exercise(.linear), [performance(monday, 100, 5)])
        #expect(outcome.targets == targets(102.5, 5))
        #expect(outcome.hint == "+2.5 kg: all 3×5 done on Mon 16 Nov")
    }

    /// On a bar, a target lands on a weight the lifter's plates load, and a step too small to
    /// load moves to the next loadable one: progression never stalls on plates.
    @Test func linearOnABarMovesToLoadableWeightsAndNeverStalls() throws {
        var small = exercise(.linear)
        small.increment = 1
        let standard = PlateSet.standard(.kg)
        let one = Progression.next(
            for: small, written: targets(100, 5), history: [performance(monday, 100, 5)], timeZone: utc,
            plates: standard)
        #expect(one.targets == targets(102.5, 5))
        #expect(one.hint == "+2.5 kg (+1 cannot be loaded): all 3×5 done on Mon 16 Nov")
        let bigPlates = try PlateSet(unit: .kg, bar: 20, plates: [20, 10, 5])
        let home = Progression.next(
            for: exercise(.linear), written: targets(100, 5), history: [performance(monday, 100, 5)],
            timeZone: utc, plates: bigPlates)
        #expect(home.targets == targets(110, 5), "2.5 kg cannot be loaded with 5 kg plates: the next step")
        // A deload lands on a loadable weight too.
        let misses = [
            performance(day(-7), 110, 5, lastReps: 3), performance(day(-3), 110, 5, lastReps: 4),
            performance(monday, 110, 5, lastReps: 4),
        ]
        let deload = Progression.next(
            for: exercise(.linear), written: targets(100, 5), history: misses, timeZone: utc, plates: bigPlates)
        #expect(deload.targets == targets(100, 5), "99 kg rounds to the loadable 100 kg")
        // Plates of another unit are not used for a kg routine; without plates nothing changes.
        let pounds = Progression.next(
            for: small, written: targets(100, 5), history: [performance(monday, 100, 5)], timeZone: utc,
            plates: PlateSet.standard(.lb))
        #expect(pounds.targets == targets(101, 5))
        #expect(next(small, [performance(monday, 100, 5)]).targets == targets(101, 5))
    }

    /// An assisted lift's weight is the machine's help: a hit takes help away, a weight under the
    /// target's is a hit (less help), more help is a miss, and a deload gives help back.
    @Test func assistedLiftsProgressByTakingAssistanceAway() {
        var assisted = exercise(.linear)
        assisted.exercise = "Pull Up (Assisted)"
        func nextAssisted(_ history: [PastPerformance]) -> ProgressionOutcome {
            Progression.next(
                for: assisted, written: targets(30, 5), history: history, timeZone: utc,
                plates: PlateSet.standard(.kg), loadType: .assisted)
        }
        let hit = nextAssisted([performance(monday, 30, 5)])
        #expect(hit.targets == targets(27.5, 5))
        #expect(hit.hint == "-2.5 kg of assistance: all 3×5 done on Mon 16 Nov")
        // Done with less help than planned is done.
        let lessHelp = PastPerformance(
            date: monday, targets: targets(30, 5),
            performed: Array(repeating: PerformedSet(weight: 25, reps: 5), count: 3))
        #expect(nextAssisted([lessHelp]).targets == targets(27.5, 5))
        // More help than planned is a miss: the same help next time.
        let moreHelp = PastPerformance(
            date: monday, targets: targets(30, 5),
            performed: Array(repeating: PerformedSet(weight: 35, reps: 5), count: 3))
        #expect(nextAssisted([moreHelp]).targets == targets(30, 5))
        let missed = [
            performance(day(0), 30, 5, lastReps: 3), performance(day(2), 30, 5, lastReps: 3),
            performance(day(4), 30, 5, lastReps: 2),
        ]
        let deload = nextAssisted(missed)
        #expect(deload.targets == targets(32.5, 5), "a deload gives help back")
        #expect(deload.hint.hasPrefix("deload: +2.5 kg of assistance"))
        // Help never goes below none.
        let none = Progression.next(
            for: assisted, written: targets(0, 5), history: [performance(monday, 0, 5)], timeZone: utc,
            loadType: .assisted)
        #expect(none.targets == targets(0, 5))
    }

    @Test func linearKeepsTheWeightAfterAMiss() {
        let outcome = next(exercise(.linear), [performance(monday, 100, 5, lastReps: 4)])
        #expect(outcome.targets == targets(100, 5))
        #expect(outcome.hint.hasPrefix("same weight: 3×5 at 100 kg not all done on Mon 16 Nov (miss 1 of 3"))
    }

    @Test func linearCountsASkippedSetAsAMiss() {
        var missed = performance(monday, 100, 5)
        missed.performed[1] = nil
        #expect(next(exercise(.linear), [missed]).targets == targets(100, 5))
    }

    @Test func linearDeloadsTenPercentAfterThreeMissesInARow() {
        let history = [
            performance(day(-14), 97.5, 5),  // a hit at the weight before: not a miss
            performance(day(-7), 100, 5, lastReps: 3),
            performance(day(-3), 100, 5, lastReps: 4),
            performance(monday, 100, 5, lastReps: 4),
        ]
        let outcome = next(exercise(.linear), history)
        #expect(outcome.targets == targets(90, 5))
        #expect(outcome.hint == "-10 % deload: 3×5 at 100 kg missed 3 times in a row (last Mon 16 Nov)")
        // Two misses are not yet three.
        #expect(next(exercise(.linear), Array(history.dropLast())).targets == targets(100, 5))
    }

    @Test func linearDeloadRoundsToAPlateStep() {
        let history = (0..<3).map { performance(day(-$0), 102.5, 5, lastReps: 2) }.reversed()
        let outcome = Progression.next(
            for: exercise(.linear), written: targets(100, 5), history: Array(history), timeZone: utc)
        #expect(outcome.targets.first?.weight == 92.5, "102.5 × 0.9 = 92.25 → 92.5")
    }

    @Test func doubleProgressionAddsARepBelowTheTopOfTheRange() {
        let outcome = next(exercise(.double, reps: 8, top: 12), [performance(monday, 100, 8)])
        #expect(outcome.targets == targets(100, 9))
        #expect(outcome.hint == "+1 rep (to 9 of 8–12): all 3×8 done on Mon 16 Nov")
    }

    @Test func doubleProgressionAtTheTopOfTheRangeAddsWeightAndGoesBackToTheBottom() {
        let outcome = next(exercise(.double, reps: 8, top: 12), [performance(monday, 100, 12)])
        #expect(outcome.targets == targets(102.5, 8))
        #expect(outcome.hint == "+2.5 kg, back to 8 reps: all 3×12 done on Mon 16 Nov")
    }

    @Test("double progression follows the reps done: the top of the range reached above a target of 8 adds weight")
    func doubleProgressionFollowsTheRepsDone() {
        var history = performance(monday, 100, 8)
        history.performed = Array(repeating: PerformedSet(weight: 100, reps: 12), count: 3)
        let atTheTop = next(exercise(.double, reps: 8, top: 12), [history])
        #expect(atTheTop.targets == targets(102.5, 8))
        history.performed = [
            PerformedSet(weight: 100, reps: 11), PerformedSet(weight: 100, reps: 10),
            PerformedSet(weight: 100, reps: 12),
        ]
        let below = next(exercise(.double, reps: 8, top: 12), [history])
        #expect(below.targets == targets(100, 11), "one past the fewest reps any working set reached")
        #expect(below.hint == "+1 rep (to 11 of 8–12): all 3×8 done on Mon 16 Nov")
    }

    @Test func doubleProgressionKeepsTargetsOnAMissAndAfterThreeMisses() {
        let miss = next(exercise(.double, reps: 8, top: 12), [performance(monday, 100, 10, lastReps: 9)])
        #expect(miss.targets == targets(100, 10))
        #expect(miss.hint == "same: 3×10 not all done on Mon 16 Nov")
        let three = (0..<3).map { performance(day(-$0), 100, 10, lastReps: 9) }.reversed()
        let outcome = Progression.next(
            for: exercise(.double, reps: 8, top: 12), written: targets(100, 8), history: Array(three), timeZone: utc)
        #expect(outcome.targets == targets(100, 10), "double progression never deloads by itself")
    }

    @Test func fixedIsAsWrittenOnAHitAMissAndThreeMisses() {
        for history in [
            [performance(monday, 100, 5)], [performance(monday, 100, 5, lastReps: 1)],
            (0..<3).map { performance(day(-$0), 100, 5, lastReps: 1) },
        ] {
            let outcome = next(exercise(.fixed), history)
            #expect(outcome.targets == targets(100, 5))
            #expect(outcome.hint == "as written (fixed)")
        }
    }

    @Test func theFirstTimeAndAChangedRoutineAreAsWritten() {
        #expect(next(exercise(.linear), []).hint == "first time: as written")
        let twoSets = PastPerformance(
            date: monday, targets: targets(100, 5, sets: 2),
            performed: [PerformedSet(weight: 100, reps: 5), PerformedSet(weight: 100, reps: 5)])
        let outcome = next(exercise(.linear), [twoSets])
        #expect(outcome.targets == targets(100, 5))
        #expect(outcome.hint == "routine changed since Mon 16 Nov: as written")
    }

    @Test func warmUpsKeepTheirWrittenTargetsAndDoNotCountAsMisses() {
        let planned = RoutineExercise(
            exercise: "Squat (Barbell)",
            sets: [PlannedSet(kind: .warmup, weight: 60, reps: 5), PlannedSet(weight: 100, reps: 5)],
            progression: .linear)
        let written = [SetTarget(kind: .warmup, weight: 60, reps: 5), SetTarget(weight: 100, reps: 5)]
        let last = PastPerformance(
            date: monday, targets: written,
            performed: [PerformedSet(weight: 60, reps: 2), PerformedSet(weight: 100, reps: 5)])
        let outcome = Progression.next(for: planned, written: written, history: [last], timeZone: utc)
        #expect(outcome.targets == [SetTarget(kind: .warmup, weight: 60, reps: 5), SetTarget(weight: 102.5, reps: 5)])
        #expect(outcome.hint == "+2.5 kg: all 1×5 done on Mon 16 Nov")
    }

    @Test func supersetsAlternateBetweenTheirExercises() {
        let routine = Routine(
            name: "Push A",
            exercises: [
                RoutineExercise(exercise: "A", sets: Array(repeating: PlannedSet(reps: 5), count: 2)),
                RoutineExercise(exercise: "B", sets: Array(repeating: PlannedSet(reps: 5), count: 3), superset: 1),
                RoutineExercise(exercise: "C", sets: Array(repeating: PlannedSet(reps: 5), count: 1)),
                RoutineExercise(exercise: "D", sets: Array(repeating: PlannedSet(reps: 5), count: 2), superset: 1),
            ])
        let order = routine.performanceOrder.map { "\(routine.exercises[$0.exercise].exercise)\($0.set + 1)" }
        #expect(order == ["A1", "A2", "B1", "D1", "B2", "D2", "B3", "C1"])
    }
}

import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// Routines in the store: made from a workout or by hand, started, their planned rows logged
/// through the one-transaction action (each once) or skipped (never queued).
@Suite("Routines in the store")
struct RoutineStoreTests {
    func routine(_ name: String = "Push A", progression: ProgressionRule = .fixed) -> [RoutineExercise] {
        [
            RoutineExercise(
                exercise: "Bench Press (Barbell)", sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3),
                restSeconds: 150, progression: progression),
            RoutineExercise(
                exercise: "Bent Over Row (Barbell)", sets: Array(repeating: PlannedSet(weight: 60, reps: 8), count: 2),
                superset: 1),
            RoutineExercise(
                exercise: "Lateral Raise (Dumbbell)",
                sets: Array(repeating: PlannedSet(weight: 10, reps: 12), count: 2),
                superset: 1),
        ]
    }

    func setCreates(_ store: SpotterStore) throws -> [OutboxOperation] {
        try store.operations().filter { $0.entityType == .set && $0.kind == .create }
    }

    @Test func aRoutineFromAWorkoutHasItsExercisesAndSetsInOrder() throws {
        let store = try makeStore()
        let workout = try store.workoutLog.createWorkout(name: "Monday")
        let logged: [(String, Double, Int, SetKind)] = [
            ("Squat (Barbell)", 60, 5, .warmup), ("Squat (Barbell)", 140, 3, .normal),
            ("Bench Press (Barbell)", 100, 5, .normal), ("Squat (Barbell)", 142.5, 3, .normal),
            ("Bench Press (Barbell)", 102.5, 4, .failure),
        ]
        for (exercise, weight, reps, kind) in logged {
            try store.workoutLog.logSet(
                LogSetInput(exercise: exercise, weight: weight, reps: reps, kind: kind, workout: .existing(workout.id)))
        }
        let routine = try store.routines.create(fromWorkout: workout.id, name: "Push A")
        #expect(routine.exercises.map(\.exercise) == ["Squat (Barbell)", "Bench Press (Barbell)"])
        #expect(routine.exercises[0].sets.map(\.weight) == [60, 140, 142.5])
        #expect(routine.exercises[0].sets.map(\.reps) == [5, 3, 3])
        #expect(routine.exercises[0].sets.map(\.kind) == [.warmup, .normal, .normal])
        #expect(routine.exercises[1].sets.map(\.weight) == [100, 102.5])
        #expect(routine.exercises[1].sets.map(\.kind) == [.normal, .failure])
        // What is stored reads back the same, and one create is queued carrying it.
        #expect(try store.routines.routine("push a").routine == routine)
        let creates = try store.operations().filter { $0.entityType == .routine }
        #expect(creates.map(\.kind) == [.create])
        #expect(creates.first?.payload["name"] == .string("Push A"))
        // A second routine of that name, or from a workout that is not there, changes nothing.
        #expect(throws: StoreError.self) { try store.routines.create(fromWorkout: workout.id, name: "PUSH A") }
        #expect(throws: StoreError.self) { try store.routines.create(fromWorkout: UUID(), name: "Other") }
        #expect(try store.routines.all().count == 1)
        #expect(try store.operations().filter { $0.entityType == .routine }.count == 1)
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let store = try makeStore()
        try store.routines.create(name: "Legs")
        let before = try store.operations().count
        #expect(throws: StoreError.self) {
            try store.routines.update("Legs") {
                $0.exercises.append(RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(reps: 5000)]))
            }
        }
        #expect(throws: StoreError.self) {
            try store.routines.update("Legs") {
                $0.exercises.append(RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(reps: 0)]))
            }
        }
        #expect(throws: StoreError.self) { try store.routines.create(name: "  ") }
        #expect(throws: StoreError.self) { try store.routines.start("Legs") }  // no exercises yet
        #expect(throws: StoreError.self) { try store.routines.start("Nope") }
        #expect(try store.operations().count == before)
        #expect(try store.routines.routine("Legs").routine.exercises.isEmpty)
        #expect(try store.queries.workoutSummaries().isEmpty)
    }

    @Test func editsBeforeTheCreateIsSentCoalesceIntoIt() throws {
        let store = try makeStore()
        try store.routines.create(name: "Push A")
        try store.routines.update("Push A") { $0.exercises = routine() }
        try store.routines.update("push a") { $0.name = "Push B" }
        let ops = try store.operations().filter { $0.entityType == .routine }
        #expect(ops.count == 1)
        #expect(ops.first?.kind == .create)
        #expect(ops.first?.payload["name"] == .string("Push B"))
        #expect(
            ops.first?.payload["exercises"]
                == Routine.exercisesJSON(try store.routines.routine("Push B").routine.exercises))
        try store.routines.delete("Push B")
        #expect(try store.operations().filter { $0.entityType == .routine }.isEmpty, "create + delete: nothing is sent")
        #expect(try store.routines.all().isEmpty)
    }

    /// Undoing the delete of a workout started from a routine brings its plan back with it: the
    /// rows logged are done (by the sets logged again), the skipped one skipped, the rest to do,
    /// and the workout's plan names the new sets, so another device sees the same.
    /// Both ways a delete goes: a workout never sent is removed outright (its planned rows with
    /// it), one the server has is marked deleted (its rows stay).
    @Test(arguments: [false, true])
    func undoingARoutineWorkoutsDeleteBringsBackItsPlannedRows(sentFirst: Bool) throws {
        let store = try makeStore()
        try store.routines.create(name: "Push A", exercises: routine(), restSeconds: 90)
        let started = try store.routines.start("Push A")
        let first = try store.routines.logPlanned(started.rows[0].id)
        let second = try store.routines.logPlanned(started.rows[1].id, weight: 102.5)
        #expect(try store.routines.toggleSkipPlanned(started.rows[4].id))
        if sentFirst {
            while case let claimed = try store.queue.claimEligible(limit: 100), !claimed.isEmpty {
                for op in claimed {
                    try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
                }
            }
            #expect(try store.queries.queueCounts().pending == 0)
        }
        let before = try store.routines.plannedRows(workoutID: started.workout.id)

        try store.workoutLog.deleteWorkout(id: started.workout.id)
        #expect(try store.queries.workoutSummaries().isEmpty)
        let undone = try #require(try store.workoutLog.undoLast())
        #expect(undone.notUndone == nil)

        let back = try #require(try store.queries.workoutSummaries().first?.workout)
        #expect(back.id != started.workout.id, "logged again under a new id")
        let sets = try store.queries.sets(workoutID: back.id)
        #expect(sets.map(\.set.weight) == [first.set.weight, second.set.weight])
        let rows = try store.routines.plannedRows(workoutID: back.id)
        #expect(rows.map(\.exercise) == before.map(\.exercise))
        #expect(rows.map(\.status) == before.map(\.status))
        #expect(rows.map(\.status) == [.done, .done, .planned, .planned, .skipped, .planned, .planned])
        #expect(rows.prefix(2).map(\.setID) == sets.map { Optional($0.set.id) })
        // The plan the workout carries names the new sets, so a device that pulls it shows them done.
        let plan = try #require(back.plan)
        #expect(plan.entries.prefix(2).map(\.id) == sets.map(\.set.id))
        // Logging the next planned row goes on as before the delete.
        let third = try store.routines.logPlanned(rows[2].id)
        #expect(third.workout.id == back.id)
        #expect(try store.routines.plannedRows(workoutID: back.id).filter { $0.status == .done }.count == 3)
    }

    @Test func enterOnEachPlannedRowLogsAndQueuesEachSetOnceAndASkippedRowNever() throws {
        let store = try makeStore()
        try store.routines.create(name: "Push A", exercises: routine(), restSeconds: 90)
        let started = try store.routines.start("Push A")
        #expect(started.workout.name == "Push A")
        // Bench's three sets, then the superset alternates: row, raise, row, raise.
        #expect(
            started.rows.map(\.exercise) == [
                "Bench Press (Barbell)", "Bench Press (Barbell)", "Bench Press (Barbell)", "Bent Over Row (Barbell)",
                "Lateral Raise (Dumbbell)", "Bent Over Row (Barbell)", "Lateral Raise (Dumbbell)",
            ])
        #expect(started.rows.map(\.restSeconds) == [150, 150, 150, 90, 90, 90, 90])
        #expect(try store.routines.plannedRows(workoutID: started.workout.id).allSatisfy { $0.status == .planned })
        #expect(try setCreates(store).isEmpty, "planned rows queue nothing")

        let skipped = started.rows[4]
        #expect(try store.routines.toggleSkipPlanned(skipped.id))
        var loggedIDs: [UUID] = []
        for row in started.rows where row.id != skipped.id {
            let logged = try store.routines.logPlanned(row.id)
            #expect(logged.set.weight == row.weight)
            #expect(logged.set.reps == row.reps)
            #expect(logged.workout.id == started.workout.id)
            loggedIDs.append(logged.set.id)
            // Enter again on the same row logs nothing more.
            #expect(throws: StoreError.self) { try store.routines.logPlanned(row.id) }
        }
        #expect(throws: StoreError.self) { try store.routines.logPlanned(skipped.id) }

        let sets = try store.queries.sets(workoutID: started.workout.id)
        #expect(sets.map(\.set.id) == loggedIDs)
        #expect(sets.map(\.set.exercise) == started.rows.filter { $0.id != skipped.id }.map(\.exercise))
        let creates = try setCreates(store)
        #expect(creates.map(\.entityID).sorted() == loggedIDs.map(\.wireString).sorted(), "each logged set queued once")
        #expect(Set(creates.map(\.idempotencyKey)).count == creates.count)
        let rows = try store.routines.plannedRows(workoutID: started.workout.id)
        #expect(rows.filter { $0.status == .done }.count == 6)
        #expect(rows.first { $0.id == skipped.id }?.status == .skipped)
        #expect(rows.first { $0.id == skipped.id }?.setID == nil)
    }

    @Test func aDeletedLoggedSetMakesItsRowPlannedAgain() throws {
        let store = try makeStore()
        try store.routines.create(name: "Push A", exercises: routine())
        let started = try store.routines.start("Push A")
        let logged = try store.routines.logPlanned(started.rows[0].id, reps: 4)
        #expect(logged.set.reps == 4, "values edited before logging are what is logged")
        try store.workoutLog.deleteSet(id: logged.set.id)
        let row = try #require(try store.routines.plannedRows(workoutID: started.workout.id).first)
        #expect(row.status == .planned)
        #expect(try store.routines.logPlanned(row.id).set.reps == 5)
    }

    @Test func theNextStartTakesItsTargetsFromTheLastPerformanceByTheRule() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(name: "Push A", exercises: routine(progression: .linear))
        let first = try store.routines.start("Push A")
        #expect(first.rows[0].hint == "first time: as written")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        try store.workoutLog.editWorkout(id: first.workout.id, changes: WorkoutChanges(endedAt: clock.now()))
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Push A")
        let bench = second.rows.filter { $0.exercise == "Bench Press (Barbell)" }
        #expect(bench.map(\.weight) == [102.5, 102.5, 102.5])
        let day = Progression.dayText(first.workout.startedAt, timeZone: .current)
        #expect(bench.first?.hint == "+2.5 kg: all 3×5 done on \(day)")
        #expect(second.rows.first { $0.exercise == "Bent Over Row (Barbell)" }?.weight == 60, "fixed stays")
        // A miss this time keeps 102.5 next time.
        try store.routines.logPlanned(bench[0].id, reps: 3)
        clock.advance(by: 2 * 86_400)
        let third = try store.routines.start("Push A")
        #expect(third.rows[0].weight == 102.5)
        #expect(third.rows[0].hint?.hasPrefix("same weight: 3×5 at 102.5 kg not all done") == true)
    }

    @Test func aPercentageOfOneRepMaxTakesTheCurrentEstimate() throws {
        let store = try makeStore()
        /// The first planned row of a routine of one set at `percent` of `exercise`'s e1RM, started.
        func started(_ name: String, _ exercise: String, percent: Double) throws -> PlannedRow? {
            try store.routines.create(
                name: name,
                exercises: [
                    RoutineExercise(exercise: exercise, sets: [PlannedSet(percentOfOneRepMax: percent, reps: 5)])
                ])
            return try store.routines.start(name).rows.first
        }
        try store.log("Squat (Barbell)", weight: 150, reps: 1)
        let squat = try started("5/3/1", "Squat (Barbell)", percent: 85)
        #expect(squat?.weight == 127.5)
        #expect(squat?.hint == "85 % of e1RM 150 kg")
        // 100 × 5 is an estimate of 116.7 kg, as `spotter stats` says: never the 117.5 the plates load.
        try store.log("Bench Press (Barbell)", weight: 100, reps: 5)
        let bench = try started("Bench 80", "Bench Press (Barbell)", percent: 80)
        #expect(bench?.hint == "80 % of e1RM 116.7 kg")
        #expect(bench?.weight == 92.5, "80 % of 116.7 loaded to plates")
    }

    /// A percentage set started before the exercise has an estimated 1RM has no weight: logging
    /// it as planned is refused (never a 0 kg set nobody lifted); with the weight given, it logs.
    @Test func aPercentageSetWithoutAnEstimateIsNeverLoggedAsZero() throws {
        let store = try makeStore()
        try store.routines.create(
            name: "5/3/1",
            exercises: [
                RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(percentOfOneRepMax: 80, reps: 5)])
            ])
        let row = try #require(try store.routines.start("5/3/1").rows.first)
        #expect(row.needsWeight)
        let before = try store.operations().count
        #expect(throws: StoreError.self) { try store.routines.logPlanned(row.id) }
        #expect(try store.operations().count == before, "nothing queued")
        #expect(try store.queries.sets(workoutID: nil).isEmpty, "nothing logged")
        let logged = try store.routines.logPlanned(row.id, weight: 120)
        #expect(logged.set.weight == 120)
        #expect(logged.set.reps == 5)
    }

    /// Starting a routine again the same day while its planned sets still wait picks that
    /// workout up: no second, empty workout of it. Once every planned set is done or skipped, a
    /// new start makes a new workout.
    @Test func startingAgainTheSameDayPicksUpTheUnfinishedStart() throws {
        let store = try makeStore()
        try store.routines.create(name: "Push A", exercises: routine())
        let first = try store.routines.start("Push A")
        try store.routines.logPlanned(first.rows[0].id)
        let again = try store.routines.start("push a")
        #expect(again.resumed)
        #expect(again.workout.id == first.workout.id)
        #expect(again.rows.map(\.id) == first.rows.map(\.id))
        #expect(try store.queries.workoutSummaries().count == 1)
        for row in again.rows.dropFirst() { try store.routines.toggleSkipPlanned(row.id) }
        let fresh = try store.routines.start("Push A")
        #expect(!fresh.resumed)
        #expect(fresh.workout.id != first.workout.id)
    }

    /// `S` in the UI: a workout done from a routine becomes its plan. What was logged (values
    /// edited before logging, an exercise added, one left out) is what the routine now holds; an
    /// exercise it had keeps its rest and superset; a progression rule keeps its written targets.
    @Test func aWorkoutDoneFromARoutineBecomesItsPlan() throws {
        let store = try makeStore()
        var exercises = routine()
        exercises[1].progression = .linear  // Bent Over Row: targets stay, the rule works from what was done
        try store.routines.create(name: "Push A", exercises: exercises)
        let started = try store.routines.start("Push A")
        let bench = started.rows.filter { $0.exercise == "Bench Press (Barbell)" }
        let rows = started.rows.filter { $0.exercise == "Bent Over Row (Barbell)" }
        try store.routines.logPlanned(bench[0].id, weight: 105)
        try store.routines.logPlanned(bench[1].id, weight: 105, reps: 4)
        try store.routines.logPlanned(rows[0].id, weight: 65)
        try store.log("Dip", weight: 0, reps: 10, workout: .existing(started.workout.id))
        let before = try store.operations().filter { $0.entityType == .routine }.count

        let saved = try store.routines.update("Push A", fromWorkout: started.workout.id)
        #expect(saved.exercises.map(\.exercise) == ["Bench Press (Barbell)", "Bent Over Row (Barbell)", "Chest Dip"])
        #expect(saved.exercises[0].sets.map(\.weight) == [105, 105])
        #expect(saved.exercises[0].sets.map(\.reps) == [5, 4])
        #expect(saved.exercises[0].restSeconds == 150)
        #expect(saved.exercises[1].sets.map(\.weight) == [60], "a rule's written target stays")
        #expect(saved.exercises[1].superset == 1)
        #expect(saved.exercises[2].sets.map(\.reps) == [10])
        #expect(try store.routines.routine("Push A").routine == saved)
        #expect(try store.operations().filter { $0.entityType == .routine }.count >= before, "queued to sync")
        #expect(throws: StoreError.self) {
            try store.routines.update(
                "Push A", fromWorkout: try store.workoutLog.createWorkout(name: "Empty").id)
        }
    }

    /// Routine names are one name however they are typed: any case in any alphabet, accents
    /// composed or not. A second routine of such a name is refused; each spelling finds it.
    @Test func aNameInAnyCaseOrAccentFormIsTheSameRoutine() throws {
        let store = try makeStore()
        try store.routines.create(name: "Pűsh Ä", exercises: routine())
        #expect(throws: StoreError.self) { try store.routines.create(name: "PŰSH ä") }
        let decomposed = "Pu\u{030B}sh A\u{0308}"  // the same letters, accents typed apart (NFD)
        #expect(throws: StoreError.self) { try store.routines.create(name: decomposed) }
        #expect(try store.routines.routine("pűsh ä").routine.name == "Pűsh Ä")
        #expect(try store.routines.routine(decomposed).routine.name == "Pűsh Ä")
        try store.routines.create(name: "Пуш", exercises: routine())
        #expect(try store.routines.start("пуш").workout.name == "Пуш")
        #expect(try store.routines.all().count == 2)
    }

    /// A pulled plan is shown as planned rows, and only a set of that same workout marks a row
    /// done: a plan naming another workout's set (a bug or a hostile client) claims nothing.
    @Test func aPulledPlanShowsItsRowsAndOnlyItsOwnWorkoutsSetsMarkThemDone() throws {
        let store = try makeStore()
        let elsewhere = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 100, unit: .kg, reps: 5))
        let routine = UUID()
        let entries = [
            WorkoutPlan.Entry(
                id: elsewhere.set.id, exercise: "Squat (Barbell)", set: 0, kind: .normal, weight: 140, unit: .kg,
                reps: 5),
            WorkoutPlan.Entry(
                id: UUID(), exercise: "Squat (Barbell)", set: 1, kind: .normal, weight: 140, unit: .kg, reps: 5),
        ]
        let workout = Workout(
            name: "Legs", startedAt: Date().addingTimeInterval(-600),
            plan: WorkoutPlan(routineID: routine, entries: entries))
        try store.pull.mergePulled(
            [.workout(workout, ServerStamp(serverVersion: 7, updatedAt: Timestamp.format(Date())))], cursor: "7")
        let rows = try store.routines.plannedRows(workoutID: workout.id)
        #expect(rows.map(\.id) == entries.map(\.id))
        #expect(rows.map(\.status) == [.planned, .planned], "the other workout's set is not this plan's")
        #expect(rows.allSatisfy { $0.hint == "planned on another device" && $0.weight == 140 })
        let logged = try store.routines.logPlanned(rows[1].id)
        #expect(logged.set.id != rows[1].id, "only the device that started it gives a set the planned id")
        #expect(try store.routines.plannedRows(workoutID: workout.id).map(\.status) == [.planned, .done])
    }

    /// A routine done before workouts carried their plan keeps its history on the device that
    /// did it: its planned rows stand in for the plan.
    @Test func aRoutineDoneBeforePlansTravelledKeepsItsHistoryHere() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(name: "Push A", exercises: routine(progression: .linear))
        let first = try store.routines.start("Push A")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        // As the previous version left it: planned rows, sets with ids of their own, no plan.
        try store.writer.write { db in
            try db.execute(sql: "UPDATE workouts SET plan = NULL, routine_id = NULL")
            for row in first.rows {
                let fresh = UUID().wireString
                try db.execute(
                    sql: "UPDATE sets SET id = ? WHERE id = ?", arguments: [fresh, row.id.wireString])
                try db.execute(
                    sql: "UPDATE routine_plans SET set_id = ? WHERE id = ?", arguments: [fresh, row.id.wireString])
            }
        }
        #expect(try store.routines.routine("Push A").lastStartedAt == first.workout.startedAt)
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Push A")
        let bench = second.rows.filter { $0.exercise == "Bench Press (Barbell)" }
        #expect(bench.map(\.weight) == [102.5, 102.5, 102.5])
        #expect(bench.first?.hint?.hasPrefix("+2.5 kg: all 3×5 done on ") == true)
    }

    /// A lift planned twice (a top set, then back-offs) progresses block by block.
    @Test func aLiftPlannedTwiceProgressesEachBlockOnItsOwn() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(
            name: "Squat day",
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: [PlannedSet(weight: 140, reps: 3)], progression: .linear,
                    increment: 5),
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 110, reps: 5), count: 2),
                    progression: .linear),
            ])
        let first = try store.routines.start("Squat day")
        #expect(first.rows.map(\.weight) == [140, 110, 110])
        for row in first.rows { try store.routines.logPlanned(row.id) }
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Squat day")
        #expect(second.rows.map(\.weight) == [145, 112.5, 112.5])
        #expect(second.rows.allSatisfy { $0.hint?.hasPrefix("+") == true }, "\(second.rows.map(\.hint))")
    }

    /// The lifter edits the routine (a new weight, another unit): its new targets count, never
    /// last time's progressed ones, and the hint says so.
    @Test func anEditedRoutineStartsFromWhatItNowSays() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(name: "Push A", exercises: routine(progression: .linear))
        let first = try store.routines.start("Push A")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        try store.routines.update("Push A") {
            $0.exercises[0].sets = Array(repeating: PlannedSet(weight: 60, reps: 5), count: 3)
        }
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Push A")
        let bench = second.rows.filter { $0.exercise == "Bench Press (Barbell)" }
        #expect(bench.map(\.weight) == [60, 60, 60])
        #expect(bench.first?.hint?.hasPrefix("routine changed since ") == true)
        for row in second.rows { try store.routines.logPlanned(row.id) }
        // Bench switched to pounds: the written 135 lb, not 62.5 kg in pounds.
        try store.routines.update("Push A") {
            $0.exercises[0].unit = .lb
            $0.exercises[0].increment = 5
            $0.exercises[0].sets = Array(repeating: PlannedSet(weight: 135, reps: 5), count: 3)
        }
        clock.advance(by: 2 * 86_400)
        let third = try store.routines.start("Push A")
        #expect(third.rows.filter { $0.exercise == "Bench Press (Barbell)" }.map(\.weight) == [135, 135, 135])
        // Done as written, it progresses again from there.
        for row in third.rows { try store.routines.logPlanned(row.id) }
        clock.advance(by: 2 * 86_400)
        let fourth = try store.routines.start("Push A")
        #expect(fourth.rows.filter { $0.exercise == "Bench Press (Barbell)" }.map(\.weight) == [140, 140, 140])
    }

    /// A routine the device accepts always syncs: more planned sets than one request can carry
    /// are refused here, by name, and a routine made from a huge workout is cut to fit.
    @Test func aRoutineTooBigToSyncIsRefusedAndOneFromAHugeWorkoutIsCut() throws {
        let store = try makeStore()
        let many = (0..<6).map { index in
            RoutineExercise(
                exercise: ["Squat (Barbell)", "Bench Press (Barbell)", "Deadlift (Barbell)"][index % 3],
                sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 30))
        }
        #expect {
            try store.routines.create(name: "Everything", exercises: many)
        } throws: { error in
            "\(error)".contains("at most \(Routine.maxPlannedSets) planned sets in all")
        }
        #expect(try store.routines.all().isEmpty)
        let workout = try store.workoutLog.createWorkout(name: "Marathon")
        for index in 0..<(Routine.maxPlannedSets + 20) {
            try store.workoutLog.logSet(
                LogSetInput(
                    exercise: [
                        "Squat (Barbell)", "Bench Press (Barbell)", "Deadlift (Barbell)", "Pull Up",
                        "Chest Dip", "Lunge (Barbell)", "Plank",
                    ][index % 7],
                    weight: 20, unit: .kg, reps: 5, workout: .existing(workout.id)))
        }
        let made = try store.routines.create(fromWorkout: workout.id, name: "Marathon plan")
        #expect(made.exercises.reduce(0) { $0 + $1.sets.count } == Routine.maxPlannedSets)
    }

    /// Renaming a lift renames it in the routines that plan it, and its history follows.
    @Test func aRenamedLiftStaysInItsRoutinesWithItsHistory() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(
            name: "Legs",
            exercises: [
                RoutineExercise(
                    exercise: "Zercher Squat", sets: Array(repeating: PlannedSet(weight: 80, reps: 5), count: 2),
                    progression: .linear)
            ])
        let first = try store.routines.start("Legs")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        let move = try store.workoutLog.moveExercise("Zercher Squat", to: "Zercher", create: true)
        #expect(move.routinesChanged == 1)
        #expect(try store.routines.routine("Legs").routine.exercises.map(\.exercise) == ["Zercher"])
        #expect(try store.routines.routine("Legs").syncState == .pending, "the rename is queued")
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Legs")
        #expect(second.rows.map(\.weight) == [82.5, 82.5])
        #expect(second.rows.first?.hint?.hasPrefix("+2.5 kg: all 2×5 done on ") == true)
    }

    /// A drop set logged by hand is no planned working set: every planned row can still be
    /// logged, and the next start counts the 3×5 as done.
    @Test func aHandLoggedDropSetTakesNoPlannedWorkingSet() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.routines.create(name: "Push A", exercises: routine(progression: .linear))
        let first = try store.routines.start("Push A")
        try store.workoutLog.logSet(
            LogSetInput(
                exercise: "Bench Press (Barbell)", weight: 80, unit: .kg, reps: 8, kind: .drop,
                workout: .existing(first.workout.id)))
        for row in first.rows { try store.routines.logPlanned(row.id) }
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Push A")
        #expect(second.rows.filter { $0.exercise == "Bench Press (Barbell)" }.map(\.weight) == [102.5, 102.5, 102.5])
    }

    /// `S` on a workout of a routine with a top set and back-offs keeps them two blocks, in order.
    @Test func savingAWorkoutAsItsRoutineKeepsTopSetAndBackOffsApart() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let made = try store.routines.create(
            name: "Deadlift day",
            exercises: [
                RoutineExercise(
                    exercise: "Deadlift (Barbell)", sets: [PlannedSet(weight: 180, reps: 3)], progression: .linear),
                RoutineExercise(exercise: "Pull Up", sets: [PlannedSet(weight: 0, reps: 8)]),
                RoutineExercise(
                    exercise: "Deadlift (Barbell)", sets: Array(repeating: PlannedSet(weight: 150, reps: 5), count: 2),
                    progression: .linear),
            ])
        let first = try store.routines.start("Deadlift day")
        for row in first.rows { try store.routines.logPlanned(row.id) }
        let saved = try store.routines.update(made.id.wireString, fromWorkout: first.workout.id)
        #expect(saved.exercises.map(\.exercise) == ["Deadlift (Barbell)", "Pull Up", "Deadlift (Barbell)"])
        #expect(saved.exercises.map(\.sets.count) == [1, 1, 2])
        clock.advance(by: 2 * 86_400)
        let second = try store.routines.start("Deadlift day")
        #expect(second.rows.filter { $0.exercise == "Deadlift (Barbell)" }.map(\.weight) == [182.5, 152.5, 152.5])
    }

    /// Names count in bytes: a routine whose plan would not fit one request is refused here.
    @Test func aRoutineOfLongNamesTooBigToSyncIsRefused() throws {
        let store = try makeStore()
        let many = (0..<5).map { index in
            RoutineExercise(
                exercise: String(repeating: "🏋", count: 99) + "\(index)",
                sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 30))
        }
        #expect {
            try store.routines.create(name: "Emoji", exercises: many)
        } throws: { error in
            "\(error)".contains("too large to sync")
        }
    }

    /// Two pulled workouts whose plans share a planned set's id (only a client sending what it
    /// likes makes one) both show their planned rows.
    @Test func pulledPlansSharingAnIdBothShowTheirRows() throws {
        let store = try makeStore()
        let shared = UUID()
        var workouts: [Workout] = []
        for name in ["One", "Two"] {
            let plan = WorkoutPlan(
                routineID: UUID(),
                entries: [
                    WorkoutPlan.Entry(
                        id: shared, exercise: "Squat (Barbell)", set: 0, kind: .normal, weight: 100, unit: .kg, reps: 5)
                ])
            workouts.append(Workout(name: name, startedAt: Date(), plan: plan))
        }
        try store.pull.mergePulled(
            workouts.enumerated().map { .workout($1, ServerStamp(serverVersion: Int64($0 + 1), updatedAt: nil)) },
            cursor: "2")
        for workout in workouts {
            #expect(try store.routines.plannedRows(workoutID: workout.id).count == 1, "\(workout.name)")
        }
    }

    /// A new lift named like another's former name is its own lift, not the renamed one.
    @Test func aNewLiftNamedLikeAFormerNameIsItsOwnLift() throws {
        let store = try makeStore()
        try store.routines.create(
            name: "Chest",
            exercises: [RoutineExercise(exercise: "Cable Flyz", sets: [PlannedSet(weight: 15, reps: 12)])])
        try store.workoutLog.moveExercise("Cable Flyz", to: "Cable Fly X", create: true)
        try store.routines.update("Chest") {
            $0.exercises.append(RoutineExercise(exercise: "Cable Flyz", sets: [PlannedSet(weight: 10, reps: 12)]))
        }
        let started = try store.routines.start("Chest")
        #expect(started.rows.map(\.exercise) == ["Cable Fly X", "Cable Flyz"])
        let logged = try started.rows.map { try store.routines.logPlanned($0.id).set.exercise }
        #expect(logged == ["Cable Fly X", "Cable Flyz"])
    }
}

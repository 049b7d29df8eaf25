import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// Store queries behind the lifter's session (issue 12) and the type-ahead (issue 10 item 3).
@Suite("Prefill, type-ahead and records in the store")
struct LifterStoreTests {
    @Test func typeAheadTakesBackslashPercentAndUnderscoreLiterally() throws {
        let store = try makeStore()
        try store.log("Row \\ Cable")
        try store.log("Row 50% Cable")
        try store.log("Row_Cable")
        #expect(try store.queries.exercises(matching: "w \\") == ["Row \\ Cable"])
        #expect(try store.queries.exercises(matching: "w 50%") == ["Row 50% Cable"])
        #expect(try store.queries.exercises(matching: "row_") == ["Row_Cable"])
        #expect(try store.queries.exercises(matching: String(repeating: "_%", count: 5_000)).isEmpty)
    }

    /// A set added on purpose to a workout seven months old belongs to that day: its date,
    /// records and weekly volume are the workout's, not today's.
    @Test func aSetAddedToAPastWorkoutTakesThatWorkoutsTime() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let old = try store.workoutLog.createWorkout(
            name: "Lower", startedAt: clock.now().addingTimeInterval(-210 * 86_400))
        let first = try store.workoutLog.logSet(
            LogSetInput(
                exercise: "Squat (Barbell)", weight: 100, reps: 5, workout: .existing(old.id),
                performedAt: old.startedAt.addingTimeInterval(600)))
        let added = try store.workoutLog.logSet(
            LogSetInput(exercise: "Squat (Barbell)", weight: 105, reps: 5, workout: .existing(old.id)))
        let row = try #require(try store.queries.set(id: added.set.id))
        #expect(row.set.performedAt == first.set.performedAt.addingTimeInterval(1), "just after its last set")
        // Its prefill comes from the session before that workout, not from a later one.
        let later = try store.workoutLog.createWorkout(
            name: "Lower B", startedAt: clock.now().addingTimeInterval(-30 * 86_400))
        try store.workoutLog.logSet(
            LogSetInput(
                exercise: "Squat (Barbell)", weight: 140, reps: 3, workout: .existing(later.id),
                performedAt: later.startedAt))
        let older = try store.workoutLog.createWorkout(
            name: "Lower 0", startedAt: old.startedAt.addingTimeInterval(-7 * 86_400))
        for (index, weight) in [90.0, 92.5, 95.0].enumerated() {
            try store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Squat (Barbell)", weight: weight, reps: 5, workout: .existing(older.id),
                    performedAt: older.startedAt.addingTimeInterval(Double(index) * 60)))
        }
        let prefill = try #require(try store.queries.previousSet(exercise: "Squat (Barbell)", workoutID: old.id))
        #expect(prefill.set.weight == 95, "the third set of the session a week before, not one a month after (140)")
        // Today's workout in progress still takes the time of logging.
        let today = try store.log("Squat (Barbell)", weight: 100)
        #expect(abs(today.set.performedAt.timeIntervalSince(clock.now())) < 1)
    }

    @Test func typeAheadPutsExercisesWithHistoryFirst() throws {
        let store = try makeStore()
        #expect(
            try store.queries.exercises(matching: "dead").first == "Dead Bug", "alphabetical while nothing is logged")
        try store.log("Deadlift (Barbell)")
        #expect(
            try store.queries.exercises(matching: "dead").first == "Deadlift (Barbell)", "the lift with history first")
    }

    @Test func previousSetFollowsThePositionInTheExercisesLastSession() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let older = try store.workoutLog.createWorkout(
            name: "Push A", startedAt: clock.now().addingTimeInterval(-20 * 86_400))
        let last = try store.workoutLog.createWorkout(
            name: "Push B", startedAt: clock.now().addingTimeInterval(-10 * 86_400))
        for (workout, weights) in [(older, [90.0, 95.0]), (last, [100.0, 105.0, 110.0])] {
            for (index, weight) in weights.enumerated() {
                try store.workoutLog.logSet(
                    LogSetInput(
                        exercise: "Bench Press (Barbell)", weight: weight, reps: 5, workout: .existing(workout.id),
                        performedAt: workout.startedAt.addingTimeInterval(Double(index) * 60)))
            }
        }
        // A new workout: the first set of the last session.
        var previous = try #require(try store.queries.previousSet(exercise: "bench press (barbell)", workoutID: nil))
        #expect(previous.set.weight == 100 && previous.ordinal == 1 && previous.sessionSetCount == 3)
        // Two sets done today: the third.
        let today = try store.log("Bench Press (Barbell)", weight: 100)
        try store.log("Bench Press (Barbell)", weight: 105, workout: .existing(today.workout.id))
        previous = try #require(
            try store.queries.previousSet(exercise: "Bench Press (Barbell)", workoutID: today.workout.id))
        #expect(previous.set.weight == 110 && previous.ordinal == 3)
        // A fourth: the last session had three; the exercise's last set (today's) fills it.
        try store.log("Bench Press (Barbell)", weight: 112.5, workout: .existing(today.workout.id))
        previous = try #require(
            try store.queries.previousSet(exercise: "Bench Press (Barbell)", workoutID: today.workout.id))
        #expect(previous.set.weight == 112.5 && previous.ordinal == nil)
        #expect(try store.queries.previousSet(exercise: "Deadlift (Barbell)", workoutID: nil) == nil)
    }

    /// A Hevy export lists the newest workout first.
    static let hevyNewestFirst = """
        "title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
        "Push","15 Mar 2025, 07:00","15 Mar 2025, 08:00","","Bench Press (Barbell)",,"",0,"normal",110,5,,,
        "Push","15 Mar 2025, 07:00","15 Mar 2025, 08:00","","Bench Press (Barbell)",,"",1,"normal",105,5,,,
        "Push","8 Mar 2025, 07:00","8 Mar 2025, 08:00","","Bench Press (Barbell)",,"",0,"warmup",60,10,,,
        "Push","8 Mar 2025, 07:00","8 Mar 2025, 08:00","","Bench Press (Barbell)",,"",1,"normal",100,5,,,
        "Push","1 Mar 2025, 07:00","1 Mar 2025, 08:00","","Bench Press (Barbell)",,"",0,"normal",95,5,,,

        """

    @Test func recordsFollowThePerformedOrderOfANewestFirstHevyFile() throws {
        let store = try makeStore()
        let parsed = try ImportParser.parse(Self.hevyNewestFirst)
        #expect(parsed.problems.isEmpty)
        _ = try store.workoutLog.importSets(parsed.sets)
        let all = try store.queries.sets(workoutID: nil)
        let records = all.filter { $0.record != nil }.map { "\(Formatting.number($0.set.weight))" }
        #expect(records == ["100", "110"], "each session beat the one before it: \(all.map(\.set.weight))")
        // The same answer through a single workout's listing (the UI's query).
        let newest = try #require(all.first { $0.set.weight == 110 }?.set.workoutID)
        let newestRows = try store.queries.sets(workoutID: newest)
        #expect(newestRows.map(\.isPR) == [true, false])
        let oldest = try #require(all.first { $0.set.weight == 95 }?.set.workoutID)
        #expect(
            try store.queries.sets(workoutID: oldest).map(\.isPR) == [false], "the first session has nothing to beat")
    }

    @Test func anEditOrDeleteRecomputesRecords() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.log("Bench Press (Barbell)", weight: 50)
        clock.advance(by: 60)
        let typo = try store.log("Bench Press (Barbell)", weight: 52)
        #expect(try store.queries.set(id: typo.set.id)?.isPR == true)
        try store.workoutLog.editSet(id: typo.set.id, changes: SetChanges(weight: 25))
        #expect(try store.queries.set(id: typo.set.id)?.record == nil, "25 kg beats nothing")

        clock.advance(by: 60)
        let heavy = try store.log("Bench Press (Barbell)", weight: 60)
        clock.advance(by: 60)
        let next = try store.log("Bench Press (Barbell)", weight: 55)
        #expect(try store.queries.set(id: heavy.set.id)?.isPR == true)
        #expect(try store.queries.set(id: next.set.id)?.isPR == false)
        try store.workoutLog.deleteSet(id: heavy.set.id)
        #expect(try store.queries.set(id: next.set.id)?.isPR == true, "with 60 kg gone, 55 kg is the record")
    }

    @Test func recordsOfSetsLoggedNowMatchAFullWalk() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<400 {
            clock.advance(by: 30)
            let kind: SetKind = next(8) == 0 ? .warmup : .normal
            let reps = next(5) == 0 ? 13 + next(10) : 1 + next(12)
            let unit: WeightUnit = next(4) == 0 ? .lb : .kg
            try store.workoutLog.logSet(
                LogSetInput(
                    // Both external lifts: a bodyweight lift's records wait for a weigh-in.
                    exercise: ["Squat (Barbell)", "Bench Press (Barbell)"][next(2)],
                    weight: Double(next(3) == 0 ? 0 : 20 + next(30) * 5),
                    unit: unit, reps: reps, kind: kind))
        }
        let logged = try store.queries.sets(workoutID: nil).map { ($0.set.id, $0.record) }
        try store.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO records_dirty SELECT DISTINCT exercise FROM sets")
        }
        let walked = try store.queries.sets(workoutID: nil).map { ($0.set.id, $0.record) }
        #expect(logged.count == 400)
        #expect(logged.map(\.1) == walked.map(\.1), "indexed lookups at log time agree with a walk")
        #expect(walked.contains { $0.1 == .reps } && walked.contains { $0.1 == .oneRepMax })
    }

    @Test func aPulledEarlierSetRecomputesTheRecordsAfterIt() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let first = try store.log("Bench Press (Barbell)", weight: 50)
        clock.advance(by: 60)
        let second = try store.log("Bench Press (Barbell)", weight: 55)
        #expect(try store.queries.set(id: second.set.id)?.isPR == true)
        // Another device logged 60 kg before both, in another workout; the pull brings it here.
        let elsewhere = Workout(name: "Elsewhere", startedAt: first.set.performedAt.addingTimeInterval(-3600))
        let pulled = WorkoutSet(
            workoutID: elsewhere.id, exercise: "Bench Press (Barbell)", position: 1, weight: 60, reps: 5,
            performedAt: elsewhere.startedAt)
        let warmup = WorkoutSet(
            workoutID: elsewhere.id, exercise: "Bench Press (Barbell)", position: 0, kind: .warmup, weight: 20,
            reps: 10, performedAt: elsewhere.startedAt.addingTimeInterval(-60))
        let stamp = ServerStamp(serverVersion: 7, updatedAt: "2026-09-21T10:00:00Z")
        // Two sets of one exercise in a page: the second marks an exercise already marked.
        try store.pull.mergePulled([.workout(elsewhere, stamp), .set(warmup, stamp), .set(pulled, stamp)], cursor: "1")
        #expect(try store.queries.set(id: second.set.id)?.record == nil, "55 kg no longer beats anything")
        #expect(try store.queries.set(id: pulled.id)?.record == nil, "the first set has nothing to beat")
    }

    /// An imported set marks its exercise itself (no trigger does): older sessions recompute the
    /// records after them, and a newer one's first set is known at once and its next ones walked.
    @Test func importedSetsHoldTheRecordsAWalkGives() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let logged = try store.log("Bench Press (Barbell)", weight: 80)
        #expect(!logged.isPR, "the first bench set has nothing to beat")
        let file = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2025-03-01 07:00:00,Old,Bench Press (Barbell),1,70,5,0,0,,,
            2026-09-22 07:00:00,Later,Bench Press (Barbell),1,90,5,0,0,,,
            2026-09-22 07:00:00,Later,Bench Press (Barbell),2,85,5,0,0,,,
            2026-09-22 07:00:00,Later,Squat (Barbell),1,100,5,0,0,,,
            2026-09-22 07:00:00,Later,Squat (Barbell),2,110,5,0,0,,,
            """
        let result = try store.workoutLog.importSets(try ImportParser.parse(file).sets)
        #expect(result.added == 5)
        func records() throws -> [String: RecordKind?] {
            Dictionary(
                uniqueKeysWithValues: try store.queries.sets(workoutID: nil).map {
                    ("\($0.set.exercise) \(Int($0.set.weight))", $0.record)
                })
        }
        let imported = try records()
        #expect(
            imported == [
                "Bench Press (Barbell) 70": nil, "Bench Press (Barbell) 80": .oneRepMax,
                "Bench Press (Barbell) 90": .oneRepMax, "Bench Press (Barbell) 85": nil,
                "Squat (Barbell) 100": nil, "Squat (Barbell) 110": .oneRepMax,
            ])
        try store.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO records_dirty SELECT DISTINCT exercise FROM sets")
        }
        #expect(try records() == imported, "what the import left agrees with a walk of every set")
    }

    @Test func anEstimatedOneRepMaxOnlyFromOneToTwelveRepsAndRepRecordsBeyond() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        try store.log("Goblet Squat (Dumbbell)", weight: 20, reps: 10)
        clock.advance(by: 60)
        let endurance = try store.log("Goblet Squat (Dumbbell)", weight: 18, reps: 1000)
        #expect(endurance.set.estimatedOneRepMaxKg == nil)
        #expect(!endurance.isPR)
        let row = try #require(try store.queries.set(id: endurance.set.id))
        #expect(row.record == .reps && !row.isPR)
        let stats = try #require(try store.queries.exerciseStats(exercise: "Goblet Squat (Dumbbell)").first)
        #expect(abs((stats.bestOneRepMaxKg ?? 0) - 20 * (1 + 10.0 / 30)) < 1e-9)
        #expect(stats.bestOneRepMaxSet?.reps == 10)
        clock.advance(by: 60)
        let heavier = try store.log("Goblet Squat (Dumbbell)", weight: 22, reps: 15)
        #expect(try store.queries.set(id: heavier.set.id)?.record == .reps, "heavier, more reps: a rep record")
        clock.advance(by: 60)
        let single = try store.log("Goblet Squat (Dumbbell)", weight: 30, reps: 1)
        #expect(try store.queries.set(id: single.set.id)?.record == .oneRepMax)
    }
}

/// Issue 12, defect 5: history that does not split across names.
@Suite("Exercise names: aliases on import, rename and merge")
struct ExerciseNameTests {
    @Test func importMapsTheNamesOtherAppsUseOntoTheCatalogue() throws {
        let store = try makeStore()
        let text = """
            Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
            2026-04-11,Squat,Legs,140.0,5,,,
            2026-04-11,Barbell Squat,Legs,145.0,5,,,
            2026-04-11,Flat Barbell Bench Press,Chest,100.0,5,,,
            2026-04-11,Deadlift,Back,180.0,3,,,
            2026-04-11,Overhead Press,Shoulders,60.0,5,,,
            2026-04-11,Lat Pulldown,Back,60.0,10,,,
            2026-04-11,My Odd Lift,Back,10.0,10,,,
            """
        _ = try store.workoutLog.importSets(try ImportParser.parse(text).sets)
        let names = try store.queries.sets(workoutID: nil).map(\.set.exercise)
        #expect(
            names == [
                "Squat (Barbell)", "Squat (Barbell)", "Bench Press (Barbell)", "Deadlift (Barbell)",
                "Overhead Press (Barbell)", "Lat Pulldown (Cable)", "My Odd Lift",
            ])
        #expect(try store.queries.exerciseList(customOnly: true).map(\.name) == ["My Odd Lift"])
    }

    @Test func mergeMovesEverySetAsQueuedEditsAndRemovesTheCustomName() throws {
        let clock = ManualClock()
        let store = try makeStore(clock: clock)
        let first = try store.log("Squats", weight: 100)
        clock.advance(by: 60)
        try store.log("Squats", weight: 110)
        try store.log("Squat (Barbell)", weight: 90)
        try store.workoutLog.toggleFavorite(exercise: "Squats")
        // The creates have reached the server: the merge is then two updates.
        while true {
            let claimed = try store.queue.claimEligible(limit: 100)
            if claimed.isEmpty { break }
            for op in claimed { try store.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil)) }
        }
        let move = try store.workoutLog.moveExercise("squats", to: "squat (barbell)", create: false)
        #expect(move.from == "Squats" && move.into == "Squat (Barbell)" && move.setsMoved == 2)
        #expect(move.removedCustom && move.movedStar)
        #expect(try store.queries.sets(workoutID: nil).allSatisfy { $0.set.exercise == "Squat (Barbell)" })
        let updates = try store.operations().filter {
            $0.kind == .update && $0.entityType == .set && $0.state == .pending
        }
        #expect(updates.count == 2)
        #expect(updates.allSatisfy { $0.payload["exercise"] == .string("Squat (Barbell)") })
        #expect(try store.queries.exerciseList(customOnly: true).isEmpty)
        #expect(try store.queries.favorites() == ["Squat (Barbell)"])
        #expect(try store.queries.set(id: first.set.id)?.record == nil)

        #expect(throws: StoreError.self) {
            try store.workoutLog.moveExercise("Nope", to: "Squat (Barbell)", create: false)
        }
        #expect(throws: StoreError.self) {
            try store.workoutLog.moveExercise("Squat (Barbell)", to: "Back Squat", create: true)
        }
    }

    @Test func renameGivesACustomExerciseANewNameThatSyncs() throws {
        let store = try makeStore()
        try store.log("Bench (paused)", weight: 90)
        let move = try store.workoutLog.moveExercise("Bench (paused)", to: "Paused Bench Press", create: true)
        #expect(move.setsMoved == 1 && move.removedCustom)
        #expect(try store.queries.exerciseList(customOnly: true).map(\.name) == ["Paused Bench Press"])
        let ops = try store.operations().filter { $0.entityType == .set }
        #expect(
            ops.count == 1 && ops[0].payload["exercise"] == .string("Paused Bench Press"),
            "the unsent create carries the new name")
    }
}

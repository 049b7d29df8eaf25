import Foundation
import SpotterCore
import SpotterProtocol
import SpotterSync
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// Routines between two devices through the real server on 127.0.0.1.
@Suite("Routines sync between devices", .serialized)
struct RoutineSyncTests {
    /// The server, a phone and a laptop: the phone made `exercises` routine `name` and started it,
    /// and both have synced.
    static func startedOnPhone(
        _ name: String, _ exercises: [RoutineExercise]
    ) async throws -> (
        TestServer, Device, Device, StartedRoutine
    ) {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server)
        try phone.store.routines.create(name: name, exercises: exercises)
        let started = try phone.store.routines.start(name)
        #expect(await phone.sync())
        #expect(await laptop.sync())
        return (server, phone, laptop, started)
    }

    /// `startedOnPhone` with one lift, two sets of five progressing linearly, every set of it
    /// then logged on the laptop (not synced yet).
    static func loggedOnLaptop(
        _ name: String, _ exercise: String, weight: Double
    ) async throws -> (TestServer, Device, Device, StartedRoutine) {
        let (server, phone, laptop, started) = try await startedOnPhone(
            name,
            [
                RoutineExercise(
                    exercise: exercise, sets: Array(repeating: PlannedSet(weight: weight, reps: 5), count: 2),
                    progression: .linear)
            ])
        for row in try laptop.store.routines.plannedRows(workoutID: started.workout.id) {
            try laptop.store.routines.logPlanned(row.id)
        }
        return (server, phone, laptop, started)
    }

    @Test func aRoutineMadeOnDeviceAAppearsOnDeviceBAndEditsAndDeletesFollow() async throws {
        let server = try await TestServer.start()
        let deviceA = try Device(server: server)
        let deviceB = try Device(server: server)
        let made = try deviceA.store.routines.create(name: "Push A", restSeconds: 120)
        try deviceA.store.routines.update("Push A") {
            $0.exercises.append(
                RoutineExercise(
                    exercise: "Bench Press (Barbell)",
                    sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3),
                    progression: .linear))
            $0.exercises.append(
                RoutineExercise(
                    exercise: "Chest Dip", sets: [PlannedSet(reps: 8, repsMax: 12, rpe: 8)], superset: 2,
                    progression: .double))
        }
        #expect(await deviceA.sync())
        #expect(try deviceA.store.routines.routine("Push A").syncState == .synced)
        let onServer = try await server.store.routines(user: "alice", includeDeleted: false)
        #expect(onServer.map(\.routine.id) == [made.id])

        #expect(await deviceB.sync())
        let onB = try deviceB.store.routines.routine("push a")
        #expect(onB.routine == (try deviceA.store.routines.routine("Push A").routine))
        #expect(onB.routine.exercises.map(\.exercise) == ["Bench Press (Barbell)", "Chest Dip"])
        #expect(onB.routine.exercises[1].sets.first?.repsMax == 12)
        #expect(onB.syncState == .synced)

        // B renames it; A sees the new name after its next pull.
        try deviceB.store.routines.update("Push A") { $0.name = "Push Heavy" }
        #expect(await deviceB.sync())
        #expect(await deviceA.sync())
        #expect(try deviceA.store.routines.all().map(\.routine.name) == ["Push Heavy"])

        // A deletes it; it goes from B too.
        try deviceA.store.routines.delete("Push Heavy")
        #expect(await deviceA.sync())
        #expect(await deviceB.sync())
        #expect(try deviceB.store.routines.all().isEmpty)
        #expect(try await server.store.routines(user: "alice", includeDeleted: false).isEmpty)
        await server.stop()
    }

    /// Two devices change the same planned set's weight offline: the edit made later wins on
    /// both, whatever order they sync in; the other value is a conflict naming the row, and taking
    /// it back puts it in the plan everywhere.
    @Test func oneRowEditedOnTwoOfflineDevicesIsAConflictThatCanBeTakenBack() async throws {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server)
        try phone.store.routines.create(
            name: "Push A",
            exercises: [
                RoutineExercise(exercise: "Bench Press (Barbell)", sets: [PlannedSet(weight: 100, reps: 5)]),
                RoutineExercise(exercise: "Overhead Press (Barbell)", sets: [PlannedSet(weight: 50, reps: 5)]),
            ])
        #expect(await phone.sync())
        #expect(await laptop.sync())
        // The phone plans 105 kg first, offline; the laptop plans 110 a moment later and syncs first.
        try phone.store.routines.update("Push A") { $0.exercises[0].sets[0].weight = 105 }
        try await Task.sleep(for: .milliseconds(20))
        try laptop.store.routines.update("Push A") {
            $0.exercises[0].sets[0].weight = 110
            $0.exercises[1].sets[0].reps = 6
        }
        #expect(await laptop.sync())
        #expect(await phone.sync())
        #expect(await laptop.sync())
        for device in [phone, laptop] {
            let plan = try device.store.routines.routine("Push A").routine
            #expect(plan.exercises[0].sets[0].weight == 110, "the later edit wins on every device")
            #expect(plan.exercises[1].sets[0].reps == 6, "the laptop's other row stands")
        }
        let listed = try phone.store.conflicts.list()
        #expect(listed.count == 1, "\(listed.map { $0.sentence() })")
        let conflict = try #require(listed.first)
        #expect(conflict.record.entityType == .routine && conflict.overriddenHere)
        #expect(conflict.record.field == "exercises/Bench Press (Barbell)/sets/0/weight", "\(conflict.record.field)")
        #expect(conflict.sentence().contains("105"), "\(conflict.sentence())")
        #expect(conflict.sentence().contains("110"), "\(conflict.sentence())")

        _ = try phone.store.conflicts.takeBack(conflict.record.id.wireString)
        #expect(await phone.sync())
        #expect(await laptop.sync())
        for device in [phone, laptop] {
            let plan = try device.store.routines.routine("Push A").routine
            #expect(plan.exercises[0].sets[0].weight == 105, "the value taken back is everywhere")
            #expect(plan.exercises[1].sets[0].reps == 6)
        }
    }

    @Test func setsLoggedFromAStartedRoutineReachTheServerOnceEach() async throws {
        let server = try await TestServer.start()
        let device = try Device(server: server)
        try device.store.routines.create(
            name: "Legs",
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 140, reps: 5), count: 3))
            ])
        let started = try device.store.routines.start("Legs")
        try device.store.routines.toggleSkipPlanned(started.rows[2].id)
        let logged = try started.rows.prefix(2).map { try device.store.routines.logPlanned($0.id).set.id }
        #expect(await device.sync())
        let sets = try await server.sets()
        #expect(Set(sets.map(\.id)) == Set(logged))
        #expect(sets.allSatisfy { $0.workoutID == started.workout.id && $0.weight == 140 && $0.reps == 5 })
        await server.stop()
    }

    /// The progression, across devices: targets come from the routine's last performance
    /// wherever it was done, and both devices say the same thing about it.
    @Test func progressionFollowsARoutineDoneOnAnotherDevice() async throws {
        let server = try await TestServer.start()
        let deviceA = try Device(server: server)
        let deviceB = try Device(server: server)
        try deviceA.store.routines.create(
            name: "Push A",
            exercises: [
                RoutineExercise(
                    exercise: "Bench Press (Barbell)",
                    sets: Array(repeating: PlannedSet(weight: 100, reps: 5), count: 3),
                    progression: .linear)
            ])
        #expect(await deviceA.sync())
        #expect(await deviceB.sync())

        // A does the routine: every planned set at its target.
        let first = try deviceA.store.routines.start("Push A")
        #expect(first.workout.plan?.entries.map(\.id) == first.rows.map(\.id))
        let loggedOnA = try first.rows.map { try deviceA.store.routines.logPlanned($0.id).set.id }
        #expect(await deviceA.sync())
        // The set logged for a planned set carries the planned set's id to the server.
        #expect(Set(try await server.sets().map(\.id)) == Set(loggedOnA))
        #expect(loggedOnA == first.rows.map(\.id))
        let onServer = try await server.store.workouts(user: "alice", includeDeleted: false)
        #expect(onServer.first { $0.id == first.workout.id }?.plan == first.workout.plan)

        // B has never done it, yet its next start moves on from A's performance.
        #expect(await deviceB.sync())
        #expect(try deviceB.store.routines.routine("Push A").lastStartedAt == first.workout.startedAt)
        let onB = try deviceB.store.routines.start("Push A")
        #expect(!onB.resumed)
        #expect(onB.rows.map(\.weight) == [102.5, 102.5, 102.5])
        #expect(onB.rows.allSatisfy { $0.hint?.hasPrefix("+2.5 kg: all 3×5 done on ") == true })

        // B misses the last set by two reps; A's next start keeps the weight and counts the miss.
        for (index, row) in onB.rows.enumerated() {
            try deviceB.store.routines.logPlanned(row.id, reps: index == 2 ? 3 : nil)
        }
        #expect(await deviceB.sync())
        #expect(await deviceA.sync())
        let again = try deviceA.store.routines.start("Push A")
        #expect(again.rows.map(\.weight) == [102.5, 102.5, 102.5])
        #expect(again.rows.first?.hint?.hasPrefix("same weight: 3×5 at 102.5 kg not all done on ") == true)
        #expect(again.rows.first?.hint?.hasSuffix("(miss 1 of 3)") == true)
        await server.stop()
    }

    /// A routine started on the phone and carried on on the laptop: the laptop shows the planned
    /// sets, the one logged on the phone as done, logs the rest once each, and the phone agrees.
    @Test func aWorkoutStartedOnOneDeviceIsCarriedOnOnAnother() async throws {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server)
        try phone.store.routines.create(
            name: "Legs",
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)",
                    sets: [PlannedSet(weight: 140, reps: 5, repsMax: 8, rpe: 8), PlannedSet(weight: 140, reps: 5)],
                    restSeconds: 180)
            ])
        let started = try phone.store.routines.start("Legs")
        let first = try phone.store.routines.logPlanned(started.rows[0].id).set
        #expect(await phone.sync())
        #expect(await laptop.sync())

        let onLaptop = try laptop.store.routines.plannedRows(workoutID: started.workout.id)
        #expect(onLaptop.map(\.id) == started.rows.map(\.id))
        #expect(onLaptop.map(\.status) == [.done, .planned])
        #expect(onLaptop[0].setID == first.id)
        #expect(onLaptop[0].repsMax == 8 && onLaptop[0].rpe == 8 && onLaptop[0].restSeconds == 180)
        // The set the phone logged is not logged again here.
        #expect(throws: StoreError.self) { try laptop.store.routines.logPlanned(onLaptop[0].id) }
        // Starting the routine again today on the laptop picks this workout up.
        let resumed = try laptop.store.routines.start("Legs")
        #expect(resumed.resumed && resumed.workout.id == started.workout.id)
        let second = try laptop.store.routines.logPlanned(onLaptop[1].id, reps: 6).set
        #expect(await laptop.sync())
        #expect(await phone.sync())

        let onPhone = try phone.store.routines.plannedRows(workoutID: started.workout.id)
        #expect(onPhone.map(\.status) == [.done, .done])
        #expect(onPhone[1].setID == second.id && onPhone[1].logged?.reps == 6)
        let sets = try await server.sets()
        #expect(Set(sets.map(\.id)) == [first.id, second.id], "each planned set on the server once")
        await server.stop()
    }

    /// A planned set logged, deleted (synced), and logged again: the new set is a set of its own
    /// on the server and on the device, never mistaken for the deleted one.
    @Test func aPlannedSetLoggedAgainAfterItsDeleteSyncedIsKept() async throws {
        let server = try await TestServer.start()
        let device = try Device(server: server)
        try device.store.routines.create(
            name: "Pull",
            exercises: [
                RoutineExercise(exercise: "Deadlift (Barbell)", sets: [PlannedSet(weight: 180, reps: 5)]),
                RoutineExercise(exercise: "Pull Up", sets: [PlannedSet(weight: 0, reps: 8)]),
            ])
        let started = try device.store.routines.start("Pull")
        let first = try started.rows.map { try device.store.routines.logPlanned($0.id).set }
        #expect(await device.sync())
        for set in first { try device.store.workoutLog.deleteSet(id: set.id) }
        #expect(await device.sync())
        // The second row is skipped and brought back first: it still remembers its set.
        try device.store.routines.toggleSkipPlanned(started.rows[1].id)
        try device.store.routines.toggleSkipPlanned(started.rows[1].id)
        let again = [
            try device.store.routines.logPlanned(started.rows[0].id, weight: 182.5).set,
            try device.store.routines.logPlanned(started.rows[1].id, reps: 9).set,
        ]
        #expect(Set(again.map(\.id)).isDisjoint(with: first.map(\.id)))
        #expect(await device.sync())
        #expect(try device.store.queries.queueCounts().failed == 0)
        let live = try await server.sets().filter { $0.deleted != true }
        #expect(Set(live.map(\.id)) == Set(again.map(\.id)))
        #expect(
            Set(try device.store.queries.sets(workoutID: started.workout.id).map(\.set.id)) == Set(again.map(\.id)))
        await server.stop()
    }

    /// The same planned set logged on two devices while both were offline: both sets are kept
    /// (the lifter sees two and deletes one), none replaces the other.
    @Test func theSamePlannedSetLoggedOnTwoOfflineDevicesKeepsBothSets() async throws {
        let (server, phone, laptop, started) = try await Self.startedOnPhone(
            "Press", [RoutineExercise(exercise: "Overhead Press (Barbell)", sets: [PlannedSet(weight: 60, reps: 5)])])
        let onPhone = try phone.store.routines.logPlanned(started.rows[0].id).set
        let onLaptop = try laptop.store.routines.logPlanned(started.rows[0].id, weight: 62.5, reps: 3).set
        #expect(await phone.sync())
        #expect(await laptop.sync())
        #expect(await phone.sync())
        let live = Set(try await server.sets().filter { $0.deleted != true }.map(\.id))
        #expect(live == [onPhone.id, onLaptop.id])
        for device in [phone, laptop] {
            #expect(Set(try device.store.queries.sets(workoutID: started.workout.id).map(\.set.id)) == live)
            #expect(try device.store.queries.queueCounts().failed == 0)
        }
        await server.stop()
    }

    /// A percentage set planned before the lift had an estimated 1RM has no weight on the other
    /// device either: it is never logged there as 0 kg.
    @Test func aPercentageSetWithoutAnEstimateHasNoWeightOnTheOtherDeviceEither() async throws {
        let (server, phone, laptop, started) = try await Self.startedOnPhone(
            "Heavy",
            [
                RoutineExercise(
                    exercise: "Front Squat (Barbell)", sets: [PlannedSet(percentOfOneRepMax: 85, reps: 3)])
            ])
        #expect(started.rows[0].needsWeight)
        #expect(started.workout.plan?.entries.first?.weight == nil)
        let row = try #require(try laptop.store.routines.plannedRows(workoutID: started.workout.id).first)
        #expect(row.needsWeight)
        #expect(throws: StoreError.self) { try laptop.store.routines.logPlanned(row.id) }
        #expect(try laptop.store.routines.logPlanned(row.id, weight: 100).set.weight == 100)
        await server.stop()
    }

    /// A lift renamed on the phone after the laptop did the routine: the laptop's next start
    /// still progresses from it, and the phone's rows of that workout still show done.
    @Test func aLiftRenamedOnOneDeviceKeepsItsHistoryOnTheOther() async throws {
        let (server, phone, laptop, started) = try await Self.loggedOnLaptop("Legs", "Zercher Squat", weight: 80)
        #expect(await laptop.sync())
        #expect(await phone.sync())
        try phone.store.workoutLog.moveExercise("Zercher Squat", to: "Zercher", create: true)
        #expect(await phone.sync())
        #expect(await laptop.sync())
        #expect(try phone.store.routines.plannedRows(workoutID: started.workout.id).map(\.status) == [.done, .done])
        let next = try laptop.store.routines.start("Legs")
        #expect(!next.resumed)
        #expect(next.rows.map(\.exercise) == ["Zercher", "Zercher"])
        #expect(next.rows.map(\.weight) == [82.5, 82.5])
        await server.stop()
    }

    /// A top set and its back-offs, the back-offs logged on the laptop, the top set skipped:
    /// the phone shows the back-offs done and the top set still to do, and both agree.
    @Test func backOffsLoggedElsewhereAreTheBackOffs() async throws {
        let (server, phone, laptop, started) = try await Self.startedOnPhone(
            "Squat day",
            [
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: [PlannedSet(weight: 140, reps: 3)], progression: .linear),
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 110, reps: 5), count: 3),
                    progression: .linear),
            ])
        let rows = try laptop.store.routines.plannedRows(workoutID: started.workout.id)
        try laptop.store.routines.toggleSkipPlanned(rows[0].id)
        for row in rows.dropFirst() { try laptop.store.routines.logPlanned(row.id) }
        #expect(await laptop.sync())
        #expect(await phone.sync())
        let onPhone = try phone.store.routines.plannedRows(workoutID: started.workout.id)
        #expect(onPhone.map(\.status) == [.planned, .done, .done, .done])
        #expect(onPhone.dropFirst().allSatisfy { $0.logged?.weight == 110 })
        try phone.store.workoutLog.editWorkout(id: started.workout.id, changes: WorkoutChanges(endedAt: Date()))
        let next = try phone.store.routines.start("Squat day")
        #expect(next.rows.map(\.weight) == [140, 112.5, 112.5, 112.5])
        await server.stop()
    }

    /// The laptop logs a routine's sets offline under a lift's old name while the phone renames
    /// it: both devices still count them as the lift, show the rows done and agree on +2.5.
    @Test func setsLoggedUnderAnOldNameElsewhereStillCount() async throws {
        let (server, phone, laptop, started) = try await Self.loggedOnLaptop("Rows", "Pendlay Rowz", weight: 70)
        try phone.store.workoutLog.moveExercise("Pendlay Rowz", to: "Pendlay Row 2", create: true)
        #expect(await phone.sync())
        #expect(await laptop.sync())
        #expect(await phone.sync())
        for device in [phone, laptop] {
            let rows = try device.store.routines.plannedRows(workoutID: started.workout.id)
            #expect(rows.map(\.status) == [.done, .done])
            #expect(rows.map(\.exercise) == ["Pendlay Row 2", "Pendlay Row 2"])
        }
        try phone.store.workoutLog.editWorkout(id: started.workout.id, changes: WorkoutChanges(endedAt: Date()))
        #expect(await phone.sync())
        #expect(await laptop.sync())
        for device in [phone, laptop] {
            let next = try device.store.routines.start("Rows")
            #expect(next.rows.map(\.weight) == [72.5, 72.5])
        }
        await server.stop()
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterSync
import Testing

@testable import SpotterStore

/// Routines between two devices through the real server on 127.0.0.1.
@Suite("Routines sync between devices", .serialized)
struct RoutineSyncTests {
    @Test func aRoutineMadeOnDeviceAAppearsOnDeviceBAndEditsAndDeletesFollow() async throws {
        let server = try await LiveServer.start()
        let deviceA = try Device(server: server)
        let deviceB = try Device(server: server)
        let made = try deviceA.store.workoutLog.createRoutine(name: "Push A", restSeconds: 120)
        try deviceA.store.workoutLog.updateRoutine("Push A") {
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
        #expect(try deviceA.store.queries.routine("Push A").syncState == .synced)
        let onServer = try await server.server.store.routines(user: "alice", includeDeleted: false)
        #expect(onServer.map(\.routine.id) == [made.id])

        #expect(await deviceB.sync())
        let onB = try deviceB.store.queries.routine("push a")
        #expect(onB.routine == (try deviceA.store.queries.routine("Push A").routine))
        #expect(onB.routine.exercises.map(\.exercise) == ["Bench Press (Barbell)", "Chest Dip"])
        #expect(onB.routine.exercises[1].sets.first?.repsMax == 12)
        #expect(onB.syncState == .synced)

        // B renames it; A sees the new name after its next pull.
        try deviceB.store.workoutLog.updateRoutine("Push A") { $0.name = "Push Heavy" }
        #expect(await deviceB.sync())
        #expect(await deviceA.sync())
        #expect(try deviceA.store.queries.routines().map(\.routine.name) == ["Push Heavy"])

        // A deletes it; it goes from B too.
        try deviceA.store.workoutLog.deleteRoutine("Push Heavy")
        #expect(await deviceA.sync())
        #expect(await deviceB.sync())
        #expect(try deviceB.store.queries.routines().isEmpty)
        #expect(try await server.server.store.routines(user: "alice", includeDeleted: false).isEmpty)
        await server.server.stop()
    }

    @Test func setsLoggedFromAStartedRoutineReachTheServerOnceEach() async throws {
        let server = try await LiveServer.start()
        let device = try Device(server: server)
        try device.store.workoutLog.createRoutine(
            name: "Legs",
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)", sets: Array(repeating: PlannedSet(weight: 140, reps: 5), count: 3))
            ])
        let started = try device.store.workoutLog.startRoutine("Legs")
        try device.store.workoutLog.toggleSkipPlanned(started.rows[2].id)
        let logged = try started.rows.prefix(2).map { try device.store.workoutLog.logPlanned($0.id).set.id }
        #expect(await device.sync())
        let sets = try await server.sets()
        #expect(Set(sets.map(\.id)) == Set(logged))
        #expect(sets.allSatisfy { $0.workoutID == started.workout.id && $0.weight == 140 && $0.reps == 5 })
        await server.server.stop()
    }
}

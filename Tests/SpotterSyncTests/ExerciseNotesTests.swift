import Foundation
import Logging
import SpotterCore
import SpotterProtocol
import SpotterServer
import SpotterStore
import SpotterTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A note on each exercise of a workout ("elbows in"), on the device, through the real server
/// on 127.0.0.1, to another device, and refused where it carries what a note may not.
@Suite("Notes on a workout's exercises")
struct ExerciseNotesTests {
    /// Emoji with a skin tone, a ZWJ family, a flag, a decomposed é, Arabic, Hangul jamo, CJK, a tab and a line break.
    static let hardNote = "Elbows in 💪🏽 👨‍👩‍👧 🇯🇵 Cafe\u{301} يمين 한국 中文\tslow\nnext: 2 s pause"

    @Test("a note set on one device reaches the server and the other device, exactly as typed; removing it does too")
    func aNoteSyncsBothWays() async throws {
        let server = try await TestServer.start()
        let phone = try Device(server: server)
        let laptop = try Device(server: server)
        let logged = try phone.store.workoutLog.logSet(
            LogSetInput(exercise: "Bench Press (Barbell)", weight: 100, reps: 5))
        let workoutID = logged.set.workoutID
        // Any case finds the exercise as its sets spell it.
        try phone.store.workoutLog.editWorkout(
            id: workoutID, changes: WorkoutChanges(exerciseNote: ("bench press (barbell)", Self.hardNote)))
        #expect(
            try phone.store.queries.workout(id: workoutID)?.workout.exerciseNotes
                == ["Bench Press (Barbell)": Self.hardNote])
        #expect(await phone.sync())
        let stored = try await server.store.allWorkouts(user: "alice").first { $0.id == workoutID }
        #expect(stored?.exerciseNotes == ["Bench Press (Barbell)": Self.hardNote], "the server keeps it as typed")
        #expect(await laptop.sync())
        #expect(
            try laptop.store.queries.workout(id: workoutID)?.workout.exerciseNotes
                == ["Bench Press (Barbell)": Self.hardNote], "the other device shows it")

        // Removed on the laptop: gone everywhere.
        try laptop.store.workoutLog.editWorkout(
            id: workoutID, changes: WorkoutChanges(exerciseNote: ("Bench Press (Barbell)", "")))
        #expect(await laptop.sync())
        #expect(await phone.sync())
        #expect(try phone.store.queries.workout(id: workoutID)?.workout.exerciseNotes == nil)
        let after = try await server.store.allWorkouts(user: "alice").first { $0.id == workoutID }
        #expect(after?.exerciseNotes == nil)
        await server.stop()
    }

    @Test(
        "a note on an exercise the workout has no set of, or with a control character, is refused and nothing is queued"
    )
    func badNotesAreRefusedOnTheDevice() async throws {
        let phone = try Device(server: nil, baseURL: "http://127.0.0.1:9")
        let logged = try phone.store.workoutLog.logSet(LogSetInput(exercise: "Squat (Barbell)", weight: 100, reps: 5))
        let workoutID = logged.set.workoutID
        let queued = try phone.store.queries.queueCounts()
        for (exercise, note) in [
            ("Deadlift (Barbell)", "not in this workout"), ("Squat (Barbell)", "right-to-left \u{202E}override"),
            ("Squat (Barbell)", "escape \u{1B}[31m"), ("Squat (Barbell)", "carriage\rreturn"),
            ("Squat (Barbell)", String(repeating: "x", count: ExerciseNotes.maxLength + 1)),
        ] {
            #expect(throws: StoreError.self, "\(exercise): \(note.prefix(20))") {
                try phone.store.workoutLog.editWorkout(
                    id: workoutID, changes: WorkoutChanges(exerciseNote: (exercise, note)))
            }
        }
        #expect(try phone.store.queries.workout(id: workoutID)?.workout.exerciseNotes == nil)
        #expect(try phone.store.queries.queueCounts() == queued, "nothing was queued")
    }

    @Test("the server answers 422 naming exercise_notes for a bidi override, an ESC, a non-text note or a bad name")
    func theServerRefusesBadNotes() async throws {
        let server = try await TestServer.start()
        let workoutID = UUID.timeOrdered()
        let created = try await Self.send(
            server, "POST", "/v1/workouts",
            [
                "id": .string(workoutID.wireString), "name": .string("Push"),
                "started_at": .string("2026-11-26T10:00:00Z"),
            ]
        )
        #expect(created.status == 201)
        for notes: JSONValue in [
            .object(["Bench Press (Barbell)": .string("a \u{202E} b")]),
            .object(["Bench Press (Barbell)": .string("\u{1B}[2J")]),
            .object(["Bench Press (Barbell)": .int(5)]),
            .object(["Bench\u{0}Press": .string("ok")]),
            .object(["Bench Press (Barbell)": .string("")]),
            .string("elbows in"),
        ] {
            let answer = try await Self.send(
                server, "PATCH", "/v1/workouts/\(workoutID.wireString)", ["exercise_notes": notes])
            #expect(answer.status == 422, "\(notes): \(answer.body)")
            #expect(answer.body.contains("exercise_notes"), "the problem names the field: \(answer.body)")
        }
        let stored = try await server.store.allWorkouts(user: "alice").first { $0.id == workoutID }
        #expect(stored?.exerciseNotes == nil, "nothing refused was kept")
        await server.stop()
    }

    static func send(
        _ server: TestServer, _ method: String, _ path: String, _ body: [String: JSONValue]
    ) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: server.baseURL + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(TestServer.aliceToken)", forHTTPHeaderField: "Authorization")
        request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object(body).canonicalString.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}

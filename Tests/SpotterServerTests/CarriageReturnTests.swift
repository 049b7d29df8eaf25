import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// A carriage return sent to a terminal goes back to the start of the row and overwrites it:
/// no text field keeps one, notes neither (they keep tabs and line feeds).
@Suite("Carriage returns are refused in every text field")
struct CarriageReturnTests {
    @Test("a CR in a set's notes, a workout's notes or a name is 422 naming the field; nothing is stored")
    func carriageReturnIsRefused() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let workoutID = try await server.createWorkout()
            for notes in ["one\r\ntwo", "fake\rreal"] {
                let response = try await server.send(
                    .POST, Route.sets, json: Fixtures.set(workoutID: workoutID, extra: ["notes": .string(notes)]),
                    key: UUID().uuidString)
                #expect(response.status == 422, "\(notes.unicodeScalars.map(\.value))")
                let problem = try response.decode(Problem.self)
                #expect(problem.field == "notes")
                #expect(
                    problem.detail.contains("must not contain control characters (found U+000D)"), "\(problem.detail)")
            }
            let workout: JSONValue = .object([
                "id": .string(UUID().wireString), "name": .string("Push"), "started_at": .string(Fixtures.startedAt),
                "notes": .string("warm-up\r\nthen heavy"),
            ])
            let refused = try await server.send(.POST, Route.workouts, json: workout, key: UUID().uuidString)
            #expect(refused.status == 422)
            #expect(try refused.decode(Problem.self).field == "notes")
            let named = try await server.send(
                .POST, Route.workouts, json: Fixtures.workout(name: "Push\rDay"), key: UUID().uuidString)
            #expect(named.status == 422)
            #expect(try named.decode(Problem.self).field == "name")
            #expect(try await server.store.allSets(user: "alice").isEmpty)
            #expect(try await server.store.allWorkouts(user: "alice").count == 1, "only the one created first")

            // Line feeds and tabs stay.
            let kept = try await server.send(
                .POST, Route.sets,
                json: Fixtures.set(workoutID: workoutID, extra: ["notes": .string("one\ntwo\tthree")]),
                key: UUID().uuidString)
            #expect(kept.status == 201)
        }
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import Testing

@testable import SpotterSync

@Suite("The typed wire model: one spelling for client, server, pull and --json")
struct WireModelTests {
    static let set = WorkoutSet(
        id: UUID(uuidString: "6F1C3A52-0D5E-4E8A-9A51-2B7C1D0E9F11")!,
        workoutID: UUID(uuidString: "0B9E2C44-7A31-4F7B-8C1D-5E6F7A8B9C0D")!, exercise: "Squat (Barbell)",
        position: 3, kind: .warmup, weight: 102.5, unit: .kg, reps: 5, rpe: 8.5, notes: "belt",
        performedAt: Date(timeIntervalSince1970: 1_790_000_000.25))

    @Test func aSetReadsBackTheSameThroughJSONDecoderAndThroughTheParsedHotPath() throws {
        let wire = WireSet(
            Self.set, updatedAt: Date(timeIntervalSince1970: 1_790_000_100), serverVersion: 42, deleted: false)
        let encoded = try JSONEncoder().encode(wire)
        #expect(try JSONDecoder().decode(WireSet.self, from: encoded) == wire)
        let parsed = try #require(JSONValue.parse(encoded))
        #expect(try WireSet(json: parsed) == wire)
        #expect(try WireSet(json: parsed).set == Self.set)
        // Ids travel lower-case, times as RFC 3339 with milliseconds, enums by their raw names.
        #expect(parsed["id"]?.stringValue == "6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11")
        #expect(parsed["performed_at"]?.stringValue == "2026-09-21T14:13:20.250Z")
        #expect(parsed["kind"]?.stringValue == "warmup")
        #expect(parsed["distance_m"] == nil, "an unset optional field is left out")
    }

    @Test func aWorkoutRoundTripsAndATombstoneReadsAsADeletion() throws {
        let workout = Workout(
            id: UUID(), name: "Leg Day", startedAt: Date(timeIntervalSince1970: 1_790_000_000), notes: "heavy")
        let wire = WireWorkout(workout, serverVersion: 7)
        #expect(try JSONDecoder().decode(WireWorkout.self, from: JSONEncoder().encode(wire)).workout == workout)
        let tombstone = WireChange.workout(WireWorkout(workout, serverVersion: 9, deleted: true))
        #expect(tombstone.pulled == .deletedWorkout(workout.id, ServerStamp(serverVersion: 9, updatedAt: nil)))
    }

    @Test func aFieldOfTheWrongTypeIsRefusedByName() {
        var fields = WireSet(Self.set).json.objectValue ?? [:]
        fields["kind"] = .string("superset")
        #expect(throws: WireError(field: "kind", expected: "one of the known values")) {
            try WireSet(json: .object(fields))
        }
        fields = WireSet(Self.set).json.objectValue ?? [:]
        fields["workout_id"] = .string("not-a-uuid")
        #expect(throws: WireError(field: "workout_id", expected: "a UUID")) { try WireSet(json: .object(fields)) }
        fields = WireSet(Self.set).json.objectValue ?? [:]
        fields["performed_at"] = .string("yesterday")
        #expect(throws: WireError(field: "performed_at", expected: "an RFC 3339 time")) {
            try WireSet(json: .object(fields))
        }
    }

    @Test func aFeedPageCountsTheEntriesItCannotReadAndKeepsTheRest() throws {
        var badID = WireSet(Self.set).json.objectValue ?? [:]
        badID["id"] = .string("123")
        let page: JSONValue = .object([
            "changes": .array([
                WireChange.set(WireSet(Self.set, serverVersion: 1)).json,
                .object(["entity_type": .string("set"), "set": .object(badID)]),
                .object(["entity_type": .string("exercise"), "exercise": .object([:])]),
            ]),
            "cursor": .string("1"), "has_more": .bool(false),
        ])
        let read = try #require(SyncEngine.readChanges(page.canonicalData))
        #expect(read.entities == [.set(Self.set, ServerStamp(serverVersion: 1, updatedAt: nil))])
        #expect(read.unreadable == 2)
        #expect(read.cursor == "1")
    }

    @Test func anAnswerThatIsNotAWholeEntityIsNotTakenAsTheServersRow() {
        #expect(WireChange.answer(.set, body: .object(["reps": .int(6), "server_version": .int(9)])) == nil)
        #expect(
            WireChange.answer(.set, body: WireSet(Self.set, serverVersion: 3).json)
                == .set(Self.set, ServerStamp(serverVersion: 3, updatedAt: nil)))
    }
}

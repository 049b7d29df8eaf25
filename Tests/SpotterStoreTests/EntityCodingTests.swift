import Foundation
import SpotterCore
import Testing

@testable import SpotterStore

/// A synced entity's `Codable` form is its wire object (its columns' names as keys, times
/// RFC 3339), so the device's own JSON — the undo journal's images, a pulled change waiting for
/// its parent — reads and writes it as the server sends it. Images kept by earlier versions
/// (Swift's synthesized form, captured below from the build before this one) still read whole.
@Suite("An entity's Codable form is its wire object; images kept by earlier versions still read")
struct EntityCodingTests {
    struct Fixtures {
        let set: WorkoutSet
        let workout: Workout
        let routine: Routine
        let weighIn: BodyWeight
        let stamp: ServerStamp
    }

    static func fixtures() -> Fixtures {
        let workoutID = UUID(uuidString: "0190A6F2-3B1C-7D4E-8F00-1234567890AB")!
        let routineID = UUID(uuidString: "0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA")!
        let set = WorkoutSet(
            id: UUID(uuidString: "0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB")!, workoutID: workoutID,
            exercise: "Squat (Barbell) 👩🏽‍💻",
            position: 3, kind: .drop, weight: 102.5, unit: .lb, reps: 5, rpe: 8.5, distanceM: 1200, durationS: 95.5,
            notes: "e\u{301} שלום", performedAt: Date(timeIntervalSince1970: 1_780_000_000.25), superset: 2)
        let plan = WorkoutPlan(
            routineID: routineID,
            entries: [
                .init(
                    id: UUID(uuidString: "0190A6F2-3B1C-7D4E-8F00-CCCCCCCCCCCC")!, exercise: "Squat (Barbell)", set: 1,
                    kind: .warmup, weight: 60, unit: .kg, reps: 5, exerciseIndex: 0, writtenWeight: 62.5, writtenReps: 4
                )
            ])
        let workout = Workout(
            id: workoutID, name: "Legs 🏋️‍♀️", startedAt: Date(timeIntervalSince1970: 1_780_000_000),
            endedAt: Date(timeIntervalSince1970: 1_780_003_600.5),
            notes: "felt good", plan: plan, exerciseNotes: ["Squat (Barbell)": "low bar"])
        let routine = Routine(
            id: routineID, name: "Legs", notes: "n", restSeconds: 150,
            exercises: [
                RoutineExercise(
                    exercise: "Squat (Barbell)", unit: .kg,
                    sets: [PlannedSet(kind: .warmup, weight: 60, reps: 5), PlannedSet(reps: 8, repsMax: 12, rpe: 8)],
                    restSeconds: 120, superset: 1)
            ])
        let weighIn = BodyWeight(
            id: UUID(uuidString: "0190A6F2-3B1C-7D4E-8F00-DDDDDDDDDDDD")!,
            measuredAt: Date(timeIntervalSince1970: 1_780_000_000), weight: 81.4, unit: .kg, notes: "am")
        let stamp = ServerStamp(serverVersion: 42, updatedAt: "2026-05-28T20:26:40.000Z")
        return Fixtures(set: set, workout: workout, routine: routine, weighIn: weighIn, stamp: stamp)
    }

    /// What the build before this one wrote (`JSONEncoder` with sorted keys) for the fixtures.
    static let earlier: [String: String] = [
        "set":
            #"{"distanceM":1200,"durationS":95.5,"exercise":"Squat (Barbell) 👩🏽‍💻","id":"0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB","kind":"drop","notes":"é שלום","performedAt":801692800.25,"position":3,"reps":5,"rpe":8.5,"superset":2,"unit":"lb","weight":102.5,"workoutID":"0190A6F2-3B1C-7D4E-8F00-1234567890AB"}"#,
        "workout":
            #"{"endedAt":801696400.5,"exerciseNotes":{"Squat (Barbell)":"low bar"},"id":"0190A6F2-3B1C-7D4E-8F00-1234567890AB","name":"Legs 🏋️‍♀️","notes":"felt good","plan":{"entries":[{"exercise":"Squat (Barbell)","exerciseIndex":0,"id":"0190A6F2-3B1C-7D4E-8F00-CCCCCCCCCCCC","kind":"warmup","reps":5,"set":1,"unit":"kg","weight":60,"writtenReps":4,"writtenWeight":62.5}],"routineID":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA"},"startedAt":801692800}"#,
        "routine":
            #"{"exercises":[{"exercise":"Squat (Barbell)","formerly":[],"increment":2.5,"progression":"fixed","restSeconds":120,"sets":[{"kind":"warmup","reps":5,"weight":60},{"kind":"normal","reps":8,"repsMax":12,"rpe":8}],"superset":1,"unit":"kg"}],"id":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA","name":"Legs","notes":"n","restSeconds":150}"#,
        "bodyWeight":
            #"{"id":"0190A6F2-3B1C-7D4E-8F00-DDDDDDDDDDDD","measuredAt":801692800,"notes":"am","unit":"kg","weight":81.4}"#,
        "pulledSet":
            #"{"set":{"_0":{"distanceM":1200,"durationS":95.5,"exercise":"Squat (Barbell) 👩🏽‍💻","id":"0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB","kind":"drop","notes":"é שלום","performedAt":801692800.25,"position":3,"reps":5,"rpe":8.5,"superset":2,"unit":"lb","weight":102.5,"workoutID":"0190A6F2-3B1C-7D4E-8F00-1234567890AB"},"_1":{"serverVersion":42,"updatedAt":"2026-05-28T20:26:40.000Z"}}}"#,
        "pulledWorkout":
            #"{"workout":{"_0":{"endedAt":801696400.5,"exerciseNotes":{"Squat (Barbell)":"low bar"},"id":"0190A6F2-3B1C-7D4E-8F00-1234567890AB","name":"Legs 🏋️‍♀️","notes":"felt good","plan":{"entries":[{"exercise":"Squat (Barbell)","exerciseIndex":0,"id":"0190A6F2-3B1C-7D4E-8F00-CCCCCCCCCCCC","kind":"warmup","reps":5,"set":1,"unit":"kg","weight":60,"writtenReps":4,"writtenWeight":62.5}],"routineID":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA"},"startedAt":801692800},"_1":{"serverVersion":42,"updatedAt":"2026-05-28T20:26:40.000Z"}}}"#,
        "pulledRoutine":
            #"{"routine":{"_0":{"exercises":[{"exercise":"Squat (Barbell)","formerly":[],"increment":2.5,"progression":"fixed","restSeconds":120,"sets":[{"kind":"warmup","reps":5,"weight":60},{"kind":"normal","reps":8,"repsMax":12,"rpe":8}],"superset":1,"unit":"kg"}],"id":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA","name":"Legs","notes":"n","restSeconds":150},"_1":{"serverVersion":42,"updatedAt":"2026-05-28T20:26:40.000Z"}}}"#,
        "pulledBodyWeight":
            #"{"bodyWeight":{"_0":{"id":"0190A6F2-3B1C-7D4E-8F00-DDDDDDDDDDDD","measuredAt":801692800,"notes":"am","unit":"kg","weight":81.4},"_1":{"serverVersion":42,"updatedAt":"2026-05-28T20:26:40.000Z"}}}"#,
        "deletedWorkout":
            #"{"sets":[{"distanceM":1200,"durationS":95.5,"exercise":"Squat (Barbell) 👩🏽‍💻","id":"0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB","kind":"drop","notes":"é שלום","performedAt":801692800.25,"position":3,"reps":5,"rpe":8.5,"superset":2,"unit":"lb","weight":102.5,"workoutID":"0190A6F2-3B1C-7D4E-8F00-1234567890AB"}],"workout":{"endedAt":801696400.5,"exerciseNotes":{"Squat (Barbell)":"low bar"},"id":"0190A6F2-3B1C-7D4E-8F00-1234567890AB","name":"Legs 🏋️‍♀️","notes":"felt good","plan":{"entries":[{"exercise":"Squat (Barbell)","exerciseIndex":0,"id":"0190A6F2-3B1C-7D4E-8F00-CCCCCCCCCCCC","kind":"warmup","reps":5,"set":1,"unit":"kg","weight":60,"writtenReps":4,"writtenWeight":62.5}],"routineID":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA"},"startedAt":801692800}}"#,
    ]

    static func decode<T: Decodable>(_ type: T.Type, _ label: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(try #require(earlier[label]).utf8))
    }

    @Test("images kept by earlier versions read back as the same entities, times to the millisecond")
    func earlierImagesStillRead() throws {
        let f = Self.fixtures()
        #expect(try Self.decode(WorkoutSet.self, "set") == f.set)
        #expect(try Self.decode(Workout.self, "workout") == f.workout)
        #expect(try Self.decode(Routine.self, "routine") == f.routine)
        #expect(try Self.decode(BodyWeight.self, "bodyWeight") == f.weighIn)
        #expect(try Self.decode(PulledEntity.self, "pulledSet") == .set(f.set, f.stamp))
        #expect(try Self.decode(PulledEntity.self, "pulledWorkout") == .workout(f.workout, f.stamp))
        #expect(try Self.decode(PulledEntity.self, "pulledRoutine") == .routine(f.routine, f.stamp))
        #expect(try Self.decode(PulledEntity.self, "pulledBodyWeight") == .bodyWeight(f.weighIn, f.stamp))
        let deleted = try Self.decode(DeletedWorkout.self, "deletedWorkout")
        #expect(deleted.workout == f.workout)
        #expect(deleted.sets == [f.set])
    }

    @Test("an earlier routine image whose only earlier keys are inside its exercises keeps their rest and rep ranges")
    func anEarlierRoutineWithoutItsOwnRestReadsWhole() throws {
        let image =
            #"{"exercises":[{"exercise":"Squat (Barbell)","formerly":["Back Squat"],"increment":2.5,"progression":"linear","restSeconds":120,"sets":[{"kind":"normal","reps":8,"repsMax":12}],"unit":"kg"}],"id":"0190A6F2-3B1C-7D4E-8F00-AAAAAAAAAAAA","name":"Legs"}"#
        let read = try JSONDecoder().decode(Routine.self, from: Data(image.utf8))
        let exercise = try #require(read.exercises.first)
        #expect(read.restSeconds == nil)
        #expect(exercise.restSeconds == 120)
        #expect(exercise.sets == [PlannedSet(reps: 8, repsMax: 12)])
        #expect(exercise.formerly == ["Back Squat"])
        #expect(exercise.progression == .linear)
    }

    /// A set as the synthesized form spelled it, for images an earlier version left in the journal.
    struct EarlierSetImage: Encodable {
        var id: UUID
        var workoutID: UUID
        var exercise: String
        var position: Int
        var kind: SetKind
        var weight: Double
        var unit: WeightUnit
        var reps: Int
        var performedAt: Date

        init(_ set: WorkoutSet) {
            (id, workoutID, exercise, position) = (set.id, set.workoutID, set.exercise, set.position)
            (kind, weight, unit, reps, performedAt) = (set.kind, set.weight, set.unit, set.reps, set.performedAt)
        }
    }

    @Test("a set deleted before its workout, its image from an earlier version, comes back into the restored workout")
    func anEarlierImageInTheJournalIsUndone() throws {
        let store = try makeStore()
        let first = try store.log("Squat (Barbell)", weight: 140, reps: 5)
        let second = try store.log("Squat (Barbell)", weight: 150, reps: 3)
        try store.workoutLog.deleteSet(id: second.set.id)
        let earlier = String(decoding: try JSONEncoder().encode(EarlierSetImage(second.set)), as: UTF8.self)
        #expect(earlier.contains(second.set.workoutID.uuidString), "the earlier form spells ids in uppercase")
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE undo_journal SET before = ? WHERE action = 'deleted' AND entity_id = ?",
                arguments: [earlier, second.set.id.wireString])
        }
        try store.workoutLog.deleteWorkout(id: first.workout.id)
        #expect(try store.workoutLog.undoLast() != nil)  // the workout, with its first set
        let restored = try #require(try store.queries.workoutSummaries().first)
        #expect(try store.workoutLog.undoLast() != nil)  // the set deleted before it
        #expect(try store.queries.sets(workoutID: restored.workout.id).map(\.set.weight) == [140, 150])
    }

    @Test("an earlier image whose time no timestamp can spell, or whose text is a number, is an error, never a trap")
    func anEarlierImageWithAnImpossibleTimeIsAnError() throws {
        let set =
            #"{"id":"0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB","workoutID":"0190A6F2-3B1C-7D4E-8F00-1234567890AB","exercise":"Squat","position":1,"kind":"normal","weight":100,"unit":"kg","reps":5,"performedAt":TIME}"#
        for time in ["1e300", "-1e300", "1e16", "-9.3e15", "1.7976931348623157e308"] {
            let text = set.replacingOccurrences(of: "TIME", with: time)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WorkoutSet.self, from: Data(text.utf8)) }
            let pulled = #"{"set":{"_0":"# + text + #","_1":{"serverVersion":1}}}"#
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(PulledEntity.self, from: Data(pulled.utf8)) }
        }
        let numberForText = set.replacingOccurrences(of: "\"Squat\"", with: "5").replacingOccurrences(
            of: "TIME", with: "801692800")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(WorkoutSet.self, from: Data(numberForText.utf8))
        }
        // And should such a time reach a timestamp anyway, it is held at the last one, not a trap.
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -.infinity)) == "0000-01-01T00:00:00.000Z")
    }

    @Test("an entity encodes as its wire object: column names as keys, the values the wire sends")
    func theCodableFormIsTheWireObject() throws {
        let f = Self.fixtures()
        func check(_ entity: some EntityCodable) throws {
            let encoded = try #require(JSONValue.parse(try JSONEncoder().encode(entity)))
            #expect(encoded == .object(entity.fieldValues))
        }
        try check(f.set)
        try check(f.workout)
        try check(f.routine)
        try check(f.weighIn)
        try check(Favorite(exercise: "Curl 👩🏽‍💻"))
        let text = String(decoding: try JSONEncoder().encode(f.set), as: UTF8.self)
        #expect(text.contains("\"workout_id\""))
        #expect(!text.contains("workoutID"))
    }

    @Test("what is written reads back whole, through every container the device keeps it in")
    func roundTrips() throws {
        let f = Self.fixtures()
        func again<T: Codable & Equatable>(_ value: T) throws -> T {
            try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
        }
        #expect(try again(f.set) == f.set)
        #expect(try again(f.workout) == f.workout)
        #expect(try again(f.routine) == f.routine)
        #expect(try again(f.weighIn) == f.weighIn)
        #expect(try again(PulledEntity.set(f.set, f.stamp)) == .set(f.set, f.stamp))
        #expect(try again(PulledEntity.workout(f.workout, f.stamp)) == .workout(f.workout, f.stamp))
        let image = DeletedWorkout(workout: f.workout, sets: [f.set], planRows: nil)
        let read = try JSONDecoder().decode(DeletedWorkout.self, from: try JSONEncoder().encode(image))
        #expect(read.workout == f.workout && read.sets == [f.set])
    }

    @Test("an image whose cell holds another type is an error naming the field, in either form, never a guess")
    func aWrongCellIsAnError() throws {
        for text in [
            #"{"id":"0190a6f2-3b1c-7d4e-8f00-bbbbbbbbbbbb","workout_id":"0190a6f2-3b1c-7d4e-8f00-1234567890ab","exercise":"Squat","position":1,"kind":"normal","weight":"heavy","unit":"kg","reps":5,"performed_at":"2026-05-28T20:26:40.000Z"}"#,
            #"{"id":"0190A6F2-3B1C-7D4E-8F00-BBBBBBBBBBBB","workoutID":"0190A6F2-3B1C-7D4E-8F00-1234567890AB","exercise":"Squat","position":1,"kind":"normal","weight":100,"unit":"stone","reps":5,"performedAt":801692800}"#,
            #"{"id":"not an id","workout_id":"0190a6f2-3b1c-7d4e-8f00-1234567890ab","exercise":"Squat","position":1,"kind":"normal","weight":100,"unit":"kg","reps":5,"performed_at":"2026-05-28T20:26:40.000Z"}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WorkoutSet.self, from: Data(text.utf8)) }
        }
    }
}

/// A damaged undo entry is refused with its reason and changes nothing: its values are checked
/// as every edit is, never written as found.
@Suite("Undo refuses a damaged journal entry and writes nothing")
struct DamagedUndoEntryTests {
    /// A store with one edited set (100 → 105 kg) and its journal entry's sequence number.
    static func edited() throws -> (SpotterStore, LoggedSet, Int64) {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)", weight: 100, reps: 5)
        try store.workoutLog.editSet(id: logged.set.id, changes: SetChanges(weight: 105))
        let seq = try store.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM undo_journal WHERE action = 'edited'") ?? 0
        }
        return (store, logged, seq)
    }

    @Test("an edit's kept values that are no valid set, no field, or unknown fields are refused; the set stays")
    func damagedEditEntries() throws {
        for (before, after) in [
            (#"{"weight":"x"}"#, nil), (#"{"reps":-5}"#, nil), (#"{"weight":1e300}"#, nil),
            (#"{"position":9223372036854775807}"#, nil), ("{}", nil), (#"{"bogus_field":1}"#, nil),
            (#"{"weight":100}"#, "garbage"),
        ] as [(String, String?)] {
            let (store, logged, seq) = try Self.edited()
            try store.writer.write { db in
                try db.execute(
                    sql: "UPDATE undo_journal SET before = ?, after = COALESCE(?, after) WHERE seq = ?",
                    arguments: [before, after, seq])
            }
            let undone = try #require(try store.workoutLog.undoLast())
            #expect(undone.notUndone != nil, "\(before): \(undone.message)")
            let set = try #require(try store.queries.sets(workoutID: logged.workout.id).first?.set)
            #expect(set.weight == 105 && set.reps == 5, "\(before): nothing written")
        }
    }

    @Test("a workout's kept end before its start is refused; the workout stays finished as it was")
    func anEndBeforeTheStartIsRefused() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)", weight: 100, reps: 5)
        try store.workoutLog.editWorkout(
            id: logged.workout.id, changes: WorkoutChanges(endedAt: logged.workout.startedAt + 3600))
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE undo_journal SET before = ? WHERE action = 'edited'",
                arguments: [#"{"ended_at":"1066-10-14T09:00:00.000Z"}"#])
        }
        let undone = try #require(try store.workoutLog.undoLast())
        #expect(undone.notUndone?.contains("ended_at") == true, "\(undone.message)")
        #expect(try store.queries.workoutSummaries().first?.workout.endedAt != nil)
    }

    @Test("a deleted workout's image holding one set twice, or a set no valid set, is refused: nothing comes back")
    func damagedWorkoutImages() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)", weight: 100, reps: 5)
        try store.workoutLog.deleteWorkout(id: logged.workout.id)
        let image = try #require(
            try store.writer.read { db in
                try String.fetchOne(db, sql: "SELECT before FROM undo_journal WHERE action = 'deleted'")
            })
        var object = try #require(JSONValue.parse(image)?.objectValue)
        guard case .array(let sets)? = object["sets"] else {
            Issue.record("the image holds its sets")
            return
        }
        for damaged in [
            JSONValue.array(sets + sets),
            JSONValue.array(
                sets.map { set in
                    var fields = set.objectValue ?? [:]
                    fields["reps"] = .int(-5)
                    return .object(fields)
                }),
        ] {
            object["sets"] = damaged
            try store.writer.write { db in
                try db.execute(
                    sql: "UPDATE undo_journal SET before = ?, undone = 0 WHERE action = 'deleted'",
                    arguments: [JSONValue.object(object).canonicalString])
            }
            let undone = try #require(try store.workoutLog.undoLast())
            #expect(undone.notUndone?.contains("do not read") == true, "\(undone.message)")
            #expect(try store.queries.workoutSummaries().isEmpty, "nothing came back")
        }
    }
}

import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

@Suite("Progress read from the store: samples, records, days, muscles")
struct ProgressStoreTests {
    let clock = ManualClock()

    private var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.firstWeekday = 2
        return calendar
    }

    /// Logs a set in a new workout (`session`) or the current one, then moves the clock a minute on.
    @discardableResult
    private func log(
        _ store: SpotterStore, _ exercise: String, _ weight: Double, _ reps: Int, kind: SetKind = .normal,
        session: String? = nil
    ) throws -> LoggedSet {
        defer { clock.advance(by: 60) }
        return try store.workoutLog.logSet(
            LogSetInput(
                exercise: exercise, weight: weight, reps: reps, kind: kind,
                workout: session.map { .new(name: $0) } ?? .current))
    }

    @Test("samples: working sets of this account in performed order; warm-ups, deleted sets and others' sets left out")
    func samples() throws {
        let store = try makeStore(clock: clock)
        try log(store, "Squat (Barbell)", 60, 5, kind: .warmup, session: "Monday")
        let first = try log(store, "Squat (Barbell)", 100, 5)
        let gone = try log(store, "Squat (Barbell)", 105, 5)
        try store.workoutLog.deleteSet(id: gone.set.id)
        try log(store, "Bench Press (Barbell)", 80, 5)
        clock.advance(by: 3 * 86_400)
        let second = try log(store, "Squat (Barbell)", 225, 3, session: "Thursday")
        try store.writer.write { db in
            try db.execute(sql: "UPDATE sets SET unit = 'lb' WHERE id = ?", arguments: [second.set.id.wireString])
        }
        // Another account on the same file.
        let other = store.forUser(QueueOwner.account(server: "http://127.0.0.1:1", user: "bob").storedID)
        try log(other, "Squat (Barbell)", 300, 1, session: "Bob's")

        let samples = try store.queries.progressSamples(exercise: "squat")
        #expect(samples.map(\.setID) == [first.set.id.wireString, second.set.id.wireString])
        #expect(samples[0].loadKg == 100 && samples[0].reps == 5)
        #expect(abs((samples[1].loadKg ?? 0) - 225 * 0.45359237) < 1e-9, "pounds read as kilograms")
        #expect(samples[0].workoutID == first.workout.id.wireString)
        #expect(samples[1].workoutID != samples[0].workoutID)
        #expect(try store.queries.progressSamples(exercise: "SQUAT (barbell)") == samples)
        #expect(try store.queries.progressSamples(exercise: "Nothing Like It").isEmpty)
    }

    @Test("records follow the samples; a tie is held by the set logged first")
    func records() throws {
        let store = try makeStore(clock: clock)
        let first = try log(store, "Deadlift (Barbell)", 180, 3, session: "A")
        try log(store, "Deadlift (Barbell)", 180, 3)
        clock.advance(by: 86_400)
        let single = try log(store, "Deadlift (Barbell)", 200, 1, session: "B")
        let records = try store.queries.exerciseRecords(exercise: "Deadlift (Barbell)")
        #expect(records.repRecords.first { $0.reps == 3 }?.setID == first.set.id.wireString)
        #expect(records.repRecords.first { $0.reps == 1 }?.setID == single.set.id.wireString)
        #expect(records.bestOneRepMax?.value == 200, "180 × 1.1 = 198 is less than the single")
        #expect(
            records.bestSessionVolume?.value == 1080 && records.bestSessionVolume?.id == first.workout.id.wireString)
        #expect(records.repMaxTable.count == 12)
    }

    @Test("bodyweight lifts carry the weigh-in in force; with none the load is unknown")
    func bodyweightLoads() throws {
        let store = try makeStore(clock: clock)
        let unknown = try log(store, "Pull Up (Assisted)", 20, 6, session: "A")
        clock.advance(by: 3600)
        try store.workoutLog.logBodyWeight(80, unit: .kg, at: clock.now())
        clock.advance(by: 3600)
        try log(store, "Pull Up (Assisted)", 20, 6, session: "B")
        let samples = try store.queries.progressSamples(exercise: "Pull Up (Assisted)")
        #expect(samples.map(\.loadKg) == [nil, 60])
        #expect(samples[0].setID == unknown.set.id.wireString)
        let points = ProgressSeries.points(samples: samples, metric: .e1rm)
        #expect(points.count == 1 && abs(points[0].value - 72) < 1e-9)
    }

    @Test("training days of a year by the calendar's day, and the workouts' starts")
    func trainingDays() throws {
        let store = try makeStore(clock: clock)
        // The clock starts at 2026-09-21 (UTC); set two sessions a day apart and one the year after.
        try log(store, "Squat (Barbell)", 100, 5, session: "A")
        try log(store, "Squat (Barbell)", 100, 5)
        clock.advance(by: 86_400)
        try log(store, "Running", 0, 0, session: "Run")
        clock.advance(by: 200 * 86_400)
        try log(store, "Squat (Barbell)", 100, 5, session: "Next year")
        let year = utc.component(.year, from: Date(timeIntervalSince1970: 1_790_000_000))
        let days = try store.queries.trainingDays(year: year, calendar: utc)
        #expect(days.count == 2)
        #expect(days.map(\.volumeKg) == [1000, 0])
        #expect(days.map(\.sets) == [2, 1])
        #expect(days.map(\.workouts) == [1, 1])
        #expect(try store.queries.trainingDays(year: year + 1, calendar: utc).count == 1)
        #expect(try store.queries.workoutStarts().count == 3)
        // In a zone half a day off, the first day's sets move together to that zone's day.
        var kiritimati = utc
        kiritimati.timeZone = TimeZone(secondsFromGMT: 14 * 3600)!
        let shifted = try store.queries.trainingDays(year: year, calendar: kiritimati)
        #expect(shifted.count == 2 && shifted[0].sets == 2)
    }

    @Test("muscle volume: catalogue muscles, custom muscles set on this device, and what has none")
    func muscleVolume() throws {
        let store = try makeStore(clock: clock)
        try log(store, "Bench Press (Barbell)", 100, 5, session: "A")
        try log(store, "Sled Drag Thing", 50, 10)
        try log(store, "Bench Press (Barbell)", 50, 10, kind: .warmup)
        var report = try store.queries.muscleVolume(weeks: 4, calendar: utc)
        #expect(report.weeks.count == 4)
        let chest = try #require(report.muscles.first { $0.muscle == .chest })
        #expect(chest.weeks[0].sets == 1 && chest.weeks[0].volumeKg == 500)
        #expect(report.muscles.first { $0.muscle == .triceps }?.weeks[0].sets == 0.5)
        #expect(report.unassignedSets == 1 && report.unassignedExercises == ["Sled Drag Thing"])

        try store.workoutLog.setMuscles(
            ExerciseMuscles(primary: [.quads, .glutes], secondary: [.calves]), exercise: "sled drag thing")
        report = try store.queries.muscleVolume(weeks: 4, calendar: utc)
        #expect(report.unassignedSets == 0)
        #expect(report.muscles.first { $0.muscle == .quads }?.weeks[0].volumeKg == 500)
        #expect(report.muscles.first { $0.muscle == .calves }?.weeks[0].sets == 0.5)
        let info = try store.queries.muscles(of: "Sled Drag Thing")
        #expect(info.isCustom && info.muscles?.primary == [.quads, .glutes])
    }

    @Test("custom muscles: a catalogue lift keeps its own, an unknown exercise is not made, a rename keeps them")
    func customMuscles() throws {
        let store = try makeStore(clock: clock)
        #expect(throws: StoreError.self) {
            try store.workoutLog.setMuscles(
                ExerciseMuscles(primary: [.lats], secondary: []), exercise: "Squat (Barbell)")
        }
        #expect(throws: StoreError.notFound("exercise 'Never Logged'")) {
            try store.workoutLog.setMuscles(ExerciseMuscles(primary: [.lats], secondary: []), exercise: "Never Logged")
        }
        #expect(throws: StoreError.self) {
            try store.workoutLog.setMuscles(
                ExerciseMuscles(primary: [], secondary: [.lats]), exercise: "Squat (Barbell)")
        }
        try log(store, "Landmine Press", 30, 8, session: "A")
        #expect(try store.queries.muscles(of: "Landmine Press").muscles == nil)
        try store.workoutLog.setMuscles(
            ExerciseMuscles(primary: [.shoulders], secondary: [.chest, .triceps]), exercise: "Landmine Press")
        _ = try store.workoutLog.moveExercise("Landmine Press", to: "Landmine Press (One Arm)", create: true)
        let moved = try store.queries.muscles(of: "Landmine Press (One Arm)")
        #expect(moved.muscles == ExerciseMuscles(primary: [.shoulders], secondary: [.chest, .triceps]))
        let catalogue = try store.queries.muscles(of: "bench press (barbell)")
        #expect(!catalogue.isCustom && catalogue.exercise == "Bench Press (Barbell)")
        #expect(catalogue.muscles?.primary == [.chest])
    }

    @Test("the most logged exercise counts working sets only; none when nothing is logged")
    func mostLogged() throws {
        let store = try makeStore(clock: clock)
        #expect(try store.queries.mostLoggedExercise() == nil)
        try log(store, "Squat (Barbell)", 100, 5, session: "A")
        for _ in 0..<3 { try log(store, "Bench Press (Barbell)", 40, 5, kind: .warmup) }
        try log(store, "Bench Press (Barbell)", 80, 5)
        try log(store, "Squat (Barbell)", 100, 5)
        #expect(try store.queries.mostLoggedExercise() == "Squat (Barbell)")
    }

    @Test("every catalogue exercise names at least one primary muscle, all from the vocabulary")
    func catalogueMuscles() throws {
        let entries = Catalog.bundledMuscles()
        let exercises = try Catalog.bundled()
        #expect(entries.count == exercises.count && entries.count >= 100)
        for entry in entries {
            let primary = entry.primary ?? []
            let secondary = entry.secondary ?? []
            #expect(!primary.isEmpty, "\(entry.name) has no primary muscle")
            for name in primary + secondary {
                #expect(Muscle(rawValue: name) != nil, "\(entry.name): '\(name)' is not in the vocabulary")
            }
            #expect(Set(primary).isDisjoint(with: secondary), "\(entry.name) lists a muscle twice")
            #expect(Catalog.muscles[Catalog.aliasKey(entry.name)] != nil)
        }
    }
}

import Foundation
import SpotterCore
import Testing

@Suite("What a lift moved: load types and the weigh-in in force")
struct BodyWeightTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    func weighIn(_ kg: Double, hoursAfterStart hours: Double) -> BodyWeight {
        BodyWeight(measuredAt: start.addingTimeInterval(hours * 3600), weight: kg, unit: .kg)
    }

    @Test("the load type comes from the name first, then the catalogue's equipment")
    func loadTypes() {
        #expect(LoadType(equipment: "Assisted Bodyweight", name: "Pull Up (Assisted)") == .assisted)
        #expect(LoadType(equipment: nil, name: "Chest Dip (Assisted)") == .assisted)
        #expect(LoadType(equipment: nil, name: "Assisted Dip Machine") == .assisted)
        #expect(LoadType(equipment: nil, name: "Pull Up (Weighted)") == .weighted)
        #expect(LoadType(equipment: "Bodyweight", name: "Push Up") == .bodyweight)
        #expect(LoadType(equipment: "Barbell", name: "Bench Press (Barbell)") == .external)
        #expect(LoadType(equipment: nil, name: "My Sled") == .external)
        #expect(!LoadType.external.usesBodyWeight && LoadType.assisted.usesBodyWeight)
    }

    @Test("assisted takes the help from the body, weighted and bodyweight add what was logged, never below zero")
    func effectiveLoads() throws {
        let body = weighIn(80, hoursAfterStart: 0)
        #expect(EffectiveLoad.load(logged: 30, unit: .kg, type: .assisted, body: body) == 50)
        #expect(EffectiveLoad.load(logged: 20, unit: .kg, type: .assisted, body: body) == 60)
        #expect(EffectiveLoad.load(logged: 95, unit: .kg, type: .assisted, body: body) == 0)
        #expect(EffectiveLoad.load(logged: 20, unit: .kg, type: .weighted, body: body) == 100)
        #expect(EffectiveLoad.load(logged: 0, unit: .kg, type: .bodyweight, body: body) == 80)
        #expect(EffectiveLoad.load(logged: 100, unit: .kg, type: .external, body: nil) == 100)
        #expect(EffectiveLoad.load(logged: 20, unit: .kg, type: .assisted, body: nil) == nil)
        // In the set's unit: an 80 kg body is 176.37 lb.
        let inPounds = try #require(EffectiveLoad.load(logged: 45, unit: .lb, type: .weighted, body: body))
        #expect(abs(inPounds - (80 / 0.45359237 + 45)) < 1e-9)
        // And 30 kg of help is less load than 20 kg, so its estimate is lower.
        let more = try #require(EffectiveLoad.load(logged: 30, unit: .kg, type: .assisted, body: body))
        let less = try #require(EffectiveLoad.load(logged: 20, unit: .kg, type: .assisted, body: body))
        #expect(OneRepMax.epley(weight: more, reps: 6)! < OneRepMax.epley(weight: less, reps: 6)!)
    }

    @Test("the weigh-in in force is the latest at or before the set; one taken after it is not used")
    func weighInInForce() {
        let weighIns = [
            weighIn(80, hoursAfterStart: 0), weighIn(81, hoursAfterStart: 24), weighIn(79, hoursAfterStart: 48),
        ]
        #expect(EffectiveLoad.bodyWeight(at: start.addingTimeInterval(-1), in: weighIns) == nil)
        #expect(EffectiveLoad.bodyWeight(at: start, in: weighIns)?.weight == 80)
        #expect(EffectiveLoad.bodyWeight(at: start.addingTimeInterval(30 * 3600), in: weighIns)?.weight == 81)
        #expect(EffectiveLoad.bodyWeight(at: start.addingTimeInterval(1000 * 3600), in: weighIns)?.weight == 79)
        #expect(EffectiveLoad.bodyWeight(at: start, in: []) == nil)
    }

    @Test("a weigh-in from 20 to 400 kg (or the same in lb) is one; anything else names the field")
    func validation() {
        for (weight, unit) in [(20.0, WeightUnit.kg), (400, .kg), (81.4, .kg), (179.5, .lb), (45, .lb)] {
            #expect(throws: Never.self) {
                try Validation.bodyWeight(BodyWeight(measuredAt: start, weight: weight, unit: unit))
            }
        }
        for (weight, unit) in [(19.9, WeightUnit.kg), (401, .kg), (8.14, .kg), (900, .lb), (0, .kg), (-1, .kg)] {
            #expect(throws: ValidationError.self) {
                try Validation.bodyWeight(BodyWeight(measuredAt: start, weight: weight, unit: unit))
            }
        }
        #expect(throws: ValidationError.self) {
            try Validation.bodyWeight(BodyWeight(measuredAt: start, weight: .nan, unit: .kg))
        }
    }

    @Test("a day, today, yesterday or an RFC 3339 time reads; a made-up day or a foreign digit does not")
    func dates() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Oslo"))
        let now = start
        let day = try #require(BodyWeightDate.read("2026-03-29", now: now, calendar: calendar))
        #expect(BodyWeightDate.shown(day, calendar: calendar) == "2026-03-29 00:00")
        #expect(BodyWeightDate.read("today", now: now, calendar: calendar) == calendar.startOfDay(for: now))
        #expect(BodyWeightDate.read("2026-11-20T07:30:00Z", now: now) == Timestamp.parse("2026-11-20T07:30:00Z"))
        for bad in ["2026-02-30", "2026-13-01", "٢٠٢٦-01-01", "26-01-01", "", "tomorrowish", "2026-1-1"] {
            #expect(BodyWeightDate.read(bad, now: now, calendar: calendar) == nil, "\(bad)")
        }
    }
}

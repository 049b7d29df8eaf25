import Foundation
import SpotterCore
import Testing

/// A calendar in `zone`, weeks starting on `firstWeekday` (1 Sunday, 2 Monday).
private func calendar(_ zone: String = "UTC", firstWeekday: Int = 2) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    calendar.firstWeekday = firstWeekday
    return calendar
}

/// A wall-clock time in `zone`.
private func at(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0, zone: String = "UTC"
) -> Date {
    calendar(zone).date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
}

private func sample(
    _ id: String, workout: String, _ date: Date, _ load: Double?, _ reps: Int
) -> ProgressSample {
    ProgressSample(setID: id, workoutID: workout, performedAt: date, loadKg: load, reps: reps)
}

private func close(_ a: Double?, _ b: Double, within tolerance: Double = 1e-6) -> Bool {
    guard let a else { return false }
    return abs(a - b) < tolerance
}

@Suite("Progress: a value per session, records, ranges and fewer points")
struct ProgressSeriesTests {
    @Test("one session's values: best estimate of 1-12 reps, heaviest, most reps, volume of known loads")
    func sessionValues() {
        let day = at(2026, 3, 2)
        let session = [
            sample("a", workout: "w", day, 100, 5),  // 116.667
            sample("b", workout: "w", day.addingTimeInterval(60), 110, 3),  // 121
            sample("c", workout: "w", day.addingTimeInterval(120), 60, 12),  // 84
            sample("d", workout: "w", day.addingTimeInterval(180), 50, 15),  // no estimate past 12
            sample("e", workout: "w", day.addingTimeInterval(240), nil, 8),  // load unknown
        ]
        #expect(close(ProgressMetric.e1rm.value(of: session), 121))
        #expect(ProgressMetric.heaviest.value(of: session) == 110)
        #expect(ProgressMetric.reps.value(of: session) == 15)
        #expect(close(ProgressMetric.volume.value(of: session), 500 + 330 + 720 + 750))
        let unknown = [sample("x", workout: "w", day, nil, 5)]
        #expect(ProgressMetric.e1rm.value(of: unknown) == nil)
        #expect(ProgressMetric.heaviest.value(of: unknown) == nil)
        #expect(ProgressMetric.volume.value(of: unknown) == nil)
        #expect(ProgressMetric.reps.value(of: unknown) == 5, "reps need no load")
    }

    @Test("a rising series: a point a session, each one after the first a record")
    func risingSeries() {
        let samples = [
            sample("1", workout: "w1", at(2026, 1, 5), 100, 5),
            sample("2", workout: "w2", at(2026, 1, 12), 105, 5),
            sample("3", workout: "w3", at(2026, 1, 19), 110, 5),
        ]
        let points = ProgressSeries.points(samples: samples, metric: .e1rm)
        #expect(points.count == 3)
        #expect(
            close(points[0].value, 100 * 7 / 6) && close(points[1].value, 122.5) && close(points[2].value, 110 * 7 / 6))
        #expect(points.map(\.isRecord) == [false, true, true], "the first session has nothing to beat")
        #expect(points.map(\.workoutID) == ["w1", "w2", "w3"])
        #expect(points[0].date == at(2026, 1, 5))
    }

    @Test("a flat series sets no record: equal is not more")
    func flatSeries() {
        let samples = (1...4).map { sample("\($0)", workout: "w\($0)", at(2026, 2, $0 * 7), 100, 5) }
        let points = ProgressSeries.points(samples: samples, metric: .heaviest)
        #expect(points.map(\.value) == [100, 100, 100, 100])
        #expect(points.allSatisfy { !$0.isRecord })
    }

    @Test("a single session is one point and no record")
    func singlePoint() {
        let points = ProgressSeries.points(samples: [sample("1", workout: "w", at(2026, 2, 1), 60, 8)], metric: .volume)
        #expect(points == [ProgressPoint(date: at(2026, 2, 1), value: 480, isRecord: false, workoutID: "w")])
    }

    @Test("sessions months apart, given out of order: in performed order; a session without a value is left out")
    func gapOfMonthsAndSkippedSessions() {
        let samples = [
            sample("3", workout: "june", at(2026, 6, 20), 90, 5),
            sample("2", workout: "march", at(2026, 3, 1), nil, 10),  // no load known: no estimate
            sample("1", workout: "january", at(2026, 1, 3, 18), 80, 5),
            sample("1b", workout: "january", at(2026, 1, 3, 17), 70, 5),  // the session's first set
        ]
        let points = ProgressSeries.points(samples: samples, metric: .e1rm)
        #expect(points.map(\.workoutID) == ["january", "june"])
        #expect(points[0].date == at(2026, 1, 3, 17), "a session is dated by its first set")
        #expect(points.map(\.isRecord) == [false, true])
        let reps = ProgressSeries.points(samples: samples, metric: .reps)
        #expect(reps.map(\.workoutID) == ["january", "march", "june"])
        #expect(reps.map(\.value) == [5, 10, 5])
        #expect(reps.map(\.isRecord) == [false, true, false])
    }

    @Test("a record beats every earlier session, not only the last one")
    func recordMarks() {
        let loads: [Double] = [100, 90, 95, 101, 101]
        let samples = loads.enumerated().map { sample("\($0)", workout: "w\($0)", at(2026, 4, 1 + $0), $1, 1) }
        let points = ProgressSeries.points(samples: samples, metric: .heaviest)
        #expect(points.map(\.isRecord) == [false, false, false, true, false])
    }

    @Test("a range keeps the last 3 months or the last year; records stay those of all time")
    func rangeCut() {
        let now = at(2026, 6, 15)
        let samples = [
            sample("1", workout: "a", at(2025, 1, 1), 100, 1),
            sample("2", workout: "b", at(2025, 9, 1), 110, 1),
            sample("3", workout: "c", at(2026, 4, 1), 105, 1),
            sample("4", workout: "d", at(2026, 6, 1), 120, 1),
        ]
        let points = ProgressSeries.points(samples: samples, metric: .heaviest)
        let utc = calendar()
        #expect(
            ProgressSeries.cut(points, range: .threeMonths, now: now, calendar: utc).map(\.workoutID) == ["c", "d"])
        #expect(ProgressSeries.cut(points, range: .year, now: now, calendar: utc).map(\.workoutID) == ["b", "c", "d"])
        #expect(ProgressSeries.cut(points, range: .all, now: now, calendar: utc) == points)
        let recent = ProgressSeries.cut(points, range: .threeMonths, now: now, calendar: utc)
        #expect(recent.map(\.isRecord) == [false, true], "105 was no record: 110 came before, out of the range")
        #expect(ProgressRange.threeMonths.start(now: now, calendar: utc) == at(2026, 3, 15))
        #expect(ProgressRange.year.start(now: now, calendar: utc) == at(2025, 6, 15))
        #expect(ProgressRange.all.start(now: now, calendar: utc) == nil)
    }

    @Test("metrics and ranges cycle and have names")
    func cyclingAndNames() {
        #expect(ProgressMetric.allCases.map(\.rawValue) == ["e1rm", "heaviest", "reps", "volume"])
        #expect(ProgressMetric.e1rm.next == .heaviest && ProgressMetric.volume.next == .e1rm)
        #expect(ProgressMetric.e1rm.title == "Estimated 1RM" && ProgressMetric.volume.title == "Session volume")
        #expect(ProgressMetric.heaviest.title == "Heaviest set" && ProgressMetric.reps.title == "Most reps")
        #expect(!ProgressMetric.reps.isWeight && ProgressMetric.volume.isWeight)
        #expect(ProgressRange.allCases.map(\.rawValue) == ["3m", "1y", "all"])
        #expect(ProgressRange.threeMonths.next == .year && ProgressRange.all.next == .threeMonths)
        #expect(!ProgressRange.all.title.isEmpty)
    }

    @Test("fewer points: a period keeps its highest point, so the maximum is never dropped")
    func downsampleKeepsTheMaximum() {
        let values: [Double] = [1, 5, 2, 3, 9, 4, 2, 8, 1, 0]
        let points = values.enumerated().map {
            ProgressPoint(date: at(2026, 5, 1 + $0), value: $1, isRecord: false, workoutID: "w\($0)")
        }
        let three = ProgressSeries.downsample(points, buckets: 3)
        // Nine days in three periods of three days: {1,5,2} {3,9,4} {2,8,1,0} (the last day closes the last).
        #expect(three.map(\.value) == [5, 9, 8])
        #expect(three.map(\.workoutID) == ["w1", "w4", "w7"])
        #expect(ProgressSeries.downsample(points, buckets: 10) == points)
        #expect(ProgressSeries.downsample(points, buckets: 50) == points)
        #expect(ProgressSeries.downsample(points, buckets: 0).isEmpty)
        #expect(ProgressSeries.downsample(points, buckets: 1).map(\.value) == [9])
        for buckets in 1...12 {
            let fewer = ProgressSeries.downsample(points, buckets: buckets)
            #expect(fewer.count <= buckets)
            #expect(fewer.map(\.value).max() == 9)
        }
    }

    @Test("a period that held a record keeps its point marked; of equal highs the earliest stays")
    func downsampleKeepsRecords() {
        let points = [
            ProgressPoint(date: at(2026, 5, 1), value: 3, isRecord: true, workoutID: "a"),
            ProgressPoint(date: at(2026, 5, 2), value: 7, isRecord: false, workoutID: "b"),
            ProgressPoint(date: at(2026, 5, 3), value: 7, isRecord: false, workoutID: "c"),
            ProgressPoint(date: at(2026, 5, 30), value: 1, isRecord: false, workoutID: "d"),
        ]
        let two = ProgressSeries.downsample(points, buckets: 2)
        #expect(two.map(\.workoutID) == ["b", "d"])
        #expect(two.map(\.isRecord) == [true, false])
        let real = ProgressSeries.points(
            samples: [100, 102, 101, 104, 103, 90].enumerated().map {
                sample("\($0)", workout: "w\($0)", at(2026, 1, 1 + $0), $1, 1)
            }, metric: .heaviest)
        let fewer = ProgressSeries.downsample(real, buckets: 2)
        #expect(fewer.map(\.value) == [102, 104])
        #expect(fewer.map(\.isRecord) == [true, true])
    }
}

@Suite("Records of an exercise: rep records, estimates, volumes, rep maxes")
struct ExerciseRecordsTests {
    /// Six sets in three sessions, an hour apart.
    static let sets = [
        sample("s1", workout: "w1", at(2026, 1, 5, 10), 100, 5),
        sample("s2", workout: "w1", at(2026, 1, 5, 11), 100, 5),
        sample("s3", workout: "w2", at(2026, 1, 12, 10), 110, 2),
        sample("s4", workout: "w2", at(2026, 1, 12, 11), 90, 10),
        sample("s5", workout: "w3", at(2026, 1, 19, 10), 120, 1),
        sample("s6", workout: "w3", at(2026, 1, 19, 11), 100, 12),
    ]

    @Test("the heaviest load for at least N reps; a tie is held by the set performed first")
    func repRecordsWithTies() {
        let records = ExerciseRecords.compute(samples: Self.sets)
        let held = Dictionary(uniqueKeysWithValues: records.repRecords.map { ($0.reps, $0) })
        #expect(records.repRecords.map(\.reps) == [1, 2, 3, 5, 8, 10, 12])
        #expect(held[1]?.loadKg == 120 && held[1]?.setID == "s5")
        #expect(held[2]?.loadKg == 110 && held[2]?.setID == "s3")
        #expect(held[3]?.loadKg == 100 && held[3]?.setID == "s1", "s1, s2 and s6 tie: s1 was first")
        #expect(held[5]?.setID == "s1" && held[5]?.date == at(2026, 1, 5, 10))
        #expect(held[8]?.loadKg == 100 && held[8]?.setID == "s6" && held[8]?.setReps == 12)
        #expect(held[10]?.setID == "s6" && held[12]?.setID == "s6")
        // Given in another order, the same sets give the same holders.
        let shuffled = ExerciseRecords.compute(samples: Self.sets.reversed())
        #expect(shuffled.repRecords == records.repRecords)
    }

    @Test("best estimate, best set, best session; the rep maxes by inverse Epley")
    func estimatesVolumesAndRepMaxes() throws {
        let records = ExerciseRecords.compute(samples: Self.sets)
        let best = try #require(records.bestOneRepMax)
        #expect(close(best.value, 140) && best.id == "s6", "100 × (1 + 12/30)")
        #expect(records.bestSetVolume == DatedBest(value: 1200, date: at(2026, 1, 19, 11), id: "s6"))
        // w1 1000, w2 220 + 900 = 1120, w3 120 + 1200 = 1320.
        #expect(records.bestSessionVolume == DatedBest(value: 1320, date: at(2026, 1, 19, 10), id: "w3"))
        #expect(records.repMaxTable.map(\.reps) == Array(1...12))
        let table = Dictionary(uniqueKeysWithValues: records.repMaxTable.map { ($0.reps, $0.loadKg) })
        #expect(close(table[1], 140), "a single is the 1RM itself")
        #expect(close(table[2], 131.25))
        #expect(close(table[5], 120))
        #expect(close(table[10], 105))
        #expect(close(table[12], 100), "the set that made the estimate, back again")
    }

    @Test("a tie on the estimate or a session's volume is held by the earlier one")
    func tiesOnEstimatesAndSessions() {
        let records = ExerciseRecords.compute(samples: [
            sample("a", workout: "w1", at(2026, 2, 1), 100, 1),
            sample("b", workout: "w2", at(2026, 2, 8), 100, 1),
        ])
        #expect(records.bestOneRepMax?.id == "a")
        #expect(records.bestSetVolume?.id == "a")
        #expect(records.bestSessionVolume?.id == "w1")
    }

    @Test("a set of unknown load counts for nothing weighted; no load at all is no record")
    func unknownLoads() {
        let records = ExerciseRecords.compute(samples: [
            sample("a", workout: "w", at(2026, 2, 1), nil, 20),
            sample("b", workout: "w", at(2026, 2, 1, 13), 0, 15),
        ])
        #expect(records.isEmpty)
        #expect(records.repMaxTable.isEmpty && records.bestSessionVolume == nil)
    }

    @Test("assisted pull-ups: the load is the body less the help, so less help ranks higher")
    func assistedLiftWithBodyWeight() throws {
        let body = BodyWeight(measuredAt: at(2026, 3, 1, 7), weight: 80, unit: .kg)
        func assisted(_ id: String, _ workout: String, _ date: Date, help: Double, reps: Int) -> ProgressSample {
            let load = EffectiveLoad.load(logged: help, unit: .kg, type: .assisted, body: body)
            return sample(id, workout: workout, date, load, reps)
        }
        let samples = [
            assisted("more help", "w1", at(2026, 3, 2), help: 30, reps: 6),  // 50 kg
            assisted("less help", "w2", at(2026, 3, 9), help: 20, reps: 6),  // 60 kg
        ]
        let records = ExerciseRecords.compute(samples: samples)
        #expect(close(records.bestOneRepMax?.value, 60 * 1.2) && records.bestOneRepMax?.id == "less help")
        #expect(records.repRecords.first { $0.reps == 5 }?.loadKg == 60)
        let points = ProgressSeries.points(samples: samples, metric: .heaviest)
        #expect(points.map(\.value) == [50, 60])
        #expect(points.map(\.isRecord) == [false, true])
    }
}

@Suite("The training calendar: local days, weeks, the year's grid and the streak")
struct TrainingCalendarTests {
    @Test("a set at 23:30 local is that local day's, east or west of UTC")
    func localDay() {
        let newYork = calendar("America/New_York")
        let late = at(2026, 3, 10, 23, 30, zone: "America/New_York")  // 03:30 UTC on the 11th
        let days = TrainingCalendar.days(samples: [sample("a", workout: "w", late, 100, 5)], calendar: newYork)
        #expect(days.count == 1)
        #expect(days[0].day == at(2026, 3, 10, 0, 0, zone: "America/New_York"))
        #expect(newYork.component(.day, from: days[0].day) == 10)
        let tokyo = calendar("Asia/Tokyo")
        let early = at(2026, 3, 11, 0, 30, zone: "Asia/Tokyo")  // 15:30 UTC on the 10th
        let east = TrainingCalendar.days(samples: [sample("b", workout: "w", early, 100, 5)], calendar: tokyo)
        #expect(tokyo.component(.day, from: east[0].day) == 11)
    }

    @Test("a day adds its volume and counts its workouts and sets")
    func dayTotals() {
        let utc = calendar()
        let days = TrainingCalendar.days(
            entries: [
                .init(date: at(2026, 4, 1, 8), volumeKg: 500, workoutID: "morning"),
                .init(date: at(2026, 4, 1, 9), volumeKg: 300, workoutID: "morning"),
                .init(date: at(2026, 4, 1, 19), volumeKg: 200, workoutID: "evening"),
                .init(date: at(2026, 4, 3, 19), volumeKg: 0, workoutID: "run"),
            ], calendar: utc)
        #expect(
            days == [
                TrainingDay(day: at(2026, 4, 1, 0), volumeKg: 1000, workouts: 2, sets: 3),
                TrainingDay(day: at(2026, 4, 3, 0), volumeKg: 0, workouts: 1, sets: 1),
            ])
    }

    @Test("weeks start on the calendar's first weekday: Monday or Sunday")
    func weekStarts() {
        let sunday = at(2026, 3, 8, 15)
        #expect(TrainingCalendar.weekStart(of: sunday, calendar: calendar(firstWeekday: 2)) == at(2026, 3, 2, 0))
        #expect(TrainingCalendar.weekStart(of: sunday, calendar: calendar(firstWeekday: 1)) == at(2026, 3, 8, 0))
        let thursday = at(2026, 1, 1, 9)
        #expect(TrainingCalendar.weekStart(of: thursday, calendar: calendar(firstWeekday: 2)) == at(2025, 12, 29, 0))
        #expect(TrainingCalendar.weekStart(of: thursday, calendar: calendar(firstWeekday: 1)) == at(2025, 12, 28, 0))
    }

    @Test("the year's grid: a column a week, a row a weekday, nil outside the year")
    func yearGrid() throws {
        // 2026 starts and ends on a Thursday.
        let monday = try #require(TrainingCalendar.yearGrid(year: 2026, calendar: calendar(firstWeekday: 2)))
        #expect(monday.rowWeekdays == [2, 3, 4, 5, 6, 7, 1])
        #expect(monday.columns.count == 53)
        #expect(monday.columns.allSatisfy { $0.count == 7 })
        #expect(monday.columns[0][0...2].allSatisfy { $0 == nil }, "Mon 29 to Wed 31 December are 2025's")
        #expect(monday.columns[0][3] == at(2026, 1, 1, 0))
        #expect(monday.columns[52][3] == at(2026, 12, 31, 0))
        #expect(monday.columns[52][4...].allSatisfy { $0 == nil })
        #expect(monday.columns.flatMap { $0 }.compactMap { $0 }.count == 365)
        let sunday = try #require(TrainingCalendar.yearGrid(year: 2026, calendar: calendar(firstWeekday: 1)))
        #expect(sunday.rowWeekdays == [1, 2, 3, 4, 5, 6, 7])
        #expect(sunday.columns[0][4] == at(2026, 1, 1, 0))
        #expect(sunday.columns.count == 53)
        let leap = try #require(TrainingCalendar.yearGrid(year: 2024, calendar: calendar(firstWeekday: 2)))
        #expect(leap.columns.flatMap { $0 }.compactMap { $0 }.count == 366)
        // Every day once, in order, down the rows and across the weeks.
        let days = monday.columns.flatMap { $0 }.compactMap { $0 }
        #expect(zip(days, days.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 86_400 })
    }

    @Test("the streak runs back across a year's end, from this week when it qualifies, else from the last")
    func streakAcrossTheYearsEnd() {
        let monday = calendar(firstWeekday: 2)
        let now = at(2026, 1, 7)  // a Wednesday
        let workouts = [at(2025, 12, 16), at(2025, 12, 22), at(2025, 12, 31), at(2026, 1, 6)]
        #expect(
            TrainingCalendar.streakWeeks(workoutDates: workouts, minimumPerWeek: 1, now: now, calendar: monday) == 4)
        let notYet = Array(workouts.dropLast())
        #expect(
            TrainingCalendar.streakWeeks(workoutDates: notYet, minimumPerWeek: 1, now: now, calendar: monday) == 3,
            "this week has none yet: the streak to last week stands")
        let gap = workouts.filter { $0 != at(2025, 12, 22) }
        #expect(TrainingCalendar.streakWeeks(workoutDates: gap, minimumPerWeek: 1, now: now, calendar: monday) == 2)
        #expect(
            TrainingCalendar.streakWeeks(workoutDates: workouts, minimumPerWeek: 2, now: now, calendar: monday) == 0)
        #expect(TrainingCalendar.streakWeeks(workoutDates: [], minimumPerWeek: 1, now: now, calendar: monday) == 0)
        let twoWeeksAgo = [at(2025, 12, 22)]
        #expect(
            TrainingCalendar.streakWeeks(workoutDates: twoWeeksAgo, minimumPerWeek: 1, now: now, calendar: monday) == 0)
    }

    @Test("a Sunday-to-Saturday week across New Year holds both days; Monday weeks split them")
    func streakWeeksBySundayAndMonday() {
        let workouts = [at(2025, 12, 28), at(2026, 1, 3)]  // Sunday, then Saturday
        let now = at(2026, 1, 5)
        #expect(
            TrainingCalendar.streakWeeks(
                workoutDates: workouts, minimumPerWeek: 2, now: now, calendar: calendar(firstWeekday: 1)) == 1)
        #expect(
            TrainingCalendar.streakWeeks(
                workoutDates: workouts, minimumPerWeek: 2, now: now, calendar: calendar(firstWeekday: 2)) == 0)
        #expect(
            TrainingCalendar.streakWeeks(
                workoutDates: workouts, minimumPerWeek: 1, now: now, calendar: calendar(firstWeekday: 2)) == 2)
    }

    @Test("shades: none for rest days, 1 to 4 by the quartile of the day's volume")
    func shades() {
        let days = [100.0, 200, 300, 400, 0].enumerated().map {
            TrainingDay(day: at(2026, 1, 1 + $0), volumeKg: $1, workouts: 1, sets: 1)
        }
        let shades = TrainingCalendar.shades(days)
        #expect(days.map { shades[$0.day] } == [1, 2, 3, 4, 1])
        #expect(shades[at(2026, 2, 1)] == nil)
    }
}

@Suite("Weekly volume per muscle")
struct MuscleVolumeTests {
    static let bench = ExerciseMuscles(primary: [.chest], secondary: [.triceps, .shoulders])
    static let curl = ExerciseMuscles(primary: [.biceps], secondary: [.forearms])

    @Test("a primary muscle takes the whole set, a secondary one half the set and half its volume")
    func primaryAndSecondary() throws {
        let monday = calendar(firstWeekday: 2)
        let now = at(2026, 3, 11)  // Wednesday; this week from Monday 9 March
        let samples = [
            MuscleSample(performedAt: at(2026, 3, 10), volumeKg: 500, muscles: Self.bench),
            MuscleSample(performedAt: at(2026, 3, 10, 13), volumeKg: 500, muscles: Self.bench),
            MuscleSample(performedAt: at(2026, 3, 4), volumeKg: 200, muscles: Self.curl),
            MuscleSample(performedAt: at(2026, 2, 17), volumeKg: 999, muscles: Self.curl),  // three weeks back
        ]
        let volume = MuscleVolume.compute(samples: samples, weeks: 2, now: now, calendar: monday)
        #expect(volume.map(\.muscle) == [.chest, .shoulders, .triceps, .biceps, .forearms])
        let byMuscle = Dictionary(uniqueKeysWithValues: volume.map { ($0.muscle, $0.weeks) })
        #expect(byMuscle[.chest]?.map(\.weekStart) == [at(2026, 3, 9, 0), at(2026, 3, 2, 0)], "newest first")
        #expect(byMuscle[.chest]?.map(\.sets) == [2, 0])
        #expect(byMuscle[.chest]?.map(\.volumeKg) == [1000, 0])
        #expect(byMuscle[.triceps]?.map(\.sets) == [1, 0])
        #expect(byMuscle[.triceps]?.map(\.volumeKg) == [500, 0])
        #expect(byMuscle[.biceps]?.map(\.sets) == [0, 1])
        #expect(byMuscle[.forearms]?.map(\.sets) == [0, 0.5])
        #expect(byMuscle[.forearms]?.map(\.volumeKg) == [0, 100])
    }

    @Test("the muscle list: known names only, any case, each once; an unknown one names the valid ones")
    func parsingMuscles() throws {
        #expect(try Muscle.parseList("chest, Upper Back,chest") == [.chest, .upperBack])
        #expect(try Muscle.parseList("") == [])
        for bad in ["chest,glutez", "💪🏽", "e\u{301}", "\u{202E}chest", "chest,,triceps", "chest\u{1B}[2J"] {
            #expect(throws: ValidationError.self, "\(bad)") { try Muscle.parseList(bad) }
        }
        do {
            _ = try Muscle.parseList("glutez")
        } catch {
            #expect(error.message.contains("glutes") && error.message.contains("full body"))
        }
        #expect(ExerciseMuscles(primary: [.chest], secondary: [.chest, .triceps]).secondary == [.triceps])
        #expect(Muscle.allCases.count == 19)
    }
}

import Foundation

// MARK: Samples, metrics and ranges

/// One working set of one exercise, as progress is read from it: warm-ups are never samples.
public struct ProgressSample: Sendable, Equatable {
    public var setID: String
    public var workoutID: String
    public var performedAt: Date
    /// The load moved, in kilograms, body weight counted (`EffectiveLoad`); nil when it is not
    /// known (a bodyweight lift with no weigh-in before it): such a set counts for nothing weighted.
    public var loadKg: Double?
    public var reps: Int

    public init(setID: String, workoutID: String, performedAt: Date, loadKg: Double?, reps: Int) {
        self.setID = setID
        self.workoutID = workoutID
        self.performedAt = performedAt
        self.loadKg = loadKg
        self.reps = reps
    }

    /// The load when it is known and a real weight (finite, not negative).
    var knownLoad: Double? {
        guard let loadKg, loadKg.isFinite, loadKg >= 0 else { return nil }
        return loadKg
    }

    /// Load × reps, when the load is known and the set has reps.
    var volumeKg: Double? {
        guard let load = knownLoad, reps > 0 else { return nil }
        return load * Double(reps)
    }
}

/// What a progress chart follows, one value per session.
public enum ProgressMetric: String, Sendable, CaseIterable {
    /// The best Epley estimated 1RM of the session, from sets of 1 to `OneRepMax.maxReps` reps.
    case e1rm
    /// The heaviest load lifted for at least one rep.
    case heaviest
    /// The most reps in one set.
    case reps
    /// Load × reps, summed over the session's working sets.
    case volume

    /// The metric after this one, round again after the last (a key that cycles them).
    public var next: ProgressMetric {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    public var title: String {
        switch self {
        case .e1rm: "Estimated 1RM"
        case .heaviest: "Heaviest set"
        case .reps: "Most reps"
        case .volume: "Session volume"
        }
    }

    /// Whether the value is a weight (shown in the lifter's unit); reps are a count.
    public var isWeight: Bool { self != .reps }

    /// The session's value, from its working sets; nil when none of them gives one (no known
    /// load, no reps, only sets of more than twelve reps for an estimate).
    public func value(of session: [ProgressSample]) -> Double? {
        switch self {
        case .e1rm:
            return session.compactMap { sample in
                sample.knownLoad.flatMap { OneRepMax.epley(weight: $0, reps: sample.reps) }
            }.max()
        case .heaviest:
            return session.filter { $0.reps >= 1 }.compactMap(\.knownLoad).filter { $0 > 0 }.max()
        case .reps:
            let most = session.map(\.reps).max() ?? 0
            return most > 0 ? Double(most) : nil
        case .volume:
            let total = session.compactMap(\.volumeKg).reduce(0, +)
            return total > 0 ? total : nil
        }
    }
}

/// How far back a progress chart looks.
public enum ProgressRange: String, Sendable, CaseIterable {
    case threeMonths = "3m"
    case year = "1y"
    case all

    public var next: ProgressRange {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    public var title: String {
        switch self {
        case .threeMonths: "Last 3 months"
        case .year: "Last year"
        case .all: "All time"
        }
    }

    /// The first instant the range shows; nil for all of it.
    public func start(now: Date, calendar: Calendar) -> Date? {
        switch self {
        case .threeMonths: calendar.date(byAdding: .month, value: -3, to: now)
        case .year: calendar.date(byAdding: .year, value: -1, to: now)
        case .all: nil
        }
    }
}

/// One session's value of a metric.
public struct ProgressPoint: Sendable, Equatable {
    /// When the session's first working set of the exercise was performed.
    public var date: Date
    public var value: Double
    /// Strictly more than every earlier session's value (the first session has nothing to beat).
    public var isRecord: Bool
    public var workoutID: String

    public init(date: Date, value: Double, isRecord: Bool, workoutID: String) {
        self.date = date
        self.value = value
        self.isRecord = isRecord
        self.workoutID = workoutID
    }
}

/// The tolerance records are compared with, as the record walk uses (`RecordTracker`).
private let recordTolerance = 1e-9

public enum ProgressSeries {
    /// The sessions of `samples` (by workout), each with its sets, ordered by their first set's
    /// time (then by workout id, so equal times always come out the same way).
    static func sessions(_ samples: [ProgressSample]) -> [(workoutID: String, start: Date, sets: [ProgressSample])] {
        var byWorkout: [String: [ProgressSample]] = [:]
        var order: [String] = []
        for sample in samples {
            if byWorkout[sample.workoutID] == nil { order.append(sample.workoutID) }
            byWorkout[sample.workoutID, default: []].append(sample)
        }
        return order.map { id in
            let sets = byWorkout[id] ?? []
            return (id, sets.map(\.performedAt).min() ?? .distantPast, sets)
        }
        .sorted { ($0.start, $0.workoutID) < ($1.start, $1.workoutID) }
    }

    /// One point per session in performed order; a session with no value for the metric is
    /// left out (and is no record to beat).
    public static func points(samples: [ProgressSample], metric: ProgressMetric) -> [ProgressPoint] {
        var points: [ProgressPoint] = []
        var best: Double?
        for session in sessions(samples) {
            guard let value = metric.value(of: session.sets), value.isFinite else { continue }
            let isRecord = best.map { value > $0 + recordTolerance } ?? false
            best = max(best ?? value, value)
            points.append(
                ProgressPoint(date: session.start, value: value, isRecord: isRecord, workoutID: session.workoutID))
        }
        return points
    }

    /// The points the range shows. Record marks stay as they were: a record is one of all time.
    public static func cut(
        _ points: [ProgressPoint], range: ProgressRange, now: Date, calendar: Calendar
    ) -> [ProgressPoint] {
        guard let start = range.start(now: now, calendar: calendar) else { return points }
        return points.filter { $0.date >= start }
    }

    /// At most `buckets` points for a chart of that many columns: the span from the first point
    /// to the last is cut in `buckets` equal periods and each period keeps its highest point (the
    /// earliest of equal ones), so the maximum is never dropped; a period that held a record
    /// keeps its point marked as one.
    public static func downsample(_ points: [ProgressPoint], buckets: Int) -> [ProgressPoint] {
        guard buckets > 0 else { return [] }
        guard points.count > buckets, let first = points.first?.date, let last = points.last?.date else {
            return points
        }
        let span = last.timeIntervalSince(first)
        var kept: [Int: (point: ProgressPoint, record: Bool)] = [:]
        for point in points {
            let offset = point.date.timeIntervalSince(first)
            let index = span > 0 ? min(buckets - 1, max(0, Int(offset / span * Double(buckets)))) : 0
            if let current = kept[index] {
                let better = point.value > current.point.value + recordTolerance
                kept[index] = (better ? point : current.point, current.record || point.isRecord)
            } else {
                kept[index] = (point, point.isRecord)
            }
        }
        return kept.keys.sorted().compactMap { index in
            guard var entry = kept[index] else { return nil }
            entry.point.isRecord = entry.record
            return entry.point
        }
    }
}

// MARK: Records

/// The heaviest load lifted for at least `reps` reps.
public struct RepRecord: Sendable, Equatable {
    /// The rep count the record is for ("at least this many").
    public var reps: Int
    public var loadKg: Double
    /// The reps the holding set did (at least `reps`).
    public var setReps: Int
    public var date: Date
    public var setID: String

    public init(reps: Int, loadKg: Double, setReps: Int, date: Date, setID: String) {
        self.reps = reps
        self.loadKg = loadKg
        self.setReps = setReps
        self.date = date
        self.setID = setID
    }
}

/// A best value, when it was made and by which set (or, for a session, which workout).
public struct DatedBest: Sendable, Equatable {
    public var value: Double
    public var date: Date
    /// The set that made it; for a session's best, the workout.
    public var id: String

    public init(value: Double, date: Date, id: String) {
        self.value = value
        self.date = date
        self.id = id
    }
}

/// What the best estimated 1RM predicts for a number of reps.
public struct RepMax: Sendable, Equatable {
    public var reps: Int
    public var loadKg: Double

    public init(reps: Int, loadKg: Double) {
        self.reps = reps
        self.loadKg = loadKg
    }
}

/// An exercise's records, from its working sets.
public struct ExerciseRecords: Sendable, Equatable {
    /// The rep counts a rep record is kept for.
    public static let repTargets = [1, 2, 3, 5, 8, 10, 12]

    /// For each of `repTargets` some set reached, the heaviest load for at least that many reps.
    public var repRecords: [RepRecord]
    public var bestOneRepMax: DatedBest?
    /// The most load × reps in one set.
    public var bestSetVolume: DatedBest?
    /// The most load × reps in one session (its date is the session's first set's; its id the workout's).
    public var bestSessionVolume: DatedBest?
    /// What `bestOneRepMax` predicts for 1 to `OneRepMax.maxReps` reps; empty without one.
    public var repMaxTable: [RepMax]

    public init(
        repRecords: [RepRecord] = [], bestOneRepMax: DatedBest? = nil, bestSetVolume: DatedBest? = nil,
        bestSessionVolume: DatedBest? = nil, repMaxTable: [RepMax] = []
    ) {
        self.repRecords = repRecords
        self.bestOneRepMax = bestOneRepMax
        self.bestSetVolume = bestSetVolume
        self.bestSessionVolume = bestSessionVolume
        self.repMaxTable = repMaxTable
    }

    /// Whether there is no record at all (no set with a known load and reps).
    public var isEmpty: Bool { repRecords.isEmpty && bestOneRepMax == nil && bestSetVolume == nil }

    /// Inverse Epley: the load `oneRepMax` predicts for `reps` reps (a single is the 1RM itself).
    public static func repMax(oneRepMax: Double, reps: Int) -> Double {
        reps <= 1 ? oneRepMax : oneRepMax / (1 + Double(reps) / 30)
    }

    /// The records of `samples`, taken in performed order (the order the store reads them in;
    /// samples of equal time keep the order given): a tie is held by the set performed first.
    public static func compute(samples: [ProgressSample]) -> ExerciseRecords {
        let ordered = samples.enumerated().sorted {
            ($0.element.performedAt, $0.offset) < ($1.element.performedAt, $1.offset)
        }
        .map(\.element)
        var records = ExerciseRecords()
        var byTarget: [Int: RepRecord] = [:]
        func beats(_ value: Double, _ best: DatedBest?) -> Bool {
            best.map { value > $0.value + recordTolerance } ?? true
        }
        for sample in ordered {
            guard let load = sample.knownLoad, sample.reps > 0 else { continue }
            for target in repTargets where sample.reps >= target && load > 0 {
                if byTarget[target].map({ load > $0.loadKg + recordTolerance }) ?? true {
                    byTarget[target] = RepRecord(
                        reps: target, loadKg: load, setReps: sample.reps, date: sample.performedAt,
                        setID: sample.setID)
                }
            }
            if let estimate = OneRepMax.epley(weight: load, reps: sample.reps), beats(estimate, records.bestOneRepMax) {
                records.bestOneRepMax = DatedBest(value: estimate, date: sample.performedAt, id: sample.setID)
            }
            let volume = load * Double(sample.reps)
            if volume > 0, beats(volume, records.bestSetVolume) {
                records.bestSetVolume = DatedBest(value: volume, date: sample.performedAt, id: sample.setID)
            }
        }
        for session in ProgressSeries.sessions(ordered) {
            guard let volume = ProgressMetric.volume.value(of: session.sets) else { continue }
            if beats(volume, records.bestSessionVolume) {
                records.bestSessionVolume = DatedBest(value: volume, date: session.start, id: session.workoutID)
            }
        }
        records.repRecords = repTargets.compactMap { byTarget[$0] }
        if let best = records.bestOneRepMax?.value {
            records.repMaxTable = (1...OneRepMax.maxReps).map {
                RepMax(reps: $0, loadKg: repMax(oneRepMax: best, reps: $0))
            }
        }
        return records
    }
}

// MARK: Calendar

/// One local day's training.
public struct TrainingDay: Sendable, Equatable {
    /// The start of the day in the calendar's time zone.
    public var day: Date
    public var volumeKg: Double
    /// Workouts with a working set that day.
    public var workouts: Int
    public var sets: Int

    public init(day: Date, volumeKg: Double, workouts: Int, sets: Int) {
        self.day = day
        self.volumeKg = volumeKg
        self.workouts = workouts
        self.sets = sets
    }
}

/// A year laid out as a heatmap: a column a week (from the calendar's first weekday), a row a
/// weekday; a cell is a day of that year, or nil before its first day and after its last.
public struct YearGrid: Sendable, Equatable {
    public var year: Int
    /// `columns[week][row]`, seven rows each.
    public var columns: [[Date?]]
    /// The weekday (1 = Sunday … 7 = Saturday, as `Calendar` numbers them) of each row.
    public var rowWeekdays: [Int]
}

public enum TrainingCalendar {
    /// One working set (or any piece of training) on the calendar.
    public struct Entry: Sendable, Equatable {
        public var date: Date
        public var volumeKg: Double
        public var workoutID: String

        public init(date: Date, volumeKg: Double, workoutID: String) {
            self.date = date
            self.volumeKg = volumeKg
            self.workoutID = workoutID
        }
    }

    /// Volume, sets and workouts per local day (the calendar's time zone decides the day: a set
    /// at 23:30 local is that day's, whatever the hour in UTC), oldest first.
    public static func days(entries: [Entry], calendar: Calendar) -> [TrainingDay] {
        var volume: [Date: Double] = [:]
        var sets: [Date: Int] = [:]
        var workouts: [Date: Set<String>] = [:]
        for entry in entries {
            let day = calendar.startOfDay(for: entry.date)
            volume[day, default: 0] += entry.volumeKg.isFinite ? max(0, entry.volumeKg) : 0
            sets[day, default: 0] += 1
            workouts[day, default: []].insert(entry.workoutID)
        }
        return volume.keys.sorted().map { day in
            TrainingDay(
                day: day, volumeKg: volume[day] ?? 0, workouts: workouts[day]?.count ?? 0, sets: sets[day] ?? 0)
        }
    }

    /// The same from progress samples (a set of unknown load adds no volume, but is training).
    public static func days(samples: [ProgressSample], calendar: Calendar) -> [TrainingDay] {
        days(
            entries: samples.map {
                Entry(date: $0.performedAt, volumeKg: $0.volumeKg ?? 0, workoutID: $0.workoutID)
            }, calendar: calendar)
    }

    /// The start of the week `date` is in: its day's start, back to the calendar's first weekday
    /// (counted in days, so a week across a year's end is one week).
    public static func weekStart(of date: Date, calendar: Calendar) -> Date {
        let day = calendar.startOfDay(for: date)
        let weekday = calendar.component(.weekday, from: day)
        let back = (weekday - calendar.firstWeekday + 7) % 7
        return calendar.date(byAdding: .day, value: -back, to: day).map { calendar.startOfDay(for: $0) } ?? day
    }

    /// Consecutive weeks with at least `minimumPerWeek` workouts, counted back from this week when
    /// it already has them, else from last week (a week under way does not break a streak).
    public static func streakWeeks(
        workoutDates: [Date], minimumPerWeek: Int, now: Date, calendar: Calendar
    ) -> Int {
        let minimum = max(1, minimumPerWeek)
        var perWeek: [Date: Int] = [:]
        for date in workoutDates { perWeek[weekStart(of: date, calendar: calendar), default: 0] += 1 }
        func previous(_ week: Date) -> Date? {
            calendar.date(byAdding: .day, value: -7, to: week).map { weekStart(of: $0, calendar: calendar) }
        }
        var week: Date? = weekStart(of: now, calendar: calendar)
        if let current = week, (perWeek[current] ?? 0) < minimum { week = previous(current) }
        var streak = 0
        while let current = week, (perWeek[current] ?? 0) >= minimum {
            streak += 1
            week = previous(current)
        }
        return streak
    }

    /// The heatmap layout of `year`; nil for a year the calendar cannot make.
    public static func yearGrid(year: Int, calendar: Calendar) -> YearGrid? {
        guard let first = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
            let next = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))
        else { return nil }
        let rowWeekdays = (0..<7).map { (calendar.firstWeekday - 1 + $0) % 7 + 1 }
        var columns: [[Date?]] = []
        var weekStart = weekStart(of: first, calendar: calendar)
        while weekStart < next {
            var column: [Date?] = []
            for offset in 0..<7 {
                let day = calendar.date(byAdding: .day, value: offset, to: weekStart).map {
                    calendar.startOfDay(for: $0)
                }
                column.append(day.flatMap { $0 >= first && $0 < next ? $0 : nil })
            }
            columns.append(column)
            guard let following = calendar.date(byAdding: .day, value: 7, to: weekStart) else { break }
            weekStart = Self.weekStart(of: following, calendar: calendar)
        }
        return YearGrid(year: year, columns: columns, rowWeekdays: rowWeekdays)
    }

    /// A shade from 0 (no training) to 4 per trained day, by the quartile of its volume among
    /// the days given; a day trained without volume (cardio, an unknown load) is shade 1.
    public static func shades(_ days: [TrainingDay]) -> [Date: Int] {
        let volumes = days.map(\.volumeKg).filter { $0 > 0 }.sorted()
        var shades: [Date: Int] = [:]
        for day in days where day.sets > 0 || day.volumeKg > 0 {
            shades[day.day] = max(1, level(day.volumeKg, among: volumes))
        }
        return shades
    }

    /// A day's shade, 1 to 4, by where its volume ranks among the year's training days (sorted
    /// ascending): the top quarter 4, the bottom quarter 1; 0 for no volume. The one rule the
    /// CLI's grid and the UI's heatmap both shade by.
    public static func level(_ volume: Double, among sortedVolumes: [Double]) -> Int {
        guard volume > 0, !sortedVolumes.isEmpty else { return 0 }
        var low = 0
        var high = sortedVolumes.count
        while low < high {
            let middle = (low + high) / 2
            if sortedVolumes[middle] <= volume { low = middle + 1 } else { high = middle }
        }
        let count = sortedVolumes.count
        return min(4, max(1, (4 * low + count - 1) / count))
    }
}

// MARK: Muscles

/// The muscles an exercise can work, a fixed list so that every lift's weekly volume adds up.
public enum Muscle: String, Sendable, CaseIterable, Codable {
    case chest, shoulders, triceps, biceps, forearms, lats
    case upperBack = "upper back"
    case traps
    case lowerBack = "lower back"
    case abs, obliques, quads, hamstrings, glutes, calves, adductors, abductors, cardio
    case fullBody = "full body"

    /// The names, comma-separated, for a message.
    public static var vocabulary: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// "chest, triceps" or "chest,Triceps": a comma-separated list of known muscles, each once, in
    /// the order given; an empty list is none. Anything else is refused with the valid names.
    public static func parseList(_ text: String) throws(ValidationError) -> [Muscle] {
        var muscles: [Muscle] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty, text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let muscle = Muscle(rawValue: name) else {
                let shown = DisplayText.replacingControls(String(part.trimmingCharacters(in: .whitespaces)))
                throw ValidationError(
                    field: "muscles", message: "'\(shown)' is not a muscle; the muscles are: \(vocabulary)")
            }
            if !muscles.contains(muscle) { muscles.append(muscle) }
        }
        return muscles
    }
}

/// The muscles an exercise works: the primary ones count each set fully, the secondary ones as
/// half a set.
public struct ExerciseMuscles: Sendable, Equatable {
    public var primary: [Muscle]
    public var secondary: [Muscle]

    public init(primary: [Muscle], secondary: [Muscle]) {
        self.primary = primary
        self.secondary = secondary.filter { !primary.contains($0) }
    }
}

/// One working set for the weekly muscle volume.
public struct MuscleSample: Sendable, Equatable {
    public var performedAt: Date
    public var volumeKg: Double
    public var muscles: ExerciseMuscles

    public init(performedAt: Date, volumeKg: Double, muscles: ExerciseMuscles) {
        self.performedAt = performedAt
        self.volumeKg = volumeKg
        self.muscles = muscles
    }
}

/// One week of one muscle.
public struct MuscleWeek: Sendable, Equatable {
    public var weekStart: Date
    /// Sets, a secondary muscle's counted as halves.
    public var sets: Double
    public var volumeKg: Double

    public init(weekStart: Date, sets: Double, volumeKg: Double) {
        self.weekStart = weekStart
        self.sets = sets
        self.volumeKg = volumeKg
    }
}

/// A muscle's sets and volume over the last weeks.
public struct MuscleVolume: Sendable, Equatable {
    public var muscle: Muscle
    /// The last weeks, newest (this week) first, every one of them listed (zero when untrained).
    public var weeks: [MuscleWeek]

    public init(muscle: Muscle, weeks: [MuscleWeek]) {
        self.muscle = muscle
        self.weeks = weeks
    }

    /// The week starts of the last `weeks` weeks, this week's first.
    public static func weekStarts(weeks: Int, now: Date, calendar: Calendar) -> [Date] {
        var starts: [Date] = []
        var week = TrainingCalendar.weekStart(of: now, calendar: calendar)
        for _ in 0..<max(0, weeks) {
            starts.append(week)
            guard let earlier = calendar.date(byAdding: .day, value: -7, to: week) else { break }
            week = TrainingCalendar.weekStart(of: earlier, calendar: calendar)
        }
        return starts
    }

    /// Per muscle trained in the last `weeks` weeks (in the order of `Muscle.allCases`), its sets
    /// and volume a week: a primary muscle takes the whole set, a secondary one half the set and
    /// half its volume. Sets outside the weeks (or after this one) are not counted.
    public static func compute(samples: [MuscleSample], weeks: Int, now: Date, calendar: Calendar) -> [MuscleVolume] {
        let starts = weekStarts(weeks: weeks, now: now, calendar: calendar)
        let index = Dictionary(uniqueKeysWithValues: starts.enumerated().map { ($1, $0) })
        var table: [Muscle: [MuscleWeek]] = [:]
        for sample in samples {
            guard let week = index[TrainingCalendar.weekStart(of: sample.performedAt, calendar: calendar)] else {
                continue
            }
            let volume = sample.volumeKg.isFinite ? max(0, sample.volumeKg) : 0
            let shares = sample.muscles.primary.map { ($0, 1.0) } + sample.muscles.secondary.map { ($0, 0.5) }
            for (muscle, share) in shares {
                var row = table[muscle] ?? starts.map { MuscleWeek(weekStart: $0, sets: 0, volumeKg: 0) }
                row[week].sets += share
                row[week].volumeKg += volume * share
                table[muscle] = row
            }
        }
        return Muscle.allCases.compactMap { muscle in table[muscle].map { MuscleVolume(muscle: muscle, weeks: $0) } }
    }
}

import Foundation
import SpotterCore
import SpotterStore

/// Where a progress screen goes back to when it closes: the panes, the set form it was opened
/// from (^G), or the history view (`c` there).
public enum ProgressReturn: Sendable, Equatable {
    case browse
    case form(SetForm)
    case history(HistoryView)

    var overlay: Overlay {
        switch self {
        case .browse: .none
        case .form(let form): .setForm(form)
        case .history(let view): .history(view)
        }
    }
}

/// `c`: one exercise's progress. Its chart — a metric per session over a range, `m` and `r`
/// cycle them, ←/→ move the cursor over the sessions — and, on Tab, its records.
public struct ProgressView: Sendable, Equatable {
    public enum Page: Sendable, Equatable {
        case chart, records
    }

    public var exercise: String
    /// The exercise's working sets, in performed order, with the load they moved.
    public var samples: [ProgressSample] = [] {
        didSet { points = Self.points(samples, metric, range, now: now) }
    }
    public var records: ExerciseRecords?
    public var metric: ProgressMetric = .e1rm {
        didSet { points = Self.points(samples, metric, range, now: now) }
    }
    public var range: ProgressRange = .year {
        didSet { points = Self.points(samples, metric, range, now: now) }
    }
    /// One point per session of the range, as the chart draws them: computed when the sets,
    /// the metric or the range change, not on every key and frame.
    public private(set) var points: [ProgressPoint] = []
    /// The instant the range ends at: when the sets were read (the controller's clock).
    public var now = Date.distantPast {
        didSet { points = Self.points(samples, metric, range, now: now) }
    }
    /// The session under the cursor, an index into `points`; nil: the latest.
    public var cursor: Int?
    public var page: Page = .chart
    public var returnTo: ProgressReturn
    /// The unit weights are shown in: the one chosen with `u`, else the one the exercise's newest
    /// set was logged in ("as logged").
    public var unit: WeightUnit = .kg
    /// False until the store has answered: "loading", not "no sets".
    public var loaded = false

    public init(exercise: String, returnTo: ProgressReturn = .browse) {
        self.exercise = exercise
        self.returnTo = returnTo
    }

    static func points(
        _ samples: [ProgressSample], _ metric: ProgressMetric, _ range: ProgressRange, now: Date
    ) -> [ProgressPoint] {
        ProgressSeries.cut(
            ProgressSeries.points(samples: samples, metric: metric), range: range, now: now, calendar: .current)
    }

    /// What the renderer draws: the points in the lift's unit, the cursor on one of them.
    func chartModel(glyphs: Glyphs) -> ChartModel {
        ChartModel(
            progress: points, metric: metric, unit: unit,
            title: "\(exercise) \(glyphs.middleDot) \(metric.title) \(glyphs.middleDot) \(range.title)",
            cursor: points.isEmpty ? nil : min(cursor ?? points.count - 1, points.count - 1))
    }

    /// The records page, line by line: the heaviest load for at least N reps, the best
    /// estimates and volumes with their dates, and what the best estimate predicts per rep count.
    static func recordLines(_ records: ExerciseRecords?, display: WeightUnit?) -> [String] {
        guard let records, !records.isEmpty else { return ["No working sets of this exercise yet"] }
        let unit = display ?? .kg
        func weight(_ kg: Double) -> String {
            Formatting.weight((Formatting.converted(kg, from: .kg, to: unit) * 10).rounded() / 10, unit: unit)
        }
        func day(_ date: Date) -> String { ProgressView.dayText(date) }
        var lines = ["Heaviest for at least … reps"]
        for record in records.repRecords {
            let reps = record.reps == 1 ? "1 rep " : "\(record.reps) reps"
            let set = record.setReps == record.reps ? "" : "  (a set of \(record.setReps))"
            lines.append(
                "  \(reps.padding(toLength: 8, withPad: " ", startingAt: 0))\(weight(record.loadKg).padding(toLength: 12, withPad: " ", startingAt: 0))\(day(record.date))\(set)"
            )
        }
        lines.append("")
        func best(_ title: String, _ value: DatedBest?) {
            guard let value else { return }
            lines.append(
                "\(title.padding(toLength: 22, withPad: " ", startingAt: 0))\(weight(value.value).padding(toLength: 12, withPad: " ", startingAt: 0))\(day(value.date))"
            )
        }
        best("Best estimated 1RM", records.bestOneRepMax)
        best("Best set volume", records.bestSetVolume)
        best("Best session volume", records.bestSessionVolume)
        if !records.repMaxTable.isEmpty {
            lines.append("")
            lines.append("What the best estimate predicts")
            var row = "  "
            for (index, entry) in records.repMaxTable.enumerated() {
                row += "\(entry.reps)RM \(weight(entry.loadKg))".padding(toLength: 16, withPad: " ", startingAt: 0)
                if index % 4 == 3 {
                    lines.append(row)
                    row = "  "
                }
            }
            if row != "  " { lines.append(row) }
        }
        return lines
    }

    /// "12 Mar 2026": the day a record was set, in this device's time zone, as the chart writes it.
    static func dayText(_ date: Date) -> String {
        ProgressChartView.dateText(date, calendar: .current)
    }
}

/// `Y`: a year of training as a heatmap, the streak of weeks with enough workouts, and the
/// workouts of the selected day (Enter lists them, Enter again opens one).
public struct CalendarView: Sendable, Equatable {
    public var year: Int
    public var days: [TrainingDay] = []
    /// Weeks in a row with at least `minimumPerWeek` workouts.
    public var streak = 0
    public var minimumPerWeek = 1
    /// The day weeks start on (1 Sunday, 2 Monday): `spotter config week-start`, else the locale's.
    public var firstWeekday = Calendar.current.firstWeekday
    public var selected: Date
    /// Enter on a day: its workouts (id and name), one of them selected.
    public var dayWorkouts: [(id: UUID, title: String)]?
    public var dayWorkoutSelected = 0
    public var loaded = false

    public init(year: Int, selected: Date) {
        self.year = year
        self.selected = selected
    }

    public static func == (left: CalendarView, right: CalendarView) -> Bool {
        left.year == right.year && left.days == right.days && left.streak == right.streak
            && left.minimumPerWeek == right.minimumPerWeek && left.selected == right.selected
            && left.dayWorkouts?.map(\.id) == right.dayWorkouts?.map(\.id)
            && left.dayWorkouts?.map(\.title) == right.dayWorkouts?.map(\.title)
            && left.dayWorkoutSelected == right.dayWorkoutSelected && left.loaded == right.loaded
            && left.firstWeekday == right.firstWeekday
    }

    /// The training day of `selected`, if it is one.
    func day(_ date: Date, calendar: Calendar) -> TrainingDay? {
        days.first { calendar.isDate($0.day, inSameDayAs: date) }
    }
}

/// `V`: sets and volume per muscle, this week and the ones before.
public struct MuscleVolumeView: Sendable, Equatable {
    public var report: MuscleVolumeReport?
    public var scroll = 0

    public init(report: MuscleVolumeReport? = nil) {
        self.report = report
    }
}

extension AppState {
    mutating func reduceProgress(_ view: ProgressView, _ action: KeyAction?) -> [AppEffect] {
        var view = view
        let count = view.points.count
        let cursor = count == 0 ? nil : min(view.cursor ?? count - 1, count - 1)
        switch action {
        case .cancel:
            overlay = view.returnTo.overlay
            return []
        case .cycleMetric:
            view.metric = view.metric.next
            view.cursor = nil
        case .cycleRange:
            view.range = view.range.next
            view.cursor = nil
        case .previousPoint:
            if let cursor { view.cursor = max(0, cursor - 1) }
        case .nextPoint:
            if let cursor { view.cursor = min(count - 1, cursor + 1) }
        case .moveToFirst:
            if count > 0 { view.cursor = 0 }
        case .moveToLast:
            view.cursor = nil
        case .switchProgressPage:
            view.page = view.page == .chart ? .records : .chart
        default:
            return []
        }
        overlay = .progress(view)
        return []
    }

    mutating func reduceCalendar(_ view: CalendarView, _ action: KeyAction?) -> [AppEffect] {
        var view = view
        if let workouts = view.dayWorkouts {
            switch action {
            case .cancel:
                view.dayWorkouts = nil
            case .moveDown, .nextPoint:
                view.dayWorkoutSelected = min(max(0, workouts.count - 1), view.dayWorkoutSelected + 1)
            case .moveUp, .previousPoint:
                view.dayWorkoutSelected = max(0, view.dayWorkoutSelected - 1)
            case .submit:
                guard workouts.indices.contains(view.dayWorkoutSelected) else { return [] }
                overlay = .none
                return [.openWorkout(id: workouts[view.dayWorkoutSelected].id)]
            default:
                return []
            }
            overlay = .calendar(view)
            return []
        }
        let calendar = Calendar.current
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .previousPoint:
            view.selected = CalendarHeatmapView.move(view.selected, .left, year: view.year, calendar: calendar)
        case .nextPoint:
            view.selected = CalendarHeatmapView.move(view.selected, .right, year: view.year, calendar: calendar)
        case .moveUp:
            view.selected = CalendarHeatmapView.move(view.selected, .up, year: view.year, calendar: calendar)
        case .moveDown:
            view.selected = CalendarHeatmapView.move(view.selected, .down, year: view.year, calendar: calendar)
        case .pageUp:
            // The years the calendar is laid out for, as on the command line.
            guard view.year > 1900 else { return [] }
            return [.loadCalendar(year: view.year - 1, minimumPerWeek: view.minimumPerWeek)]
        case .pageDown:
            guard view.year < 9999 else { return [] }
            return [.loadCalendar(year: view.year + 1, minimumPerWeek: view.minimumPerWeek)]
        case .morePerWeek:
            return [.loadCalendar(year: view.year, minimumPerWeek: min(14, view.minimumPerWeek + 1))]
        case .fewerPerWeek:
            return [.loadCalendar(year: view.year, minimumPerWeek: max(1, view.minimumPerWeek - 1))]
        case .submit:
            return [.loadCalendarDay(view.selected)]
        default:
            return []
        }
        overlay = .calendar(view)
        return []
    }

    mutating func reduceMuscleVolume(_ view: MuscleVolumeView, _ action: KeyAction?) -> [AppEffect] {
        var view = view
        let count = view.report?.muscles.count ?? 0
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .moveDown:
            view.scroll = min(max(0, count - 1), view.scroll + 1)
        case .moveUp:
            view.scroll = max(0, view.scroll - 1)
        default:
            return []
        }
        overlay = .muscleVolume(view)
        return []
    }
}

extension Renderer {
    /// The progress screens take the whole screen but the header and the bottom bar, which
    /// shows their keys.
    private static func progressFrame(_ state: AppState) -> (x: Int, y: Int, width: Int, height: Int) {
        (0, 1, state.columns, state.rows - 2)
    }

    static func drawProgress(_ view: ProgressView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let frame = progressFrame(state)
        for row in frame.y..<(frame.y + frame.height) { buffer.fill(x: frame.x, y: row, count: frame.width) }
        let page = view.page == .chart ? "chart" : "records"
        drawBox(
            &buffer, g, x: frame.x, y: frame.y, width: frame.width, height: frame.height,
            title: "Progress \(g.middleDot) \(view.exercise) \(g.middleDot) \(page)", focused: true)
        let innerX = frame.x + 2
        let innerWidth = frame.width - 4
        let innerY = frame.y + 1
        let innerHeight = frame.height - 2
        if !view.loaded {
            buffer.put(
                "Reading the sets…".clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: innerY, style: .dim)
        } else if view.page == .chart {
            ProgressChartView.render(
                view.chartModel(glyphs: g), into: &buffer, x: innerX,
                y: innerY, width: innerWidth, height: innerHeight, glyphs: g, braille: g == .unicode)
        } else {
            let lines = ProgressView.recordLines(view.records, display: view.unit)
            for (index, line) in lines.prefix(innerHeight).enumerated() {
                buffer.put(
                    line.clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: innerY + index,
                    style: index == 0 ? .bold : .plain)
            }
        }
    }

    static func drawCalendar(_ view: CalendarView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let calendar = Calendar.current
        let frame = progressFrame(state)
        for row in frame.y..<(frame.y + frame.height) { buffer.fill(x: frame.x, y: row, count: frame.width) }
        let workouts = view.days.reduce(0) { $0 + $1.workouts }
        drawBox(
            &buffer, g, x: frame.x, y: frame.y, width: frame.width, height: frame.height,
            title:
                "Training calendar \(g.middleDot) \(view.year) \(g.middleDot) \(Formatting.counted(workouts, "workout"))",
            focused: true)
        let innerX = frame.x + 2
        let innerWidth = frame.width - 4
        var y = frame.y + 1
        // In the unit the day's line below names, so the heatmap's own label agrees with it.
        let shownUnit = state.displayUnit ?? .kg
        var volumes: [Date: Double] = [:]
        for day in view.days {
            // A day of sets that moved no known load (a bodyweight lift before any weigh-in) is
            // still a training day: the lightest shade, not the blank of a rest day.
            let volume = Formatting.converted(day.volumeKg, from: .kg, to: shownUnit).rounded()
            volumes[day.day] = day.sets > 0 ? max(volume, 0.001) : volume
        }
        CalendarHeatmapView.render(
            days: volumes, year: view.year, firstWeekday: view.firstWeekday, calendar: calendar,
            selected: view.selected, into: &buffer, x: innerX, y: y, width: innerWidth, height: 9, glyphs: g)
        y += 10
        let weeks = view.streak == 1 ? "1 week" : "\(view.streak) weeks"
        let per = view.minimumPerWeek == 1 ? "a workout" : "\(view.minimumPerWeek) workouts"
        buffer.put(
            "Streak: \(weeks) in a row with \(per) or more (+/- change)".clipped(to: innerWidth, ellipsis: g.ellipsis),
            x: innerX, y: y, style: .bold)
        y += 1
        let selected = view.day(view.selected, calendar: calendar)
        var line = ProgressView.dayText(view.selected) + ": "
        if let selected {
            let unit = state.displayUnit ?? .kg
            let volume = Formatting.weight(
                Formatting.converted(selected.volumeKg, from: .kg, to: unit).rounded(), unit: unit)
            let count = selected.workouts == 1 ? "1 workout" : "\(selected.workouts) workouts"
            line += "\(count), \(Formatting.counted(selected.sets, "set")), \(volume) moved (Enter lists them)"
        } else {
            line += "no training"
        }
        buffer.put(line.clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: y)
        y += 1
        if let list = view.dayWorkouts {
            let rows = max(1, frame.y + frame.height - 1 - y)
            if list.isEmpty {
                buffer.put(
                    "No workouts that day".clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: y, style: .dim)
            }
            let offset = scrollOffset(selected: view.dayWorkoutSelected, count: list.count, visibleRows: rows)
            for index in offset..<min(list.count, offset + rows) {
                let chosen = index == view.dayWorkoutSelected
                buffer.put(
                    "\(chosen ? g.selected : " ") \(DisplayText.terminalSafe(list[index].title))".clipped(
                        to: innerWidth, ellipsis: g.ellipsis),
                    x: innerX, y: y + index - offset, style: chosen ? .reverse : .plain)
            }
        }
    }

    static func drawMuscleVolume(_ view: MuscleVolumeView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let frame = progressFrame(state)
        for row in frame.y..<(frame.y + frame.height) { buffer.fill(x: frame.x, y: row, count: frame.width) }
        drawBox(
            &buffer, g, x: frame.x, y: frame.y, width: frame.width, height: frame.height,
            title: "Weekly volume per muscle", focused: true)
        let innerX = frame.x + 2
        let innerWidth = frame.width - 4
        let lines = MuscleVolumeView.lines(view.report, display: state.displayUnit, columns: innerWidth)
        let rows = frame.height - 2
        guard let header = lines.first else { return }
        buffer.put(header.clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: frame.y + 1, style: .bold)
        let body = Array(lines.dropFirst())
        let start = min(view.scroll, max(0, body.count - (rows - 1)))
        for (index, line) in body.dropFirst(start).prefix(rows - 1).enumerated() {
            buffer.put(line.clipped(to: innerWidth, ellipsis: g.ellipsis), x: innerX, y: frame.y + 2 + index)
        }
    }
}

extension MuscleVolumeView {
    /// The table: a header, then one line per muscle — this week's sets and volume, then the
    /// sets of each week before it, newest first, as many weeks as the width holds.
    static func lines(_ report: MuscleVolumeReport?, display: WeightUnit?, columns: Int) -> [String] {
        guard let report else { return ["Reading the sets…"] }
        guard !report.muscles.isEmpty || report.unassignedSets > 0 else {
            return ["No working sets in the last \(report.weeks.count) weeks"]
        }
        let unit = display ?? .kg
        let earlier = max(0, min(report.weeks.count - 1, (columns - 40) / 6))
        var header = "Muscle".padding(toLength: 14, withPad: " ", startingAt: 0)
        header += "this week".padding(toLength: 26, withPad: " ", startingAt: 0)
        for index in 0..<earlier {
            header += "-\(index + 1)w".leftPadded(to: 6)
        }
        var lines = [header]
        for muscle in report.muscles {
            guard let now = muscle.weeks.first else { continue }
            var line = muscle.muscle.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
            // Volume to the whole kilogram or pound: "6754 kg", not "6753.75 kg".
            let volume = Formatting.weight(
                Formatting.converted(now.volumeKg, from: .kg, to: unit).rounded(), unit: unit)
            line += "\(Formatting.number(now.sets)) sets  \(volume)".padding(toLength: 26, withPad: " ", startingAt: 0)
            for week in muscle.weeks.dropFirst().prefix(earlier) {
                line += Formatting.number(week.sets).leftPadded(to: 6)
            }
            lines.append(line)
        }
        if report.unassignedSets > 0 {
            // Nothing is left out silently: sets of lifts with no muscles named are counted here.
            lines.append("")
            lines.append(
                "\(Formatting.counted(report.unassignedSets, "set")) of lifts with no muscles named: "
                    + report.unassignedExercises.joined(separator: ", ")
                    + " (spotter exercises muscles NAME chest,triceps)")
        }
        return lines
    }
}

extension String {
    /// The text right-aligned in `width` columns (longer text is kept whole).
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension AppController {
    /// "07:30": when a workout of the calendar's day started, in this device's time zone.
    static func timeText(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let hour = parts.hour ?? 0
        let minute = parts.minute ?? 0
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

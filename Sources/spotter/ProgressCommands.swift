import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI

/// `spotter chart EXERCISE`: one value per session of an exercise, records marked.
struct ChartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chart",
        abstract: "An exercise's progress: one value per session (estimated 1RM, heaviest set, most reps or volume).",
        discussion: """
            spotter chart                      (the exercise logged most)
            spotter chart squat
            spotter chart "Bench Press (Barbell)" --metric volume --range 1y
            spotter chart deadlift --json
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise (a catalogue name, an alias or a part of one); default: the one logged most.")
    var exercise: String?
    @Option(help: "e1rm, heaviest, reps or volume.") var metric: String = ProgressMetric.e1rm.rawValue
    @Option(help: "3m, 1y or all.") var range: String = ProgressRange.all.rawValue
    @Option(parsing: .unconditional, help: "The chart's width in columns (20 to 400).") var width: String = "60"
    @Option(parsing: .unconditional, help: "The chart's height in lines (5 to 200).") var height: String = "12"
    @Flag(help: "A line per session (date, value, a star for a record) under the chart.") var list = false
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        guard let metric = ProgressMetric(rawValue: metric.lowercased()) else {
            throw CLIError(
                "--metric is one of \(ProgressMetric.allCases.map(\.rawValue).joined(separator: ", ")), not '\(shownName(metric))'",
                code: 2)
        }
        guard let range = ProgressRange(rawValue: range.lowercased()) else {
            throw CLIError(
                "--range is one of \(ProgressRange.allCases.map(\.rawValue).joined(separator: ", ")), not '\(shownName(range))'",
                code: 2)
        }
        let columns = try ProgressCommands.integer(width, option: "--width", in: 20...400)
        let lines = try ProgressCommands.integer(height, option: "--height", in: 5...200)
        let store = try global.openStore(readOnly: true)
        let name: String
        if let exercise {
            name = try ProgressCommands.exercise(exercise, store: store)
        } else if let most = try store.queries.mostLoggedExercise() {
            name = most
        } else {
            throw CLIError("no working sets yet: log some, then chart them")
        }
        let all = ProgressSeries.points(samples: try store.queries.progressSamples(exercise: name), metric: metric)
        let points = ProgressSeries.cut(
            all, range: range, now: SystemClock().now(), calendar: try store.preferences.progressCalendar())
        if json {
            printJSON(
                .object([
                    "exercise": .string(name), "metric": .string(metric.rawValue), "range": .string(range.rawValue),
                    "unit": .string(metric.isWeight ? "kg" : "reps"),
                    "points": .array(points.map(ProgressCommands.pointJSON)),
                ]))
            return
        }
        let unit = try store.preferences.displayUnit ?? store.queries.loggedUnit(exercise: name) ?? .kg
        if points.isEmpty {
            print(shownName("\(name): \(metric.title), \(range.title.lowercased())"))
            print(
                all.isEmpty
                    ? "  no working sets with a value for this yet"
                        + (try store.queries.loadType(of: name).usesBodyWeight
                            ? " (a bodyweight lift counts once a body weight is logged before it: spotter bodyweight log)"
                            : "")
                    : "  nothing in this range (\(Formatting.counted(all.count, "session")) in all: --range all)")
            return
        }
        let glyphs = Glyphs.forLocale()
        print(
            chartPicture(
                title: shownName("\(name): \(metric.title), \(range.title.lowercased())"), points: points,
                metric: metric, unit: unit, width: columns, height: lines, glyphs: glyphs))
        if list { print(chartText(points: points, metric: metric, unit: unit, width: columns, height: lines)) }
    }
}

/// The chart the UI draws, as text: the same renderer into a buffer of `width` × `height`, in
/// braille dots on a UTF-8 terminal and plain characters otherwise, trailing spaces trimmed.
func chartPicture(
    title: String, points: [ProgressPoint], metric: ProgressMetric, unit: WeightUnit, width: Int, height: Int,
    glyphs: Glyphs
) -> String {
    let model = ChartModel(progress: points, metric: metric, unit: unit, title: title, cursor: points.count - 1)
    var buffer = ScreenBuffer(width: width, height: height)
    ProgressChartView.render(
        model, into: &buffer, x: 0, y: 0, width: width, height: height, glyphs: glyphs, braille: glyphs == .unicode,
        timeZone: .current)
    if glyphs == .ascii { buffer.transliterateToASCII() }
    return (0..<height).map { buffer.line($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        .joined(separator: "\n")
}

/// The series as a line per session, "date  value unit  ★" (★ when the session set a record),
/// values aligned: `spotter chart --list`.
func chartText(points: [ProgressPoint], metric: ProgressMetric, unit: WeightUnit, width: Int, height: Int) -> String {
    let star = Glyphs.forLocale().star
    let values = points.map { ProgressCommands.shown($0.value, metric: metric, unit: unit) }
    let room = values.map(DisplayWidth.of).max() ?? 0
    return zip(points, values).map { point, value in
        var line = "  \(ProgressCommands.day(point.date))  \(value.leftPadded(to: room))"
        line += metric.isWeight ? " \(unit.rawValue)" : " reps"
        if point.isRecord { line += "  \(star)" }
        return line
    }.joined(separator: "\n")
}

/// `spotter records EXERCISE`: rep records, best estimate and volumes, and the rep maxes they predict.
struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "An exercise's records: heaviest for 1 to 12 reps, estimated 1RM, best volumes, rep maxes.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise (a catalogue name, an alias or a part of one).") var exercise: String
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let name = try ProgressCommands.exercise(exercise, store: store)
        let records = try store.queries.exerciseRecords(exercise: name)
        let loadType = try store.queries.loadType(of: name)
        if json {
            printJSON(Self.json(name: name, records: records, loadType: loadType))
            return
        }
        let unit = try store.preferences.displayUnit ?? store.queries.loggedUnit(exercise: name) ?? .kg
        print(Self.text(name: name, records: records, loadType: loadType, unit: unit))
    }

    static func text(name: String, records: ExerciseRecords, loadType: LoadType, unit: WeightUnit) -> String {
        func weight(_ kilograms: Double) -> String {
            "\(ProgressCommands.shown(kilograms, metric: .heaviest, unit: unit)) \(unit.rawValue)"
        }
        var lines = [shownName("\(name): records (warm-ups excluded)")]
        if loadType.usesBodyWeight { lines.append("  loads count the body weight at each set's time") }
        guard !records.isEmpty else {
            lines.append("  no working sets with a known load yet")
            return lines.joined(separator: "\n")
        }
        lines.append("Heaviest for at least N reps")
        let loads = records.repRecords.map { weight($0.loadKg) }
        let room = loads.map(DisplayWidth.of).max() ?? 0
        for (record, load) in zip(records.repRecords, loads) {
            let label = "\(record.reps) \(record.reps == 1 ? "rep" : "reps")".padded(to: 8)
            let did = record.setReps == record.reps ? "" : "  (× \(record.setReps))"
            lines.append("  \(label)\(load.leftPadded(to: room))  \(ProgressCommands.day(record.date))\(did)")
        }
        if let best = records.bestOneRepMax {
            lines.append("Estimated 1RM        \(weight(best.value))  \(ProgressCommands.day(best.date))")
        }
        if let best = records.bestSetVolume {
            lines.append("Best set volume      \(weight(best.value))  \(ProgressCommands.day(best.date))")
        }
        if let best = records.bestSessionVolume {
            lines.append("Best session volume  \(weight(best.value))  \(ProgressCommands.day(best.date))")
        }
        if !records.repMaxTable.isEmpty {
            lines.append("Rep maxes the estimated 1RM predicts")
            let predicted = records.repMaxTable.map { weight($0.loadKg) }
            let width = predicted.map(DisplayWidth.of).max() ?? 0
            for (entry, load) in zip(records.repMaxTable, predicted) {
                lines.append("  \(String(entry.reps).leftPadded(to: 2)) × \(load.leftPadded(to: width))")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func json(name: String, records: ExerciseRecords, loadType: LoadType) -> JSONValue {
        func best(_ value: DatedBest?, id key: String) -> JSONValue {
            guard let value else { return .null }
            return .object([
                "value_kg": .double(value.value), "date": .string(Timestamp.format(value.date)), key: .string(value.id),
            ])
        }
        return .object([
            "exercise": .string(name), "load_type": .string(loadType.rawValue),
            "rep_records": .array(
                records.repRecords.map { record in
                    .object([
                        "reps": .int(Int64(record.reps)), "load_kg": .double(record.loadKg),
                        "set_reps": .int(Int64(record.setReps)), "date": .string(Timestamp.format(record.date)),
                        "set_id": .string(record.setID),
                    ])
                }),
            "best_e1rm": best(records.bestOneRepMax, id: "set_id"),
            "best_set_volume": best(records.bestSetVolume, id: "set_id"),
            "best_session_volume": best(records.bestSessionVolume, id: "workout_id"),
            "rep_maxes": .array(
                records.repMaxTable.map { .object(["reps": .int(Int64($0.reps)), "load_kg": .double($0.loadKg)]) }),
        ])
    }
}

/// `spotter calendar`: the year's training as a heatmap, and the weekly streak.
struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract:
            "A year of training as a heatmap (weeks across, weekdays down, shaded by volume) and the weekly streak."
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: "The year (default: this year).") var year: String?
    @Option(
        name: .customLong("weeks-min"), parsing: .unconditional,
        help: "Workouts a week needs to count for the streak (1 to 14; default: spotter config streak).")
    var weeksMin: String?
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let calendar = try store.preferences.progressCalendar()
        let minimum =
            try weeksMin.map { try ProgressCommands.integer($0, option: "--weeks-min", in: 1...14) }
            ?? store.preferences.streakGoal
        let year =
            try self.year.map { try ProgressCommands.integer($0, option: "--year", in: 1900...9999) }
            ?? calendar.component(.year, from: SystemClock().now())
        guard let grid = TrainingCalendar.yearGrid(year: year, calendar: calendar) else {
            throw CLIError("--year \(year) cannot be laid out", code: 2)
        }
        let days = try store.queries.trainingDays(year: year, calendar: calendar)
        let streak = TrainingCalendar.streakWeeks(
            workoutDates: try store.queries.workoutStarts(), minimumPerWeek: minimum, now: SystemClock().now(),
            calendar: calendar)
        let shades = TrainingCalendar.shades(days)
        if json {
            let listed: [JSONValue] = days.map { day in
                .object([
                    "date": .string(ProgressCommands.day(day.day)), "volume_kg": .double(day.volumeKg),
                    "sets": .int(Int64(day.sets)), "workouts": .int(Int64(day.workouts)),
                    "shade": .int(Int64(shades[day.day] ?? 0)),
                ])
            }
            let document: [String: JSONValue] = [
                "year": .int(Int64(year)), "first_weekday": .int(Int64(calendar.firstWeekday)),
                "streak_weeks": .int(Int64(streak)), "weeks_min": .int(Int64(minimum)), "days": .array(listed),
            ]
            printJSON(.object(document))
            return
        }
        let workouts = days.reduce(0) { $0 + $1.workouts }
        print(
            "\(year): \(days.count) training \(days.count == 1 ? "day" : "days"), \(Formatting.counted(workouts, "workout"))"
        )
        print(Self.heatmap(grid, shades: shades, calendar: calendar, unicode: Glyphs.localeIsUTF8()))
        let glyphs = Self.shadeGlyphs(unicode: Glyphs.localeIsUTF8())
        print("  less \(glyphs[1...].joined()) more (volume by quartile)")
        let weeks = streak == 1 ? "week" : "weeks"
        print("streak: \(streak) \(weeks) (at least \(minimum) \(minimum == 1 ? "workout" : "workouts") a week)")
    }

    /// Shade 0 to 4: nothing, then the volume quartiles.
    static func shadeGlyphs(unicode: Bool) -> [String] {
        unicode ? [" ", "░", "▒", "▓", "█"] : [" ", ".", ":", "*", "#"]
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// The grid as text: a row of month names over their first weeks, then a row a weekday.
    static func heatmap(_ grid: YearGrid, shades: [Date: Int], calendar: Calendar, unicode: Bool) -> String {
        let glyphs = shadeGlyphs(unicode: unicode)
        var months = [Character](repeating: " ", count: grid.columns.count + 3)
        for (index, column) in grid.columns.enumerated() {
            // A month's name over the week its first day is in, when there is room.
            guard let first = column.compactMap({ $0 }).first(where: { calendar.component(.day, from: $0) == 1 })
            else { continue }
            let name = Array(monthNames[(calendar.component(.month, from: first) + 11) % 12])
            let free = months[max(0, index - 1)..<min(months.count, index + name.count)].allSatisfy { $0 == " " }
            guard index + name.count <= months.count, free else { continue }
            for (offset, letter) in name.enumerated() { months[index + offset] = letter }
        }
        var lines = ["    " + String(months).trimmingTrailingSpaces()]
        for (row, weekday) in grid.rowWeekdays.enumerated() {
            var line = weekdayNames[(weekday - 1) % 7] + " "
            for column in grid.columns {
                line += column[row].map { glyphs[min(4, max(0, shades[$0] ?? 0))] } ?? " "
            }
            lines.append(line.trimmingTrailingSpaces())
        }
        return lines.joined(separator: "\n")
    }
}

/// `spotter volume`: sets and volume per muscle per week.
struct VolumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Sets and volume per muscle per week (a secondary muscle counts half a set).")

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: "How many weeks, this one first (1 to 52).") var weeks: String = "8"
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let count = try ProgressCommands.integer(weeks, option: "--weeks", in: 1...52)
        let store = try global.openStore(readOnly: true)
        let report = try store.queries.muscleVolume(weeks: count, calendar: try store.preferences.progressCalendar())
        if json {
            printJSON(
                .object([
                    "weeks": .array(report.weeks.map { .string(ProgressCommands.day($0)) }),
                    "muscles": .array(
                        report.muscles.map { muscle in
                            .object([
                                "muscle": .string(muscle.muscle.rawValue),
                                "weeks": .array(
                                    muscle.weeks.map { week in
                                        .object([
                                            "week_start": .string(ProgressCommands.day(week.weekStart)),
                                            "sets": .double(week.sets), "volume_kg": .double(week.volumeKg),
                                        ])
                                    }),
                            ])
                        }),
                    "unassigned_sets": .int(Int64(report.unassignedSets)),
                    "unassigned_exercises": .array(report.unassignedExercises.map(JSONValue.string)),
                ]))
            return
        }
        let unit = try store.preferences.displayUnit ?? .kg
        print(Self.text(report, unit: unit))
    }

    static func text(_ report: MuscleVolumeReport, unit: WeightUnit) -> String {
        guard !report.muscles.isEmpty else {
            return
                (report.unassignedSets == 0
                ? "No working sets in the last \(report.weeks.count) weeks." : "No sets of lifts with muscles named.")
                + unassigned(report)
        }
        let nameRoom = max(6, report.muscles.map { DisplayWidth.of($0.muscle.rawValue) }.max() ?? 0)
        let header = report.weeks.enumerated().map { index, start in
            (index == 0 ? "this wk" : String(ProgressCommands.day(start).dropFirst(5))).leftPadded(to: 8)
        }.joined()
        var lines = ["Sets per week (a secondary muscle counts half)", "  " + "muscle".padded(to: nameRoom) + header]
        for muscle in report.muscles {
            let cells = muscle.weeks.map { Formatting.number(($0.sets * 2).rounded() / 2).leftPadded(to: 8) }
            lines.append("  " + muscle.muscle.rawValue.padded(to: nameRoom) + cells.joined())
        }
        lines.append("Volume per week (\(unit.rawValue) × reps)")
        lines.append("  " + "muscle".padded(to: nameRoom) + header)
        for muscle in report.muscles {
            let cells = muscle.weeks.map {
                Formatting.number(Formatting.converted($0.volumeKg, from: .kg, to: unit).rounded()).leftPadded(to: 8)
            }
            lines.append("  " + muscle.muscle.rawValue.padded(to: nameRoom) + cells.joined())
        }
        return lines.joined(separator: "\n") + unassigned(report)
    }

    private static func unassigned(_ report: MuscleVolumeReport) -> String {
        guard report.unassignedSets > 0 else { return "" }
        let names = report.unassignedExercises.prefix(5).map { shownName($0) }.joined(separator: ", ")
        return
            "\n\(report.unassignedSets) \(report.unassignedSets == 1 ? "set" : "sets") of exercises with no muscles"
            + " (\(names)\(report.unassignedExercises.count > 5 ? ", …" : "")): spotter exercises muscles NAME chest,triceps"
    }
}

/// `spotter exercises muscles NAME [PRIMARY] [--secondary x,y]`: a custom exercise's muscles.
struct ExercisesMuscles: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "muscles",
        abstract: "Show an exercise's muscles, or set a custom exercise's (kept on this device, not synced).",
        discussion: """
            spotter exercises muscles "Bench Press (Barbell)"
            spotter exercises muscles "Landmine Press" shoulders,chest --secondary triceps
            The muscles: \(Muscle.vocabulary).
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise.") var exercise: String
    @Argument(help: "Its primary muscles, comma-separated.") var primary: String?
    @Option(help: "Its secondary muscles, comma-separated (each counts half a set).") var secondary: String?

    func run() async throws {
        if primary == nil, secondary != nil {
            throw CLIError("--secondary goes with the primary muscles: NAME PRIMARY --secondary LIST", code: 2)
        }
        var muscles: ExerciseMuscles?
        if let primary {
            do {
                let first = try Muscle.parseList(primary)
                guard !first.isEmpty else {
                    throw SpotterCore.ValidationError(
                        field: "muscles",
                        message: "name at least one primary muscle; the muscles are: \(Muscle.vocabulary)")
                }
                muscles = ExerciseMuscles(primary: first, secondary: try Muscle.parseList(secondary ?? ""))
            } catch let error as SpotterCore.ValidationError {
                throw CLIError(error.message, code: 2)
            }
        }
        let store = try global.openStore(readOnly: muscles == nil)
        let name = try ProgressCommands.exercise(exercise, store: store)
        let info: ExerciseMuscleInfo
        do {
            if let muscles {
                info = try store.workoutLog.setMuscles(muscles, exercise: name)
            } else {
                info = try store.queries.muscles(of: name)
            }
        } catch StoreError.notAllowed(let why) {
            throw CLIError(why, code: 2)
        } catch StoreError.notFound(let what) {
            throw CLIError("not found: \(what)", code: 2)
        }
        print(shownName(Self.line(info)))
    }

    static func line(_ info: ExerciseMuscleInfo) -> String {
        guard let muscles = info.muscles else {
            return "\(info.exercise): no muscles set (spotter exercises muscles \"\(info.exercise)\" chest,triceps)"
        }
        var line = "\(info.exercise): primary \(muscles.primary.map(\.rawValue).joined(separator: ", "))"
        if !muscles.secondary.isEmpty {
            line += "; secondary \(muscles.secondary.map(\.rawValue).joined(separator: ", "))"
        }
        return line
    }
}

enum ProgressCommands {
    /// The calendar a local day is read in: the device's time zone. (Weeks are counted in the
    /// store's `progressCalendar`, which knows the lifter's first day of the week.)
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        calendar.firstWeekday = Calendar.current.firstWeekday
        return calendar
    }

    /// "2026-06-08", the local day of `date`: what every day the CLI prints as text means (a
    /// workout at 07:30 in Tokyo is that morning's, not the UTC day before).
    static func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// A value of `metric` as shown: a weight in `unit` to a tenth, reps whole.
    static func shown(_ value: Double, metric: ProgressMetric, unit: WeightUnit) -> String {
        guard metric.isWeight else { return Formatting.number(value.rounded()) }
        let converted = value * WeightUnit.kg.kilograms / unit.kilograms
        return Formatting.number((converted * 10).rounded() / 10)
    }

    static func pointJSON(_ point: ProgressPoint) -> JSONValue {
        .object([
            "date": .string(Timestamp.format(point.date)), "day": .string(day(point.date)),
            "value": .double(point.value), "record": .bool(point.isRecord), "workout_id": .string(point.workoutID),
        ])
    }

    /// A whole number given to `option`, within `range`; anything else exits 2 naming it.
    static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw CLIError(
                "\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(shownName(text))'",
                code: 2)
        }
        return value
    }

    /// An exercise named on the command line, as `stats` and the type-ahead take it: its list
    /// name (any case, an alias), or the one exercise a part of a name matches. A name nothing
    /// knows, or a part several match, exits 2 with suggestions.
    static func exercise(_ raw: String, store: SpotterStore) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        do { try Validation.exercise(name) } catch {
            throw CLIError("the exercise name \(error.message)", code: 2)
        }
        if let known = try store.queries.knownExercise(name) { return known }
        if let logged = try store.queries.exerciseStats(exercise: name).first?.exercise { return logged }
        let matches = try store.queries.exercises(matching: name, limit: 11)
        if matches.count == 1 { return matches[0] }
        guard matches.isEmpty else {
            let listed = matches.prefix(10).joined(separator: "; ") + (matches.count > 10 ? "; …" : "")
            throw CLIError("'\(name)' matches several exercises: \(listed). Name one", code: 2)
        }
        // Suggestions as `stats` makes them: a few names that share a word with it.
        let words = name.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ")" })
        var candidates: [String] = []
        for word in words where word.count >= 3 && candidates.count < 3 {
            for match in try store.queries.exercises(matching: String(word), limit: 3) where !candidates.contains(match)
            {
                candidates.append(match)
            }
        }
        let hint = candidates.isEmpty ? "" : "; did you mean \(candidates.prefix(3).joined(separator: ", "))?"
        throw CLIError("no exercise named '\(name)'\(hint)", code: 2)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

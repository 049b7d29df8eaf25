import Foundation
import SpotterCore

/// An arrow key on the training calendar: a column is a week, a row a weekday.
public enum CalendarMove: Sendable, Equatable {
    /// A week earlier.
    case left
    /// A week later.
    case right
    /// A day earlier.
    case up
    /// A day later.
    case down
}

/// A year of training as a grid: one column per week, one row per weekday, each day shaded by
/// its volume's quartile among the year's training days. A pure function of its inputs.
public enum CalendarHeatmapView {
    /// Columns taken by the weekday labels ("Mon ").
    static let labelWidth = 4

    /// Where the year's days sit: day `index` (0 for 1 January) is in column
    /// `(leading + index) / 7`, row `(leading + index) % 7`.
    struct YearLayout {
        /// The start of 1 January.
        let start: Date
        let dayCount: Int
        /// The row of 1 January: the days of its week that fall in the year before.
        let leading: Int
        /// 1 for Sunday ... 7 for Saturday, as `Calendar` counts.
        let firstWeekday: Int
        /// The day index of each month's first day, and the month's number.
        let monthStarts: [(month: Int, day: Int)]

        var columns: Int { (leading + dayCount - 1) / 7 + 1 }

        func cell(_ day: Int) -> (column: Int, row: Int) {
            ((leading + day) / 7, (leading + day) % 7)
        }

        /// The weekday (1 Sunday ... 7 Saturday) drawn on `row`.
        func weekday(ofRow row: Int) -> Int {
            (firstWeekday - 1 + row) % 7 + 1
        }
    }

    /// The layout of `year` in `calendar`, weeks starting on `firstWeekday` (taken modulo 7);
    /// nil when the calendar has no such year, or it is outside 1–9999.
    static func layout(year: Int, firstWeekday: Int, calendar: Calendar) -> YearLayout? {
        guard (1...9999).contains(year), let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
            calendar.component(.year, from: start) == year,
            let days = calendar.range(of: .day, in: .year, for: start)?.count, days > 0
        else { return nil }
        let first = ((firstWeekday - 1) % 7 + 7) % 7 + 1
        let weekdayOfStart = calendar.component(.weekday, from: start)
        let leading = ((weekdayOfStart - first) % 7 + 7) % 7
        let months = calendar.range(of: .month, in: .year, for: start) ?? 1..<13
        var monthStarts: [(month: Int, day: Int)] = []
        for month in months {
            guard let date = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
                let day = dayIndex(date, start: start, dayCount: days, calendar: calendar)
            else { continue }
            monthStarts.append((month, day))
        }
        return YearLayout(
            start: start, dayCount: days, leading: leading, firstWeekday: first, monthStarts: monthStarts)
    }

    /// The index in the year starting at `start` of the day `date` falls on, if it is in that year.
    static func dayIndex(_ date: Date, start: Date, dayCount: Int, calendar: Calendar) -> Int? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) <= ProgressChartView.maxDateInterval,
            let days = calendar.dateComponents([.day], from: start, to: calendar.startOfDay(for: date)).day,
            days >= 0, days < dayCount
        else { return nil }
        return days
    }

    /// Each day's volume in the year: keys on the same day add up; values that are not finite
    /// or not positive count as no training.
    static func volumes(_ days: [Date: Double], _ layout: YearLayout, calendar: Calendar) -> [Double] {
        var volumes = [Double](repeating: 0, count: layout.dayCount)
        for (date, volume) in days where volume.isFinite && volume > 0 {
            guard let day = dayIndex(date, start: layout.start, dayCount: layout.dayCount, calendar: calendar)
            else { continue }
            volumes[day] = min(volumes[day] + volume, .greatestFiniteMagnitude)
        }
        return volumes
    }

    /// 0 for no training, else 1 to 4: the quartile of `volume` among `trainingVolumes`
    /// (sorted): the share of training days at or below it, in quarters rounded up, so the
    /// year's biggest day is always 4 and a year of equal days is all 4.
    static func level(_ volume: Double, among trainingVolumes: [Double]) -> Int {
        TrainingCalendar.level(volume, among: trainingVolumes)
    }

    /// The cell drawn for a level: a faint middle dot for a day without training, then
    /// ░ ▒ ▓ █ (ASCII . : * #).
    static func shade(_ level: Int, glyphs: Glyphs) -> String {
        let shades = glyphs.horizontal.isASCII ? [".", ":", "*", "#"] : ["░", "▒", "▓", "█"]
        return level == 0 ? glyphs.middleDot : shades[min(level, 4) - 1]
    }

    static let weekdayAbbreviations = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Draws the calendar of `year` in the rectangle at (`x`, `y`), `width` × `height`, and
    /// nowhere else: month names on the first row, then one row per weekday from
    /// `firstWeekday` (1 Sunday, 2 Monday), then a legend with the selected day's volume.
    /// `days` holds volumes by any time of their day (in `calendar`'s time zone). When the weeks
    /// do not all fit, the year's last weeks are shown, or from the selected day's week on.
    public static func render(
        days: [Date: Double], year: Int, firstWeekday: Int, calendar: Calendar, selected: Date?,
        into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int, height: Int, glyphs: Glyphs
    ) {
        guard width > 0, height > 0 else { return }
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        guard let layout = layout(year: year, firstWeekday: firstWeekday, calendar: calendar) else {
            buffer.put("no calendar for \(year)".clipped(to: width), x: x, y: y, style: .dim, maxWidth: width)
            return
        }
        let volumes = volumes(days, layout, calendar: calendar)
        let training = volumes.filter { $0 > 0 }.sorted()
        let selectedDay = selected.flatMap {
            dayIndex($0, start: layout.start, dayCount: layout.dayCount, calendar: calendar)
        }

        // The weeks shown: the last ones that fit, or from the selected day's week when it is earlier.
        let labels = width >= 12 ? labelWidth : 0
        let gridX = x + labels
        let visible = min(layout.columns, width - labels)
        var firstColumn = layout.columns - visible
        if let selectedDay { firstColumn = min(firstColumn, layout.cell(selectedDay).column) }
        let shownColumns = firstColumn..<(firstColumn + visible)

        // Month names where each month's first day is, as far as the next month's leaves room; a
        // month begun before the first week shown is named over that week when its whole name fits.
        for (position, start) in layout.monthStarts.enumerated() {
            let startColumn = layout.cell(start.day).column
            let next =
                position + 1 < layout.monthStarts.count
                ? layout.cell(layout.monthStarts[position + 1].day).column : shownColumns.upperBound + 1
            let column = max(startColumn, firstColumn)
            guard column < shownColumns.upperBound, next > firstColumn else { continue }
            let name =
                ProgressChartView.monthAbbreviations.indices.contains(start.month - 1)
                ? ProgressChartView.monthAbbreviations[start.month - 1] : String(start.month)
            let room = min(next - column - 1, shownColumns.upperBound - column)
            guard room > 0, startColumn >= firstColumn || room >= name.count else { continue }
            buffer.put(
                String(name.prefix(room)), x: gridX + column - firstColumn, y: y, style: .dim, maxWidth: room)
        }

        // Weekday names on the Monday, Wednesday and Friday rows.
        if labels > 0 {
            for row in 0..<7 where y + 1 + row < y + height {
                let weekday = layout.weekday(ofRow: row)
                guard weekday == 2 || weekday == 4 || weekday == 6 else { continue }
                buffer.put(weekdayAbbreviations[weekday - 1], x: x, y: y + 1 + row, style: .dim, maxWidth: labels)
            }
        }

        for day in 0..<layout.dayCount {
            let cell = layout.cell(day)
            guard shownColumns.contains(cell.column), y + 1 + cell.row < y + height else { continue }
            let level = level(volumes[day], among: training)
            var style = level == 0 ? CellStyle.dim : CellStyle(color: .green, bold: level == 4)
            style.reverse = day == selectedDay
            buffer.put(
                shade(level, glyphs: glyphs), x: gridX + cell.column - firstColumn, y: y + 1 + cell.row, style: style,
                maxWidth: 1)
        }

        // The legend, after the selected day and its volume when one is selected.
        guard height >= 9 else { return }
        let row = y + 8
        var used = 0
        if let selectedDay, let date = calendar.date(byAdding: .day, value: selectedDay, to: layout.start) {
            let weekday = weekdayAbbreviations[layout.weekday(ofRow: layout.cell(selectedDay).row) - 1]
            let volume = volumes[selectedDay] > 0 ? Formatting.number(volumes[selectedDay]) : "rest"
            let text = "\(weekday) \(ProgressChartView.dateText(date, calendar: calendar))  \(volume)"
            used = buffer.put(
                text.clipped(to: width, ellipsis: glyphs.ellipsis), x: x, y: row, style: .bold, maxWidth: width)
        }
        let legend = "less \(glyphs.middleDot)" + (1...4).map { shade($0, glyphs: glyphs) }.joined() + " more"
        let legendWidth = DisplayWidth.of(legend)
        if used + 2 + legendWidth <= width {
            buffer.put(legend, x: x + width - legendWidth, y: row, style: .dim, maxWidth: legendWidth)
        }
    }

    /// The day an arrow key moves the selection to: left and right a week, up and down a day,
    /// kept within `year` (a selection outside it starts from its nearer end). Returns the
    /// start of that day; `selected` unchanged when the calendar has no such year.
    public static func move(_ selected: Date, _ direction: CalendarMove, year: Int, calendar: Calendar) -> Date {
        guard let layout = layout(year: year, firstWeekday: 1, calendar: calendar),
            let last = calendar.date(byAdding: .day, value: layout.dayCount - 1, to: layout.start)
        else { return selected }
        let interval = selected.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) <= ProgressChartView.maxDateInterval else { return layout.start }
        let day = min(max(calendar.startOfDay(for: selected), layout.start), last)
        let step: Int
        switch direction {
        case .left: step = -7
        case .right: step = 7
        case .up: step = -1
        case .down: step = 1
        }
        let next = calendar.date(byAdding: .day, value: step, to: day) ?? day
        return min(max(next, layout.start), last)
    }
}

import Foundation
import SpotterCore

/// One value on a progress chart: a day's best estimated 1RM, top weight, reps, or volume.
public struct ChartPoint: Sendable, Equatable {
    public var date: Date
    public var value: Double
    /// The lifter's best so far at `date`: drawn with the star and named on the cursor line.
    public var isRecord: Bool

    public init(date: Date, value: Double, isRecord: Bool = false) {
        self.date = date
        self.value = value
        self.isRecord = isRecord
    }
}

/// How a chart writes its values ("102.5", "100"). Two formats are equal when their names are:
/// a closure cannot be compared, and a model has to be (the UI's state is compared on each key).
public struct ChartValueFormat: Sendable, Equatable {
    public let name: String
    public let format: @Sendable (Double) -> String

    public init(name: String, format: @escaping @Sendable (Double) -> String) {
        self.name = name
        self.format = format
    }

    /// Whole numbers without decimals, others with up to two: "100", "102.5", "8.25".
    public static let number = ChartValueFormat(name: "number") { Formatting.number($0) }

    /// Always `digits` decimals (0 to 6): "102.50".
    public static func fractionDigits(_ digits: Int) -> ChartValueFormat {
        let digits = min(max(digits, 0), 6)
        return ChartValueFormat(name: "fractionDigits(\(digits))") { String(format: "%.\(digits)f", $0) }
    }

    public static func == (left: ChartValueFormat, right: ChartValueFormat) -> Bool {
        left.name == right.name
    }
}

/// What a progress chart shows: the store computes it, the chart only draws it.
public struct ChartModel: Sendable, Equatable {
    /// "Squat (Barbell) · Estimated 1RM · 1 year"
    public var title: String
    /// In any order; values that are not finite, and dates that are not, are left out.
    public var points: [ChartPoint]
    /// "kg", "lb", "reps"; empty for none.
    public var unitLabel: String
    /// Index into `points` of the point the lifter looks at; nil for none.
    public var cursor: Int?
    public var valueFormatter: ChartValueFormat

    public init(
        title: String, points: [ChartPoint], unitLabel: String, cursor: Int? = nil,
        valueFormatter: ChartValueFormat = .number
    ) {
        self.title = title
        self.points = points
        self.unitLabel = unitLabel
        self.cursor = cursor
        self.valueFormatter = valueFormatter
    }
}

/// The points a chart draws when there are more than it has columns for: one per period of
/// equal time, each its period's maximum (a lifter's best is never dropped).
extension ChartValueFormat {
    /// Values to a tenth, without a trailing ".0": "148.8", "125", "8".
    public static let tenths = ChartValueFormat(name: "tenths") { Formatting.number(($0 * 10).rounded() / 10) }
}

extension ChartModel {
    /// A progress series as the UI and `spotter chart` draw it: weights (kept in kg) in `unit`,
    /// reps as they are, values to a tenth.
    public init(progress points: [ProgressPoint], metric: ProgressMetric, unit: WeightUnit, title: String, cursor: Int?)
    {
        self.init(
            title: title,
            points: points.map {
                ChartPoint(
                    date: $0.date,
                    value: metric.isWeight ? Formatting.converted($0.value, from: .kg, to: unit) : $0.value,
                    isRecord: $0.isRecord)
            },
            unitLabel: metric.isWeight ? unit.rawValue : "reps", cursor: cursor, valueFormatter: .tenths)
    }
}

public struct DownsampledSeries: Sendable, Equatable {
    /// The points drawn, in date order, finite values only.
    public var points: [ChartPoint]
    /// For each input point (by its index in the model), the index in `points` of the point
    /// drawn for it; a left-out point (not finite) stands for its nearest neighbour in the
    /// input. Nil only when nothing is drawn.
    public var shownIndex: [Int?]
}

/// Progress over time as a line chart: values up the left, dates along the bottom, records
/// starred, and the cursor's point spelt out on the last row. A pure function of its inputs.
public enum ProgressChartView {
    /// Dates further than this from 2001 (about 30 000 years) are treated as not finite: no
    /// calendar arithmetic is asked of them.
    static let maxDateInterval: TimeInterval = 1e12

    /// "no sets in this range": what an empty chart says.
    public static let emptyMessage = "no sets in this range"

    // MARK: Downsampling

    /// Keeps at most `periods` points: the time from the first point to the last is cut into
    /// `periods` equal periods and each period keeps its largest value (the earliest of equal
    /// ones), marked a record when any point of the period is. With no more points than
    /// periods, every finite point is kept.
    public static func downsample(_ points: [ChartPoint], periods: Int) -> DownsampledSeries {
        let periods = max(1, periods)
        let valid = points.indices.filter { isDrawable(points[$0]) }
        let sorted = valid.sorted {
            points[$0].date != points[$1].date ? points[$0].date < points[$1].date : $0 < $1
        }
        var shown: [ChartPoint] = []
        var shownIndex = [Int?](repeating: nil, count: points.count)
        if sorted.count <= periods {
            for (position, index) in sorted.enumerated() {
                shown.append(points[index])
                shownIndex[index] = position
            }
        } else if let first = sorted.first, let last = sorted.last {
            let start = points[first].date.timeIntervalSinceReferenceDate
            let span = points[last].date.timeIntervalSinceReferenceDate - start
            var currentPeriod = -1
            var best = 0
            var hasRecord = false
            func closePeriod() {
                guard currentPeriod >= 0 else { return }
                var point = points[best]
                point.isRecord = hasRecord
                shown.append(point)
            }
            for index in sorted {
                let offset = points[index].date.timeIntervalSinceReferenceDate - start
                let period = span > 0 ? min(periods - 1, max(0, Int(offset / span * Double(periods)))) : 0
                if period != currentPeriod {
                    closePeriod()
                    currentPeriod = period
                    best = index
                    hasRecord = false
                }
                if points[index].value > points[best].value { best = index }
                hasRecord = hasRecord || points[index].isRecord
                shownIndex[index] = shown.count
            }
            closePeriod()
            // The series' first and last sessions stay whatever their periods' best: the line
            // starts and ends where the lifter's history does, today's session included.
            if shownIndex[first].map({ shown[$0].date != points[first].date }) ?? true {
                shown.insert(points[first], at: 0)
                for index in shownIndex.indices { shownIndex[index] = shownIndex[index].map { $0 + 1 } }
                shownIndex[first] = 0
            }
            if shownIndex[last].map({ shown[$0].date != points[last].date }) ?? true {
                shown.append(points[last])
                shownIndex[last] = shown.count - 1
            }
        }
        // A left-out point stands for the nearest kept one in the input, so a cursor on it
        // still lands somewhere sensible.
        if !shown.isEmpty, valid.count < points.count {
            var previous: Int? = nil
            var pending: [Int] = []
            for index in points.indices {
                if let mapped = shownIndex[index] {
                    for waiting in pending { shownIndex[waiting] = mapped }
                    pending = []
                    previous = mapped
                } else if let previous {
                    shownIndex[index] = previous
                } else {
                    pending.append(index)
                }
            }
        }
        return DownsampledSeries(points: shown, shownIndex: shownIndex)
    }

    static func isDrawable(_ point: ChartPoint) -> Bool {
        let interval = point.date.timeIntervalSinceReferenceDate
        return point.value.isFinite && interval.isFinite && abs(interval) <= maxDateInterval
    }

    // MARK: Text

    /// "12 Mar 2026": a point's day in `timeZone`, in English whatever the locale, as the rest
    /// of the UI is.
    static func dateText(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return dateText(date, calendar: calendar)
    }

    static let monthAbbreviations = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    static func dateText(_ date: Date, calendar: Calendar) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) <= maxDateInterval else { return "?" }
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let month = parts.month.map {
            monthAbbreviations.indices.contains($0 - 1) ? monthAbbreviations[$0 - 1] : "\($0)"
        }
        return "\(parts.day ?? 0) \(month ?? "?") \(parts.year ?? 0)"
    }

    /// A value with its unit: "102.5 kg", "8 reps"; safe to draw whatever the formatter returns.
    static func valueText(_ value: Double, _ model: ChartModel, unit: String) -> String {
        let number = DisplayText.terminalSafe(model.valueFormatter.format(value))
        return unit.isEmpty ? number : "\(number) \(unit)"
    }

    /// "12 Mar 2026  102.5 kg ★ record"
    static func pointLine(
        _ point: ChartPoint, _ model: ChartModel, unit: String, glyphs: Glyphs, timeZone: TimeZone
    )
        -> String
    {
        var text = "\(dateText(point.date, timeZone: timeZone))  \(valueText(point.value, model, unit: unit))"
        if point.isRecord { text += " \(glyphs.star) record" }
        return text
    }

    // MARK: Drawing

    /// Draws `model` in the rectangle at (`x`, `y`), `width` × `height`, and nowhere else:
    /// the title on the first row, the cursor's point on the last, the dates above it, and the
    /// plot with its value labels in between. `braille` draws the line in braille dots (two
    /// across and four down per cell); otherwise points are `•` (`o` in ASCII) joined by `·`
    /// (`.`). Records are starred; the cursor's column is drawn in reverse.
    public static func render(
        _ model: ChartModel, into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int, height: Int,
        glyphs: Glyphs, braille: Bool, timeZone: TimeZone = .current
    ) {
        guard width > 0, height > 0 else { return }
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        let ellipsis = glyphs.ellipsis
        let unit = DisplayText.terminalSafe(model.unitLabel)
        buffer.put(
            DisplayText.terminalSafe(model.title).clipped(to: width, ellipsis: ellipsis), x: x, y: y, style: .bold,
            maxWidth: width)
        guard height >= 2 else { return }

        let values = model.points.filter(isDrawable).map(\.value)
        guard let seriesMax = values.max(), let seriesMin = values.min() else {
            let message = emptyMessage.clipped(to: width, ellipsis: ellipsis)
            let row = y + 1 + (height - 1) / 2
            buffer.put(
                message, x: x + max(0, (width - DisplayWidth.of(message)) / 2), y: min(row, y + height - 1),
                style: .dim, maxWidth: width)
            return
        }

        // Too small for a plot: the point under the cursor (or the latest) on one line.
        guard height >= 5, width >= 12 else {
            let series = downsample(model.points, periods: model.points.count)
            let point =
                model.cursor.flatMap { exactPoint($0, model.points) } ?? series.points[series.points.count - 1]
            let line = pointLine(point, model, unit: unit, glyphs: glyphs, timeZone: timeZone)
            buffer.put(line.clipped(to: width, ellipsis: ellipsis), x: x, y: y + 1, maxWidth: width)
            return
        }

        // The value labels' column: as wide as the widest label, at most a third of the width.
        let labelWidth = min(
            max(
                DisplayWidth.of(valueText(seriesMax, model, unit: unit)),
                DisplayWidth.of(valueText(seriesMin, model, unit: unit)),
                DisplayWidth.of(valueText(seriesMin * 0.5 + seriesMax * 0.5, model, unit: unit))),
            width / 3)
        let plot = Plot(
            x: x + labelWidth + 1, y: y + 1, columns: width - labelWidth - 1, rows: height - 4, braille: braille)
        let series = downsample(model.points, periods: plot.dotColumns)
        let shown = series.points
        let low = shown.map(\.value).min() ?? seriesMin
        let high = shown.map(\.value).max() ?? seriesMax
        // Columns follow time. The axis spans a day at least, points of one day centred on it: a
        // single point stands in the middle, and two sets a minute apart are not drawn a chart apart.
        let first = shown[0].date.timeIntervalSinceReferenceDate
        let pointsSpan = shown[shown.count - 1].date.timeIntervalSinceReferenceDate - first
        let span = max(pointsSpan, 86_400)
        let start = first - (span - pointsSpan) / 2
        func dotX(_ point: ChartPoint) -> Int {
            let fraction = (point.date.timeIntervalSinceReferenceDate - start) / span
            return min(max(0, Int((fraction * Double(plot.dotColumns - 1)).rounded())), plot.dotColumns - 1)
        }
        let positions = shown.map { (x: dotX($0), y: plot.dotY($0.value, low: low, high: high)) }
        var grid = plot.emptyGrid()
        for (index, position) in positions.enumerated() {
            if index > 0 { plot.segment(from: positions[index - 1], to: position, into: &grid) }
        }
        for position in positions { plot.point(position, into: &grid) }

        // The cursor names the session it is on, even where the line keeps a period's best.
        let cursorPoint = model.cursor.flatMap {
            exactPoint($0, model.points) ?? cursorIndex($0, series).map { shown[$0] }
        }
        let cursorColumn = cursorPoint.map { dotX($0) / plot.dotsAcross }
        let records = Set(
            shown.indices.filter { shown[$0].isRecord }.map {
                (positions[$0].y / plot.dotsDown) * plot.columns + positions[$0].x / plot.dotsAcross
            })
        let pointGlyph = glyphs.horizontal.isASCII ? "o" : "•"
        let segmentGlyph = glyphs.horizontal.isASCII ? "." : "·"
        for row in 0..<plot.rows {
            for column in 0..<plot.columns {
                let cell = row * plot.columns + column
                let onCursor = column == cursorColumn
                var text: String
                var style = CellStyle(color: .cyan)
                if records.contains(cell) {
                    text = glyphs.star
                    style = CellStyle(color: .yellow, bold: true)
                } else if grid[cell] == 0 {
                    text = " "
                    style = .plain
                } else if braille {
                    text = String(Character(Unicode.Scalar(0x2800 + UInt32(grid[cell]))!))
                } else {
                    text = grid[cell] == Plot.pointMark ? pointGlyph : segmentGlyph
                }
                if text == " ", !onCursor { continue }
                style.reverse = onCursor
                buffer.put(text, x: plot.x + column, y: plot.y + row, style: style, maxWidth: 1)
            }
        }

        // Value labels at the rows of the highest, middle and lowest values drawn.
        let labelValues = high > low ? [high, low, low * 0.5 + high * 0.5] : [high]
        var labelled: Set<Int> = []
        for value in labelValues {
            let row = plot.dotY(value, low: low, high: high) / plot.dotsDown
            guard labelled.insert(row).inserted else { continue }
            buffer.put(
                valueText(value, model, unit: unit).leftPadded(to: labelWidth, ellipsis: ellipsis), x: x,
                y: plot.y + row, style: value == high ? .bold : .dim, maxWidth: labelWidth)
        }

        // The axes, and the first and last dates under the ends of the horizontal one.
        let axisRow = plot.y + plot.rows
        for row in plot.y..<axisRow { buffer.put(String(glyphs.vertical), x: plot.x - 1, y: row, style: .dim) }
        buffer.put(String(glyphs.bottomLeft), x: plot.x - 1, y: axisRow, style: .dim)
        buffer.fill(glyphs.horizontal, x: plot.x, y: axisRow, count: plot.columns, style: .dim)
        let firstDate = dateText(shown[0].date, timeZone: timeZone)
        let lastDate = dateText(shown[shown.count - 1].date, timeZone: timeZone)
        buffer.put(
            firstDate.clipped(to: plot.columns, ellipsis: ellipsis), x: plot.x, y: axisRow + 1, style: .dim,
            maxWidth: plot.columns)
        let lastWidth = DisplayWidth.of(lastDate)
        if lastDate != firstDate, DisplayWidth.of(firstDate) + 2 + lastWidth <= plot.columns {
            buffer.put(lastDate, x: plot.x + plot.columns - lastWidth, y: axisRow + 1, style: .dim, maxWidth: lastWidth)
        }

        if let cursorPoint {
            let line = pointLine(cursorPoint, model, unit: unit, glyphs: glyphs, timeZone: timeZone)
            buffer.put(
                line.clipped(to: width, ellipsis: ellipsis), x: x, y: y + height - 1, style: .bold, maxWidth: width)
        }
    }

    /// The input point under the cursor (clamped to the input), when it can be drawn.
    static func exactPoint(_ cursor: Int, _ points: [ChartPoint]) -> ChartPoint? {
        guard !points.isEmpty else { return nil }
        let point = points[min(max(0, cursor), points.count - 1)]
        return isDrawable(point) ? point : nil
    }

    /// The drawn point a cursor on input index `cursor` stands on (clamped to the input).
    static func cursorIndex(_ cursor: Int, _ series: DownsampledSeries) -> Int? {
        guard !series.shownIndex.isEmpty else { return nil }
        return series.shownIndex[min(max(0, cursor), series.shownIndex.count - 1)]
    }
}

/// The plot area in cells and in dots: a braille cell holds 2 × 4 dots, a plain cell one.
struct Plot {
    let x: Int
    let y: Int
    let columns: Int
    let rows: Int
    let braille: Bool

    /// In a plain plot's grid: a cell a segment crosses, and a cell holding a point.
    static let segmentMark: UInt8 = 1
    static let pointMark: UInt8 = 2

    var dotsAcross: Int { braille ? 2 : 1 }
    var dotsDown: Int { braille ? 4 : 1 }
    var dotColumns: Int { columns * dotsAcross }
    var dotRows: Int { rows * dotsDown }
    /// Dots kept free above the highest value and below the lowest, so the line stays off the frame.
    var padding: Int { dotRows / 10 }

    func emptyGrid() -> [UInt8] { [UInt8](repeating: 0, count: columns * rows) }

    /// The dot row (0 at the top) of `value`: `high` on the padding's edge at the top, `low` at
    /// the bottom's, the middle for a flat line. Halves are compared so no difference overflows.
    func dotY(_ value: Double, low: Double, high: Double) -> Int {
        let usable = max(1, dotRows - 2 * padding)
        var fraction = 0.5
        if high > low {
            fraction = (value * 0.5 - low * 0.5) / (high * 0.5 - low * 0.5)
            if !fraction.isFinite { fraction = 0.5 }
        }
        fraction = min(max(fraction, 0), 1)
        return min(dotRows - 1, padding + Int(((1 - fraction) * Double(usable - 1)).rounded()))
    }

    /// Braille's bit for the dot at (column, row) within its cell.
    static let brailleBits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    func set(_ dot: (x: Int, y: Int), mark: UInt8, into grid: inout [UInt8]) {
        guard dot.x >= 0, dot.y >= 0, dot.x < dotColumns, dot.y < dotRows else { return }
        let cell = (dot.y / dotsDown) * columns + dot.x / dotsAcross
        if braille {
            grid[cell] |= Self.brailleBits[dot.x % 2][dot.y % 4]
        } else {
            grid[cell] = max(grid[cell], mark)
        }
    }

    func point(_ dot: (x: Int, y: Int), into grid: inout [UInt8]) {
        set(dot, mark: Self.pointMark, into: &grid)
    }

    /// The dots between two points, Bresenham's way: every dot column or row the line crosses
    /// gets one dot, so a steep rise stays joined.
    func segment(from start: (x: Int, y: Int), to end: (x: Int, y: Int), into grid: inout [UInt8]) {
        let deltaX = abs(end.x - start.x)
        let deltaY = -abs(end.y - start.y)
        let stepX = start.x < end.x ? 1 : -1
        let stepY = start.y < end.y ? 1 : -1
        var error = deltaX + deltaY
        var current = start
        while true {
            set(current, mark: Self.segmentMark, into: &grid)
            if current.x == end.x, current.y == end.y { break }
            let doubled = 2 * error
            if doubled >= deltaY {
                error += deltaY
                current.x += stepX
            }
            if doubled <= deltaX {
                error += deltaX
                current.y += stepY
            }
        }
    }
}

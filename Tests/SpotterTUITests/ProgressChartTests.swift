import Foundation
import SpotterCore
import Testing

@testable import SpotterTUI

/// Helpers for the chart and calendar tests: fixed days in UTC, and what a buffer holds.
enum ChartSupport {
    static let utc = TimeZone(identifier: "UTC")!

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        return calendar
    }

    /// Noon (UTC) on the given day.
    static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
    }

    static func isBraille(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return (0x2801...0x28FF).contains(scalar.value)
    }

    /// Every cell outside the rectangle is still blank, and every row is exactly the screen's width.
    static func expectOnlyInside(
        _ buffer: ScreenBuffer, x: Int, y: Int, width: Int, height: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for row in 0..<buffer.height {
            #expect(
                DisplayWidth.of(buffer.line(row)) == buffer.width, "row \(row): \(buffer.line(row))",
                sourceLocation: sourceLocation)
            for column in 0..<buffer.width {
                let inside = column >= x && column < x + width && row >= y && row < y + height
                if !inside {
                    #expect(
                        buffer[column, row] == .blank, "drawn outside at (\(column), \(row)):\n\(buffer)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// The cells (column, row) in the rectangle holding a character that `matches`.
    static func cells(
        _ buffer: ScreenBuffer, x: Int = 0, y: Int = 0, width: Int, height: Int, where matches: (Character) -> Bool
    ) -> [(x: Int, y: Int)] {
        var found: [(x: Int, y: Int)] = []
        for row in y..<min(buffer.height, y + height) {
            for column in x..<min(buffer.width, x + width) where buffer[column, row].width != 0 {
                if matches(buffer[column, row].character) { found.append((column, row)) }
            }
        }
        return found
    }
}

@Suite("The progress chart: a line over time, in braille or plain cells")
struct ProgressChartTests {
    typealias S = ChartSupport

    static let sizes = [(80, 24), (200, 60)]

    static func model(_ points: [ChartPoint], cursor: Int? = nil, unit: String = "kg") -> ChartModel {
        ChartModel(
            title: "Squat (Barbell) · Estimated 1RM · 1 year", points: points, unitLabel: unit, cursor: cursor)
    }

    static func render(
        _ model: ChartModel, columns: Int = 80, rows: Int = 24, braille: Bool = true, glyphs: Glyphs = .unicode
    ) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: columns, height: rows)
        ProgressChartView.render(
            model, into: &buffer, x: 0, y: 0, width: columns, height: rows, glyphs: glyphs, braille: braille,
            timeZone: S.utc)
        return buffer
    }

    static let rising = [
        ChartPoint(date: S.day(2026, 1, 1), value: 100),
        ChartPoint(date: S.day(2026, 2, 1), value: 105),
        ChartPoint(date: S.day(2026, 3, 1), value: 110),
        ChartPoint(date: S.day(2026, 4, 1), value: 120),
    ]

    @Test("a rising line: the leftmost dots are lower than the rightmost, in braille and plain", arguments: sizes)
    func risingLine(size: (Int, Int)) throws {
        for braille in [true, false] {
            let screen = Self.render(
                Self.model(Self.rising), columns: size.0, rows: size.1, braille: braille, glyphs: .unicode)
            let plotted = S.cells(screen, y: 1, width: size.0, height: size.1 - 4) {
                braille ? S.isBraille($0) : $0 == "•" || $0 == "·"
            }
            let left = try #require(plotted.min { $0.x < $1.x }, "\(screen)")
            let right = try #require(plotted.max { $0.x < $1.x })
            #expect(left.y > right.y, "the line rises to the right:\n\(screen)")
            #expect(screen.contains("120 kg"), "the top label is the highest value:\n\(screen)")
            #expect(screen.contains("100 kg"), "\(screen)")
            #expect(screen.contains("110 kg"), "the middle label:\n\(screen)")
            #expect(screen.line(0).hasPrefix("Squat (Barbell) · Estimated 1RM · 1 year"), "\(screen)")
            let dateRow = try #require(screen.row(containing: "1 Jan 2026"), "\(screen)")
            #expect(screen.line(dateRow).hasSuffix("1 Apr 2026"), "the last date at the right end:\n\(screen)")
            let highRow = try #require(screen.row(containing: "120 kg"))
            let lowRow = try #require(screen.row(containing: "100 kg"))
            #expect(highRow > 1, "padding keeps the highest value off the title:\n\(screen)")
            #expect(lowRow < dateRow - 1, "and the lowest off the axis:\n\(screen)")
            S.expectOnlyInside(screen, x: 0, y: 0, width: size.0, height: size.1)
        }
    }

    @Test("the chart draws only inside its rectangle, wherever it is placed", arguments: sizes)
    func staysInside(size: (Int, Int)) {
        var buffer = ScreenBuffer(width: size.0, height: size.1)
        let rect = (x: 3, y: 2, width: size.0 - 7, height: size.1 - 5)
        let points = (0..<40).map {
            ChartPoint(date: S.day(2026, 1, 1).addingTimeInterval(Double($0) * 86_400 * 3), value: Double($0 % 7) * 10)
        }
        for braille in [true, false] {
            for glyphs in [Glyphs.unicode, .ascii] {
                ProgressChartView.render(
                    Self.model(points, cursor: 39), into: &buffer, x: rect.x, y: rect.y, width: rect.width,
                    height: rect.height, glyphs: glyphs, braille: braille, timeZone: S.utc)
                S.expectOnlyInside(buffer, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
            }
        }
    }

    @Test("a flat line: one row of dots and one label, in the middle")
    func flatLine() throws {
        let points = (1...5).map { ChartPoint(date: S.day(2026, 1, $0 * 5), value: 100) }
        for braille in [true, false] {
            let screen = Self.render(Self.model(points), braille: braille)
            let plotted = S.cells(screen, y: 1, width: 80, height: 20) {
                braille ? S.isBraille($0) : $0 == "•" || $0 == "·"
            }
            #expect(!plotted.isEmpty, "\(screen)")
            #expect(Set(plotted.map(\.y)).count == 1, "one row:\n\(screen)")
            let labelRow = try #require(screen.row(containing: "100 kg"), "\(screen)")
            #expect(plotted.first?.y == labelRow, "the label sits at the line's row:\n\(screen)")
            #expect(abs(labelRow - (1 + 20 / 2)) <= 1, "the line sits in the middle:\n\(screen)")
            #expect(screen.text.components(separatedBy: "100 kg").count == 2, "one label only:\n\(screen)")
        }
    }

    @Test("a single point: one cell in the middle, its value and date shown")
    func singlePoint() throws {
        let points = [ChartPoint(date: S.day(2026, 3, 12), value: 102.5)]
        for braille in [true, false] {
            let screen = Self.render(Self.model(points, cursor: 0), braille: braille)
            let plotted = S.cells(screen, y: 1, width: 80, height: 20) {
                braille ? S.isBraille($0) : $0 == "•"
            }
            #expect(plotted.count == 1, "\(screen)")
            let labelWidth = DisplayWidth.of("102.5 kg")
            let middle = labelWidth + 1 + (80 - labelWidth - 1) / 2
            #expect(abs((plotted.first?.x ?? 0) - middle) <= 1, "centred:\n\(screen)")
            #expect(screen.contains("12 Mar 2026"), "\(screen)")
            #expect(screen.line(23).hasPrefix("12 Mar 2026  102.5 kg"), "\(screen)")
        }
    }

    @Test("months without sets: a point's column follows its date, not its index")
    func gapOfMonths() throws {
        let points = [
            ChartPoint(date: S.day(2026, 1, 1), value: 100),
            ChartPoint(date: S.day(2026, 1, 8), value: 110),
            ChartPoint(date: S.day(2026, 12, 31), value: 105),
        ]
        let screen = Self.render(Self.model(points), braille: false, glyphs: .ascii)
        let columns = S.cells(screen, y: 1, width: 80, height: 20) { $0 == "o" }.map(\.x).sorted()
        #expect(columns.count == 3, "\(screen)")
        guard columns.count == 3 else { return }
        let span = Double(columns[2] - columns[0])
        #expect(span > 60, "the first and last points are at the ends:\n\(screen)")
        // A week of 364 days: about 1/52 of the way.
        #expect(Double(columns[1] - columns[0]) / span < 0.05, "\(screen)")
        #expect(screen.contains("1 Jan 2026") && screen.contains("31 Dec 2026"), "\(screen)")
        let dots = S.cells(screen, y: 1, width: 80, height: 20) { $0 == "." }
        #expect(dots.count > 30, "the long gap is joined by a line:\n\(screen)")
    }

    @Test("a record is starred, in its own colour; in ASCII with '*'")
    func recordMarked() throws {
        var points = Self.rising
        points[3].isRecord = true
        for (glyphs, braille) in [(Glyphs.unicode, true), (.unicode, false), (.ascii, false), (.ascii, true)] {
            let screen = Self.render(Self.model(points), braille: braille, glyphs: glyphs)
            let stars = S.cells(screen, y: 1, width: 80, height: 20) { String($0) == glyphs.star }
            #expect(stars.count == 1, "\(screen)")
            let star = try #require(stars.first)
            #expect(screen[star.x, star.y].style.color == .yellow, "\(screen)")
            let highRow = try #require(screen.row(containing: "120 kg"))
            #expect(star.y == highRow, "the record is the highest point:\n\(screen)")
            #expect(star.x >= 75, "at the right end:\n\(screen)")
        }
    }

    @Test("the cursor: its column is reversed and the last row spells its point out")
    func cursorLine() throws {
        var points = Self.rising
        points[2] = ChartPoint(date: S.day(2026, 3, 12), value: 102.5, isRecord: true)
        let screen = Self.render(Self.model(points, cursor: 2))
        #expect(screen.line(23).hasPrefix("12 Mar 2026  102.5 kg ★ record"), "\(screen)")
        let star = try #require(S.cells(screen, y: 1, width: 80, height: 20) { $0 == "★" }.first, "\(screen)")
        for row in 1..<20 {
            #expect(screen[star.x, row].style.reverse, "row \(row) of the cursor's column:\n\(screen)")
        }
        #expect(!screen[star.x - 3, 5].style.reverse)

        let plain = Self.render(Self.model(Self.rising, cursor: 0), glyphs: .ascii)
        #expect(plain.line(23).hasPrefix("1 Jan 2026  100 kg"), "\(plain)")
        #expect(!plain.line(23).contains("record"))
        let none = Self.render(Self.model(Self.rising))
        #expect(none.line(23).trimmingCharacters(in: .whitespaces).isEmpty, "no cursor, no line:\n\(none)")
        for cursor in [-5, 99, Int.max, Int.min] {
            let clamped = Self.render(Self.model(Self.rising, cursor: cursor))
            #expect(clamped.line(23).contains(" kg"), "a cursor past the ends is clamped:\n\(clamped)")
        }
    }

    @Test("a point's day is its day in the chart's time zone")
    func timeZones() throws {
        let late = ChartSupport.day(2026, 3, 12).addingTimeInterval(11.5 * 3600)  // 23:30 UTC
        let model = Self.model([ChartPoint(date: late, value: 100)], cursor: 0)
        var buffer = ScreenBuffer(width: 80, height: 24)
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        ProgressChartView.render(
            model, into: &buffer, x: 0, y: 0, width: 80, height: 24, glyphs: .unicode, braille: true, timeZone: tokyo)
        #expect(buffer.line(23).hasPrefix("13 Mar 2026  100 kg"), "\(buffer)")
        #expect(Self.render(model).line(23).hasPrefix("12 Mar 2026  100 kg"))
    }

    @Test("points of one day stand in one column, joined top to bottom")
    func oneDay() throws {
        let noon = ChartSupport.day(2026, 3, 12)
        let points = [100.0, 140, 120].enumerated().map {
            ChartPoint(date: noon.addingTimeInterval(Double($0.offset)), value: $0.element)
        }
        for braille in [true, false] {
            let screen = Self.render(Self.model(points, cursor: 2), braille: braille)
            let plotted = S.cells(screen, y: 1, width: 80, height: 20) {
                braille ? S.isBraille($0) : $0 == "•" || $0 == "·"
            }
            #expect(Set(plotted.map(\.x)).count == 1, "\(screen)")
            #expect(plotted.count >= 10, "a column from 100 up to 140:\n\(screen)")
            #expect(screen.contains("140 kg") && screen.contains("100 kg"), "\(screen)")
            #expect(screen.line(23).hasPrefix("12 Mar 2026  120 kg"), "\(screen)")
        }
    }

    @Test("an empty series says so in the middle", arguments: sizes)
    func emptySeries(size: (Int, Int)) throws {
        let screen = Self.render(Self.model([]), columns: size.0, rows: size.1)
        let row = try #require(screen.row(containing: ProgressChartView.emptyMessage), "\(screen)")
        #expect(abs(row - size.1 / 2) <= 1, "\(screen)")
        let column = try #require(screen.line(row).range(of: ProgressChartView.emptyMessage)).lowerBound
        let offset = screen.line(row).distance(from: screen.line(row).startIndex, to: column)
        #expect(abs(offset - (size.0 - ProgressChartView.emptyMessage.count) / 2) <= 1, "\(screen)")
        let withCursor = Self.render(Self.model([], cursor: 3), columns: size.0, rows: size.1)
        #expect(withCursor.contains(ProgressChartView.emptyMessage))
    }

    @Test("1 000 points are drawn one per period, the maximum kept", arguments: sizes)
    func thousandPoints(size: (Int, Int)) throws {
        let start = S.day(2025, 1, 1)
        var points = (0..<1000).map { index in
            ChartPoint(
                date: start.addingTimeInterval(Double(index) * 8 * 3600),
                value: 100 + 20 * sin(Double(index) / 37) + Double(index % 5))
        }
        points[613].value = 163.25
        for braille in [true, false] {
            let screen = Self.render(
                Self.model(points, cursor: 613), columns: size.0, rows: size.1, braille: braille)
            #expect(screen.contains("163.25 kg"), "the maximum's label:\n\(screen)")
            let highRow = try #require(screen.row(containing: "163.25 kg"))
            #expect(screen.line(highRow).hasPrefix("163.25 kg"), "\(screen)")
            #expect(screen.line(size.1 - 1).contains("163.25 kg"), "the cursor stays on the maximum:\n\(screen)")
            S.expectOnlyInside(screen, x: 0, y: 0, width: size.0, height: size.1)
        }
        let series = ProgressChartView.downsample(points, periods: 150)
        #expect(series.points.count <= 152, "a point per period, and the first and last sessions")
        #expect(series.points.count > 100)
        #expect(series.points.map(\.value).max() == 163.25)
        #expect(series.shownIndex.allSatisfy { $0 != nil })
        #expect(series.points[series.shownIndex[613]!].value == 163.25)
    }

    @Test("thinned to a point per period, the cursor still names each session, and the last one is drawn")
    func cursorOnAThinnedSeries() throws {
        // 400 daily sessions rising to 200 kg, then a light day: the deload is the last point.
        var points = (0..<400).map {
            ChartPoint(date: S.day(2025, 1, 1).addingTimeInterval(Double($0) * 86_400), value: 100 + Double($0) / 4)
        }
        points.append(ChartPoint(date: S.day(2025, 1, 1).addingTimeInterval(400 * 86_400), value: 60))
        let last = Self.render(Self.model(points, cursor: points.count - 1))
        #expect(last.line(23).hasPrefix("5 Feb 2026  60 kg"), "the cursor names the deload:\n\(last)")
        #expect(last.contains("5 Feb 2026"), "the axis ends on the last session:\n\(last)")
        for cursor in [points.count - 2, points.count - 3] {
            let screen = Self.render(Self.model(points, cursor: cursor))
            let date = ProgressChartView.dateText(points[cursor].date, timeZone: S.utc)
            #expect(screen.line(23).hasPrefix(date), "one step back is one session back:\n\(screen)")
        }
    }

    @Test("downsampling keeps each period's largest value and its record, and maps every point")
    func downsampling() {
        let start = S.day(2026, 1, 1)
        let points = [
            ChartPoint(date: start, value: 5),
            ChartPoint(date: start.addingTimeInterval(3600), value: 9, isRecord: false),
            ChartPoint(date: start.addingTimeInterval(7200), value: 7, isRecord: true),
            ChartPoint(date: start.addingTimeInterval(100 * 3600), value: .nan),
            ChartPoint(date: start.addingTimeInterval(200 * 3600), value: 3),
            ChartPoint(date: start.addingTimeInterval(201 * 3600), value: 4),
        ]
        // Two periods: hours 0-100 and 100-201; the first point stays too, so the line starts
        // where the history does (the last, 4, is its period's best already).
        let series = ProgressChartView.downsample(points, periods: 2)
        #expect(series.points.map(\.value) == [5, 9, 4])
        #expect(series.points.map(\.isRecord) == [false, true, false])
        #expect(series.shownIndex == [0, 1, 1, 1, 2, 2])
        // The last session is drawn though its period's best came before it.
        let lower = points.dropLast() + [ChartPoint(date: start.addingTimeInterval(201 * 3600), value: 2)]
        let ending = ProgressChartView.downsample(Array(lower), periods: 2)
        #expect(ending.points.map(\.value) == [5, 9, 3, 2], "\(ending.points.map(\.value))")
        let all = ProgressChartView.downsample(points, periods: 10)
        #expect(all.points.map(\.value) == [5, 9, 7, 3, 4], "fewer points than periods: every finite one")
        #expect(all.shownIndex == [0, 1, 2, 2, 3, 4])
        let shuffled = ProgressChartView.downsample(points.reversed(), periods: 10)
        #expect(shuffled.points.map(\.value) == [5, 9, 7, 3, 4], "points are put in date order")
        #expect(ProgressChartView.downsample([], periods: 0).points.isEmpty)
        let nothing = ProgressChartView.downsample([ChartPoint(date: start, value: .infinity)], periods: 3)
        #expect(nothing.points.isEmpty && nothing.shownIndex == [nil])
    }

    @Test("values and dates that are not finite are left out; huge values still draw", arguments: sizes)
    func notFinite(size: (Int, Int)) {
        let start = S.day(2026, 1, 1)
        let bad = [
            ChartPoint(date: start, value: .nan), ChartPoint(date: start.addingTimeInterval(86_400), value: 100),
            ChartPoint(date: start.addingTimeInterval(2 * 86_400), value: .infinity),
            ChartPoint(date: start.addingTimeInterval(3 * 86_400), value: -.infinity),
            ChartPoint(date: Date(timeIntervalSinceReferenceDate: .nan), value: 500),
            ChartPoint(date: Date(timeIntervalSinceReferenceDate: .infinity), value: 500),
            ChartPoint(date: Date.distantFuture.addingTimeInterval(1e300), value: 500),
            ChartPoint(date: start.addingTimeInterval(4 * 86_400), value: 110),
        ]
        for cursor in [nil, 0, 2, 4, 7] {
            for braille in [true, false] {
                let screen = Self.render(
                    Self.model(bad, cursor: cursor), columns: size.0, rows: size.1, braille: braille)
                #expect(screen.contains("110 kg"), "\(screen)")
                #expect(!screen.contains("500") && !screen.contains("nan") && !screen.contains("inf"), "\(screen)")
                S.expectOnlyInside(screen, x: 0, y: 0, width: size.0, height: size.1)
            }
        }
        let allBad = Self.render(Self.model([ChartPoint(date: start, value: .nan)], cursor: 0))
        #expect(allBad.contains(ProgressChartView.emptyMessage), "\(allBad)")

        let huge = [
            ChartPoint(date: start, value: -.greatestFiniteMagnitude),
            ChartPoint(date: start.addingTimeInterval(86_400), value: .greatestFiniteMagnitude, isRecord: true),
            ChartPoint(date: start.addingTimeInterval(2 * 86_400), value: 1e-300),
        ]
        for braille in [true, false] {
            let screen = Self.render(Self.model(huge, cursor: 1), columns: size.0, rows: size.1, braille: braille)
            #expect(screen.contains("…"), "long labels are cut:\n\(screen)")
            S.expectOnlyInside(screen, x: 0, y: 0, width: size.0, height: size.1)
        }
    }

    @Test("hostile text in the title, unit and formatter keeps every row its width", arguments: sizes)
    func hostileText(size: (Int, Int)) {
        let hostile = HardText.corpus.joined(separator: " ")
        let formatter = ChartValueFormat(name: "hostile") { "\u{202E}\($0)💪🏽\u{7}\n" }
        for text in [hostile, HardText.hugePaste] + HardText.corpus {
            let model = ChartModel(
                title: text, points: Self.rising, unitLabel: text, cursor: 1, valueFormatter: formatter)
            for braille in [true, false] {
                var buffer = ScreenBuffer(width: size.0, height: size.1)
                ProgressChartView.render(
                    model, into: &buffer, x: 2, y: 1, width: size.0 - 4, height: size.1 - 2, glyphs: .unicode,
                    braille: braille, timeZone: S.utc)
                S.expectOnlyInside(buffer, x: 2, y: 1, width: size.0 - 4, height: size.1 - 2)
                #expect(!buffer.text.unicodeScalars.contains { DisplayText.isBidiControl($0) })
            }
        }
    }

    @Test("any rectangle from nothing to 16×8, at any place, draws inside it without a crash")
    func tinyRectangles() {
        let points = Self.rising + [ChartPoint(date: S.day(2026, 5, 1), value: 90, isRecord: true)]
        for width in -1...16 {
            for height in -1...8 {
                for braille in [true, false] {
                    var buffer = ScreenBuffer(width: 20, height: 10)
                    ProgressChartView.render(
                        Self.model(points, cursor: 2), into: &buffer, x: 2, y: 1, width: width, height: height,
                        glyphs: .unicode, braille: braille, timeZone: S.utc)
                    S.expectOnlyInside(buffer, x: 2, y: 1, width: max(0, width), height: max(0, height))
                    var clipped = ScreenBuffer(width: 6, height: 3)
                    ProgressChartView.render(
                        Self.model(points, cursor: 2), into: &clipped, x: -3, y: -2, width: width, height: height,
                        glyphs: .ascii, braille: braille, timeZone: S.utc)
                }
            }
        }
        let small = Self.render(Self.model(Self.rising, cursor: 3), columns: 30, rows: 3)
        #expect(small.line(1).hasPrefix("1 Apr 2026  120 kg"), "a plot does not fit, the point does:\n\(small)")
    }

    @Test("a chart of 80×24 uses the whole rectangle; 200×60 too", arguments: sizes)
    func usesTheRectangle(size: (Int, Int)) throws {
        let screen = Self.render(Self.model(Self.rising, cursor: 3), columns: size.0, rows: size.1)
        let plotted = S.cells(screen, y: 1, width: size.0, height: size.1 - 4) { S.isBraille($0) || $0 == "★" }
        let left = try #require(plotted.map(\.x).min())
        let right = try #require(plotted.map(\.x).max())
        let top = try #require(plotted.map(\.y).min())
        let bottom = try #require(plotted.map(\.y).max())
        #expect(left <= 10, "\(screen)")
        #expect(right == size.0 - 1, "\(screen)")
        #expect(bottom - top >= (size.1 - 4) * 3 / 4, "the line spans most of the height:\n\(screen)")
        #expect(screen.line(size.1 - 3).contains("└──"), "the axis above the dates:\n\(screen)")
    }
}

import Foundation
import SpotterCore
import Testing

@testable import SpotterTUI

@Suite("The training calendar: weeks across, weekdays down, days shaded by volume")
struct CalendarHeatmapTests {
    typealias S = ChartSupport

    static func render(
        _ days: [Date: Double] = [:], year: Int, firstWeekday: Int = 2, selected: Date? = nil, columns: Int = 80,
        rows: Int = 9, glyphs: Glyphs = .unicode
    ) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: columns, height: rows)
        CalendarHeatmapView.render(
            days: days, year: year, firstWeekday: firstWeekday, calendar: S.calendar, selected: selected,
            into: &buffer, x: 0, y: 0, width: columns, height: rows, glyphs: glyphs)
        return buffer
    }

    /// The one reversed cell of the grid: the selected day.
    static func selectedCell(_ screen: ScreenBuffer) -> (x: Int, y: Int)? {
        let reversed = S.cells(screen, y: 1, width: screen.width, height: 7) { _ in true }.filter {
            screen[$0.x, $0.y].style.reverse
        }
        return reversed.count == 1 ? reversed[0] : nil
    }

    /// The day cells drawn (everything in the grid's rows right of the labels that is not blank).
    static func dayCells(_ screen: ScreenBuffer) -> [(x: Int, y: Int)] {
        S.cells(screen, x: 4, y: 1, width: screen.width - 4, height: 7) { $0 != " " }
    }

    @Test(
        "1 January lands on its weekday's row in the first column, whatever day the year starts on",
        arguments: [
            // (year, weekday of 1 January counted from Monday)
            (2023, 6), (2024, 0), (2026, 3), (2022, 5), (2025, 2),
        ])
    func yearStarts(year: Int, mondayOffset: Int) throws {
        let monday = Self.render(year: year, firstWeekday: 2, selected: S.day(year, 1, 1))
        let cell = try #require(Self.selectedCell(monday), "\(monday)")
        #expect(cell.x == 4 && cell.y == 1 + mondayOffset, "\(monday)")
        let sunday = Self.render(year: year, firstWeekday: 1, selected: S.day(year, 1, 1))
        let sundayCell = try #require(Self.selectedCell(sunday), "\(sunday)")
        #expect(sundayCell.x == 4 && sundayCell.y == 1 + (mondayOffset + 1) % 7, "\(sunday)")
        #expect(monday.line(0).dropFirst(4).hasPrefix("Jan"), "\(monday)")
    }

    @Test("Monday-first rows start with Monday; Sunday-first rows with Sunday")
    func weekdayRows() {
        let monday = Self.render(year: 2026, firstWeekday: 2)
        #expect(monday.line(1).hasPrefix("Mon "), "\(monday)")
        #expect(monday.line(3).hasPrefix("Wed "), "\(monday)")
        #expect(monday.line(5).hasPrefix("Fri "), "\(monday)")
        #expect(monday.line(7).hasPrefix("    "), "\(monday)")
        let sunday = Self.render(year: 2026, firstWeekday: 1)
        #expect(sunday.line(1).hasPrefix("    "), "\(sunday)")
        #expect(sunday.line(2).hasPrefix("Mon "), "\(sunday)")
        #expect(sunday.line(4).hasPrefix("Wed "), "\(sunday)")
        #expect(sunday.line(6).hasPrefix("Fri "), "\(sunday)")
        // 1 March 2026 is a Sunday: the last row of its week Monday-first, the first Sunday-first.
        let march = S.day(2026, 3, 1)
        #expect(Self.selectedCell(Self.render(year: 2026, firstWeekday: 2, selected: march))?.y == 7)
        #expect(Self.selectedCell(Self.render(year: 2026, firstWeekday: 1, selected: march))?.y == 1)
        // A first weekday out of 1...7 is taken modulo 7.
        #expect(Self.render(year: 2026, firstWeekday: 9) == monday)
        #expect(Self.render(year: 2026, firstWeekday: -5) == monday)
    }

    @Test("a leap year has 366 cells, another 365; a year can take 54 weeks and still fit 58 columns")
    func leapYear() throws {
        #expect(Self.dayCells(Self.render(year: 2024)).count == 366)
        #expect(Self.dayCells(Self.render(year: 2026)).count == 365)
        let layout = try #require(CalendarHeatmapView.layout(year: 2000, firstWeekday: 1, calendar: S.calendar))
        #expect(layout.dayCount == 366 && layout.columns == 54)
        let narrow = Self.render(year: 2000, firstWeekday: 1, selected: S.day(2000, 12, 31), columns: 58)
        #expect(Self.dayCells(narrow).count == 366, "\(narrow)")
        #expect(Self.selectedCell(narrow).map { $0.x == 57 && $0.y == 1 } == true, "\(narrow)")
        let leapDay = Self.render(year: 2024, selected: S.day(2024, 2, 29))
        #expect(leapDay.line(8).hasPrefix("Thu 29 Feb 2024  rest"), "\(leapDay)")
        let lastDay = Self.render(year: 2024, selected: S.day(2024, 12, 31))
        // 2024 starts on a Monday: day 365 is in week 52, on Tuesday's row.
        #expect(Self.selectedCell(lastDay).map { $0.x == 4 + 52 && $0.y == 2 } == true, "\(lastDay)")
    }

    @Test("days are shaded by their volume's quartile among the year's training days")
    func quartiles() throws {
        // Monday 5 January 2026 to Thursday 8 January: week 1, the first four rows.
        let days: [Date: Double] = [
            S.day(2026, 1, 5): 100, S.day(2026, 1, 6): 200, S.day(2026, 1, 7): 250,
            S.day(2026, 1, 7).addingTimeInterval(11 * 3600 + 1800): 50,  // 23:30 the same day: they add up
            S.day(2026, 1, 8): 400, S.day(2026, 1, 9): 0, S.day(2026, 1, 10): -30,
            S.day(2025, 12, 31): 9999,  // another year: not counted
        ]
        let screen = Self.render(days, year: 2026)
        let shades = (1...7).map { String(screen[5, $0].character) }
        #expect(shades == ["░", "▒", "▓", "█", "·", "·", "·"], "\(screen)")
        #expect(screen[5, 1].style.color == .green && !screen[5, 1].style.dim)
        #expect(screen[5, 5].style.dim, "a day without training is faint")
        let ascii = Self.render(days, year: 2026, glyphs: .ascii)
        #expect((1...7).map { String(ascii[5, $0].character) } == [".", ":", "*", "#", "-", "-", "-"], "\(ascii)")
        #expect(ascii.text.allSatisfy { $0.isASCII }, "\(ascii)")

        let sorted = [10.0, 20, 30, 40, 50, 60, 70, 80]
        #expect(sorted.map { CalendarHeatmapView.level($0, among: sorted) } == [1, 1, 2, 2, 3, 3, 4, 4])
        #expect(CalendarHeatmapView.level(0, among: sorted) == 0)
        #expect([5.0, 5, 5].map { CalendarHeatmapView.level($0, among: [5, 5, 5]) } == [4, 4, 4])
        #expect(CalendarHeatmapView.level(7, among: [7]) == 4)
    }

    @Test("the selected day is reversed and named with its volume under the grid")
    func selection() throws {
        let days: [Date: Double] = [S.day(2026, 3, 12): 4350]
        let screen = Self.render(days, year: 2026, selected: S.day(2026, 3, 12).addingTimeInterval(-11 * 3600))
        let cell = try #require(Self.selectedCell(screen), "\(screen)")
        #expect(screen[cell.x, cell.y].character == "█")
        #expect(screen.line(8).hasPrefix("Thu 12 Mar 2026  4350"), "\(screen)")
        #expect(screen.line(8).hasSuffix("less ·░▒▓█ more"), "\(screen)")
        let outside = Self.render(days, year: 2026, selected: S.day(2027, 1, 1))
        #expect(Self.selectedCell(outside) == nil, "a day of another year selects nothing:\n\(outside)")
    }

    @Test("arrows move a week left and right, a day up and down, and stop at the year's ends")
    func moves() {
        let calendar = S.calendar
        func move(_ date: Date, _ direction: CalendarMove) -> Date {
            CalendarHeatmapView.move(date, direction, year: 2026, calendar: calendar)
        }
        func start(_ month: Int, _ day: Int) -> Date {
            calendar.startOfDay(for: S.day(2026, month, day))
        }
        #expect(move(S.day(2026, 3, 12), .right) == start(3, 19))
        #expect(move(S.day(2026, 3, 12), .left) == start(3, 5))
        #expect(move(S.day(2026, 3, 12), .up) == start(3, 11))
        #expect(move(S.day(2026, 3, 12), .down) == start(3, 13))
        #expect(move(S.day(2026, 1, 3), .left) == start(1, 1))
        #expect(move(S.day(2026, 1, 1), .up) == start(1, 1))
        #expect(move(S.day(2026, 12, 28), .right) == start(12, 31))
        #expect(move(S.day(2026, 12, 31), .down) == start(12, 31))
        #expect(move(S.day(2026, 2, 28), .down) == start(3, 1))
        #expect(move(S.day(2030, 6, 1), .left) == start(12, 24), "from after the year: its last day, then back")
        #expect(move(S.day(2019, 6, 1), .down) == start(1, 2))
        #expect(move(Date(timeIntervalSinceReferenceDate: .nan), .down) == start(1, 1))
        #expect(
            CalendarHeatmapView.move(S.day(2024, 2, 28), .down, year: 2024, calendar: calendar)
                == calendar.startOfDay(for: S.day(2024, 2, 29)))
        var day = S.day(2026, 6, 15)
        for _ in 0..<60 { day = move(day, .right) }
        #expect(day == start(12, 31))
    }

    @Test("a narrow calendar keeps the latest weeks, or the selected day's week on")
    func narrow() throws {
        let screen = Self.render(year: 2026, columns: 30)
        // 53 weeks, 26 shown: from week 27, which starts on Monday 6 July (day 186 and on).
        #expect(Self.dayCells(screen).count == 365 - 186, "\(screen)")
        #expect(screen.line(0).contains("Dec") && !screen.line(0).contains("Jan"), "\(screen)")
        #expect(screen[29, 4].character == "·", "31 December, a Thursday, in the last column:\n\(screen)")
        let early = Self.render(year: 2026, selected: S.day(2026, 2, 2), columns: 30)
        let cell = try #require(Self.selectedCell(early), "\(early)")
        #expect(cell.x == 4 && cell.y == 1, "the selected week comes first:\n\(early)")
        // February's first day is in the week before; March's is three weeks on: no room for "Feb".
        #expect(early.line(0).hasPrefix("       Mar"), "\(early)")
        // March began the week before; April's first day leaves room for its whole name.
        let march = Self.render(year: 2026, selected: S.day(2026, 3, 4), columns: 30)
        #expect(march.line(0).hasPrefix("    Mar Apr"), "\(march)")
        S.expectOnlyInside(screen, x: 0, y: 0, width: 30, height: 9)
    }

    @Test("hostile input: any rectangle, odd years, volumes and dates that are not finite")
    func hostile() {
        let days: [Date: Double] = [
            S.day(2026, 1, 5): .nan, S.day(2026, 1, 6): .infinity, S.day(2026, 1, 7): .greatestFiniteMagnitude,
            S.day(2026, 1, 7).addingTimeInterval(60): .greatestFiniteMagnitude,
            Date(timeIntervalSinceReferenceDate: .nan): 10, Date(timeIntervalSinceReferenceDate: 1e300): 10,
            Date.distantPast: 10, S.day(2026, 1, 8): 1e-300,
        ]
        for year in [2026, 0, -44, 1, 9999, 10_000, Int.max, Int.min] {
            for width in [-1, 0, 1, 5, 11, 12, 40, 80, 200] {
                for height in [-1, 0, 1, 3, 8, 9, 60] {
                    var buffer = ScreenBuffer(width: 204, height: 62)
                    CalendarHeatmapView.render(
                        days: days, year: year, firstWeekday: 2, calendar: S.calendar,
                        selected: S.day(2026, 1, 7), into: &buffer, x: 2, y: 1, width: width, height: height,
                        glyphs: .unicode)
                    S.expectOnlyInside(buffer, x: 2, y: 1, width: max(0, width), height: max(0, height))
                }
            }
            _ = CalendarHeatmapView.move(S.day(2026, 1, 7), .left, year: year, calendar: S.calendar)
        }
        let screen = Self.render(days, year: 2026, selected: S.day(2026, 1, 7))
        #expect(screen[5, 3].character == "█", "\(screen)")
        #expect(screen[5, 1].character == "·" && screen[5, 2].character == "·", "\(screen)")
    }
}

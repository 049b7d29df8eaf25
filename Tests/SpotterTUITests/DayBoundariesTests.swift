import Foundation
import Testing

@testable import SpotterTUI

/// The workouts list's day labels are placed among boundaries worked out once per reload; they
/// must say what asking the calendar about each workout said, across DST changes too.
@Suite("Day boundaries")
struct DayBoundariesTests {
    /// The calendar asked directly: on the same day as now, or as now minus 1...6 days; in now's year.
    static func asked(_ date: Date, now: Date, calendar: Calendar) -> (daysAgo: Int?, sameYear: Bool) {
        let sameYear = calendar.component(.year, from: date) == calendar.component(.year, from: now)
        for ago in 0..<7 {
            if let day = calendar.date(byAdding: .day, value: -ago, to: now), calendar.isDate(date, inSameDayAs: day) {
                return (ago, sameYear)
            }
        }
        return (nil, sameYear)
    }

    @Test(
        "every date from 10 days before to 2 days after now, in 20-minute steps, lands where the calendar says",
        arguments: ["UTC", "Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe", "America/Havana"])
    func matchesTheCalendar(zone: String) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        // Around DST changes (Berlin spring and autumn 2024; São Paulo's midnight change of
        // November 2018; Havana's midnight change of March 2024), and New Year's Eve.
        let nows = [
            "2024-03-31T12:00:00Z", "2024-04-02T01:30:00Z", "2024-10-28T23:59:00Z", "2018-11-06T02:59:59Z",
            "2024-03-12T04:00:00Z", "2024-12-31T23:30:00Z", "2025-01-01T00:00:00Z", "2025-01-03T10:00:00Z",
        ].compactMap { ISO8601DateFormatter().date(from: $0) }
        #expect(nows.count == 8)
        for now in nows {
            let days = DayBoundaries(now: now, calendar: calendar)
            var date = now.addingTimeInterval(-10 * 86_400)
            while date < now.addingTimeInterval(2 * 86_400) {
                let expected = Self.asked(date, now: now, calendar: calendar)
                #expect(days.daysAgo(date) == expected.daysAgo, "\(zone) now \(now) date \(date)")
                #expect(days.isThisYear(date) == expected.sameYear, "\(zone) now \(now) date \(date)")
                date.addTimeInterval(20 * 60)
            }
            // Each boundary itself, and the instant before it.
            for boundary in days.starts + [days.tomorrow, days.year.start, days.year.end] {
                for probe in [boundary, boundary.addingTimeInterval(-0.001)] {
                    let expected = Self.asked(probe, now: now, calendar: calendar)
                    #expect(days.daysAgo(probe) == expected.daysAgo, "\(zone) now \(now) probe \(probe)")
                    #expect(days.isThisYear(probe) == expected.sameYear, "\(zone) now \(now) probe \(probe)")
                }
            }
        }
    }

    /// Where midnight is skipped (São Paulo, 4 November 2018: 00:00 became 01:00), that day has 23
    /// hours; the list once counted hours between day starts and called it "yesterday" two days later.
    @Test("a workout two calendar days ago across a 23-hour day is not yesterday")
    func skippedMidnight() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/Sao_Paulo"))
        let now = try #require(ISO8601DateFormatter().date(from: "2018-11-06T02:30:00Z"))  // 6 Nov, 00:30
        let fourth = try #require(ISO8601DateFormatter().date(from: "2018-11-04T15:00:00Z"))  // 4 Nov, 13:00
        #expect(DayBoundaries(now: now, calendar: calendar).daysAgo(fourth) == 2)
    }
}

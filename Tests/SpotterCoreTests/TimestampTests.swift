import Foundation
import SpotterCore
import Testing

@Suite("RFC 3339 timestamps")
struct TimestampTests {
    @Test func formatsKnownInstantsToTheMillisecond() {
        let known: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.000Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"), (1_709_164_799.999, "2024-02-28T23:59:59.999Z"),
            // Foundation's formatter writes .122 here: it truncates 1790000000.123 × 1000 = …122.99998.
            (1_790_000_000.123, "2026-09-21T14:13:20.123Z"), (4_102_444_800, "2100-01-01T00:00:00.000Z"),
        ]
        for (seconds, text) in known {
            #expect(Timestamp.format(Date(timeIntervalSince1970: seconds)) == text)
            #expect(Timestamp.parse(text) == Timestamp.truncated(Date(timeIntervalSince1970: seconds)))
        }
    }

    @Test func roundTripsAndAgreesWithFoundationToTheSecond() {
        let seconds = Date.ISO8601FormatStyle(timeZone: .gmt)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let millis = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Timestamp.fromMillis(millis)
            let text = Timestamp.format(date)
            #expect(Timestamp.parse(text) == date, "\(text)")
            #expect(Timestamp.millis(Timestamp.parse(text)!) == millis)
            #expect(
                text.prefix(19)
                    == seconds.format(Timestamp.fromMillis(millis - ((millis % 1000) + 1000) % 1000)).prefix(19))
        }
    }

    @Test func readsOtherRFC3339FormsAndRefusesNonsense() {
        #expect(Timestamp.parse("2026-11-22T07:31:07Z") == Date(timeIntervalSince1970: 1_795_332_667))
        #expect(Timestamp.parse("2026-11-22T08:31:07.000+01:00") == Date(timeIntervalSince1970: 1_795_332_667))
        for text in ["2026-02-31T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-11-22 07:31:07", "yesterday", ""] {
            #expect(Timestamp.parse(text) == nil, "\(text)")
        }
    }

    /// An offset form is held to the same calendar as the `Z` form, and nothing is accepted that
    /// the canonical shape cannot write back (a year that leaves 0000–9999 once in UTC).
    @Test func offsetFormsAreAsStrictAsTheCanonicalShape() {
        #expect(Timestamp.parse("2026-11-22T08:31:07+01:00") == Date(timeIntervalSince1970: 1_795_332_667))
        #expect(Timestamp.parse("2026-11-22t02:01:07.0004-05:30") == Date(timeIntervalSince1970: 1_795_332_667))
        #expect(Timestamp.parse("2026-11-22T07:31:07.1236Z").map(Timestamp.format) == "2026-11-22T07:31:07.124Z")
        for text in [
            "2026-02-29T00:00:00+00:00", "2026-11-22T10:60:00+00:00", "2026-11-22T24:00:00+00:00",
            "2026-11-22T10:00:60+00:00", "2026-11-22T10:00:00+00:60", "2026-11-22T10:00:00+0100",
            "2026-11-22T10:00:00+01", "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00+01:00 ",
            "0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999-01:00", "10000-01-01T00:00:00Z",
        ] {
            #expect(Timestamp.parse(text) == nil, "\(text)")
        }
        for text in ["0000-01-01T00:00:00-01:00", "9999-12-31T23:59:59.999+01:00"] {
            let date = Timestamp.parse(text)
            #expect(date.map(Timestamp.format).flatMap(Timestamp.parse) == date, "\(text) reads back")
        }
    }
}

import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, the wire, storage and export format.
///
/// Formatting and parsing are done by hand: they run for every set that is logged, pulled or
/// shown, where Foundation's general ISO 8601 machinery was the largest cost. Parsing takes RFC
/// 3339's `date-time` strictly (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, real calendar values,
/// no leap second) and only instants whose UTC year has four digits, so whatever is accepted
/// is written back in the canonical shape and reads back as the same instant.
public enum Timestamp {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    public static func format(_ date: Date) -> String {
        let total = millis(date)
        var days = total / 86_400_000
        var msOfDay = total % 86_400_000
        if msOfDay < 0 {
            msOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(daysSinceEpoch: days)
        guard (0...9999).contains(year) else { return withFraction.format(date) }
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int64, width: Int, at offset: Int) {
            var remaining = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(48 + remaining % 10)
                remaining /= 10
            }
        }
        put(year, width: 4, at: 0)
        bytes[4] = UInt8(ascii: "-")
        put(month, width: 2, at: 5)
        bytes[7] = UInt8(ascii: "-")
        put(day, width: 2, at: 8)
        bytes[10] = UInt8(ascii: "T")
        put(msOfDay / 3_600_000, width: 2, at: 11)
        bytes[13] = UInt8(ascii: ":")
        put(msOfDay / 60_000 % 60, width: 2, at: 14)
        bytes[16] = UInt8(ascii: ":")
        put(msOfDay / 1000 % 60, width: 2, at: 17)
        bytes[19] = UInt8(ascii: ".")
        put(msOfDay % 1000, width: 3, at: 20)
        bytes[23] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8.prefix(48))
        guard bytes.count < 48 else { return nil }
        return parseDateTime(bytes)
    }

    /// An RFC 3339 `date-time` (the canonical shape Spotter writes is one of them): any number
    /// of fraction digits, rounded to the millisecond; `Z` or a `±HH:MM` offset.
    static func parseDateTime(_ bytes: [UInt8]) -> Date? {
        func digits(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in from..<from + count {
                let digit = bytes[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        guard let year = digits(0, 4), byte(4) == UInt8(ascii: "-"), let month = digits(5, 2),
            byte(7) == UInt8(ascii: "-"), let day = digits(8, 2),
            byte(10) == UInt8(ascii: "T") || byte(10) == UInt8(ascii: "t"), let hour = digits(11, 2),
            byte(13) == UInt8(ascii: ":"), let minute = digits(14, 2), byte(16) == UInt8(ascii: ":"),
            let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var index = 19
        var fractionMillis: Int64 = 0
        if byte(index) == UInt8(ascii: ".") {
            index += 1
            let start = index
            var scale: Int64 = 100
            while let next = byte(index), next &- 48 < 10 {
                let digit = Int64(next - 48)
                if scale > 0 {
                    fractionMillis += digit * scale
                } else if index == start + 3, digit >= 5 {
                    fractionMillis += 1  // the fourth digit rounds to the nearest millisecond
                }
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        switch byte(index) {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHours = digits(index + 1, 2), byte(index + 3) == UInt8(ascii: ":"),
                let offsetMinute = digits(index + 4, 2), offsetHours < 24, offsetMinute < 60
            else { return nil }
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            offsetMinutes = sign * (offsetHours * 60 + offsetMinute)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        guard civil(daysSinceEpoch: days) == (year, month, day) else { return nil }  // 31 Feb and the like
        let local = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + fractionMillis
        let total = local - offsetMinutes * 60_000
        return inWrittenRange(total) ? fromMillis(total) : nil
    }

    /// Whether an instant's UTC year has four digits (what the canonical shape can write).
    static func inWrittenRange(_ millis: Int64) -> Bool {
        var days = millis / 86_400_000
        if millis % 86_400_000 < 0 { days -= 1 }
        return (0...9999).contains(civil(daysSinceEpoch: days).0)
    }

    /// Howard Hinnant's days-from-civil, proleptic Gregorian.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse: civil date of a day count since 1970-01-01.
    static func civil(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Milliseconds since 1970, the precision the wire keeps; used to compare timestamps
    /// that made a round trip.
    /// Milliseconds since 1970, for the instants a timestamp can spell (years 0000 to 9999).
    /// An instant outside them (a damaged file's 1e300, infinity) is held at the nearest end
    /// instead of trapping in the conversion: every reader of stored or sent times refuses such a
    /// value first (`Timestamp.parse` takes four-digit years only, `EntityCodable` checks earlier
    /// images), so this only keeps a slip elsewhere from stopping the process.
    public static func millis(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value < 0 ? firstMillis : lastMillis }
        return Int64(min(max(value, Double(firstMillis)), Double(lastMillis)))
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    static let firstMillis: Int64 = -62_167_219_200_000
    static let lastMillis: Int64 = 253_402_300_799_999

    /// Whether `date` is an instant a timestamp can spell (a four-digit year).
    public static func isSpellable(_ date: Date) -> Bool {
        let value = date.timeIntervalSince1970 * 1000
        return value.isFinite && value >= Double(firstMillis) && value <= Double(lastMillis)
    }

    public static func fromMillis(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// A date truncated to the millisecond, so what is stored equals what comes back.
    public static func truncated(_ date: Date) -> Date {
        fromMillis(millis(date))
    }
}

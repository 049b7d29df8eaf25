import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, the wire and export format.
public enum Timestamp {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let withoutFraction = Date.ISO8601FormatStyle(timeZone: .gmt)

    public static func format(_ date: Date) -> String {
        withFraction.format(date)
    }

    public static func parse(_ text: String) -> Date? {
        if let date = try? withFraction.parse(text) { return date }
        return try? withoutFraction.parse(text)
    }

    /// Milliseconds since 1970, the precision the wire keeps; used to compare timestamps
    /// that made a round trip.
    public static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    public static func fromMillis(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// A date truncated to the millisecond, so what is stored equals what comes back.
    public static func truncated(_ date: Date) -> Date {
        fromMillis(millis(date))
    }
}

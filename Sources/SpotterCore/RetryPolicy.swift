import Foundation

/// Exponential backoff with jitter and a safety valve.
public struct RetryPolicy: Sendable, Equatable {
    public var base: TimeInterval = 1
    public var factor: Double = 2
    public var cap: TimeInterval = 60
    public var jitter: Double = 0.3
    /// After this many real attempts an operation gives up and is shown as failed.
    public var maxAttempts = 20
    /// After this long in the queue an operation gives up and is shown as failed.
    public var maxAge: TimeInterval = 7 * 24 * 3600

    public init() {}

    /// The delay before the next try after `attempt` failed tries (1 = the first failed).
    /// - Parameter unitRandom: a value in 0..<1; 0.5 means no jitter.
    public func delay(afterAttempt attempt: Int, unitRandom: Double) -> TimeInterval {
        let exponent = Double(max(0, attempt - 1))
        let raw = min(cap, base * pow(factor, exponent))
        let spread = (unitRandom * 2 - 1) * jitter
        return max(0, raw * (1 + spread))
    }

    /// Whether an operation that has made `attempts` tries and was enqueued at `createdAt`
    /// must stop retrying.
    public func shouldGiveUp(attempts: Int, createdAt: Date, now: Date) -> Bool {
        attempts >= maxAttempts || now.timeIntervalSince(createdAt) >= maxAge
    }
}

/// Parses `Retry-After` (RFC 9110: delay-seconds or an HTTP date).
public enum RetryAfter {
    /// The longest wait a server's `Retry-After` is taken for: a server (or a proxy in front of it)
    /// that asks for an hour, or for 2⁶³ seconds, must not park the queue past what a lifter waits
    /// for; the retry after this finds out whether it is still busy.
    public static let longest: TimeInterval = 300

    public static func parse(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return min(TimeInterval(seconds), longest) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), longest)
    }
}

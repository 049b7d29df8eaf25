import Foundation
import GRDB
import SpotterCore

/// This device's preferences, kept in the database's `meta` table (`spotter config` sets them).
public enum Preference {
    /// Default rest after a set, in seconds.
    public static let restSeconds = "pref.rest_seconds"
    /// "0" silences the bell and flash when rest is over.
    public static let restBell = "pref.rest_bell"
    /// The unit weights are shown in ("kg" or "lb"); nil shows each set in its own unit.
    public static let unit = "pref.unit"
    /// The day weeks start on for the calendar, the streak and weekly volume: "monday" or
    /// "sunday"; nil follows the locale.
    public static let weekStart = "pref.week_start"
    /// Workouts a week needs to count for the streak (1 to 14; 1 when not set).
    public static let streakGoal = "pref.streak_goal"
    /// Rest for one exercise, overriding the default.
    public static func rest(exercise: String) -> String { "pref.rest." + exercise.lowercased() }

    public static let defaultRestSeconds = 90
    /// Rest longer than an hour is a typo.
    public static let maxRestSeconds = 3600
}

extension SpotterStore {
    /// The catalogue's spelling of `name` (an alias resolved), or `name` trimmed.
    func catalogueSpelling(_ name: String) throws -> String {
        try writer.read { db in
            try Self.canonicalExercise(name.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
        }
    }
}

extension Preferences {
    /// Rest after a set of `exercise`: its own setting, else the default, else 90 s.
    public func restSeconds(exercise: String?) throws -> Int {
        if let exercise,
            let own = try meta(Preference.rest(exercise: try store.catalogueSpelling(exercise))).flatMap(Int.init)
        {
            return own
        }
        return try meta(Preference.restSeconds).flatMap(Int.init) ?? Preference.defaultRestSeconds
    }

    /// Sets the default rest (`exercise` nil) or one exercise's; nil clears the exercise's own.
    public func setRestSeconds(_ seconds: Int?, exercise: String?) throws {
        if let seconds, !(0...Preference.maxRestSeconds).contains(seconds) {
            throw StoreError.invalid(
                ValidationError(field: "rest", message: "must be 0 to \(Preference.maxRestSeconds) seconds"))
        }
        if let exercise {
            try setMeta(Preference.rest(exercise: try store.catalogueSpelling(exercise)), seconds.map(String.init))
        } else {
            try setMeta(Preference.restSeconds, seconds.map(String.init))
        }
    }

    /// Whether the end of rest rings the terminal bell (on unless turned off).
    public var restBell: Bool {
        get throws { try meta(Preference.restBell) != "0" }
    }

    public func setRestBell(_ on: Bool) throws {
        try setMeta(Preference.restBell, on ? "1" : "0")
    }

    /// The unit to show weights in, if the user chose one.
    public var displayUnit: WeightUnit? {
        get throws { try meta(Preference.unit).flatMap(WeightUnit.init(rawValue:)) }
    }

    public func setDisplayUnit(_ unit: WeightUnit?) throws {
        try setMeta(Preference.unit, unit?.rawValue)
    }

    /// The first day of the week the lifter chose (1 Sunday, 2 Monday); nil: the locale's.
    public var weekStart: Int? {
        get throws {
            switch try meta(Preference.weekStart) {
            case "sunday": 1
            case "monday": 2
            default: nil
            }
        }
    }

    /// Sets the first day of the week: 1 Sunday, 2 Monday, nil the locale's.
    public func setWeekStart(_ weekday: Int?) throws {
        guard let weekday else { return try setMeta(Preference.weekStart, nil) }
        guard weekday == 1 || weekday == 2 else {
            throw StoreError.invalid(ValidationError(field: "week start", message: "must be monday or sunday"))
        }
        try setMeta(Preference.weekStart, weekday == 1 ? "sunday" : "monday")
    }

    /// The calendar days and weeks are counted in: this device's time zone, weeks starting on
    /// the chosen day or else the locale's.
    public func progressCalendar() throws -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        calendar.locale = .current
        calendar.firstWeekday = try weekStart ?? Calendar.current.firstWeekday
        return calendar
    }

    /// Workouts a week needs for the streak: the lifter's goal, 1 when none was set.
    public var streakGoal: Int {
        get throws { try meta(Preference.streakGoal).flatMap(Int.init).map { min(14, max(1, $0)) } ?? 1 }
    }

    public func setStreakGoal(_ workouts: Int) throws {
        guard (1...14).contains(workouts) else {
            throw StoreError.invalid(ValidationError(field: "streak", message: "must be 1 to 14 workouts a week"))
        }
        try setMeta(Preference.streakGoal, String(workouts))
    }

    /// Per-exercise settings for every exercise with its own rest.
    public func exerciseRests() throws -> [ExerciseRest] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE 'pref.rest.%' ORDER BY key")
                .compactMap { row in
                    // A setting that does not read (a damaged file) is as good as none.
                    guard let key = row.cell("key", as: String.self),
                        let seconds = row.cell("value", as: String.self).flatMap({ Int($0) })
                    else { return nil }
                    return ExerciseRest(exercise: String(key.dropFirst("pref.rest.".count)), seconds: seconds)
                }
        }
    }
}

/// An exercise's own rest between sets.
public struct ExerciseRest: Sendable, Equatable {
    public var exercise: String
    public var seconds: Int
}

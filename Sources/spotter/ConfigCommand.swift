import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

/// `spotter config …`: this device's preferences (kept in its database).
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract:
            "Show or set preferences: rest timer, its bell, the unit weights are shown in, plates and warm-ups.",
        subcommands: [
            ConfigShow.self, ConfigRest.self, ConfigBell.self, ConfigUnit.self, ConfigPlates.self, ConfigWarmup.self,
            ConfigWeekStart.self, ConfigStreak.self,
        ],
        defaultSubcommand: ConfigShow.self)
}

struct ConfigShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print every preference.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        var unreadable = false
        print("rest \(try store.preferences.restSeconds(exercise: nil)) s")
        for rest in try store.preferences.exerciseRests() { print("rest \(rest.seconds) s for \(rest.exercise)") }
        print("bell \(try store.preferences.restBell ? "on" : "off")")
        print("unit \(try store.preferences.displayUnit?.rawValue ?? "as logged")")
        for unit in WeightUnit.allCases {
            // One setting that does not read is named with its mend; the others still show.
            do {
                print("plates \(unit.rawValue): \(try store.preferences.plateSet(unit: unit).summary)")
            } catch {
                print("plates \(unit.rawValue): \(StoreError.oneLine(error))")
                unreadable = true
            }
        }
        for bar in try store.preferences.exerciseBars() {
            print(
                "bar for \(try store.queries.exerciseName(bar.exercise)): \(Formatting.weight(bar.bar, unit: bar.unit))"
            )
        }
        do {
            print("warmup \(try store.preferences.warmupScheme().summary)")
        } catch {
            print("warmup: \(StoreError.oneLine(error))")
            unreadable = true
        }
        let weekStart = try store.preferences.weekStart
        print("week-start \(weekStart == 1 ? "sunday" : weekStart == 2 ? "monday" : "locale")")
        print("streak \(try store.preferences.streakGoal) a week")
        if unreadable { throw ExitCode(1) }
    }
}

struct ConfigWeekStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "week-start",
        abstract: "The day weeks start on in the calendar, the streak and weekly volume: monday, sunday or locale.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "monday, sunday or locale.") var day: String

    func run() async throws {
        let weekday: Int?
        switch day.lowercased() {
        case "monday", "mon": weekday = 2
        case "sunday", "sun": weekday = 1
        case "locale", "auto": weekday = nil
        default: throw CLIError("week-start is monday, sunday or locale, not '\(shownName(day))'", code: 2)
        }
        try global.openStore().preferences.setWeekStart(weekday)
        print("week-start \(weekday == 1 ? "sunday" : weekday == 2 ? "monday" : "locale")")
    }
}

struct ConfigStreak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streak", abstract: "Workouts a week needs to count for the streak (1 to 14).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "1 to 14.") var workouts: String

    func run() async throws {
        guard let count = Int(workouts), (1...14).contains(count) else {
            throw CLIError("streak is 1 to 14 workouts a week, not '\(shownName(workouts))'", code: 2)
        }
        try global.openStore().preferences.setStreakGoal(count)
        print("streak \(count) a week")
    }
}

struct ConfigRest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rest", abstract: "Rest after a set, in seconds (0: no timer); per exercise with --exercise.")

    @OptionGroup var global: GlobalOptions
    // All unrecognized: "-5" is a value to refuse with its reason, not an unknown flag.
    @Argument(parsing: .allUnrecognized, help: "Seconds, 0 to 3600; 'default' clears an exercise's own setting.")
    var values: [String] = []
    @Option(help: "Only after sets of this exercise.") var exercise: String?

    func run() async throws {
        guard values.count == 1, let seconds = values.first else {
            throw CLIError(
                "rest takes one value: seconds from 0 to \(Preference.maxRestSeconds), or 'default'", code: 2)
        }
        let store = try global.openStore()
        if seconds == "default" {
            guard let exercise else { throw CLIError("'default' needs --exercise", code: 2) }
            try store.preferences.setRestSeconds(nil, exercise: exercise)
            print("rest for \(exercise): the default (\(try store.preferences.restSeconds(exercise: nil)) s)")
            return
        }
        guard let value = Int(seconds), (0...Preference.maxRestSeconds).contains(value) else {
            throw CLIError("rest must be a whole number of seconds from 0 to \(Preference.maxRestSeconds)", code: 2)
        }
        try store.preferences.setRestSeconds(value, exercise: exercise)
        print("rest \(value) s" + (exercise.map { " for \($0)" } ?? ""))
    }
}

struct ConfigBell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bell", abstract: "Ring the bell when rest is over: on or off.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "on or off.") var state: String

    func run() async throws {
        guard state == "on" || state == "off" else { throw CLIError("bell is on or off, not '\(state)'", code: 2) }
        try global.openStore().preferences.setRestBell(state == "on")
        print("bell \(state)")
    }
}

struct ConfigUnit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unit",
        abstract: "Show weights in kg or lb ('auto': each set as logged). Stored values never change.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "kg, lb or auto.") var unit: String

    func run() async throws {
        let chosen: WeightUnit?
        switch unit.lowercased() {
        case "kg": chosen = .kg
        case "lb", "lbs": chosen = .lb
        case "auto": chosen = nil
        default: throw CLIError("unit is kg, lb or auto, not '\(unit)'", code: 2)
        }
        try global.openStore().preferences.setDisplayUnit(chosen)
        print("unit \(chosen?.rawValue ?? "auto")")
    }
}

import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI

/// `spotter config plates kg --bar 20 25,20,15,10,5,2.5,1.25`: the bar and plates owned, per unit;
/// with `--exercise NAME --bar 15` one exercise's own bar.
struct ConfigPlates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plates",
        abstract: "The bar and the plates you own, per unit (kg or lb); --exercise gives one lift its own bar.",
        discussion: """
            spotter config plates kg --bar 20 25,20,15,10,5,2.5,1.25
            spotter config plates lb --bar 45 45,35,25,10,5,2.5
            spotter config plates kg --exercise "Trap Bar Deadlift" --bar 25
            spotter config plates kg --exercise "Trap Bar Deadlift" --bar default
            spotter config plates kg default     (back to a 20 kg bar and 25 … 1.25 kg plates)
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "kg or lb.") var unit: String
    @Argument(help: "The plates, comma-separated (one of each kind: you own them in pairs), or 'default'.")
    var plates: String?
    @Option(help: "The empty bar's weight ('default' with --exercise: the unit's bar).") var bar: String?
    @Option(help: "Only this exercise's bar.") var exercise: String?

    func run() async throws {
        let unit = try parseUnit(unit)
        let store = try global.openStore()
        if let exercise {
            guard plates == nil else {
                throw CLIError("--exercise sets only a bar: the plates are the unit's (drop the plate list)", code: 2)
            }
            guard let bar else { throw CLIError("--exercise needs --bar WEIGHT (or --bar default)", code: 2) }
            let name = try store.queries.exerciseName(exercise)
            if bar == "default" {
                try store.preferences.setBar(nil, unit: unit, exercise: name)
            } else {
                try store.preferences.setBar(try number(bar, what: "--bar"), unit: unit, exercise: name)
            }
            print("\(name): \(try store.preferences.plateSet(unit: unit, exercise: name).summary)")
            return
        }
        guard bar != nil || plates != nil else {
            print(try store.preferences.plateSet(unit: unit).summary)
            return
        }
        if plates == "default" {
            guard bar == nil else { throw CLIError("'default' sets the bar too: drop --bar", code: 2) }
            try store.preferences.resetPlates(unit: unit)
            print(try store.preferences.plateSet(unit: unit).summary)
            return
        }
        var parsed: [Double]?
        if let plates {
            do { parsed = try PlateSet.parsePlates(plates) } catch { throw StoreError.invalid(error) }
        }
        try store.preferences.setPlates(unit: unit, bar: try bar.map { try number($0, what: "--bar") }, plates: parsed)
        print(try store.preferences.plateSet(unit: unit).summary)
    }
}

/// `spotter config warmup bar:10,40:5,60:3,80:2` (or `default`).
struct ConfigWarmup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warmup",
        abstract: "The warm-up ramp before a first work set: PERCENT:REPS steps ('bar' is the empty bar), or 'default'."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "e.g. bar:10,40:5,60:3,80:2") var steps: String?

    func run() async throws {
        let store = try global.openStore()
        if let steps {
            if steps == "default" {
                try store.preferences.setWarmupScheme(nil)
            } else {
                let scheme: WarmupScheme
                do { scheme = try WarmupScheme.parse(steps) } catch { throw StoreError.invalid(error) }
                try store.preferences.setWarmupScheme(scheme)
            }
        }
        print("warmup \(try store.preferences.warmupScheme().summary)")
    }
}

/// `spotter warmup EXERCISE WEIGHT`: the warm-up sets before a work set of WEIGHT, with plates.
struct WarmupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warmup", abstract: "Print the warm-up ramp before a work set, with the plates per side.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The exercise (a catalogue name, an alias or a part of one).") var exercise: String
    @Argument(help: "The working weight (\"100\", \"225lb\").") var weight: String
    @Option(help: "kg or lb (default: the display unit, else kg).") var unit: String?

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let name = try Self.exercise(exercise, store: store)
        // Read as the set form reads a weight: "100", "102,5", "225lb".
        let defaultUnit = try unit.map(parseUnit) ?? store.preferences.displayUnit ?? .kg
        guard !weight.trimmingCharacters(in: .whitespaces).isEmpty,
            let amount = AppState.parseWeight(weight, defaultUnit: defaultUnit)
        else {
            throw CLIError("the weight must be a number, not '\(DisplayText.replacingControls(weight))'", code: 2)
        }
        // Kept as a logged weight is (to 0.01): "140.0000001" is 140, which loads.
        let (working, chosen) = (Validation.keptWeight(amount.weight), amount.unit)
        do { try Validation.weight(working, unit: chosen) } catch { throw StoreError.invalid(error) }
        // Off a bar (dumbbells, machines, cables) the ramp is in the unit's usual steps.
        let barPlates = try store.preferences.barPlates(name, unit: chosen)
        let onBar = barPlates != nil
        let plates = barPlates ?? .offBar(chosen)
        let scheme = try store.preferences.warmupScheme()
        let ramp = scheme.ramp(to: working, on: plates)
        print("\(name): warm-up for \(Formatting.weight(working, unit: chosen))  (\(scheme.summary))")
        // Said only when a step of the scheme is past what the plates load, and so left out.
        if onBar, let most = Plates.nearest(working, on: plates).below,
            Plates.nearest(working, on: plates).above == nil,
            most < working, scheme.steps.contains(where: { working * $0.percent / 100 > most + 1e-9 })
        {
            print("  these plates load at most \(Formatting.weight(most, unit: chosen)): steps past it are left out")
        }
        if ramp.isEmpty { print("  no warm-up sets: \(Formatting.weight(working, unit: chosen)) is light") }
        for (index, step) in ramp.enumerated() {
            var line = "  \(index + 1). \(Formatting.weight(step.weight, unit: chosen)) × \(step.reps)"
            if onBar, let loading = Plates.load(step.weight, on: plates) { line += "   \(loading.text)" }
            print(line)
        }
        var work = "  work: \(Formatting.weight(working, unit: chosen))"
        if onBar {
            if let loading = Plates.load(working, on: plates) {
                work += "   \(loading.text)"
            } else {
                let (below, above) = Plates.nearest(working, on: plates)
                let either = [below, above].compactMap { $0 }.map { Formatting.weight($0, unit: chosen) }
                work +=
                    "   cannot be loaded exactly with \(plates.summary); nearest: \(either.joined(separator: " or "))"
            }
        }
        print(work)
    }

    /// A name as the log command takes it, without making anything: several matches exit 2.
    static func exercise(_ raw: String, store: SpotterStore) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        do { try Validation.exercise(name) } catch { throw StoreError.invalid(error) }
        if let known = try store.queries.knownExercise(name) { return known }
        let matches = try store.queries.exercises(matching: name, limit: 11)
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { return name }
        throw CLIError(
            "'\(name)' matches several exercises: \(matches.prefix(10).joined(separator: "; ")). Name one", code: 2)
    }
}

/// "kg" or "lb" (any case, "lbs" too).
private func parseUnit(_ text: String) throws -> WeightUnit {
    switch text.lowercased() {
    case "kg": return .kg
    case "lb", "lbs": return .lb
    default: throw CLIError("the unit is kg or lb, not '\(DisplayText.replacingControls(text))'", code: 2)
    }
}

/// A finite number given on the command line, or exit 2 naming it.
private func number(_ text: String, what: String) throws -> Double {
    guard let value = Validation.decimal(text.trimmingCharacters(in: .whitespaces)) else {
        throw CLIError("\(what) must be a number, not '\(DisplayText.replacingControls(text))'", code: 2)
    }
    return value
}

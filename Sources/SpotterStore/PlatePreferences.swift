import Foundation
import GRDB
import SpotterCore

extension Preference {
    /// The bar and plates owned in `unit`, as `PlateSet.text`: "20: 25,20,15,10,5,2.5,1.25".
    public static func plates(_ unit: WeightUnit) -> String { "pref.plates.\(unit.rawValue)" }
    /// One exercise's own bar in `unit` (a 15 kg bar, a trap bar), by its catalogue spelling.
    public static func bar(_ unit: WeightUnit, exercise: String) -> String {
        "pref.bar.\(unit.rawValue).\(exercise.lowercased())"
    }
    /// The warm-up ramp: "bar:10,40:5,60:3,80:2".
    public static let warmup = "pref.warmup"
    /// The equipment whose weight is a bar and plates.
    public static let barEquipment: Set<String> = ["barbell", "trap bar"]
}

/// An exercise's own bar, as `spotter config show` lists it.
public struct ExerciseBar: Sendable, Equatable {
    public var exercise: String
    public var unit: WeightUnit
    public var bar: Double
}

extension Preferences {
    /// The bar and plates for `unit` (the lifter's, else a gym's usual ones), with `exercise`'s
    /// own bar when it has one. A stored value that no longer reads is an error naming it, never
    /// quietly the default.
    public func plateSet(unit: WeightUnit, exercise: String? = nil) throws -> PlateSet {
        try writer.read { db in try Self.plateSet(unit: unit, exercise: exercise, db: db) }
    }

    static func plateSet(unit: WeightUnit, exercise: String?, db: Database) throws -> PlateSet {
        func meta(_ key: String) throws -> String? {
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
        }
        var set = PlateSet.standard(unit)
        if let text = try meta(Preference.plates(unit)) {
            guard let stored = try? PlateSet(text: text, unit: unit) else {
                throw unreadable(Preference.plates(unit), text, mend: "spotter config plates \(unit.rawValue) default")
            }
            set = stored
        }
        if let exercise {
            let name = try SpotterStore.canonicalExercise(
                exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
            let key = Preference.bar(unit, exercise: name)
            if let text = try meta(key) {
                guard let bar = Double(text) else {
                    throw unreadable(
                        key, text, mend: "spotter config plates \(unit.rawValue) --exercise \"\(name)\" --bar default")
                }
                set = try checked(PlateSet(unit: unit, bar: bar, plates: set.plates))
            }
        }
        return set
    }

    /// The plates for `exercise` in `unit` when its weight is a bar and plates; nil otherwise. One
    /// read: whether it is on a bar, the unit's plates and the lift's own bar.
    public func barPlates(_ exercise: String, unit: WeightUnit) throws -> PlateSet? {
        try writer.read { db in try Self.barPlates(exercise, unit: unit, db: db) }
    }

    static func barPlates(_ exercise: String, unit: WeightUnit, db: Database) throws -> PlateSet? {
        try loadsOnBar(exercise, db: db) ? try plateSet(unit: unit, exercise: exercise, db: db) : nil
    }

    /// Sets the bar and the plates owned in `unit`; nil keeps what is set now.
    public func setPlates(unit: WeightUnit, bar: Double?, plates: [Double]?) throws {
        // A stored set that no longer reads is replaced, what is not given taken from a gym's usual
        // set: setting it again is how the lifter mends it.
        let current = (try? plateSet(unit: unit)) ?? PlateSet.standard(unit)
        let set = try Self.checked(PlateSet(unit: unit, bar: bar ?? current.bar, plates: plates ?? current.plates))
        try setMeta(Preference.plates(unit), set.text)
    }

    /// Back to a gym's usual bar and plates in `unit` (`PlateSet.standard`).
    public func resetPlates(unit: WeightUnit) throws {
        try setMeta(Preference.plates(unit), nil)
    }

    /// Gives `exercise` a bar of its own in `unit` (nil: back to the unit's bar).
    public func setBar(_ bar: Double?, unit: WeightUnit, exercise: String) throws {
        let name = try store.catalogueSpelling(exercise)
        if let bar {
            let plates = try plateSet(unit: unit).plates
            _ = try Self.checked(PlateSet(unit: unit, bar: bar, plates: plates))
        }
        try setMeta(Preference.bar(unit, exercise: name), bar.map(Formatting.number))
    }

    /// Every exercise with a bar of its own.
    public func exerciseBars() throws -> [ExerciseBar] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE 'pref.bar.%' ORDER BY key")
                .compactMap { row in
                    // A setting that does not read (a damaged file) is as good as none.
                    guard let key = row.cell("key", as: String.self) else { return nil }
                    let rest = key.dropFirst("pref.bar.".count)
                    guard let dot = rest.firstIndex(of: "."), let unit = WeightUnit(rawValue: String(rest[..<dot])),
                        let bar = row.cell("value", as: String.self).flatMap(Double.init)
                    else { return nil }
                    return ExerciseBar(exercise: String(rest[rest.index(after: dot)...]), unit: unit, bar: bar)
                }
        }
    }

    /// The warm-up ramp (the lifter's, else bar ×10, 40 % ×5, 60 % ×3, 80 % ×2).
    public func warmupScheme() throws -> WarmupScheme {
        guard let text = try meta(Preference.warmup) else { return .standard }
        do {
            return try WarmupScheme.parse(text)
        } catch {
            throw Self.unreadable(Preference.warmup, text, mend: "spotter config warmup default")
        }
    }

    /// Sets the warm-up ramp; nil goes back to the usual one.
    public func setWarmupScheme(_ scheme: WarmupScheme?) throws {
        try setMeta(
            Preference.warmup,
            scheme.map { scheme in
                scheme.steps.map { ($0.percent == 0 ? "bar" : Formatting.number($0.percent)) + ":\($0.reps)" }
                    .joined(separator: ",")
            })
    }

    /// Whether `exercise`'s weight is a bar and plates: a catalogue barbell or trap-bar lift, or
    /// any exercise given a bar of its own.
    static func loadsOnBar(_ exercise: String, db: Database) throws -> Bool {
        let name = try SpotterStore.canonicalExercise(exercise.trimmingCharacters(in: .whitespacesAndNewlines), db: db)
        let equipment = try String.fetchOne(
            db, sql: "SELECT equipment FROM exercises WHERE name = ? COLLATE NOCASE", arguments: [name])
        if let equipment, Preference.barEquipment.contains(equipment.lowercased()) { return true }
        for unit in WeightUnit.allCases
        where try String.fetchOne(
            db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Preference.bar(unit, exercise: name)]) != nil
        {
            return true
        }
        return false
    }

    static func checked(_ make: @autoclosure () throws(ValidationError) -> PlateSet) throws -> PlateSet {
        do {
            return try make()
        } catch {
            throw StoreError.invalid(error)
        }
    }

    /// - Parameter mend: the command that sets it back to the default.
    static func unreadable(_ key: String, _ text: String, mend: String) -> StoreError {
        StoreError.notAllowed(
            "the preference \(key) reads '\(DisplayText.replacingControls(String(text.prefix(60))))', which is not "
                + "a valid setting: set it again with spotter config, or back to the default with \(mend)")
    }
}

import Foundation
import Synchronization

/// The bar and the plates a lifter owns, in one unit: what a barbell weight can be loaded with.
///
/// Plates are owned in pairs (one for each side) and as many pairs of each plate as a load needs:
/// a gym's rack, not a count. A weight is loadable when the bar plus the same plates on both sides
/// make it exactly.
public struct PlateSet: Sendable, Hashable, Codable {
    public var unit: WeightUnit
    /// The empty bar (20 kg, 45 lb; 15 kg for a women's bar, 25 kg for a trap bar).
    public var bar: Double
    /// The plates, heaviest first, each once.
    public var plates: [Double]

    /// The most kinds of plate a set holds, and the heaviest plate or bar it takes: bounds that keep
    /// the solver's table small whatever a configuration says.
    public static let maxKinds = 16
    public static let maxPlate = 100.0
    public static let maxBar = 100.0

    public init(unit: WeightUnit, bar: Double, plates: [Double]) throws(ValidationError) {
        guard bar.isFinite, bar >= 0, bar <= Self.maxBar, let barHundredths = Self.hundredths(bar) else {
            throw ValidationError(
                field: "bar", message: "must be a weight from 0 to \(Int(Self.maxBar)) in steps of 0.01")
        }
        var seen: Set<Int> = []
        var kept: [Double] = []
        for plate in plates {
            // At least one hundredth: 1e-300 is above 0 but is kept, and read back, as 0.
            guard plate.isFinite, plate > 0, plate <= Self.maxPlate, let key = Self.hundredths(plate), key > 0 else {
                throw ValidationError(
                    field: "plates",
                    message:
                        "'\(Self.exactly(plate))' is not a plate (a weight above 0 and up to \(Int(Self.maxPlate)), in steps of 0.01)"
                )
            }
            // Kept as the hundredths it was checked as: what is stored reads back the same.
            if seen.insert(key).inserted { kept.append(Double(key) / 100) }
        }
        guard !kept.isEmpty else { throw ValidationError(field: "plates", message: "name at least one plate") }
        guard kept.count <= Self.maxKinds else {
            throw ValidationError(field: "plates", message: "at most \(Self.maxKinds) kinds of plate")
        }
        self.unit = unit
        self.bar = Double(barHundredths) / 100
        self.plates = kept.sorted(by: >)
    }

    /// A gym's usual plates: 20 kg bar with 25 … 1.25 kg plates; 45 lb bar with 45 … 2.5 lb plates.
    public static func standard(_ unit: WeightUnit) -> PlateSet {
        switch unit {
        case .kg: try! PlateSet(unit: .kg, bar: 20, plates: [25, 20, 15, 10, 5, 2.5, 1.25])
        case .lb: try! PlateSet(unit: .lb, bar: 45, plates: [45, 35, 25, 10, 5, 2.5])
        }
    }

    /// Reads "25,20,15,10,5,2.5,1.25" (a comma in a decimal written "2,5" is not taken: the list
    /// is comma-separated; use a point).
    public static func parsePlates(_ text: String) throws(ValidationError) -> [Double] {
        var plates: [Double] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let value = Validation.decimal(trimmed) else {
                throw ValidationError(
                    field: "plates",
                    message: "'\(DisplayText.replacingControls(String(trimmed.prefix(20))))' is not a number")
            }
            plates.append(value)
        }
        return plates
    }

    /// `value` as typed: the short form when it reads back the same, else every digit (a refused
    /// 0.005 or 1e-300 is not shown as the "0.01" or "0" it would round to).
    static func exactly(_ value: Double) -> String {
        let short = Formatting.number(value)
        return Double(short) == value ? short : "\(value)"
    }

    /// A weight in hundredths of the unit, when it is a whole number of them.
    static func hundredths(_ weight: Double) -> Int? {
        guard weight.isFinite, abs(weight) < 1e7 else { return nil }
        let scaled = (weight * 100).rounded()
        return abs(scaled - weight * 100) < 1e-6 ? Int(scaled) : nil
    }

    /// A lift off a bar (dumbbells, a machine, a cable): no bar, loaded in the unit's usual steps
    /// of 2.5 kg or 5 lb.
    public static func offBar(_ unit: WeightUnit) -> PlateSet {
        try! PlateSet(unit: unit, bar: 0, plates: [unit == .kg ? 1.25 : 2.5])
    }

    /// "20: 25,20,15,10,5,2.5,1.25": how the lifter types a set, and how it is kept.
    public var text: String {
        "\(Formatting.number(bar)): \(plates.map(Formatting.number).joined(separator: ","))"
    }

    /// Reads `text` ("BAR: PLATES") as a set in `unit`, by the same rules as `init(unit:bar:plates:)`.
    public init(text: String, unit: WeightUnit) throws(ValidationError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let bar = Validation.decimal(parts[0].trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError(
                field: "plates", message: "type the bar, a colon and the plates: 20: 25,20,15,10,5,2.5")
        }
        try self.init(unit: unit, bar: bar, plates: try Self.parsePlates(String(parts[1])))
    }

    /// "20 kg bar, 25/20/15/10/5/2.5/1.25".
    public var summary: String {
        "\(Formatting.weight(bar, unit: unit)) bar, \(plates.map(Formatting.number).joined(separator: "/"))"
    }
}

/// What a weight takes on a bar: the plates on each side, heaviest first.
public struct PlateLoading: Sendable, Equatable {
    public var total: Double
    public var bar: Double
    public var perSide: [Double]
    public var unit: WeightUnit

    /// "20 + 2×25 + 10 + 2.5 per side"; "bar only" for the empty bar.
    public var text: String {
        guard !perSide.isEmpty else { return "bar only (\(Formatting.weight(bar, unit: unit)))" }
        var groups: [(plate: Double, count: Int)] = []
        for plate in perSide {
            if let last = groups.last, last.plate == plate {
                groups[groups.count - 1].count += 1
            } else {
                groups.append((plate, 1))
            }
        }
        let parts = groups.map {
            $0.count == 1 ? Formatting.number($0.plate) : "\($0.count)×\(Formatting.number($0.plate))"
        }
        return "\(Formatting.number(bar)) + \(parts.joined(separator: " + ")) per side"
    }
}

/// The plate calculator: which plates make a weight, the loadable weights either side of one that
/// cannot be made, and rounding to loadable weights that never stalls a progression.
public enum Plates {
    /// What a solution table covers: per side, up to this many hundredths (500 kg a side).
    static let maxSideHundredths = 50_000

    /// The plates that make `weight` exactly, fewest plates first (ties: heavier plates first);
    /// nil when no combination does.
    public static func load(_ weight: Double, on set: PlateSet) -> PlateLoading? {
        guard let total = PlateSet.hundredths(weight), let bar = PlateSet.hundredths(set.bar) else { return nil }
        let twice = total - bar
        guard twice >= 0, twice % 2 == 0, twice / 2 <= maxSideHundredths else { return nil }
        let table = Table.shared(set)
        guard let plates = table.plates(for: twice / 2) else { return nil }
        return PlateLoading(total: weight, bar: set.bar, perSide: plates, unit: set.unit)
    }

    /// The loadable weights nearest `weight` below and above it (nil where there is none: below
    /// the bar, or past what the table covers). A loadable weight is its own neighbour both ways.
    public static func nearest(_ weight: Double, on set: PlateSet) -> (below: Double?, above: Double?) {
        guard !weight.isNaN, let bar = PlateSet.hundredths(set.bar) else { return (nil, nil) }
        // Per side, in hundredths: the target may fall between two of them.
        let clamped = min(max(weight, -1), Double(bar + 2 * maxSideHundredths) / 100 + 1)
        let side = (clamped * 100 - Double(bar)) / 2
        let low = Int(side.rounded(.down))
        let high = max(0, Int(side.rounded(.up)))
        let table = Table.shared(set)
        var below: Double?
        var candidate = min(low, table.limit)
        while candidate >= 0 {
            if table.reachable(candidate) {
                below = Double(bar + 2 * candidate) / 100
                break
            }
            candidate -= 1
        }
        var above: Double?
        candidate = high
        while candidate <= table.limit {
            if table.reachable(candidate) {
                above = Double(bar + 2 * candidate) / 100
                break
            }
            candidate += 1
        }
        return (below, above)
    }

    /// The loadable weight nearest `weight` (ties: the lighter); `weight` itself when loadable, and
    /// the bar when below it.
    public static func rounded(_ weight: Double, on set: PlateSet) -> Double {
        let (below, above) = nearest(weight, on: set)
        switch (below, above) {
        case (let below?, let above?): return weight - below <= above - weight ? below : above
        case (let below?, nil): return below
        case (nil, let above?): return above
        case (nil, nil): return set.bar
        }
    }

    /// The next target of a progression: `previous + increment`, rounded to a loadable weight —
    /// and when that rounds back to `previous` or below (an increment smaller than the smallest
    /// step the plates make), the next loadable weight above `previous`, so a progression never
    /// stalls on plates. A deload (negative increment) rounds likewise but never below the bar.
    /// A pure function of its inputs, so every device that holds the same plates computes the same.
    public static func progressed(from previous: Double, by increment: Double, on set: PlateSet) -> Double {
        let wanted = previous + increment
        let landed = rounded(wanted, on: set)
        if increment > 0, landed <= previous + 1e-9 {
            return nearest(previous + 0.01, on: set).above ?? landed
        }
        if increment < 0, landed >= previous - 1e-9 {
            return nearest(previous - 0.01, on: set).below ?? set.bar
        }
        return landed
    }

    /// Fewest plates for each per-side amount up to `limit` hundredths (a coin-change table).
    struct Table: Sendable {
        /// Tables already made, by plate set: a lifter has one or two, and the form asks on every key.
        private static let made = Mutex<[PlateSet: Table]>([:])

        /// The whole table for `set`, made once.
        static func shared(_ set: PlateSet) -> Table {
            if let known = made.withLock({ $0[set] }) { return known }
            let table = Table(set, upTo: Plates.maxSideHundredths)
            made.withLock { made in
                if made.count >= 16 { made.removeAll() }
                made[set] = table
            }
            return table
        }

        let limit: Int
        private let kinds: [Int]
        private let plates: [Double]
        /// count[a]: fewest plates that make `a`; `Int.max` when none do.
        private var count: [Int]
        /// The plate taken last for `a`, by index into `kinds` (heaviest preferred on ties).
        private var last: [Int]

        init(_ set: PlateSet, upTo limit: Int) {
            self.limit = max(0, min(limit, Plates.maxSideHundredths))
            kinds = set.plates.compactMap(PlateSet.hundredths)
            plates = set.plates
            count = Array(repeating: Int.max, count: self.limit + 1)
            last = Array(repeating: -1, count: self.limit + 1)
            count[0] = 0
            guard self.limit > 0 else { return }
            for amount in 1...self.limit {
                for (index, kind) in kinds.enumerated() where kind <= amount && count[amount - kind] != Int.max {
                    let candidate = count[amount - kind] + 1
                    // Strictly fewer wins; the heaviest plate is tried first, so a tie keeps it.
                    if candidate < count[amount] {
                        count[amount] = candidate
                        last[amount] = index
                    }
                }
            }
        }

        func reachable(_ amount: Int) -> Bool { amount >= 0 && amount <= limit && count[amount] != Int.max }

        /// The plates for `amount` per side, heaviest first.
        func plates(for amount: Int) -> [Double]? {
            guard reachable(amount) else { return nil }
            var result: [Double] = []
            var remaining = amount
            while remaining > 0 {
                let index = last[remaining]
                result.append(plates[index])
                remaining -= kinds[index]
            }
            return result.sorted(by: >)
        }
    }
}

/// A warm-up ramp before the first working set of a lift: by default the empty bar ×10, then about
/// 40 % ×5, 60 % ×3 and 80 % ×2 of the working weight, each rounded down to a loadable weight,
/// no weight twice, none at or above the working weight.
public struct WarmupScheme: Sendable, Equatable, Codable {
    public struct Step: Sendable, Equatable, Codable {
        /// Percent of the working weight; 0 is the empty bar.
        public var percent: Double
        public var reps: Int

        public init(percent: Double, reps: Int) {
            self.percent = percent
            self.reps = reps
        }
    }

    public var steps: [Step]

    public init(steps: [Step]) throws(ValidationError) {
        guard !steps.isEmpty, steps.count <= 10 else {
            throw ValidationError(field: "warmup", message: "give 1 to 10 steps")
        }
        var kept: [Step] = []
        for step in steps {
            // Checked as it is kept, in hundredths of a percent: 99.999 would be kept as 100.
            let percent = step.percent.isFinite ? (step.percent * 100).rounded() / 100 : step.percent
            guard percent.isFinite, (0..<100).contains(percent) else {
                throw ValidationError(
                    field: "warmup", message: "a step's percent must be from 0 (the bar) to below 100")
            }
            guard (1...50).contains(step.reps) else {
                throw ValidationError(field: "warmup", message: "a step's reps must be from 1 to 50")
            }
            kept.append(Step(percent: percent, reps: step.reps))
        }
        self.steps = kept.sorted { $0.percent < $1.percent }
    }

    public static let standard = try! WarmupScheme(steps: [
        Step(percent: 0, reps: 10), Step(percent: 40, reps: 5), Step(percent: 60, reps: 3), Step(percent: 80, reps: 2),
    ])

    /// Reads "bar:10,40:5,60:3,80:2" (percent:reps; "bar" or 0 is the empty bar).
    public static func parse(_ text: String) throws(ValidationError) -> WarmupScheme {
        var steps: [Step] = []
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            let percentText = pieces.first.map { $0.hasSuffix("%") ? String($0.dropLast()) : $0 }
            guard pieces.count == 2, let percentText,
                let percent = percentText.lowercased() == "bar" ? 0 : Validation.decimal(percentText),
                let reps = Int(pieces[1])
            else {
                throw ValidationError(
                    field: "warmup",
                    message:
                        "'\(DisplayText.replacingControls(String(part.prefix(20))))' is not PERCENT:REPS (e.g. bar:10,40:5,60:3,80:2)"
                )
            }
            steps.append(Step(percent: percent, reps: reps))
        }
        return try WarmupScheme(steps: steps)
    }

    /// "bar×10, 40%×5, 60%×3, 80%×2".
    public var summary: String {
        steps.map { ($0.percent == 0 ? "bar" : "\(Formatting.number($0.percent))%") + "×\($0.reps)" }
            .joined(separator: ", ")
    }

    /// The warm-up sets before `working` on `set`'s bar, lightest first. Each is rounded down to a
    /// loadable weight; a step that lands on nothing (the bar step off a bar), on a weight already
    /// in the ramp (the bar, for a low percentage) or at or above the working weight is left out;
    /// a working weight up to half as heavy again as the bar (30 kg on a 20 kg bar) is light: it
    /// has no ramp.
    public func ramp(to working: Double, on set: PlateSet) -> [SetTarget] {
        guard working.isFinite, working > set.bar * 1.5 + 1e-9 else { return [] }
        var ramp: [SetTarget] = []
        for step in steps {
            let weight: Double
            if step.percent == 0 {
                weight = set.bar
            } else {
                let target = working * step.percent / 100
                let (below, above) = Plates.nearest(target, on: set)
                // Past what the plates load at all, a step is left out: loading the most they
                // reach instead would call a lighter set "60 %", and repeat it at 80 %.
                if above == nil, let below, below < target - 1e-9 { continue }
                weight = below ?? set.bar
            }
            guard weight > 0, weight < working - 1e-9 else { continue }
            guard !ramp.contains(where: { abs($0.weight - weight) < 1e-9 }) else { continue }
            ramp.append(SetTarget(kind: .warmup, weight: weight, reps: step.reps))
        }
        return ramp
    }
}

import Foundation

/// A planned set's target: the weight (in its exercise's unit) and reps shown on its planned row.
public struct SetTarget: Sendable, Equatable, Codable {
    public var kind: SetKind
    public var weight: Double
    public var reps: Int

    public init(kind: SetKind = .normal, weight: Double, reps: Int) {
        self.kind = kind
        self.weight = weight
        self.reps = reps
    }
}

/// What was logged for one planned set.
public struct PerformedSet: Sendable, Equatable {
    public var weight: Double
    public var reps: Int

    public init(weight: Double, reps: Int) {
        self.weight = weight
        self.reps = reps
    }
}

/// One earlier performance of a planned exercise: the targets it was started with and, aligned
/// with them, what was logged (nil: skipped or never logged — a miss).
public struct PastPerformance: Sendable, Equatable {
    public var date: Date
    public var targets: [SetTarget]
    public var performed: [PerformedSet?]
    /// What the routine itself said then, before progression (nil: not known). When it says
    /// something else now, the routine was edited since, and its new targets count.
    public var written: [SetTarget]?

    public init(date: Date, targets: [SetTarget], performed: [PerformedSet?], written: [SetTarget]? = nil) {
        self.date = date
        self.targets = targets
        self.performed = performed
        self.written = written
    }
}

/// The targets for the next performance, and the one line that says why (the form's hint).
public struct ProgressionOutcome: Sendable, Equatable {
    public var targets: [SetTarget]
    public var hint: String

    public init(targets: [SetTarget], hint: String) {
        self.targets = targets
        self.hint = hint
    }
}

/// The progression rules, pure: the same history always gives the same targets and hint.
public enum Progression {
    /// Misses in a row at one weight after which `linear` takes 10 % off.
    public static let missesBeforeDeload = 3
    public static let deloadFactor = 0.9

    /// The targets of the next performance of `exercise`.
    /// - Parameters:
    ///   - written: the routine's targets as written now (percentages already turned into weights).
    ///   - history: earlier performances of this exercise in this routine, oldest first.
    ///   - timeZone: for the dates the hint names.
    ///   - plates: the bar and plates of a lift on a bar, in the routine's unit: a weight that
    ///     moves lands on a loadable one, and an increment too small to load moves to the next
    ///     loadable step (`Plates.progressed`), so progression never stalls on plates.
    public static func next(
        for exercise: RoutineExercise, written: [SetTarget], history: [PastPerformance],
        timeZone: TimeZone = .current, plates: PlateSet? = nil, loadType: LoadType = .external
    ) -> ProgressionOutcome {
        // An assisted lift's weight is the machine's help: it progresses by taking help away,
        // is hit with no more help than planned, and deloads by giving some back. No plates load it.
        let assisted = loadType == .assisted
        let plates = assisted ? nil : plates?.unit == exercise.unit ? plates : nil
        let step = assisted ? -exercise.increment : exercise.increment
        guard exercise.progression != .fixed else {
            return ProgressionOutcome(targets: written, hint: "as written (fixed)")
        }
        guard let last = history.last else {
            return ProgressionOutcome(targets: written, hint: "first time: as written")
        }
        let day = dayText(last.date, timeZone: timeZone)
        let edited =
            last.written.map { then in
                then.count != written.count
                    || zip(then, written).contains { abs($0.weight - $1.weight) > 1e-6 || $0.reps != $1.reps }
            } ?? false
        guard last.targets.map(\.kind) == written.map(\.kind), last.performed.count == last.targets.count, !edited
        else {
            return ProgressionOutcome(targets: written, hint: "routine changed since \(day): as written")
        }
        let working = last.targets.indices.filter { last.targets[$0].kind != .warmup }
        guard !working.isEmpty else { return ProgressionOutcome(targets: written, hint: "warm-ups only: as written") }
        let shape = shapeText(last.targets, working)
        let unit = exercise.unit.rawValue
        let increment = Formatting.number(exercise.increment)
        let hit = isHit(last, working, assisted: assisted)
        // Warm-ups keep what is written; only working sets move.
        func moved(weight change: (Double) -> Double, reps: ((Int) -> Int)? = nil) -> [SetTarget] {
            last.targets.indices.map { index in
                guard last.targets[index].kind != .warmup else { return written[index] }
                var target = last.targets[index]
                let wanted = max(0, change(target.weight))
                if let plates, abs(wanted - target.weight) > 1e-9 {
                    target.weight = Plates.progressed(from: target.weight, by: wanted - target.weight, on: plates)
                } else {
                    target.weight = wanted
                }
                if let reps { target.reps = reps(target.reps) }
                return target
            }
        }
        switch exercise.progression {
        case .fixed:
            return ProgressionOutcome(targets: written, hint: "as written (fixed)")
        case .linear:
            if hit {
                let targets = moved(weight: { $0 + step })
                if assisted {
                    return ProgressionOutcome(
                        targets: targets, hint: "-\(increment) \(unit) of assistance: all \(shape) done on \(day)")
                }
                // The plates may make the step bigger than the increment: the hint says so.
                let first = working[0]
                let taken = targets[first].weight - last.targets[first].weight
                let stepText =
                    abs(taken - exercise.increment) > 1e-6
                    ? "+\(Formatting.number(taken)) \(unit) (+\(increment) cannot be loaded)" : "+\(increment) \(unit)"
                return ProgressionOutcome(targets: targets, hint: "\(stepText): all \(shape) done on \(day)")
            }
            let misses = missesInARow(history, assisted: assisted)
            let at = Formatting.number(last.targets[working[0]].weight)
            if misses >= missesBeforeDeload {
                if assisted {
                    return ProgressionOutcome(
                        targets: moved(weight: { $0 + exercise.increment }),
                        hint:
                            "deload: +\(increment) \(unit) of assistance, \(shape) at \(at) \(unit) missed \(misses) times in a row (last \(day))"
                    )
                }
                return ProgressionOutcome(
                    targets: moved(weight: { plateRounded($0 * deloadFactor, unit: exercise.unit) }),
                    hint: "-10 % deload: \(shape) at \(at) \(unit) missed \(misses) times in a row (last \(day))")
            }
            return ProgressionOutcome(
                targets: moved(weight: { $0 }),
                hint:
                    "same weight: \(shape) at \(at) \(unit) not all done on \(day) (miss \(misses) of \(missesBeforeDeload))"
            )
        case .double:
            let bottom = exercise.sets.first { $0.kind != .warmup }?.reps ?? last.targets[working[0]].reps
            let top = exercise.sets.first { $0.kind != .warmup }?.repsMax ?? bottom
            let reps = last.targets[working[0]].reps
            guard hit else {
                return ProgressionOutcome(
                    targets: moved(weight: { $0 }), hint: "same: \(shape) not all done on \(day)")
            }
            // What every working set reached, not only its target: 2×12 done against a target
            // of 8 is the top of 8–12, and the weight goes up now.
            let reached = working.compactMap { last.performed[$0]?.reps }.min() ?? reps
            if max(reps, reached) >= top {
                return ProgressionOutcome(
                    targets: moved(weight: { $0 + step }, reps: { _ in bottom }),
                    hint: "\(assisted ? "-" : "+")\(increment) \(unit)\(assisted ? " of assistance" : ""),"
                        + " back to \(bottom) reps: all \(shape) done on \(day)")
            }
            let next = max(reps, reached) + 1
            return ProgressionOutcome(
                targets: moved(weight: { $0 }, reps: { _ in next }),
                hint: "+1 rep (to \(next) of \(PlannedSet.repsText(bottom, top))): all \(shape) done on \(day)")
        }
    }

    /// Every working set logged with at least its target reps at (at least) its target weight;
    /// for an assisted lift, with at most its target assistance.
    static func isHit(_ performance: PastPerformance, _ working: [Int], assisted: Bool = false) -> Bool {
        working.allSatisfy { index in
            guard let done = performance.performed[index] else { return false }
            let target = performance.targets[index]
            let weightMet = assisted ? done.weight <= target.weight + 1e-6 : done.weight >= target.weight - 1e-6
            return done.reps >= target.reps && weightMet
        }
    }

    /// Misses in a row at the newest performance's weight, counting back from it.
    static func missesInARow(_ history: [PastPerformance], assisted: Bool = false) -> Int {
        guard let last = history.last else { return 0 }
        let weight = last.targets.first { $0.kind != .warmup }?.weight
        var count = 0
        for performance in history.reversed() {
            let working = performance.targets.indices.filter { performance.targets[$0].kind != .warmup }
            guard !working.isEmpty, performance.performed.count == performance.targets.count,
                let first = working.first, abs(performance.targets[first].weight - (weight ?? -1)) < 1e-6,
                !isHit(performance, working, assisted: assisted)
            else { break }
            count += 1
        }
        return count
    }

    /// "3×5", or "5/5/3" when the working sets differ.
    static func shapeText(_ targets: [SetTarget], _ working: [Int]) -> String {
        let reps = working.map { targets[$0].reps }
        if Set(reps).count == 1 { return "\(reps.count)×\(reps[0])" }
        return reps.map(String.init).joined(separator: "/")
    }

    /// A deloaded weight, to the nearest step a barbell can make (2.5 kg, 5 lb).
    public static func plateRounded(_ weight: Double, unit: WeightUnit) -> Double {
        let step = unit == .kg ? 2.5 : 5
        return (weight / step).rounded() * step
    }

    /// A weight from a percentage of an estimated 1RM, to the nearest plate step.
    public static func weight(percent: Double, ofOneRepMax oneRepMax: Double, unit: WeightUnit) -> Double {
        plateRounded(oneRepMax * percent / 100, unit: unit)
    }

    /// "Mon 16 Nov", as the hints name a day.
    public static func dayText(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[(parts.weekday ?? 1) - 1]) \(parts.day ?? 1) \(months[(parts.month ?? 1) - 1])"
    }
}

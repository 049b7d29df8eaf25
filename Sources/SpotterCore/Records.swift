import Foundation

/// What record a set set when it was performed.
public enum RecordKind: Int, Sendable, Equatable {
    /// The best estimated 1RM of the exercise so far (sets of 1 to `OneRepMax.maxReps` reps).
    case oneRepMax = 1
    /// More reps at this weight (or more weight for this many reps) than ever before, when the
    /// estimated 1RM is not a record: "a heavier set with more reps".
    case reps = 2
}

/// Walks one exercise's sets in the order they were performed and says which set a record.
/// The first set of an exercise has nothing to beat and sets none; warm-ups never count.
public struct RecordTracker: Sendable {
    private var bestOneRepMax: Double?
    /// Earlier (weight kg, reps) points that no other earlier point beats on both.
    private var frontier: [(weight: Double, reps: Int)] = []
    private var seen = false

    public init() {}

    /// Takes the next set in performed order; returns the record it sets, if any. A set whose
    /// load is not known (a bodyweight lift with no weigh-in before it) passes `estimating:
    /// false`: it ranks by reps at what was added, and no 1RM is estimated from a part of its load.
    public mutating func add(weightKg: Double, reps: Int, kind: SetKind, estimating: Bool = true) -> RecordKind? {
        guard kind != .warmup, reps > 0, weightKg >= 0, weightKg.isFinite else { return nil }
        defer { seen = true }
        var record: RecordKind?
        if estimating, let estimate = OneRepMax.epley(weight: weightKg, reps: reps) {
            if let best = bestOneRepMax, estimate > best + 1e-9, seen { record = .oneRepMax }
            bestOneRepMax = max(bestOneRepMax ?? 0, estimate)
        }
        let beaten = !frontier.contains { $0.weight >= weightKg - 1e-9 && $0.reps >= reps }
        if beaten {
            if record == nil, seen { record = .reps }
            frontier.removeAll { $0.weight <= weightKg + 1e-9 && $0.reps <= reps }
            frontier.append((weightKg, reps))
        }
        return record
    }
}

/// The order sets were performed in, which decides who holds a record: the earlier set holds a
/// tie. Time first, then the workout and the place in it (an imported workout's sets share one
/// time), then the id, so that two devices with the same rows always pick the same set.
public enum PerformedOrder {
    /// The `ORDER BY` terms over the `sets` table's columns.
    public static let sql = "performed_at, workout_id, position, id"

    /// Whether `a` was performed before `b` (the same order as `sql`).
    public static func precedes(_ a: WorkoutSet, _ b: WorkoutSet) -> Bool {
        let left = (Timestamp.format(a.performedAt), a.workoutID.wireString, a.position, a.id.wireString)
        let right = (Timestamp.format(b.performedAt), b.workoutID.wireString, b.position, b.id.wireString)
        return left < right
    }

    /// The set that holds a record of `value` among `sets`: the first performed of those that reach
    /// it (within the tolerance the record walk uses), or nil when none does.
    public static func holder(
        of value: Double, among sets: [WorkoutSet], measure: (WorkoutSet) -> Double?
    ) -> WorkoutSet? {
        sets.filter { (measure($0) ?? -.infinity) >= value - 1e-9 }.min(by: precedes)
    }
}

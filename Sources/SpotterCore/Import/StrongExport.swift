import Foundation

/// One exported set with the workout it belongs to.
public struct ExportRow: Sendable, Equatable {
    public var workout: Workout
    public var set: WorkoutSet

    public init(workout: Workout, set: WorkoutSet) {
        self.workout = workout
        self.set = set
    }
}

/// Writes Strong's comma dialect with a `Weight Unit` column, and after Strong's columns a
/// `Superset` (the superset's number in the workout) and `Exercise Notes` (the note on the row's
/// exercise in its workout), which Spotter's own import reads back unchanged.
public enum StrongExport {
    public static let header =
        "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE,Superset,Exercise Notes"

    public static func csv(_ rows: [ExportRow], timeZone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var lines = [header]
        lines.reserveCapacity(rows.count + 1)
        var order: [String: Int] = [:]
        var currentWorkout: UUID?
        for row in rows {
            let (workout, set) = (row.workout, row.set)
            if workout.id != currentWorkout {
                currentWorkout = workout.id
                order.removeAll()
            }
            let setOrder: String
            switch set.kind {
            case .warmup: setOrder = "W"
            case .failure: setOrder = "F"
            case .drop: setOrder = "D"
            case .normal:
                order[set.exercise, default: 0] += 1
                setOrder = "\(order[set.exercise]!)"
            }
            let duration =
                workout.endedAt.map { Formatting.number(max(0, $0.timeIntervalSince(workout.startedAt))) } ?? ""
            let fields = [
                formatter.string(from: workout.startedAt), workout.name, duration, set.exercise, setOrder,
                Formatting.number(set.weight), set.unit.rawValue, "\(set.reps)",
                set.distanceM.map(Formatting.number) ?? "",
                set.durationS.map(Formatting.number) ?? "", set.notes ?? "", workout.notes ?? "",
                set.rpe.map(Formatting.number) ?? "", set.superset.map { "\($0)" } ?? "",
                workout.exerciseNotes?[set.exercise] ?? "",
            ]
            lines.append(fields.map(CSV.escape).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

import Foundation
import SpotterCore

extension WorkoutDTO {
    /// The client-owned fields of a workout, as a create sends them.
    public init(_ workout: Workout) {
        self.init(
            id: workout.id.wireString, name: workout.name, startedAt: Timestamp.format(workout.startedAt),
            endedAt: workout.endedAt.map(Timestamp.format), notes: workout.notes)
    }
}

extension SetDTO {
    /// The client-owned fields of a set, as a create sends them.
    public init(_ set: WorkoutSet) {
        self.init(
            id: set.id.wireString, workoutID: set.workoutID.wireString, exercise: set.exercise,
            position: set.position, kind: set.kind.rawValue, weight: set.weight, unit: set.unit.rawValue,
            reps: set.reps, rpe: set.rpe, distanceM: set.distanceM, durationS: set.durationS, notes: set.notes,
            performedAt: Timestamp.format(set.performedAt))
    }
}

import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

/// The drain's written-out list of a set's compared columns follows the set's definition.
@Suite("The drain compares every field of a set")
struct AnsweredSetTests {
    @Test func theComparedColumnsAreEveryFieldOfASetButItsIdAndTheirValuesFollowTheDefinition() {
        let fields = WorkoutSet.Column.allCases.filter { $0 != .id }
        #expect(AnsweredSet.columnNames == fields.map(\.name), "a set's field is missing from the drain")
        let set = WorkoutSet(
            workoutID: UUID(), exercise: "Squat (Barbell)", position: 3, kind: .failure, weight: 102.5, unit: .lb,
            reps: 4, rpe: 9.5, distanceM: 10, durationS: 30, notes: "grind 💪🏽", performedAt: Date())
        let values = AnsweredSet.values(of: set, exercise: "Squat (Barbell)")
        #expect(values.count == AnsweredSet.columnNames.count)
        for (index, column) in fields.enumerated() {
            #expect(
                (values[index]?.databaseValue ?? .null) == (set.value(column)?.databaseValue ?? .null), "\(column)")
        }
    }
}

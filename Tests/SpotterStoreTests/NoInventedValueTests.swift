import Foundation
import GRDB
import SpotterCore
import Testing

@testable import SpotterStore

@Suite("No read invents a value: an unreadable cell is an error naming its row")
struct NoInventedValueTests {
    @Test("a session whose sets' time does not read is reported, never dated 1970")
    func unreadableSessionDate() throws {
        let store = try makeStore()
        let logged = try store.log("Squat (Barbell)")
        try store.writer.write { db in
            try db.execute(
                sql: "UPDATE sets SET performed_at = 'last tuesday' WHERE id = ?", arguments: [logged.set.id.wireString]
            )
        }
        #expect {
            _ = try store.queries.exerciseSessions(exercise: "Squat (Barbell)", limit: 12)
        } throws: { error in
            "\(error)".contains(logged.workout.id.wireString) || "\(error)".contains(logged.set.id.wireString)
        }
    }
}

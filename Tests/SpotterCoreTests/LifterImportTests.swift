import Foundation
import SpotterCore
import Testing

/// Issue 12, defects 6, 7 and 10: rows a lifter wants kept, the unit a file leaves unsaid, a wrong --format.
@Suite("Reading real exports the way lifters have them")
struct LifterImportTests {
    let utc = TimeZone(identifier: "UTC")!

    @Test func fitNotesNamesWithCommasInParenthesesAreRepairedAndCounted() throws {
        let text = #"""
            Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
            2026-04-11,Overhead Press (Each Side, Dumbbells),Shoulders,20.0,10,,,
            2026-04-11,Row (Cable, Wide Grip, Seated),Back,50.0,12,,,
            2026-04-11,Deadlift,Back,180.0,3,,,
            2026-04-11,Curl, Hammer,Arms,20,10,,,
            """#
        let parsed = try ImportParser.parse(text, timeZone: utc)
        #expect(parsed.format == .fitnotes)
        #expect(
            parsed.sets.map(\.exercise) == [
                "Overhead Press (Each Side, Dumbbells)", "Row (Cable, Wide Grip, Seated)", "Deadlift",
            ])
        #expect(parsed.sets[0].weight == 20 && parsed.sets[0].reps == 10)
        #expect(parsed.sets[1].weight == 50 && parsed.sets[1].reps == 12)
        #expect(parsed.repaired == 2)
        #expect(parsed.problems.map(\.line) == [5], "a comma outside parentheses is still malformed")
    }

    @Test func aStrongFileWithoutAUnitSaysWhichUnitItAssumed() throws {
        let bare = """
            Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,RPE
            2026-01-02 07:00:00,Legs,1h,Squat (Barbell),1,315,5,,,
            """
        #expect(try ImportParser.parse(bare, defaultUnit: .lb, timeZone: utc).assumedUnit == .lb)
        let stated = """
            Date;Workout Name;Exercise Name;Set Order;Weight;Weight Unit;Reps
            2026-01-02 07:00:00;Legs;Squat (Barbell);1;225;lbs;5
            """
        #expect(try ImportParser.parse(stated, timeZone: utc).assumedUnit == nil)
    }

    @Test func aFormatThatDoesNotMatchTheHeaderIsOneErrorNotOnePerRow() throws {
        let strong = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-04-08 16:50:00,A,Bench Press (Barbell),1,100,5,0,0,,,
            2026-04-08 16:50:00,A,Bench Press (Barbell),2,100,5,0,0,,,
            """
        do {
            _ = try ImportParser.parse(strong, format: .hevy, timeZone: utc)
            Issue.record("a Strong file read as Hevy was accepted")
        } catch let error as ImportError {
            #expect(error.isFormatMismatch)
            #expect(
                error.description
                    == "the header is not a hevy export; it looks like a strong export (try --format strong or auto)")
        }
    }
}

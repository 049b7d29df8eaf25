import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

@Suite("Help, filters and the debug pane at 80x24")
struct SmallScreenTests {
    /// The help box on screen: its corners' rows and columns, found from its title.
    static func helpBox(_ screen: ScreenBuffer) throws -> (top: Int, bottom: Int, left: Int, right: Int) {
        let top = try #require(screen.row(containing: "┌ Help "), "\(screen)")
        let left = try #require(
            (0..<(screen.width - 2)).first { screen[$0, top].character == "┌" && screen[$0 + 2, top].character == "H" })
        let right = try #require((left..<screen.width).first { screen[$0, top].character == "┐" })
        let bottom = try #require(
            ((top + 1)..<screen.height).first { screen[left, $0].character == "└" }, "no bottom border:\n\(screen)")
        return (top, bottom, left, right)
    }

    static func expectWholeBorder(_ screen: ScreenBuffer) throws {
        let box = try helpBox(screen)
        #expect(box.bottom < screen.height - 1, "the box ends above the bottom bar:\n\(screen)")
        #expect(screen[box.right, box.bottom].character == "┘", "\(screen)")
        for x in (box.left + 1)..<box.right {
            #expect(screen[x, box.bottom].character == "─", "bottom border cut at column \(x):\n\(screen)")
        }
        for y in (box.top + 1)..<box.bottom {
            #expect(screen[box.left, y].character == "│", "left border cut at row \(y):\n\(screen)")
            #expect(screen[box.right, y].character == "│", "right border cut at row \(y):\n\(screen)")
        }
        for y in 0..<screen.height {
            #expect(DisplayWidth.of(screen.line(y)) == screen.width, "row \(y): \(screen.line(y))")
        }
    }

    @Test("? at 80x24: the help box fits with its whole border, and j/k scroll it to its last line and back")
    func helpFitsAndScrolls() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 80, rows: 24)
        app.handle(.character("?"))
        let lines = KeyMap.helpLines
        let first = try #require(lines.first)
        let last = try #require(lines.last)
        var screen = app.screen
        try Self.expectWholeBorder(screen)
        #expect(screen.contains(first.text), "\(screen)")
        #expect(lines.count > app.state.helpRowsShown, "more lines than fit at 24 rows: this test scrolls")
        #expect(!screen.contains(last.text), "the last line is below the box at first:\n\(screen)")
        #expect(screen.contains("j/k scroll"), "the footer says how to see the rest:\n\(screen)")

        for _ in 0..<lines.count { app.handle(.character("j")) }
        screen = app.screen
        try Self.expectWholeBorder(screen)
        #expect(screen.contains(last.text), "j reaches the last line:\n\(screen)")
        let box = try Self.helpBox(screen)
        let lastRow = try #require(screen.row(containing: last.text))
        #expect(lastRow < box.bottom - 1, "the last line sits inside the box, above its footer")
        #expect(!screen.contains(first.text), "\(screen)")
        #expect(screen.contains("\(lines.count) of \(lines.count)"), "\(screen)")

        for _ in 0..<lines.count { app.handle(.up) }
        #expect(app.screen.contains(first.text))
        app.handle(.character("G"))
        #expect(app.screen.contains(last.text))
        app.handle(.escape)
        #expect(app.state.overlay == .none)
        app.handle(.character("?"))
        #expect(app.screen.contains(first.text), "help opens at its top again")

        // Tall enough for all of it: nothing to scroll, every line shown.
        let tall = fixture.controller(columns: 100, rows: 40)
        tall.handle(.character("?"))
        for line in lines { #expect(tall.screen.contains(line.text), "\(line.text)") }
        try Self.expectWholeBorder(tall.screen)
    }

    @Test("a workout filter matching nothing says so, not 'No workouts yet'")
    func emptyWorkoutFilter() throws {
        let fixture = try Fixture()
        for name in ["Push", "Pull", "Legs"] { try fixture.store.workoutLog.createWorkout(name: name) }
        let app = fixture.controller()
        app.handle(.tab)
        app.handle(.character("/"))
        app.type("xyz")
        let screen = app.screen
        #expect(screen.contains("No workout matches 'xyz'"), "\(screen)")
        #expect(!screen.contains("No workouts yet"), "\(screen)")
        app.handle(.escape)
        #expect(app.screen.contains("Push") && !app.screen.contains("No workout matches"))
    }

    @Test("a workout filter looks beyond the first page of workouts")
    func filterSearchesEveryWorkout() throws {
        let fixture = try Fixture()
        try fixture.store.workoutLog.createWorkout(
            name: "Ancient Session", startedAt: fixture.clock.now().addingTimeInterval(-400 * 86_400))
        for index in 0..<AppController.workoutLimit {
            try fixture.store.workoutLog.createWorkout(
                name: "Session \(index)", startedAt: fixture.clock.now().addingTimeInterval(-Double(index) * 3_600))
        }
        let app = fixture.controller()
        #expect(app.state.moreWorkouts)
        app.handle(.tab)
        app.handle(.character("/"))
        app.type("ancient")
        #expect(app.screen.contains("Ancient Session"), "\(app.screen)")
        #expect(!app.screen.contains("No workout matches"))
    }

    @Test("D: each row's op and entity read apart, though their ids were made in the same second")
    func debugPaneIDsAreDistinct() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: "Burst")
        for index in 0..<12 {
            try fixture.store.workoutLog.logSet(
                LogSetInput(
                    exercise: "Bench Press (Barbell)", weight: 60 + Double(index), reps: 10,
                    workout: .existing(workout.id)))
        }
        let operations = try fixture.store.queries.outbox(limit: 20)
        #expect(operations.count == 13)
        let app = fixture.controller(columns: 80, rows: 24)
        app.handle(.character("D"))
        let screen = app.screen
        let rows = (0..<screen.height).map(screen.line).filter { $0.contains(" create ") }
        #expect(rows.count == operations.count, "\(screen)")
        let cells = rows.map { $0.split(separator: " ").map(String.init) }
        // "│", op, entity type, entity id, kind, state, …
        let ops = cells.map { $0[1] }
        let entities = cells.map { "\($0[2]) \($0[3])" }
        #expect(Set(ops).count == rows.count, "op ids read apart:\n\(rows.joined(separator: "\n"))")
        #expect(Set(entities).count == rows.count, "entity ids read apart:\n\(rows.joined(separator: "\n"))")
        for (op, entity) in zip(ops, entities) {
            let match = operations.first { $0.opID.hasSuffix(op) }
            #expect(match != nil, "\(op) is the end of an operation's id")
            if let match { #expect(entity == "\(match.entityType.rawValue) \(match.entityID.suffix(8))") }
        }
    }
}

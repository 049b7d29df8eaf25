import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

/// Long names on the bars and in the tables: the words and keys a lifter needs stay on screen,
/// the name gives way with an ellipsis, and every row is the screen's width.
@Suite("Long names on the bottom bar, in prompts and in the tables")
struct RowOverflowTests {
    static let sizes = [(80, 24), (120, 40), (200, 60)]
    static let longName =
        "Heavy Day 🏋️ 스쿼트 💪🏽 " + String(repeating: "and a very long name that goes on ", count: 5) + "END"

    static func expectFullRows(_ screen: ScreenBuffer, sourceLocation: SourceLocation = #_sourceLocation) {
        for y in 0..<screen.height {
            #expect(
                DisplayWidth.of(screen.line(y)) == screen.width, "row \(y): \(screen.line(y))",
                sourceLocation: sourceLocation)
        }
    }

    @Test(
        "the bottom bar leaves the last column blank (the terminal cannot write that cell): 'q quit' shows whole",
        arguments: sizes)
    func bottomBarSparesTheLastCell(size: (Int, Int)) throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: Self.longName)
        try fixture.log("Bench Press (Barbell)", 100, 5, workout: workout.id)
        let app = fixture.controller(columns: size.0, rows: size.1)
        let bar = app.screen.line(size.1 - 1)
        #expect(bar.hasSuffix(" "), "the bottom-right cell stays blank: \(bar)")
        #expect(bar.contains("q quit"), "\(bar)")
        app.handle(.left)
        app.handle(.character("d"))
        let asking = app.screen.line(size.1 - 1)
        #expect(asking.hasSuffix(" "), "\(asking)")
        #expect(asking.contains(KeyMap.hints(.confirmDelete)), "\(asking)")
    }

    @Test("deleting a workout with a long name: the name ends with an ellipsis and the y/n keys show", arguments: sizes)
    func deleteConfirmKeepsTheKeys(size: (Int, Int)) throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: Self.longName)
        try fixture.log("Bench Press (Barbell)", 100, 5, workout: workout.id)
        let app = fixture.controller(columns: size.0, rows: size.1)
        app.handle(.left)
        app.handle(.character("d"))
        guard case .confirmDelete = app.state.overlay else {
            Issue.record("d on the workouts pane did not ask: \(app.state.overlay)")
            return
        }
        let screen = app.screen
        let bar = screen.line(size.1 - 1)
        #expect(bar.hasPrefix(" Delete workout Heavy Day"), "\(bar)")
        #expect(bar.contains("… and its 1 set?"), "the name is cut with an ellipsis, the question whole: \(bar)")
        #expect(bar.contains(KeyMap.hints(.confirmDelete)), "the y/n keys show: \(bar)")
        #expect(!bar.contains("END"))
        Self.expectFullRows(screen)
    }

    @Test("in ASCII the cut name ends with '...'")
    func deleteConfirmInASCII() throws {
        let fixture = try Fixture()
        let workout = try fixture.store.workoutLog.createWorkout(name: Self.longName)
        try fixture.log("Bench Press (Barbell)", 100, 5, workout: workout.id)
        let app = fixture.controller(columns: 80, rows: 24, glyphs: .ascii)
        app.handle(.left)
        app.handle(.character("d"))
        let bar = app.screen.line(23)
        #expect(bar.contains("... and its 1 set?"), "\(bar)")
        #expect(bar.contains("y yes"), "\(bar)")
    }

    @Test("a name longer than the prompt scrolls: the end being typed and the cursor show", arguments: sizes)
    func newWorkoutPromptScrolls(size: (Int, Int)) throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: size.0, rows: size.1)
        app.handle(.character("w"))
        app.type("Start " + String(repeating: "x", count: 180) + " tail💪🏽")
        var bar = app.screen.line(size.1 - 1)
        #expect(bar.contains("tail💪_"), "the end being typed shows with the cursor: \(bar)")
        #expect(bar.hasPrefix(" New workout name: xxx"), "the start scrolls out of view: \(bar)")
        #expect(!bar.contains("Start"), "\(bar)")
        Self.expectFullRows(app.screen)
        // Home: the start shows, the end is cut with an ellipsis.
        app.handle(.home)
        bar = app.screen.line(size.1 - 1)
        #expect(bar.hasPrefix(" New workout name: Start xx"), "\(bar)")
        #expect(bar.contains("…"), "\(bar)")
        #expect(!bar.contains("tail"), "\(bar)")
        #expect(app.screen[19, size.1 - 1].character == "S", "the cursor is on the first character")
        #expect(app.screen[19, size.1 - 1].style == CellStyle.plain, "drawn as the cursor")
        Self.expectFullRows(app.screen)
        // Moving right past the edge scrolls to keep the cursor in view.
        for _ in 0..<150 { app.handle(.right) }
        let screen = app.screen
        let cursorColumn = (0..<screen.width).first {
            screen[$0, size.1 - 1].style == CellStyle.plain && $0 >= 19
        }
        #expect(cursorColumn != nil, "the cursor is on screen after 150 moves right: \(screen.line(size.1 - 1))")
        if case .newWorkout(let field) = app.state.overlay { #expect(field.cursor == 150) }
    }

    @Test("the filter prompt scrolls too, and its keys give way on a narrow screen")
    func filterPromptScrolls() throws {
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 100, 5)
        let app = fixture.controller(columns: 80, rows: 24)
        app.handle(.character("/"))
        app.type(String(repeating: "y", count: 90) + "Zed")
        let bar = app.screen.line(23)
        #expect(bar.contains("Zed_"), "\(bar)")
        #expect(bar.hasPrefix(" /yyy"), "\(bar)")
        Self.expectFullRows(app.screen)
    }

    @Test("an empty filter says what matched nothing, cut with an ellipsis", arguments: sizes)
    func emptyFilterMessage(size: (Int, Int)) throws {
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 100, 5)
        let app = fixture.controller(columns: size.0, rows: size.1)
        app.handle(.left)
        app.handle(.character("/"))
        app.type("no such workout " + String(repeating: "q", count: 200))
        app.handle(.enter)
        let screen = app.screen
        let row = try #require(screen.row(containing: "No workout matches 'no such"), "\(screen)")
        #expect(screen.line(row).contains("…"), "cut with an ellipsis: \(screen.line(row))")
        Self.expectFullRows(screen)
    }

    /// A name starting with a mark that joins what is drawn before it (a lone skin tone, a
    /// combining accent, a spacing vowel sign) must not pull the columns after it left.
    @Test("columns after a name starting with a combining mark or a skin tone stay aligned", arguments: sizes)
    func columnsStayAligned(size: (Int, Int)) throws {
        let fixture = try Fixture()
        let names = ["Bench Press (Barbell)", "🏽Curl", "\u{301}Row", "\u{93E}Squat", "\u{200D}💪 Dip", "🇺 Flag"]
        for (index, name) in names.enumerated() { try fixture.log(name, 100 + Double(index), 5) }
        let app = fixture.controller(columns: size.0, rows: size.1)
        let screen = app.screen
        // The weight column's end on each row, in cells: the same on every row.
        var ends: [Int] = []
        for y in 0..<screen.height where screen.line(y).contains(" kg") {
            var x = 0
            var found: Int?
            while x + 2 < screen.width {
                if screen[x, y].character == "k", screen[x + 1, y].character == "g", screen[x - 1, y].character == " " {
                    found = x
                    break
                }
                x += 1
            }
            if let found { ends.append(found) }
        }
        #expect(ends.count == names.count, "every set shows its weight:\n\(screen)")
        #expect(Set(ends).count == 1, "the weight column moved: \(ends)\n\(screen)")
        Self.expectFullRows(screen)
    }

    @Test("the debug pane's header and empty message fit at 80 columns")
    func debugPaneFits() throws {
        let fixture = try Fixture()
        let app = fixture.controller(columns: 80, rows: 40)
        app.handle(.character("D"))
        let screen = app.screen
        #expect(screen.contains(" op "), "\(screen)")
        Self.expectFullRows(screen)
        let header = try #require(screen.row(containing: " op "))
        #expect(screen.line(header).contains("…") || screen.line(header).contains("last error"), "\(screen)")
    }
}

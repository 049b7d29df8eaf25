import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI
import Testing

/// The set form shows the plates per side for the weight being typed, for lifts on a bar.
@Suite("The plates line in the set form")
struct PlatesFormTests {
    func form(_ app: AppController) -> SetForm? {
        guard case .setForm(let form) = app.state.overlay else { return nil }
        return form
    }

    func plates(_ app: AppController) -> String? {
        let screen = app.screen
        for row in 0..<24 where screen.line(row).contains("Plates ") {
            return screen.line(row).components(separatedBy: "Plates").last?
                .trimmingCharacters(in: CharacterSet(charactersIn: " │"))
        }
        return nil
    }

    @Test("the line follows the weight as it is typed, in either unit, and names the nearest loadable weights")
    func followsTheWeight() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 100, 5)
        let app = fixture.controller()
        app.handle(.character("n"))
        #expect(form(app)?.focus == .weight)
        #expect(plates(app) == "20 + 25 + 15 per side")
        app.handle(.control("u"))
        app.type("140")
        #expect(plates(app) == "20 + 2×25 + 10 per side")
        app.handle(.control("u"))
        app.type("101")
        #expect(plates(app) == "can't load exactly: 100 or 102.5 kg")
        app.handle(.control("u"))
        app.type("225lb")
        #expect(plates(app) == "45 + 2×45 per side")
        app.handle(.control("u"))
        app.type("20")
        #expect(plates(app) == "bar only (20 kg)")
        // Text that is not a weight shows no line and breaks nothing.
        for hostile in ["1e999", "💪🏽", "e\u{301}", "-5", "9999999"] {
            app.handle(.control("u"))
            app.type(hostile)
            #expect(plates(app) == nil || plates(app)?.hasPrefix("more than the plates can load") == true, "\(hostile)")
            for row in 0..<24 { #expect(app.screen.line(row).count <= 80) }
        }
        app.handle(.escape)
    }

    @Test("the lifter's own bar and plates are used; a dumbbell lift has no plates line")
    func ownPlatesAndNoBar() throws {
        let fixture = try Fixture()
        try fixture.store.preferences.setPlates(unit: .kg, bar: 15, plates: [10, 5, 2.5])
        try fixture.log("Squat (Barbell)", 40, 5)
        try fixture.log("Bench Press (Dumbbell)", 30, 8)
        let app = fixture.controller()
        func choose(_ exercise: String, weight: String) {
            app.handle(.character("n"))
            app.handle(.backTab)
            app.handle(.control("u"))
            app.type(exercise)
            app.handle(.tab)
            app.handle(.control("u"))
            app.type(weight)
        }
        choose("Bench Press (Dumbbell)", weight: "30")
        #expect(form(app)?.exercise == "Bench Press (Dumbbell)")
        #expect(plates(app) == nil)
        app.handle(.escape)
        // Squat is on the lifter's 15 kg bar.
        choose("Squat (Barbell)", weight: "40")
        #expect(plates(app) == "15 + 10 + 2.5 per side")
        app.handle(.control("u"))
        app.type("10")
        #expect(plates(app) == "less than the bar (15 kg)")
        // An exercise given a bar of its own uses it.
        try fixture.store.preferences.setBar(25, unit: .kg, exercise: "squat (barbell)")
        app.handle(.escape)
        choose("Squat (Barbell)", weight: "45")
        #expect(plates(app) == "25 + 10 per side")
    }
}

import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI
import Testing

/// ^W in the set form plans the warm-up ramp before the first work set of a lift.
@Suite("Warm-ups from the set form")
struct WarmupFormTests {
    func line(_ app: AppController, _ label: String) -> String? {
        let screen = app.screen
        for row in 0..<24 where screen.line(row).contains("│ \(label) ") {
            return screen.line(row).components(separatedBy: label).last?
                .trimmingCharacters(in: CharacterSet(charactersIn: " │"))
        }
        return nil
    }

    @Test(
        "the ramp is offered for the first work set, ^W plans it, and Enter logs each as a warm-up, then the work set")
    func rampFromTheForm() throws {
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 60, 5)
        let app = fixture.controller()
        app.handle(.character("n"))
        app.handle(.backTab)
        app.handle(.control("u"))
        app.type("Squat (Barbell)")
        app.handle(.tab)
        app.handle(.control("u"))
        app.type("140")
        #expect(line(app, "Warm-up") == "^W 20×10 · 55×5 · 82.5×3 · 110×2")
        app.handle(.tab)
        app.handle(.control("u"))
        app.type("5")
        app.handle(.control("w"))
        guard case .none = app.state.overlay else {
            Issue.record("the form stays open")
            return
        }
        #expect(app.state.visiblePlanned.map(\.weight) == [20, 55, 82.5, 110, 140])
        #expect(app.state.currentPlanned?.weight == 20, "the first warm-up is selected")
        #expect(app.screen.line(23).contains("Enter logs each"))
        for _ in 0..<5 { app.handle(.enter) }
        let squats = app.state.sets.filter { $0.set.exercise == "Squat (Barbell)" }
        #expect(squats.map(\.set.kind) == [.warmup, .warmup, .warmup, .warmup, .normal])
        #expect(squats.map(\.set.weight) == [20, 55, 82.5, 110, 140])

        // Once a work set is in, the next form offers no ramp.
        app.handle(.character("n"))
        #expect(line(app, "Warm-up") == nil)
        app.handle(.escape)
    }

    @Test("^W on a light weight or a form that does not read says why and plans nothing")
    func refused() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 20, 5, workout: nil)
        let app = fixture.controller()
        let setsBefore = app.state.sets.count
        app.handle(.character("n"))
        app.handle(.control("u"))
        app.type("💪🏽")
        app.handle(.control("w"))
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("the form closed")
            return
        }
        #expect(form.error?.contains("Weight must be a number") == true)
        app.handle(.control("u"))
        app.type("25")
        app.handle(.control("w"))
        #expect(app.screen.contains("is light: no warm-up sets"), "\(app.screen.line(23))")
        #expect(app.state.visiblePlanned.isEmpty)
        #expect(app.state.sets.count == setsBefore)
    }
}

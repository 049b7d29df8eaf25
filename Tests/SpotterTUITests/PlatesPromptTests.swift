import Foundation
import SpotterCore
import SpotterStore
import SpotterTUI
import Testing

/// `P`: the bar and plates owned, set from the UI.
@Suite("The plates prompt")
struct PlatesPromptTests {
    @Test("P shows the plates of each unit, Tab switches unit, Enter saves them and the form uses them")
    func setFromTheUI() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 40, 5)
        let app = fixture.controller()
        app.handle(.character("P"))
        #expect(app.screen.line(23).contains("Plates kg: 20: 25,20,15,10,5,2.5,1.25"))
        app.handle(.tab)
        #expect(app.screen.line(23).contains("Plates lb: 45: 45,35,25,10,5,2.5"))
        app.handle(.tab)
        app.handle(.control("u"))
        app.type("15: 10,5,2.5")
        app.handle(.enter)
        guard case .none = app.state.overlay else {
            Issue.record("the prompt stays open")
            return
        }
        #expect(
            try fixture.store.preferences.plateSet(unit: .kg) == PlateSet(unit: .kg, bar: 15, plates: [10, 5, 2.5]))
        #expect(app.screen.line(23).contains("15 kg bar, 10/5/2.5"))
        // The form now loads the 15 kg bar.
        app.handle(.character("n"))
        app.handle(.control("u"))
        app.type("40")
        #expect(app.screen.contains("15 + 10 + 2.5 per side"))
        app.handle(.escape)
    }

    @Test("what does not read is refused with its reason and changes nothing; hard text breaks nothing")
    func refused() throws {
        let fixture = try Fixture()
        let app = fixture.controller()
        for typed in ["25,20", "x: 25", "20: 25,💪🏽", "20: 0", "20: e\u{301}", "٢٠: ٢٥", "20: 1.255", "500: 25"] {
            app.handle(.character("P"))
            app.handle(.control("u"))
            app.type(typed)
            app.handle(.enter)
            #expect(app.state.message?.isError == true, "\(typed) was taken")
            if let reason = app.state.message?.text {
                #expect(app.screen.line(22).contains(String(reason.suffix(12))), "the reason shows above the prompt")
            }
            for row in 0..<24 { #expect(app.screen.line(row).count <= 80) }
            app.handle(.escape)
            #expect(try fixture.store.preferences.plateSet(unit: .kg) == PlateSet.standard(.kg), "\(typed)")
        }
    }
}

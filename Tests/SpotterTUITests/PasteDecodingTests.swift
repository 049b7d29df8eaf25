import Testing

@testable import SpotterTUI

/// Text that arrives inside a bracketed paste is text: its line breaks, tabs and control
/// characters never act as keys (a pasted "Leg day\nd" must not save the prompt, then delete).
@Suite("Bracketed paste: what is pasted is text, never a command")
struct PasteDecodingTests {
    @Test("inside a paste a tab or a line break is a space, and other control characters are dropped")
    func pastedControlsAreText() {
        for value: UInt32 in [9, 10, 13] {
            #expect(CursesTerminal.decode(character: value, pasting: true) == .character(" "))
        }
        for value: UInt32 in [0, 4, 21, 27, 31, 127] {
            #expect(CursesTerminal.decode(character: value, pasting: true) == nil, "\(value)")
        }
        #expect(CursesTerminal.decode(character: 0x1F4AA, pasting: true) == .character("💪"))
        #expect(
            CursesTerminal.decode(character: UInt32(("d" as Unicode.Scalar).value), pasting: true) == .character("d"))
    }

    @Test("pasted where no text is typed, letters run no command: 'Ldye' pairs, deletes and opens nothing")
    func aPasteOnThePanesIsDropped() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Squat (Barbell)", 100, 5)
        let app = fixture.controller(columns: 120, rows: 40)
        for character in "Ldye" { app.handlePaste(.character(character)) }
        guard case .none = app.state.overlay else {
            Issue.record("a form or prompt opened: \(app.state.overlay)")
            return
        }
        #expect(try fixture.store.queries.sets(workoutID: logged.workout.id).count == 1, "nothing deleted")
        #expect(try fixture.store.queries.workoutSummaries().count == 1)
    }

    @Test("pasted into a field, the same text is typed there: emoji with a skin tone and a decomposed é")
    func aPasteInAFieldIsText() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 100, 5)
        let app = fixture.controller(columns: 120, rows: 40)
        app.handle(.tab)  // the workouts pane: e edits the workout's name and notes
        app.handle(.character("e"))
        app.handle(.control("u"))
        for character in "Legs 👍🏽 e\u{301}" { app.handlePaste(.character(character)) }
        app.handle(.enter)
        #expect(try fixture.store.queries.workoutSummaries().first?.workout.name == "Legs 👍🏽 e\u{301}")
    }

    @Test("typed, the same characters are the keys they always were")
    func typedControlsAreKeys() {
        #expect(CursesTerminal.decode(character: 10) == .enter)
        #expect(CursesTerminal.decode(character: 9) == .tab)
        #expect(CursesTerminal.decode(character: 27) == .escape)
        #expect(CursesTerminal.decode(character: 21) == .control("u"))
    }
}

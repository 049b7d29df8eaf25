import Foundation
import SpotterCore
import Testing

@testable import SpotterTUI

@Suite("One text field: typing, the cursor, the selection, the limit")
struct TextFieldTests {
    @Test("typing inserts at the cursor; the arrows, Home and End move it and stop at the ends")
    func insertAndMove() {
        var field = TextField("bench")
        #expect(field.cursor == 5)
        field.apply(.moveLeft)
        field.apply(.moveLeft)
        field.insert("X")
        #expect(field.text == "benXch" && field.cursor == 4)
        field.apply(.moveToStart)
        field.apply(.moveLeft)
        #expect(field.cursor == 0)
        field.insert(">")
        #expect(field.text == ">benXch")
        field.apply(.moveToEnd)
        field.apply(.moveRight)
        #expect(field.cursor == 7)
        field.insert("!")
        #expect(field.text == ">benXch!")
    }

    @Test("Backspace deletes before the cursor, Delete after it, Ctrl-U everything; each says whether text changed")
    func deleting() {
        var field = TextField("squat")
        let backspaced = field.apply(.deleteBackward)
        #expect(backspaced && field.text == "squa")
        field.apply(.moveToStart)
        let atStart = field.apply(.deleteBackward)
        #expect(!atStart, "nothing before the cursor")
        let deleted = field.apply(.deleteForward)
        #expect(deleted && field.text == "qua" && field.cursor == 0)
        field.apply(.moveToEnd)
        let atEnd = field.apply(.deleteForward)
        #expect(!atEnd, "nothing after the cursor")
        let moved = field.apply(.moveLeft)
        #expect(!moved, "moving changes no text")
        let cleared = field.apply(.clear)
        #expect(cleared && field.text.isEmpty && field.cursor == 0)
        let clearedAgain = field.apply(.clear)
        #expect(!clearedAgain)
    }

    @Test("a selected field: the first character replaces it; an editing key ends the selection and edits")
    func selection() {
        var typed = TextField("140", selected: true)
        typed.insert("9")
        #expect(typed.text == "9" && !typed.isSelected)
        typed.insert("0")
        #expect(typed.text == "90")

        var backspaced = TextField("140", selected: true)
        backspaced.apply(.deleteBackward)
        #expect(backspaced.text == "14" && !backspaced.isSelected)
        backspaced.insert("5")
        #expect(backspaced.text == "145", "after an edit, typing appends")

        var arrowed = TextField("140", selected: true)
        arrowed.apply(.moveRight)
        arrowed.insert("5")
        #expect(arrowed.text == "1405")
    }

    @Test("a full field refuses the next character and keeps its text")
    func limit() {
        var field = TextField("abc")
        let refused = field.insert("d", limit: 3)
        #expect(!refused)
        #expect(field.text == "abc" && field.cursor == 3)
        field.apply(.deleteBackward)
        let typed = field.insert("z", limit: 3)
        #expect(typed && field.text == "abz")
        // A selected full field is replaced, so the first character always fits.
        var selected = TextField("abc", selected: true)
        let replaced = selected.insert("x", limit: 3)
        #expect(replaced && selected.text == "x")
    }

    @Test("set puts the cursor at the end; parts split the text around the cursor, wide characters too")
    func setAndParts() {
        var field = TextField("Leg day 🦵")
        field.apply(.moveToStart)
        field.set("Push")
        #expect(field.cursor == 4)
        #expect(field.parts == TextFieldParts(beforeCursor: "Push", underCursor: nil, afterCursor: ""))
        field = TextField("a🦵b")
        field.apply(.moveLeft)
        field.apply(.moveLeft)
        #expect(field.parts == TextFieldParts(beforeCursor: "a", underCursor: "🦵", afterCursor: "b"))
    }

    @Test("the filter, the workout name and the form's fields all edit in the middle the same way")
    func everyFieldHasTheCursor() throws {
        var state = AppState(columns: 80, rows: 24, syncAvailable: true, now: Date(timeIntervalSince1970: 0))
        _ = state.reduce(.character("/"))
        for key: Key in [.character("p"), .character("s"), .left, .character("u"), .home, .delete] {
            _ = state.reduce(key)
        }
        #expect(state.filterInput?.text == "us")
        #expect(state.setFilter == "us")
        _ = state.reduce(.enter)

        _ = state.reduce(.character("w"))
        for key: Key in [.character("L"), .character("g"), .left, .character("e"), .end, .backspace] {
            _ = state.reduce(key)
        }
        #expect(state.overlay == .newWorkout(name: "Le"))
        #expect(Renderer.render(state).line(23).contains("New workout name: Le_"))
        _ = state.reduce(.left)
        let screen = Renderer.render(state)
        #expect(screen.line(23).contains("New workout name: Le "), "the cursor is on the e: \(screen.line(23))")
        #expect(screen.style(of: "e ", onRow: 23)?.reverse == false, "the cell under the cursor stands out")
        _ = state.reduce(.escape)

        _ = state.reduce(.character("n"))
        for key: Key in [.character("S"), .character("q"), .left, .character("u"), .right, .character("a")] {
            _ = state.reduce(key)
        }
        guard case .setForm(let form) = state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.exercise == "Suqa")
        #expect(form.exerciseInput.cursor == 4)
    }
}

@Suite("The form's selection is text editing; the stored weight is the form's")
struct FormSelectionTests {
    @Test("an edited weight stays the lifter's after tabbing away and back: Enter saves what is shown")
    func editedWeightSurvivesTabbingBack() throws {
        let fixture = try Fixture()
        try fixture.log("Squat (Barbell)", 140, 3)
        let app = fixture.controller()
        app.handle(.character("e"))
        app.type("150")
        app.handle(.tab)
        app.handle(.backTab)
        guard case .setForm(let form) = app.state.overlay else {
            Issue.record("no form")
            return
        }
        #expect(form.weightInput.isSelected, "tabbing back selects the field")
        #expect(form.storedWeight == nil, "the typed weight is no longer the stored one")
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: nil).map(\.set.weight) == [150])
    }
}

@Suite("A text field edits whole characters, however their code points arrive")
struct GraphemeTextFieldTests {
    /// Types `text` one code point at a time, as a terminal delivers a paste or a key sequence.
    private func typeScalars(_ text: String, into field: inout TextField) {
        for scalar in text.unicodeScalars { field.insert(Character(scalar)) }
    }

    @Test("an emoji and its skin tone typed as two keys join into one character; the keys after it still type")
    func modifierJoins() {
        var field = TextField()
        typeScalars("Push 💪🏽", into: &field)
        #expect(field.text == "Push 💪🏽")
        #expect(field.cursor == field.text.count)
        field.insert(" ")
        field.insert("x")
        field.apply(.deleteBackward)
        #expect(field.text == "Push 💪🏽 ")
        field.apply(.deleteBackward)
        field.apply(.deleteBackward)
        #expect(field.text == "Push ", "one Backspace takes the whole emoji with its skin tone")
    }

    @Test("a combining accent typed after a letter joins it; the cursor never passes the end")
    func combiningMark() {
        var field = TextField()
        typeScalars("Cafe\u{301} curl", into: &field)
        #expect(field.text == "Caf\u{E9} curl")  // canonically equal: the decomposed é is one character
        #expect(field.text.count == 9)
        #expect(field.cursor == 9)
        field.apply(.moveToStart)
        for _ in 0..<4 { field.apply(.moveRight) }
        field.apply(.deleteBackward)
        #expect(field.text == "Caf curl")
    }

    @Test("a mark typed in the middle joins the character before the cursor, and the cursor stays after it")
    func markInTheMiddle() {
        var field = TextField("ab")
        field.apply(.moveLeft)
        field.insert("\u{301}")
        #expect(field.text == "a\u{301}b")
        #expect(field.cursor == 1)
        field.insert("c")
        #expect(field.text == "a\u{301}cb")
    }

    @Test("ZWJ families, flags and keycaps arrive in parts and end as one character each")
    func sequences() {
        var field = TextField()
        typeScalars("👨‍👩‍👧🇺🇸#️⃣", into: &field)
        #expect(field.text.count == 3)
        #expect(field.cursor == 3)
        field.apply(.moveLeft)
        field.apply(.deleteBackward)
        #expect(field.text == "👨‍👩‍👧#️⃣")
        field.apply(.deleteForward)
        #expect(field.text == "👨‍👩‍👧")
        #expect(field.cursor == 1)
    }

    @Test("deleting a letter lets a following mark join the letter before; the cursor stays inside the text")
    func deletionRejoins() {
        var field = TextField()
        typeScalars("ae", into: &field)
        field.insert("\u{301}")
        field.apply(.moveLeft)
        field.apply(.moveToStart)
        field.apply(.moveRight)
        field.apply(.deleteForward)  // removes "é" as a whole
        #expect(field.text == "a")
        #expect(field.cursor <= field.text.count)
    }

    @Test("the limit counts code points, the unit the validation rules count")
    func limitInCodePoints() {
        var field = TextField()
        let emoji = field.insert("💪", limit: 2)
        #expect(emoji)
        let family = field.insert(Character("👨‍👩‍👧"), limit: 2)
        #expect(!family, "five code points do not fit in one more")
        #expect(field.text == "💪")
    }
}

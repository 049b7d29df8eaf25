import Foundation
import PropertyBased
import SpotterCore
import Testing

@testable import SpotterTUI

/// Text a hostile user pastes or a lifter's names carry: emoji with skin tones, ZWJ families,
/// flags, VS16 and VS15 forms, combining marks, Hangul jamo, CJK, right-to-left text, zero-width
/// joiners and spaces, bidi and C0/C1 controls.
enum HardText {
    static let corpus: [String] = [
        "Push 💪🏽", "💪", "🏽", "👨‍👩‍👧‍👦", "👩🏿‍🚀", "🇺🇸🇯🇵", "🇺", "☀️", "☀︎", "❤️", "🏋️‍♀️", "#️⃣", "Cafe\u{301} curl",
        "Z\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}", "\u{1100}\u{1161}\u{11A8}", "스쿼트", "深蹲 腿日", "Ｆｕｌｌ",
        "אימון רגליים", "تمرين صباحي", "\u{200B}\u{200C}\u{200D}", "\u{FEFF}", "\u{202E}evil\u{202C}",
        "\u{2066}x\u{2069}",
        "\u{85}\u{9B}31m", "\u{7F}", "\u{7}", "\u{1FAE8}", "\u{E000}", "\u{10FFFD}", "a\u{20DD}", "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
        "60", "5", "8.5", " ",
    ]

    /// The 10 000-character paste: emoji with skin tones, decomposed accents and Hangul, over
    /// and over. Every field stops it at its limit.
    static let hugePaste = String(String(repeating: "Push 💪🏽 e\u{301} 스 ", count: 1000).prefix(10_000))

    /// The keys a terminal delivers for `text`: one per code point, decoded the way the curses
    /// adapter decodes them (a control may arrive as Enter, Tab or Escape, or as nothing).
    static func keys(_ text: String) -> [Key] {
        text.unicodeScalars.compactMap { CursesTerminal.decode(character: $0.value) }
    }
}

/// One step a generated session takes.
enum HostileStep: CustomStringConvertible {
    case key(Key)
    case paste(String)
    case resize(columns: Int, rows: Int)

    static let sizes = [(80, 24), (120, 40), (200, 60)]
    static let keys: [Key] = [
        .character("n"), .character("N"), .character("w"), .character("/"), .character("?"), .character("D"),
        .character("h"), .character("e"), .character("j"), .character("k"), .character("R"), .character("u"),
        .character("C"), .character("x"),
        .tab, .backTab, .enter, .escape, .backspace, .delete, .left, .right, .home, .end, .up, .down, .pageDown,
        .control("u"), .control("o"),
    ]

    init(code: Int) {
        switch code % 10 {
        case 0...4: self = .key(Self.keys[(code / 10) % Self.keys.count])
        // One step in five thousand pastes the 10 000 characters (into a field, or as keys to whatever is open).
        case 5 where code % 5000 == 5: self = .paste(HardText.hugePaste)
        case 5...8: self = .paste(HardText.corpus[(code / 10) % HardText.corpus.count])
        default:
            let size = Self.sizes[(code / 10) % Self.sizes.count]
            self = .resize(columns: size.0, rows: size.1)
        }
    }

    var description: String {
        switch self {
        case .key(let key): "key \(key)"
        case .paste(let text): "paste \(text.unicodeScalars.map { String($0.value, radix: 16) })"
        case .resize(let columns, let rows): "resize \(columns)x\(rows)"
        }
    }
}

@Suite("Any keys, any paste, any size: no trap, every row the screen's width")
struct HostileInputPropertyTests {
    /// Rows the terminal would not draw at exactly the screen's width, described for the failure
    /// message. Cell by cell, as the adapter hands them to curses: each holds a character in its
    /// terminal form, whose measured columns are the cell's, followed by that many continuation
    /// cells; the columns add up to the width. (Measuring the row as one string would re-join a
    /// lone skin tone with the space before it, which curses never does.)
    static func rowsOfWrongWidth(_ buffer: ScreenBuffer) -> [String] {
        (0..<buffer.height).compactMap { y in
            var x = 0
            while x < buffer.width {
                let cell = buffer[x, y]
                let form = DisplayText.terminalForm(of: cell.character)
                guard cell.width >= 1, form == cell.character,
                    DisplayWidth.columns(ofForm: cell.character) == Int(cell.width)
                else {
                    return
                        "row \(y), column \(x): \(cell.character.unicodeScalars.map(\.value)) in a cell of \(cell.width): \(buffer.line(y))"
                }
                for next in x + 1..<x + Int(cell.width) where next >= buffer.width || buffer[next, y].width != 0 {
                    return "row \(y), column \(next): not the continuation of a wide character: \(buffer.line(y))"
                }
                x += Int(cell.width)
            }
            return x == buffer.width ? nil : "row \(y) is \(x) columns of \(buffer.width): \(buffer.line(y))"
        }
    }

    /// One database for every generated session (each gets a controller of its own): opening and
    /// migrating a file per session would take most of the test's time. The sessions run one
    /// after another, so the store is never shared between threads at once.
    nonisolated(unsafe) private static var sharedFixture: Fixture?

    private static func sessionFixture() throws -> Fixture {
        if let sharedFixture { return sharedFixture }
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 100, 5)
        try fixture.log("Heavy Day 🏋️ 스쿼트 💪🏽", 60, 8)
        sharedFixture = fixture
        return fixture
    }

    @Test("random key and paste sequences through the reducer and the renderer, at 80x24, 120x40 and 200x60")
    func randomSessions() async throws {
        await propertyCheck(count: 1000, input: Gen.int(in: 0...99_999).array(of: 1...40)) { codes in
            let steps = codes.map(HostileStep.init)
            do {
                let fixture = try Self.sessionFixture()
                let size = HostileStep.sizes[codes[0] % HostileStep.sizes.count]
                let controller = fixture.controller(columns: size.0, rows: size.1)
                var buffer = ScreenBuffer(width: 0, height: 0)
                for step in steps {
                    switch step {
                    case .key(let key): controller.handle(key)
                    case .paste(let text): for key in HardText.keys(text) { controller.handle(key) }
                    case .resize(let columns, let rows): controller.resize(columns: columns, rows: rows)
                    }
                    if controller.shouldQuit { break }
                    controller.render(into: &buffer)
                    let wrong = Self.rowsOfWrongWidth(buffer)
                    if !wrong.isEmpty {
                        Issue.record("after \(steps):\n\(wrong.joined(separator: "\n"))\n\(buffer)")
                        return
                    }
                }
            } catch {
                Issue.record("\(error) after \(steps)")
            }
        }
    }

    @Test(
        "every text field holds what was typed, grapheme for grapheme, through cursor moves, inserts and deletes",
        arguments: EditedField.allCases)
    func typedTextIsKept(field: EditedField) async throws {
        let typeable = HardText.corpus.filter { text in
            // Keys the terminal turns into Enter, Tab, Escape or nothing cannot be typed as text.
            text.unicodeScalars.allSatisfy { scalar in
                if case .character = CursesTerminal.decode(character: scalar.value) { return true }
                return false
            }
        }
        // 250 sessions a field, eight fields: 2000, each at one of the three sizes.
        // A database of this field's own: the fields' cases run side by side.
        let fixture = try Fixture()
        try fixture.log("Bench Press (Barbell)", 100, 5)
        try fixture.log("Heavy Day 🏋️ 스쿼트 💪🏽", 60, 8)
        await propertyCheck(count: 250, input: Gen.int(in: 0...99_999).array(of: 1...16)) { codes in
            var log: [String] = []
            let size = HostileStep.sizes[codes[0] % HostileStep.sizes.count]
            let controller = fixture.controller(columns: size.0, rows: size.1)
            field.open(controller)
            guard var model = field.read(controller).map({ FieldModel($0, limit: field.limit) }) else {
                Issue.record("\(field) did not open: \(controller.state.overlay)")
                return
            }
            var buffer = ScreenBuffer(width: 0, height: 0)
            for code in codes {
                let step = EditStep(code: code, typeable: typeable)
                log.append(step.description)
                switch step {
                case .edit(let key, let edit):
                    controller.handle(key)
                    model.apply(edit)
                case .type(let text):
                    for key in HardText.keys(text) {
                        controller.handle(key)
                        if case .character(let character) = key { model.insert(character) }
                    }
                }
                guard let shown = field.read(controller) else {
                    Issue.record("\(field) closed after \(log)")
                    return
                }
                if Array(shown.text) != model.characters || shown.cursor != model.cursor {
                    Issue.record(
                        """
                        \(field) after \(log):
                        field \(shown.text.unicodeScalars.map { String($0.value, radix: 16) }) cursor \(shown.cursor)
                        model \(String(model.characters).unicodeScalars.map { String($0.value, radix: 16) }) \
                        cursor \(model.cursor)
                        """)
                    return
                }
            }
            // The field as drawn at the end (every step is drawn in `randomSessions`).
            controller.render(into: &buffer)
            let wrong = Self.rowsOfWrongWidth(buffer)
            if !wrong.isEmpty {
                Issue.record("\(field) after \(log):\n\(wrong.joined(separator: "\n"))\n\(buffer)")
            }
        }
    }

    @Test("a 10 000-character paste into each field stops at the field's limit, says so, and traps nowhere")
    func hugePaste() throws {
        let fixture = try Fixture()
        let controller = fixture.controller(columns: 80, rows: 24)
        let paste = String(repeating: "Push 💪🏽 e\u{301} 스 ", count: 1000).prefix(10_000)
        var buffer = ScreenBuffer(width: 0, height: 0)
        for opener in [Key.character("w"), .character("/"), .character("n")] {
            controller.handle(opener)
            for key in HardText.keys(String(paste)) { controller.handle(key) }
            controller.render(into: &buffer)
            #expect(Self.rowsOfWrongWidth(buffer).isEmpty, "\(buffer)")
            switch controller.state.overlay {
            case .newWorkout(let name): #expect(name.text.unicodeScalars.count <= Validation.maxNameLength)
            case .setForm(let form):
                #expect(form[input: .exercise].text.unicodeScalars.count <= Validation.maxExerciseLength)
            default: #expect(controller.state.filterInput != nil)
            }
            controller.handle(.escape)
            controller.handle(.escape)
        }
        #expect(!controller.shouldQuit)
    }
}

/// A text field the lifter reaches with keys, opened on a fresh controller.
enum EditedField: String, CaseIterable, CustomStringConvertible, Sendable {
    case workoutName, filter, exercise, weight, reps, rpe, editedName, notes

    var description: String { rawValue }

    /// The most code points it holds (the reducer refuses the rest).
    var limit: Int {
        switch self {
        case .workoutName, .editedName: Validation.maxNameLength
        case .filter: AppState.maxFilterLength
        case .exercise: SetForm.maxLength(.exercise)
        case .weight: SetForm.maxLength(.weight)
        case .reps: SetForm.maxLength(.reps)
        case .rpe: SetForm.maxLength(.rpe)
        case .notes: Validation.maxNotesLength
        }
    }

    func open(_ controller: AppController) {
        switch self {
        case .workoutName: controller.handle(.character("w"))
        case .filter: controller.handle(.character("/"))
        case .exercise, .weight, .reps, .rpe:
            controller.handle(.character("n"))
            // The form opens on the first field to fill in: Shift-Tab back to the exercise, then
            // Tab forward to the field.
            for _ in 0..<4 where !Self.focused(.exercise, controller) { controller.handle(.backTab) }
            for _ in 0..<4 where read(controller) == nil { controller.handle(.tab) }
        case .editedName, .notes:
            controller.handle(.left)
            controller.handle(.character("e"))
            if self == .notes { controller.handle(.tab) }
        }
    }

    static func focused(_ field: SetForm.Field, _ controller: AppController) -> Bool {
        if case .setForm(let form) = controller.state.overlay { return form.focus == field }
        return false
    }

    /// The field as the reducer holds it, or nil when it is not open (any more).
    func read(_ controller: AppController) -> TextField? {
        let state = controller.state
        switch (self, state.overlay) {
        case (.workoutName, .newWorkout(let name)): return name
        case (.filter, _): return state.filterInput?.field
        case (.exercise, .setForm(let form)), (.weight, .setForm(let form)), (.reps, .setForm(let form)),
            (.rpe, .setForm(let form)):
            let wanted: SetForm.Field =
                switch self {
                case .exercise: .exercise
                case .weight: .weight
                case .reps: .reps
                default: .rpe
                }
            return form.focus == wanted ? form[input: wanted] : nil
        case (.editedName, .workoutEdit(let form)): return form.focus == .name ? form.name : nil
        case (.notes, .workoutEdit(let form)): return form.focus == .notes ? form.notes : nil
        default: return nil
        }
    }
}

/// One step of an editing session: an editing key, or text typed one code point a key.
enum EditStep: CustomStringConvertible {
    case edit(Key, TextEdit)
    case type(String)

    static let edits: [(Key, TextEdit)] = [
        (.left, .moveLeft), (.right, .moveRight), (.home, .moveToStart), (.end, .moveToEnd),
        (.backspace, .deleteBackward), (.delete, .deleteForward),
    ]

    init(code: Int, typeable: [String]) {
        if code % 10 < 4 {
            let (key, edit) = Self.edits[(code / 10) % Self.edits.count]
            self = .edit(key, edit)
        } else if code % 500 == 4 {
            self = .type(HardText.hugePaste)
        } else {
            self = .type(typeable[(code / 10) % typeable.count])
        }
    }

    var description: String {
        switch self {
        case .edit(let key, _): "key \(key)"
        case .type(let text):
            text.count > 40
                ? "type \(text.count) characters" : "type \(text.unicodeScalars.map { String($0.value, radix: 16) })"
        }
    }
}

/// The reference a field is checked against: its text as an array of `Character`s and a cursor
/// counted in them. A character typed goes in at the cursor (replacing a selected text) and
/// joins what it composes with; the cursor stays after it, counted in the text as it now reads.
struct FieldModel {
    var characters: [Character]
    var cursor: Int
    var selected: Bool
    let limit: Int

    init(_ field: TextField, limit: Int) {
        characters = Array(field.text)
        cursor = field.cursor
        selected = field.isSelected
        self.limit = limit
    }

    var scalarCount: Int { characters.reduce(0) { $0 + $1.unicodeScalars.count } }

    mutating func insert(_ character: Character) {
        if selected {
            selected = false
            characters = []
            cursor = 0
        }
        guard scalarCount + character.unicodeScalars.count <= limit else { return }
        let head = String(characters[..<cursor]) + String(character)
        characters = Array(head + String(characters[cursor...]))
        cursor = min(Array(head).count, characters.count)
    }

    mutating func apply(_ edit: TextEdit) {
        selected = false
        switch edit {
        case .deleteBackward:
            guard cursor > 0 else { return }
            let head = String(characters[..<(cursor - 1)])
            characters = Array(head + String(characters[cursor...]))
            cursor = min(Array(head).count, characters.count)
        case .deleteForward:
            guard cursor < characters.count else { return }
            let head = String(characters[..<cursor])
            characters = Array(head + String(characters[(cursor + 1)...]))
            cursor = min(Array(head).count, characters.count)
        case .clear:
            characters = []
            cursor = 0
        case .moveLeft: cursor = max(0, cursor - 1)
        case .moveRight: cursor = min(characters.count, cursor + 1)
        case .moveToStart: cursor = 0
        case .moveToEnd: cursor = characters.count
        }
    }
}

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
        await propertyCheck(count: 1000, input: Gen.int(in: 0...9999).array(of: 1...40)) { codes in
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

    @Test("a name typed as separate code points reads back grapheme for grapheme, in every text field")
    func typedTextIsKept() async throws {
        let typeable = HardText.corpus.filter { text in
            // Keys the terminal turns into Enter, Tab, Escape or nothing cannot be typed as text.
            text.unicodeScalars.allSatisfy { scalar in
                if case .character = CursesTerminal.decode(character: scalar.value) { return true }
                return false
            }
        }
        await propertyCheck(count: 150, input: Gen.int(in: 0...999).array(of: 1...6)) { picks in
            let typed = picks.map { typeable[$0 % typeable.count] }.joined()
            do {
                let fixture = try Fixture()
                let controller = fixture.controller(columns: 120, rows: 40)
                // The new workout's name.
                controller.handle(.character("w"))
                for key in HardText.keys(typed) { controller.handle(key) }
                guard case .newWorkout(let name) = controller.state.overlay else {
                    Issue.record("the name prompt closed while typing \(typed.unicodeScalars.map(\.value))")
                    return
                }
                #expect(Array(name.text) == Array(typed), "name field")
                #expect(name.cursor == name.text.count)
                controller.handle(.escape)
                // The filter.
                controller.handle(.character("/"))
                for key in HardText.keys(typed) { controller.handle(key) }
                #expect(controller.state.filterInput.map { Array($0.text) } == Array(typed), "filter")
                controller.handle(.escape)
                // The set form's exercise field.
                controller.handle(.character("n"))
                for key in HardText.keys(typed) { controller.handle(key) }
                if case .setForm(let form) = controller.state.overlay {
                    #expect(Array(form[input: .exercise].text) == Array(typed), "exercise field")
                } else {
                    Issue.record("the set form closed while typing")
                }
            } catch {
                Issue.record("\(error)")
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

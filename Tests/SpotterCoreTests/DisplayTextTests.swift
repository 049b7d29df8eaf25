import Foundation
import Testing

@testable import SpotterCore

@Suite("What a terminal draws: widths, terminal forms, clipping")
struct DisplayTextTests {
    /// The columns tmux 3.3 and ncurses (glibc's wcwidth) give each of these as drawn; the same
    /// widths are checked against a real tmux in the end-to-end tests.
    @Test(
        "each hard character has the width ncurses and tmux give its terminal form",
        arguments: [
            ("A", 1), ("☀️", 1), ("☀︎", 1), ("💪", 2), ("💪🏽", 2), ("👨‍👩‍👧", 2), ("🏳️‍🌈", 1), ("🇺🇸", 2), ("e\u{301}", 1),
            ("🏋️", 1), ("스", 2), ("\u{1100}\u{1161}", 2), ("中", 2), ("Ｆ", 2), ("#️⃣", 1), ("ש", 1), ("\u{200B}", 0),
            ("\u{200D}", 0), ("\u{202E}", 1), ("\u{1B}", 1), ("\u{85}", 1), ("\t", 1), ("\u{1FAE8}", 1),
        ])
    func widths(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("controls and bidi controls are drawn as U+FFFD; tabs and line breaks as a space; zero-width ones not at all")
    func terminalForms() {
        #expect(DisplayText.terminalSafe("\u{200B}\u{202E}") == "\u{FFFD}")
        #expect(DisplayText.terminalSafe("Push \u{1B}[31mred") == "Push \u{FFFD}[31mred")
        #expect(DisplayText.terminalSafe("a\tb\nc") == "a b c")
        #expect(DisplayText.terminalSafe("Legs\u{85}\u{2066}") == "Legs\u{FFFD}\u{FFFD}")
        #expect(DisplayText.terminalSafe("Push 💪🏽") == "Push 💪")
        #expect(DisplayText.terminalSafe("Morning workout ☀️") == "Morning workout ☀")
        #expect(DisplayText.terminalSafe("Plain ASCII stays the same string") == "Plain ASCII stays the same string")
        // Thousands of marks on one letter reach the terminal as a letter with a few.
        let zalgo = "Z" + String(repeating: "\u{301}", count: 5000)
        let drawn = DisplayText.terminalSafe(zalgo)
        #expect(drawn.unicodeScalars.count == 1 + DisplayText.maxMarks)
        #expect(DisplayWidth.of(zalgo) == 1)
    }

    @Test("no terminal form is wider than two columns or empty, and every one is one character")
    func formsFitACell() {
        let corpus = [
            "\u{1100}\u{1100}\u{1161}", "क्‍ष", "का", "👨🏽‍🚀", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🇺", "🏽", "\u{301}", "a\u{20DD}", "\r\n", "\u{FEFF}",
        ]
        for text in corpus {
            for character in text {
                guard let form = DisplayText.terminalForm(of: character) else { continue }
                let width = DisplayWidth.columns(ofForm: form)
                #expect((1...2).contains(width), "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }

    @Test("a name never starts with what would join the cell drawn before it")
    func standaloneNames() {
        // A lone skin tone, a combining mark, a joiner: each would join the space before it.
        #expect(DisplayText.terminalSafe("🏽Curl") == "\u{FFFD}Curl")
        #expect(DisplayText.terminalSafe("\u{301}Row") == "Row")
        #expect(DisplayText.standalone("\u{301}Row") == "Row")
        #expect(DisplayText.standalone("\u{200D}Row") == "Row")
        #expect(DisplayText.standalone("\u{FE0F}Row") == "Row")
        #expect(DisplayText.standalone("🏽Curl") == "\u{FFFD}Curl")
        #expect(DisplayText.standalone("\u{93E}Curl") == "\u{FFFD}Curl")
        #expect(DisplayText.standalone("Push 💪🏽") == "Push 💪🏽", "a modifier on its emoji stays")
        #expect(DisplayText.standalone("Café") == "Café")
        // Put after a space, every name keeps the columns it was measured at.
        for name in ["🏽Curl", "\u{301}Row", "\u{200D}💪", "\u{FE0F}x", "\u{93E}Curl", "🇺", "\u{1161}jamo", "Bench"] {
            for columns in [3, 6, 12] {
                let cell = name.padded(to: columns)
                let row = "| " + cell + " |"
                #expect(DisplayWidth.of(cell) == columns, "\(name.unicodeScalars.map(\.value))")
                #expect(
                    DisplayWidth.of(row) == columns + 4,
                    "\(name.unicodeScalars.map(\.value)) joined the space before it: \(row.unicodeScalars.map(\.value))"
                )
                let right = "x" + name.leftPadded(to: columns)
                #expect(DisplayWidth.of(right) == columns + 1, "\(name.unicodeScalars.map(\.value)) right-aligned")
            }
        }
    }

    @Test("clipping never splits a character, ends with the ellipsis and is exactly as wide as asked")
    func clipping() {
        let name = "Heavy Day 🏋️ 스쿼트 💪🏽 and more"
        for columns in 1...30 {
            let clipped = name.clipped(to: columns)
            #expect(DisplayWidth.of(clipped) <= columns)
            #expect(name.padded(to: columns).isEmpty || DisplayWidth.of(name.padded(to: columns)) == columns)
            if DisplayWidth.of(name) > columns {
                #expect(clipped.hasSuffix("…"))
                let kept = clipped.dropLast()
                #expect(name.hasPrefix(kept), "a whole-character prefix: \(clipped)")
            }
        }
        #expect("Squat (Barbell) with a long name".clipped(to: 10, ellipsis: "...") == "Squat (...")
        #expect("中文".clipped(to: 1) == "…")
        #expect("abc".leftPadded(to: 5) == "  abc")
    }
}

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

    @Test("typed, the same characters are the keys they always were")
    func typedControlsAreKeys() {
        #expect(CursesTerminal.decode(character: 10) == .enter)
        #expect(CursesTerminal.decode(character: 9) == .tab)
        #expect(CursesTerminal.decode(character: 27) == .escape)
        #expect(CursesTerminal.decode(character: 21) == .control("u"))
    }
}

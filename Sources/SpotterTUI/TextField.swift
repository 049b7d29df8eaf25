/// One line of editable text and its cursor: the form's fields, the `/` filter and the new
/// workout's name all edit through it, so typing, Backspace, Ctrl-U and the arrows behave
/// the same everywhere. A pure value: the reducer owns it and tests drive it directly.
///
/// It edits by `Character` (a grapheme cluster): the cursor counts characters, never code
/// points, and every offset is clamped to the text. A code point that arrives as a key of its
/// own and joins the character before it (a skin tone after an emoji, a combining accent after
/// a letter, the second half of a flag) becomes part of that character; the cursor stays after it.
public struct TextField: Sendable, Equatable {
    /// What the lifter has typed so far.
    public private(set) var text: String
    /// Where the next character goes, in characters from the start (0...text.count).
    public private(set) var cursor: Int
    /// The whole text is selected, as in a form field tabbed into: the first character typed
    /// replaces it; Backspace, Ctrl-U and the arrows edit it instead (and end the selection).
    public var isSelected: Bool

    /// `text` with the cursor after its last character.
    public init(_ text: String = "", selected: Bool = false) {
        self.text = text
        cursor = text.count
        isSelected = selected
    }

    public var isEmpty: Bool { text.isEmpty }

    /// Replaces the whole text (a suggestion taken, a prefill): the cursor goes to its end.
    public mutating func set(_ text: String) {
        self.text = text
        cursor = text.count
    }

    /// Types `character` at the cursor (replacing a selected text), unless the field would then
    /// hold more than `limit` code points (the unit the validation rules count in): a paste
    /// cannot grow a field without bound. Returns whether it was typed.
    @discardableResult
    public mutating func insert(_ character: Character, limit: Int = .max) -> Bool {
        if isSelected {
            isSelected = false
            set("")
        }
        guard text.unicodeScalars.count + character.unicodeScalars.count <= limit else { return false }
        let at = index(cursor)
        // The new character may join its neighbours (an emoji modifier, a combining mark): the
        // cursor goes after whatever it became part of, counted in the text as it now reads.
        var head = String(text[..<at])
        head.append(character)
        let tail = text[at...]
        text = head + tail
        cursor = min(head.count, text.count)
        return true
    }

    /// Applies one editing key; returns whether the text changed (the cursor alone may move).
    @discardableResult
    public mutating func apply(_ edit: TextEdit) -> Bool {
        isSelected = false
        switch edit {
        case .deleteBackward:
            guard cursor > 0 else { return false }
            // Removing a character can let its neighbours join (a mark after a deleted letter
            // joins the one before): the cursor is counted in the text as it now reads.
            let head = String(text[..<index(cursor - 1)])
            text = head + text[index(cursor)...]
            cursor = min(head.count, text.count)
            return true
        case .deleteForward:
            guard cursor < text.count else { return false }
            let head = String(text[..<index(cursor)])
            text = head + text[index(cursor + 1)...]
            cursor = min(head.count, text.count)
            return true
        case .clear:
            let changed = !text.isEmpty
            set("")
            return changed
        case .moveLeft:
            cursor = max(0, cursor - 1)
        case .moveRight:
            cursor = min(text.count, cursor + 1)
        case .moveToStart:
            cursor = 0
        case .moveToEnd:
            cursor = text.count
        }
        return false
    }

    /// The text split around the cursor, for drawing: the character under the cursor is
    /// nil at the end of the text (the renderer draws "_" there).
    public var parts: TextFieldParts {
        let at = index(cursor)
        return TextFieldParts(
            beforeCursor: String(text[..<at]), underCursor: at < text.endIndex ? text[at] : nil,
            afterCursor: at < text.endIndex ? String(text[text.index(after: at)...]) : "")
    }

    /// The index `offset` characters in, clamped to the text: no offset can fall outside it.
    private func index(_ offset: Int) -> String.Index {
        text.index(text.startIndex, offsetBy: max(0, offset), limitedBy: text.endIndex) ?? text.endIndex
    }
}

/// A text field as drawn: the text before the cursor, the character under it, the rest.
public struct TextFieldParts: Sendable, Equatable {
    public var beforeCursor: String
    public var underCursor: Character?
    public var afterCursor: String
}

/// The editing keys every text field understands (bound in `KeyMap`).
public enum TextEdit: Sendable, Equatable {
    case deleteBackward, deleteForward, clear
    case moveLeft, moveRight, moveToStart, moveToEnd
}

/// One line of editable text and its cursor: the form's fields, the `/` filter and the new
/// workout's name all edit through it, so typing, Backspace, Ctrl-U and the arrows behave
/// the same everywhere. A pure value: the reducer owns it and tests drive it directly.
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

    /// Types `character` at the cursor (replacing a selected text), unless the field already
    /// holds `limit` characters: a paste cannot grow a field without bound. Returns whether it
    /// was typed.
    @discardableResult
    public mutating func insert(_ character: Character, limit: Int = .max) -> Bool {
        if isSelected {
            isSelected = false
            set("")
        }
        guard text.count < limit else { return false }
        text.insert(character, at: index(cursor))
        cursor += 1
        return true
    }

    /// Applies one editing key; returns whether the text changed (the cursor alone may move).
    @discardableResult
    public mutating func apply(_ edit: TextEdit) -> Bool {
        isSelected = false
        switch edit {
        case .deleteBackward:
            guard cursor > 0 else { return false }
            text.remove(at: index(cursor - 1))
            cursor -= 1
            return true
        case .deleteForward:
            guard cursor < text.count else { return false }
            text.remove(at: index(cursor))
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

    private func index(_ offset: Int) -> String.Index {
        text.index(text.startIndex, offsetBy: offset)
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

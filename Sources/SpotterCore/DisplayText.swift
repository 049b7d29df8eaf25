/// How many terminal columns text takes, measured the way ncurses and tmux measure it (the C
/// library's `wcwidth`, whose table `scripts/gen-display-width` copies into
/// `DisplayWidthTable`), so a row the UI computes as 120 columns is drawn as 120 columns.
///
/// Terminals disagree about emoji sequences: tmux joins a ZWJ family into two columns while
/// ncurses adds up its members (six); a modern terminal draws "☀️" (sun + VS16) two wide, tmux
/// one. So what is measured is the character's *terminal form* (`DisplayText.terminalForm`),
/// which leaves out the parts they disagree on, and that form is also what is drawn.
public enum DisplayWidth {
    /// Columns of one code point: 0 (combining and format marks), 1 or 2 (East Asian wide and
    /// full-width, emoji presentation); -1 for controls and code points the table does not know.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value >= 0x20, value < 0x7F { return 1 }
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return -1 }
        if contains(DisplayWidthTable.zero, value) { return 0 }
        if contains(DisplayWidthTable.wide, value) { return 2 }
        if contains(DisplayWidthTable.unknown, value) { return -1 }
        return 1
    }

    /// Columns the character takes as drawn (its terminal form): 0, 1, 2, or more for a cluster
    /// such as a Hangul syllable spelt in jamo.
    public static func of(_ character: Character) -> Int {
        // Printable ASCII is itself; a control is drawn as a space or U+FFFD: one column either way.
        if character.asciiValue != nil { return 1 }
        guard let form = DisplayText.terminalForm(of: character) else { return 0 }
        return columns(ofForm: form)
    }

    /// Columns `text` takes on screen.
    public static func of(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The columns of a terminal form: the sum of its code points' widths, as ncurses adds
    /// them up (every code point in a form is known and printable).
    public static func columns(ofForm form: Character) -> Int {
        var total = 0
        for scalar in form.unicodeScalars { total += max(0, of(scalar)) }
        return total
    }

    private static func contains(_ ranges: [ClosedRange<UInt32>], _ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}

/// Text made safe to put on a terminal: what a name or a note is drawn as, in the UI and in
/// the CLI's text output. The stored text is never changed; only what reaches the terminal.
public enum DisplayText {
    /// U+FFFD, drawn in place of a control character, a bidi control, or a code point the
    /// terminal's table does not know.
    public static let replacement: Character = "\u{FFFD}"

    /// The most zero-width marks kept on one character: ncurses keeps five code points in a
    /// cell, and a "character" of thousands of combining marks must not reach the terminal.
    static let maxMarks = 4

    /// Whether `scalar` is a bidi embedding, override or isolate control (U+202A–U+202E,
    /// U+2066–U+2069): it would reorder the rest of a terminal row.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether `scalar` is a C0 or C1 control or DEL.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The character as it is drawn, or nil when it takes no column at all (a zero-width space,
    /// a mark with nothing to sit on): a tab or line break becomes a space, any other control
    /// or bidi control and any unknown code point U+FFFD; an emoji keeps its base, dropping the
    /// variation selector, skin-tone modifier and ZWJ continuation that terminals draw in
    /// different widths; at most `maxMarks` marks stay on a letter.
    public static func terminalForm(of character: Character) -> Character? {
        if let ascii = character.asciiValue {
            if ascii >= 0x20, ascii < 0x7F { return character }
            return ascii == 0x09 || ascii == 0x0A || ascii == 0x0D ? " " : replacement
        }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return nil }
        if first == "\t" || first == "\n" || first == "\r" { return " " }
        if isControl(first) || isBidiControl(first) { return replacement }
        let firstWidth = DisplayWidth.of(first)
        if firstWidth < 0 { return replacement }
        if firstWidth == 0 { return nil }
        if scalars.count == 1 { return character }
        let isEmoji = first.properties.isEmoji
        var form = String.UnicodeScalarView()
        form.append(first)
        var marks = 0
        for scalar in scalars.dropFirst() {
            let value = scalar.value
            if value == 0xFE0E || value == 0xFE0F { continue }
            if isEmoji, value == 0x200D { break }
            // A joiner left at the end of a cell would make tmux join the next cell's character.
            if value == 0x200D || value == 0x200C { continue }
            if isEmoji, scalar.properties.isEmojiModifier { continue }
            let width = DisplayWidth.of(scalar)
            if width < 0 || isControl(scalar) || isBidiControl(scalar) { continue }
            if width == 0 {
                guard marks < maxMarks else { continue }
                marks += 1
            }
            form.append(scalar)
        }
        // A cluster of known parts is one character again (a flag's two regional indicators,
        // a letter and its marks); if Unicode's rules split it after the cuts, keep the base.
        // A form wider than two columns (two wide jamo, say) is drawn as its base: a cell holds
        // one or two columns.
        let text = String(form)
        guard text.count == 1 else { return Character(first) }
        let joined = Character(text)
        return DisplayWidth.columns(ofForm: joined) <= 2 ? joined : Character(first)
    }

    /// `text` as drawn: each character in its terminal form, zero-width ones left out, standing
    /// on its own (`standalone`).
    public static func terminalSafe(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            if let form = terminalForm(of: character) { result.append(form) }
        }
        return standalone(result)
    }

    /// `text` made to stand on its own between other cells: a first character that would join
    /// the one drawn before it (a combining mark, a skin-tone modifier, a joiner or variation
    /// selector with nothing to sit on) is left out when it takes no column and shown as U+FFFD
    /// when it does, and a last character that would join the one after it (a prepended mark)
    /// as U+FFFD. Columns padded piecewise and put side by side then stay where they were measured.
    public static func standalone(_ text: String) -> String {
        guard text.unicodeScalars.first?.isASCII == false || text.unicodeScalars.last?.isASCII == false else {
            return text
        }
        var result = Substring(text)
        var head = ""
        while let character = result.first, joinsPrevious(result) {
            result = result.dropFirst()
            if terminalForm(of: character) != nil {
                head = String(replacement)
                break
            }
        }
        var shown = head + result
        if !shown.isEmpty, (shown + "a").count != shown.count + 1 {
            shown.removeLast()
            shown.append(replacement)
        }
        return shown
    }

    /// Whether the first character of `text` would join a letter drawn before it.
    private static func joinsPrevious(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, !first.isASCII else { return false }
        return ("a" + text).count != text.count + 1
    }

    /// `text` with every control character (tabs and line feeds too, unless `keepLineBreaks`;
    /// a carriage return always) and every bidi control replaced by U+FFFD: how a stored name
    /// that predates the rules, or came from an import or another server, is shown without
    /// driving the terminal.
    public static func replacingControls(_ text: String, keepLineBreaks: Bool = false) -> String {
        guard
            text.unicodeScalars.contains(where: {
                (isControl($0) && !(keepLineBreaks && ($0 == "\t" || $0 == "\n"))) || isBidiControl($0)
            })
        else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let kept = keepLineBreaks && (scalar == "\t" || scalar == "\n")
            if !kept, isControl(scalar) || isBidiControl(scalar) {
                scalars.append("\u{FFFD}")
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}

extension String {
    /// Clipped to `columns` display columns, ending with `ellipsis` when cut; never splits a
    /// character. Measured in terminal forms (`DisplayWidth`).
    /// A first character that would join the cell before it is shown on its own
    /// (`DisplayText.standalone`), so columns put side by side keep their widths.
    public func clipped(to columns: Int, ellipsis: String = "…") -> String {
        guard columns > 0 else { return "" }
        let text = DisplayText.standalone(self)
        return text.clippedAsIs(to: columns, ellipsis: ellipsis)
    }

    private func clippedAsIs(to columns: Int, ellipsis: String) -> String {
        if DisplayWidth.of(self) <= columns { return self }
        let ellipsisWidth = DisplayWidth.of(ellipsis)
        guard ellipsisWidth <= columns else { return String(repeating: ".", count: columns) }
        var result = ""
        var used = 0
        let room = columns - ellipsisWidth
        for character in self {
            let width = DisplayWidth.of(character)
            if used + width > room { break }
            result.append(character)
            used += width
        }
        return result + ellipsis
    }

    /// Padded with spaces (or clipped) to exactly `columns` display columns.
    public func padded(to columns: Int, ellipsis: String = "…") -> String {
        let clipped = clipped(to: columns, ellipsis: ellipsis)
        let width = DisplayWidth.of(clipped)
        return width < columns ? clipped + String(repeating: " ", count: columns - width) : clipped
    }

    /// Right-aligned in `columns` display columns (clipped with an ellipsis when longer).
    public func leftPadded(to columns: Int, ellipsis: String = "…") -> String {
        let clipped = clipped(to: columns, ellipsis: ellipsis)
        let width = DisplayWidth.of(clipped)
        return width < columns ? String(repeating: " ", count: columns - width) + clipped : clipped
    }
}

/// A colour the UI asks for; the adapter maps it to a curses colour pair, or ignores it
/// when colour is off (NO_COLOR, monochrome terminals).
public enum CellColor: UInt8, Sendable, Equatable, CaseIterable {
    case normal, red, green, yellow, cyan, magenta
}

/// How one cell is drawn. Small and trivially copyable, so a 200×60 frame stays cheap.
public struct CellStyle: Sendable, Equatable, Hashable {
    public var color: CellColor
    public var bold: Bool
    public var reverse: Bool
    public var dim: Bool
    public var underline: Bool

    public init(
        color: CellColor = .normal, bold: Bool = false, reverse: Bool = false, dim: Bool = false,
        underline: Bool = false
    ) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
        self.underline = underline
    }

    public static let plain = CellStyle()
    public static let bold = CellStyle(bold: true)
    public static let reverse = CellStyle(reverse: true)
    public static let dim = CellStyle(dim: true)
    public static func colored(_ color: CellColor, bold: Bool = false) -> CellStyle {
        CellStyle(color: color, bold: bold)
    }
}

/// One terminal cell: a character and its style. A wide character occupies its own cell
/// plus a continuation cell to its right, so column arithmetic stays honest.
public struct Cell: Sendable, Equatable {
    public var character: Character
    public var style: CellStyle
    /// Display columns of `character`: 1 or 2; 0 marks the right half of a wide character.
    public var width: UInt8

    public static let blank = Cell(character: " ", style: .plain, width: 1)
}

/// The in-memory screen the views render into: a grid of cells, compared and asserted on in
/// tests the way ratatui's `TestBackend` is, and copied to the terminal by the adapter.
public struct ScreenBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
    }

    /// Blanks every cell.
    public mutating func clear() {
        for index in cells.indices { cells[index] = .blank }
    }

    /// Writes `text` at (x, y), clipped to `maxWidth` columns (and the screen edge); returns
    /// the number of columns written. A wide character that would straddle the limit is replaced by a space.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int = Int.max) -> Int
    {
        guard y >= 0, y < height, x < width else { return 0 }
        let limit = min(width, maxWidth == Int.max ? width : x + max(0, maxWidth))
        var column = x
        for character in text {
            let charWidth = DisplayWidth.of(character)
            if charWidth == 0 { continue }
            if column + charWidth > limit {
                if column < limit, column >= 0 { setCell(column, y, Cell(character: " ", style: style, width: 1)) }
                column = limit
                break
            }
            if column >= 0 {
                setCell(column, y, Cell(character: character, style: style, width: UInt8(charWidth)))
                if charWidth == 2 { setCell(column + 1, y, Cell(character: " ", style: style, width: 0)) }
            }
            column += charWidth
        }
        return column - x
    }

    /// Fills `count` columns from (x, y) with `character` in `style`.
    public mutating func fill(_ character: Character = " ", x: Int, y: Int, count: Int, style: CellStyle = .plain) {
        guard y >= 0, y < height else { return }
        let end = min(width, x + count)
        var column = max(0, x)
        while column < end {
            setCell(column, y, Cell(character: character, style: style, width: 1))
            column += 1
        }
    }

    private mutating func setCell(_ x: Int, _ y: Int, _ cell: Cell) {
        let index = y * width + x
        // Overwriting half of a wide character blanks its other half, as a terminal would.
        let old = cells[index]
        if old.width == 2, x + 1 < width, cell.width != 2 { cells[index + 1] = .blank }
        if old.width == 0, x > 0, cells[index - 1].width == 2 { cells[index - 1] = .blank }
        cells[index] = cell
    }

    /// One row as text (continuation cells skipped), for tests and screen dumps.
    public func line(_ y: Int) -> String {
        var text = ""
        text.reserveCapacity(width)
        for x in 0..<width {
            let cell = cells[y * width + x]
            if cell.width != 0 { text.append(cell.character) }
        }
        return text
    }

    /// The whole screen as text, one line per row, trailing spaces kept.
    public var text: String {
        (0..<height).map(line).joined(separator: "\n")
    }

    /// Whether any row contains `needle`.
    public func contains(_ needle: String) -> Bool {
        (0..<height).contains { line($0).contains(needle) }
    }

    /// The first row containing `needle`, if any.
    public func row(containing needle: String) -> Int? {
        (0..<height).first { line($0).contains(needle) }
    }

    /// The style of the first cell where `needle` starts on row `y`.
    public func style(of needle: String, onRow y: Int) -> CellStyle? {
        let text = line(y)
        guard let range = text.range(of: needle) else { return nil }
        var column = 0
        var x = 0
        // Map the character offset back to a cell column (wide characters take two).
        let offset = text.distance(from: text.startIndex, to: range.lowerBound)
        while column < offset, x < width {
            if cells[y * width + x].width != 0 { column += 1 }
            x += 1
        }
        while x < width, cells[y * width + x].width == 0 { x += 1 }
        return x < width ? cells[y * width + x].style : nil
    }
}

extension ScreenBuffer: CustomStringConvertible {
    /// The screen as text, so a failed expectation prints what a user would have seen.
    public var description: String { text }
}

/// Terminal display width of characters, independent of the process locale so rendering stays
/// a pure function: East Asian wide and emoji-presentation characters take two columns.
public enum DisplayWidth {
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        return of(first)
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        if (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) || (0xFE00...0xFE0F).contains(v) { return 0 }
        if v < 0x1100 { return 1 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x1F680...0x1F6FF).contains(v) || (0x1FA70...0x1FAFF).contains(v)
            || (0x20000...0x3FFFD).contains(v)
        {
            return 2
        }
        // Emoji that terminals draw two columns wide by default (East Asian Width "W").
        switch v {
        case 0x231A, 0x231B, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD, 0x25FE, 0x2614, 0x2615, 0x2648...0x2653, 0x267F,
            0x2693, 0x26A1, 0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26F3,
            0x26F5,
            0x26FA, 0x26FD, 0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797,
            0x27B0, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50, 0x2B55:
            return 2
        default:
            return 1
        }
    }

    /// Columns `text` takes on screen.
    public static func of(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }
}

extension String {
    /// Clipped to `columns` display columns, with an ellipsis when cut.
    func clipped(to columns: Int, ellipsis: String = "…") -> String {
        guard columns > 0 else { return "" }
        if DisplayWidth.of(self) <= columns { return self }
        var result = ""
        var used = 0
        let room = columns - DisplayWidth.of(ellipsis)
        for character in self {
            let w = DisplayWidth.of(character)
            if used + w > room { break }
            result.append(character)
            used += w
        }
        return result + ellipsis
    }

    /// Padded with spaces (or clipped) to exactly `columns` display columns.
    func padded(to columns: Int, ellipsis: String = "…") -> String {
        let clipped = clipped(to: columns, ellipsis: ellipsis)
        let w = DisplayWidth.of(clipped)
        return w < columns ? clipped + String(repeating: " ", count: columns - w) : clipped
    }

    /// Right-aligned in `columns` display columns.
    func leftPadded(to columns: Int) -> String {
        let w = DisplayWidth.of(self)
        return w < columns ? String(repeating: " ", count: columns - w) + self : clipped(to: columns)
    }
}

extension ScreenBuffer {
    /// ASCII spellings of the symbols text may carry; anything else outside ASCII becomes "?".
    static let asciiSpellings: [Character: Character] = [
        "×": "x", "·": "-", "…": "~", "—": "-", "–": "-", "←": "<", "→": ">", "↑": "^", "↓": "v", "’": "'",
        "‘": "'", "“": "\"", "”": "\"", "•": "*", "✓": "+", "✗": "x", "⏳": ".", "⚠": "!", "✈": ">", "⟳": "~",
        "●": "*", "○": "o", "▸": ">", "★": "*", "☆": "*", "é": "e", "è": "e", "ü": "u", "ö": "o", "ä": "a",
    ]

    /// Replaces every character outside ASCII: a wide one (two cells) becomes "??", so the grid
    /// and every border stay where they are.
    mutating func transliterateToASCII() {
        var replacedWide = false
        for index in cells.indices {
            let cell = cells[index]
            if cell.width == 0 {
                // The right half of a wide character: it becomes a cell of its own.
                if replacedWide { cells[index] = Cell(character: "?", style: cell.style, width: 1) }
                replacedWide = false
                continue
            }
            replacedWide = false
            guard !cell.character.isASCII else { continue }
            replacedWide = cell.width == 2
            cells[index] = Cell(character: Self.asciiSpellings[cell.character] ?? "?", style: cell.style, width: 1)
        }
    }
}

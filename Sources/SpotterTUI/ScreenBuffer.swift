import SpotterCore

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
        for original in text {
            // What is stored is drawn in its terminal form (no controls, no emoji parts the
            // terminal would measure differently), so the cells and the terminal agree.
            guard let character = DisplayText.terminalForm(of: original) else { continue }
            let charWidth = DisplayWidth.columns(ofForm: character)
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

extension ScreenBuffer {
    /// ASCII spellings of the symbols text may carry; anything else outside ASCII becomes "?".
    static let asciiSpellings: [Character: Character] = [
        "×": "x", "·": "-", "…": "~", "—": "-", "–": "-", "←": "<", "→": ">", "↑": "^", "↓": "v", "’": "'",
        "‘": "'", "“": "\"", "”": "\"", "•": "*", "✓": "+", "✗": "x", "⏳": ".", "⚠": "!", "✈": ">", "⟳": "~",
        "●": "*", "○": "o", "▸": ">", "★": "*", "☆": "*", "é": "e", "è": "e", "ü": "u", "ö": "o", "ä": "a",
    ]

    /// Replaces every character outside ASCII: a wide one (two cells) becomes "??", so the grid
    /// and every border stay where they are.
    public mutating func transliterateToASCII() {
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

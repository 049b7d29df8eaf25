// The only file that imports ncurses: it starts and stops curses, decodes keys into `Key`,
// and copies a `ScreenBuffer` to the screen. Everything else is testable without a terminal.
import CNcursesw
import CTerminalGuard
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Input the terminal produced: a key, or a new size.
enum TerminalInput: Equatable {
    case key(Key)
    /// A character that arrived inside a bracketed paste: text for a field, never a command.
    case pasted(Key)
    /// A control character inside a bracketed paste (U+0001, ESC, DEL, a Ctrl-C byte): never
    /// typed into a field, and said.
    case pastedControl(UInt32)
    case resize(columns: Int, rows: Int)
}

/// Why the terminal could not be taken over.
struct TerminalError: Error, CustomStringConvertible {
    let description: String
}

/// Key codes we define for sequences terminfo does not name (xterm focus reporting).
private let focusInCode: Int32 = 0x3F0
private let focusOutCode: Int32 = 0x3F1
/// The start and end of a bracketed paste (`ESC [ 200 ~` … `ESC [ 201 ~`).
private let pasteStartCode: Int32 = 0x3F2
private let pasteEndCode: Int32 = 0x3F3

/// Curses on the process's terminal. Not thread-safe: used only by the UI thread.
final class CursesTerminal {
    /// The terminal's locale speaks UTF-8, so Unicode glyphs are safe to draw.
    let unicode: Bool
    /// Colour is on: the terminal has colours and `NO_COLOR` is not set.
    let colors: Bool
    private var screen: OpaquePointer?
    private var stopped = false
    private var runBuffer: [wchar_t] = []
    /// `SPOTTER_DEBUG_CRASH` is set: the process traps right after its first frame, so a test
    /// can check that a crash gives the terminal back in a usable state.
    private var crashOnPurpose = false
    /// Inside a bracketed paste: what arrives is text, never a command (see `decode(character:pasting:)`).
    private var pasting = false

    private init(screen: OpaquePointer?, unicode: Bool, colors: Bool) {
        self.screen = screen
        self.unicode = unicode
        self.colors = colors
    }

    /// Takes over the terminal. `setlocale` first, so wide characters work when the locale is UTF-8.
    static func start(environment: [String: String]) throws(TerminalError) -> CursesTerminal {
        setlocale(LC_ALL, "")
        let codeset = spotter_codeset().map { String(cString: $0) } ?? ""
        let unicode = Glyphs.isUTF8(codeset: codeset)
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(
                description: "the UI needs a terminal; use a subcommand (see `spotter --help`) in scripts")
        }
        // Before curses changes the modes: a crash from here on puts these back.
        _ = spotter_terminal_guard_install()
        guard let screen = spotter_newterm() else {
            spotter_terminal_guard_remove()
            throw TerminalError(description: "cannot open the terminal (TERM=\(environment["TERM"] ?? "unset"))")
        }
        set_term(screen)
        // Raw, not cbreak: with the terminal's signal keys on, a Ctrl-C, Ctrl-\ or Ctrl-Z byte
        // inside a paste became SIGINT, SIGQUIT or SIGTSTP (the UI quit, or the line discipline
        // threw away what was typed before it). Raw, those bytes arrive as input: inside a paste
        // they are text and left out; typed, `TerminalUI` quits on Ctrl-C and stops on Ctrl-Z as
        // the signals did. (SIGINT from `kill` still quits.)
        raw()
        noecho()
        nonl()
        disableFlowControl()
        keypad(spotter_stdscr(), true)
        nodelay(spotter_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        define_key("\u{1b}[I", focusInCode)
        define_key("\u{1b}[O", focusOutCode)
        define_key("\u{1b}[200~", pasteStartCode)
        define_key("\u{1b}[201~", pasteEndCode)
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        var colors = false
        if !noColor, has_colors() {
            start_color()
            use_default_colors()
            for color in CellColor.allCases {
                if let curses = cursesColor(color) { init_pair(Int16(color.rawValue), Int16(curses), -1) }
            }
            colors = true
        }
        let terminal = CursesTerminal(screen: screen, unicode: unicode, colors: colors)
        terminal.crashOnPurpose = !(environment["SPOTTER_DEBUG_CRASH"] ?? "").isEmpty
        terminal.setFocusReporting(true)
        return terminal
    }

    /// The curses colour a cell colour is drawn in; nil: the terminal's own (no pair).
    private static func cursesColor(_ color: CellColor) -> Int32? {
        switch color {
        case .normal: nil
        case .red: Int32(COLOR_RED)
        case .green: Int32(COLOR_GREEN)
        case .yellow: Int32(COLOR_YELLOW)
        case .cyan: Int32(COLOR_CYAN)
        case .magenta: Int32(COLOR_MAGENTA)
        }
    }

    /// Turns off XON/XOFF flow control, as editors and htop do: otherwise Ctrl-S stops all output
    /// (the UI looks frozen) until Ctrl-Q. The keys then reach the UI as ordinary controls.
    /// `def_prog_mode` records the change, so curses restores it after a suspend.
    private static func disableFlowControl() {
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { return }
        attributes.c_iflag &= ~tcflag_t(IXON | IXOFF)
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &attributes)
        def_prog_mode()
    }

    var columns: Int { Int(spotter_cols()) }
    var rows: Int { Int(spotter_lines()) }

    /// Restores the terminal (idempotent): focus reporting off, curses ended.
    func stop() {
        guard !stopped else { return }
        stopped = true
        endwin()
        setFocusReporting(false)
        if let screen { delscreen(screen) }
        screen = nil
        spotter_terminal_guard_remove()
    }

    /// Gives the terminal back before the process stops (Ctrl-Z).
    func suspend() {
        endwin()
        setFocusReporting(false)
    }

    /// Takes the terminal again after `fg`, picking up a size change made meanwhile.
    func resume() {
        updateSize()
        refresh()
        clearok(spotter_stdscr(), true)
        setFocusReporting(true)
    }

    /// Reads the window size from the terminal (after SIGWINCH) and resizes curses to it.
    func updateSize() {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 {
            resizeterm(Int32(size.ws_row), Int32(size.ws_col))
        }
    }

    /// Repaints everything on the next draw (after SIGCONT, when the screen may be garbage).
    func invalidate() {
        clearok(spotter_stdscr(), true)
    }

    private func setFocusReporting(_ on: Bool) {
        // Focus reporting, and bracketed paste: a paste arrives marked, so its line breaks and
        // control characters cannot act as keys (a pasted "x\nd" must not save and then delete).
        let sequence = on ? "\u{1b}[?1004h\u{1b}[?2004h" : "\u{1b}[?1004l\u{1b}[?2004l"
        _ = spotter_flush_stdout()
        _ = sequence.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    }

    /// Rings the terminal bell (curses flashes the screen where there is none): rest is over.
    func bell() {
        beep()
    }

    /// Every key waiting on stdin, without blocking.
    func readInput() -> [TerminalInput] {
        var inputs: [TerminalInput] = []
        var value: wint_t = 0
        while inputs.count < 512 {
            let result = wget_wch(spotter_stdscr(), &value)
            if result == ERR { break }
            if result == KEY_CODE_YES {
                let code = Int32(value)
                if code == spotter_key_resize() {
                    inputs.append(.resize(columns: columns, rows: rows))
                } else if code == pasteStartCode || code == pasteEndCode {
                    pasting = code == pasteStartCode
                } else if !pasting, let key = Self.decode(keyCode: code) {
                    inputs.append(.key(key))
                }
            } else if let key = Self.decode(character: UInt32(value), pasting: pasting) {
                inputs.append(pasting ? .pasted(key) : .key(key))
            } else if pasting, UInt32(value) < 32 || UInt32(value) == 127 {
                inputs.append(.pastedControl(UInt32(value)))
            }
        }
        return inputs
    }

    static func decode(keyCode: Int32) -> Key? {
        switch keyCode {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_BTAB: .backTab
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_ENTER: .enter
        case focusInCode: .focusIn
        case focusOutCode: .focusOut
        default: nil
        }
    }

    /// A character read from the terminal as a key. Inside a bracketed paste it is text: a tab or
    /// a line break is a space, and any other control character (Escape included) is dropped, so
    /// nothing pasted can save a form, switch fields or run a command.
    static func decode(character value: UInt32, pasting: Bool = false) -> Key? {
        if pasting {
            switch value {
            case 9, 10, 13: return .character(" ")
            case 0...31, 127: return nil
            default: break
            }
        }
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(value + 96) ?? "?"))
        case 0, 28...31: return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }

    // MARK: Drawing

    private func attributes(_ style: CellStyle) -> Int32 {
        var attrs: Int32 = 0
        if style.bold { attrs |= spotter_a_bold() }
        if style.reverse { attrs |= spotter_a_reverse() }
        if style.dim { attrs |= spotter_a_dim() }
        if style.underline { attrs |= spotter_a_underline() }
        if colors, style.color != .normal { attrs |= spotter_color_pair(Int32(style.color.rawValue)) }
        return attrs
    }

    /// Copies the buffer to the screen in runs of equally styled cells, then refreshes
    /// (curses sends only what changed since the last frame).
    func draw(_ buffer: ScreenBuffer) {
        let rows = min(buffer.height, self.rows)
        let columns = min(buffer.width, self.columns)
        for y in 0..<rows {
            var x = 0
            while x < columns {
                let style = buffer[x, y].style
                let start = x
                runBuffer.removeAll(keepingCapacity: true)
                var lastCellStart = 0
                while x < columns {
                    let cell = buffer[x, y]
                    if cell.style != style { break }
                    lastCellStart = runBuffer.count
                    if cell.width != 0 {
                        if cell.width == 2, x + 1 >= columns {
                            runBuffer.append(wchar_t(32))
                        } else {
                            appendScalars(of: cell.character)
                        }
                    }
                    x += 1
                }
                // The bottom-right cell cannot be added without scrolling: it is inserted instead
                // (after the rest of the run), so it shows what the frame holds there, never what
                // an earlier, larger frame left.
                var last: [wchar_t] = []
                if y == self.rows - 1, x == self.columns, lastCellStart < runBuffer.count {
                    last = Array(runBuffer[lastCellStart...])
                    runBuffer.removeSubrange(lastCellStart...)
                }
                runBuffer.append(0)
                spotter_attrset(attributes(style))
                runBuffer.withUnsafeBufferPointer { pointer in
                    _ = spotter_addnwstr_at(Int32(y), Int32(start), pointer.baseAddress, Int32(pointer.count - 1))
                }
                if !last.isEmpty {
                    let count = Int32(last.count)
                    last.append(0)
                    _ = spotter_insnwstr_at(Int32(y), Int32(self.columns - 1), &last, count)
                }
            }
        }
        spotter_attrset(0)
        refresh()
        if crashOnPurpose { Self.crash() }
    }

    /// The debug switch's crash: a Swift trap, as a real defect would end; with the value
    /// `stack-overflow`, a recursion that runs out of stack (a SIGSEGV with no stack left for a
    /// handler but the guard's own).
    private static func crash() -> Never {
        let reason = ProcessInfo.processInfo.environment["SPOTTER_DEBUG_CRASH"] ?? ""
        if reason == "stack-overflow" { _ = spotter_debug_overflow_stack(0) }
        fatalError("SPOTTER_DEBUG_CRASH=\(reason): crashing on purpose after the first frame")
    }

    private func appendScalars(of character: Character) {
        for scalar in character.unicodeScalars {
            if unicode || scalar.isASCII {
                runBuffer.append(wchar_t(bitPattern: scalar.value))
            } else {
                // Without a UTF-8 locale a non-ASCII character would print as garbage.
                runBuffer.append(wchar_t(63))
                break
            }
        }
    }
}

/// A key press as the UI understands it, decoded from curses by the terminal adapter, so
/// the reducer and its tests never see curses key codes.
public enum Key: Sendable, Hashable {
    case character(Character)
    /// Ctrl plus a letter, lower-case: Ctrl-U is `.control("u")`.
    case control(Character)
    case enter, escape, tab, backTab, backspace, delete
    case up, down, left, right, home, end, pageUp, pageDown
    /// The terminal regained focus (xterm focus reporting, `ESC [ I`).
    case focusIn
    /// The terminal lost focus (`ESC [ O`).
    case focusOut
}

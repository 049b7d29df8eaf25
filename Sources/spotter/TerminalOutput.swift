import Foundation
import SpotterCore
import SpotterTUI

/// Every line the CLI prints goes through here, not through the standard library's `print`:
/// a name or note stored before the rules refused control characters, or pulled from another
/// server, must not drive the terminal (an ESC recolours it, U+202E reverses the rest of the
/// line, a carriage return overwrites it). Controls and bidi controls become U+FFFD; tabs and
/// line feeds stay (a routine's notes keep them). A name is made one line before it is put in
/// a line (`shownName`). JSON output has them escaped already, so it passes unchanged; `export`
/// writes its CSV with `Swift.print`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator)
    Swift.print(DisplayText.replacingControls(text, keepLineBreaks: true), terminator: terminator)
}

/// One message on stderr, through the same filter, as one line: a name or a server's reason in
/// it cannot break it in two or drive the terminal.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((DisplayText.replacingControls(line) + "\n").utf8))
}

/// A name (workout, exercise, routine) or a one-line reason as a listing prints it: every
/// control, tabs and line breaks too, as U+FFFD.
func shownName(_ text: String) -> String {
    DisplayText.replacingControls(text)
}

/// The ellipsis a cut name ends with: "…" when the locale's character set is UTF-8, "..."
/// otherwise, the rule the UI chooses its glyphs by.
let terminalEllipsis = Glyphs.forLocale().ellipsis

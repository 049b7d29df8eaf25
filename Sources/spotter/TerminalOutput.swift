import SpotterCore

/// Every line the CLI prints goes through here, not through the standard library's `print`:
/// a name or note stored before the rules refused control characters, or pulled from another
/// server, must not drive the terminal (an ESC recolours it, U+202E reverses the rest of the
/// line). Controls and bidi controls become U+FFFD; tabs and line breaks stay. JSON output has
/// them escaped already, so it passes unchanged; `export` writes its CSV with `Swift.print`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator)
    Swift.print(DisplayText.replacingControls(text, keepLineBreaks: true), terminator: terminator)
}

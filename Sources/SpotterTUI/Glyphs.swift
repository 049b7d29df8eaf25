/// The symbols the UI draws, in two sets: Unicode for UTF-8 terminals and plain ASCII for
/// everything else (htop's fallback), so a C-locale terminal never shows mojibake.
public struct Glyphs: Sendable, Equatable {
    public var synced: String
    public var pending: String
    public var rejected: String
    public var syncing: String
    public var airplane: String
    public var warning: String
    public var online: String
    public var offline: String
    public var selected: String
    public var star: String
    public var ellipsis: String
    public var middleDot: String
    public var spinner: [String]
    public var horizontal: Character
    public var vertical: Character
    public var topLeft: Character
    public var topRight: Character
    public var bottomLeft: Character
    public var bottomRight: Character

    public static let unicode = Glyphs(
        synced: "✓", pending: "⏳", rejected: "✗", syncing: "⟳", airplane: "✈", warning: "⚠", online: "●", offline: "○",
        selected: "▸", star: "★", ellipsis: "…", middleDot: "·",
        spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"],
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘")

    public static let ascii = Glyphs(
        synced: "ok", pending: "..", rejected: "x", syncing: "~", airplane: ">", warning: "!", online: "*",
        offline: "o",
        selected: ">", star: "*", ellipsis: "...", middleDot: "-", spinner: ["|", "/", "-", "\\"],
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+")
}

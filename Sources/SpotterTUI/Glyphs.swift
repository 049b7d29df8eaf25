import Foundation

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
    /// Before an exercise's note in the sets pane.
    public var noteMark = "✎"

    public static let unicode = Glyphs(
        synced: "✓", pending: "⏳", rejected: "✗", syncing: "⟳", airplane: "✈", warning: "⚠", online: "●", offline: "○",
        selected: "▸", star: "★", ellipsis: "…", middleDot: "·",
        spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"],
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘")

    public static let ascii = Glyphs(
        synced: "ok", pending: "..", rejected: "x", syncing: "~", airplane: ">", warning: "!", online: "*",
        offline: "o",
        selected: ">", star: "*", ellipsis: "...", middleDot: "-", spinner: ["|", "/", "-", "\\"],
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        noteMark: "note")
}

extension Glyphs {
    /// Unicode when the locale's character set (LC_ALL, LC_CTYPE, LANG) is UTF-8, ASCII
    /// otherwise: the rule the UI starts with, and the CLI's text output follows.
    public static func forLocale() -> Glyphs {
        localeIsUTF8() ? .unicode : .ascii
    }

    /// Whether the environment's locale writes UTF-8, read without changing the process's locale
    /// (the C library's number formatting stays as it is).
    public static func localeIsUTF8() -> Bool {
        guard let locale = newlocale(LC_CTYPE_MASK, "", nil) else { return false }
        defer { freelocale(locale) }
        guard let codeset = nl_langinfo_l(nl_item(CODESET), locale) else { return false }
        return isUTF8(codeset: String(cString: codeset))
    }

    /// "UTF-8", "utf8": the names a UTF-8 character set goes by.
    public static func isUTF8(codeset: String) -> Bool {
        codeset.uppercased().replacingOccurrences(of: "-", with: "") == "UTF8"
    }
}

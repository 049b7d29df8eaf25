import Foundation

/// Where spotter keeps its files (XDG base directories), written once for the client database,
/// the server database and the stored account.
enum Paths {
    /// `$XDG_DATA_HOME/spotter`, or `~/.local/share/spotter`.
    static var dataDirectory: String { directory(for: "XDG_DATA_HOME", default: ".local/share") }

    /// `$XDG_CONFIG_HOME/spotter`, or `~/.config/spotter`.
    static var configDirectory: String { directory(for: "XDG_CONFIG_HOME", default: ".config") }

    private static func directory(for variable: String, default relative: String) -> String {
        let base =
            ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(relative)
        return (base as NSString).appendingPathComponent("spotter")
    }
}

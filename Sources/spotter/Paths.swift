import Foundation

/// Where spotter keeps its files (XDG base directories), written once for the client database,
/// the server database and the stored account.
enum Paths {
    /// `$XDG_DATA_HOME/spotter`, or `~/.local/share/spotter`.
    static var dataDirectory: String { directory(for: "XDG_DATA_HOME", default: ".local/share") }

    /// `$XDG_CONFIG_HOME/spotter`, or `~/.config/spotter`.
    static var configDirectory: String { directory(for: "XDG_CONFIG_HOME", default: ".config") }

    private static func directory(for variable: String, default relative: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment[variable].flatMap { $0.isEmpty ? nil : $0 }
            ?? (home(environment) as NSString).appendingPathComponent(relative)
        return (base as NSString).appendingPathComponent("spotter")
    }

    /// `$HOME`, as the XDG directories are defined, else the account's home. (Foundation's
    /// `NSHomeDirectory()` here reads only the account: with `HOME` set elsewhere, or an account
    /// whose home is `/nonexistent`, files went where the user did not say.)
    private static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }
}

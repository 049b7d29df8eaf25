import Foundation
import SpotterCore

/// The account `spotter login` stored, in `$XDG_CONFIG_HOME/spotter/config.json`
/// (`~/.config/spotter/config.json`), readable by its owner only (mode 0600): it holds a token.
///
/// `{"server": "https://sync.example", "token": "…", "user": "alice"}` — the server normalised,
/// the user as the server named it (`GET /v1/me`) when the token was checked.
struct AccountConfig: Equatable {
    var server: String
    var token: String
    var user: String

    static var path: String {
        (Paths.configDirectory as NSString).appendingPathComponent("config.json")
    }

    /// The stored account, nil when nobody is logged in.
    static func load() throws -> AccountConfig? {
        let path = Self.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read \(path)")
        }
        guard let object = JSONValue.parse(data)?.objectValue,
            let server = object["server"]?.stringValue, let token = object["token"]?.stringValue,
            let user = object["user"]?.stringValue,
            let normalised = try? ServerURL.normalised(server)
        else {
            throw CLIError("\(path) is not a Spotter account file; run `spotter logout` or `spotter login` again")
        }
        return AccountConfig(server: normalised, token: token, user: user)
    }

    /// Writes the file atomically, created with mode 0600 before any byte of the token is in it.
    func save() throws {
        let path = Self.path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError("cannot create \(directory): \(error.localizedDescription)")
        }
        let text =
            JSONValue.object(["server": .string(server), "token": .string(token), "user": .string(user)])
            .canonicalString + "\n"
        let temporary = "\(path).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        // An existing file keeps its mode through O_TRUNC: make sure it is the owner's only.
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Forgets the stored account; false when there was none.
    static func remove() throws -> Bool {
        let path = Self.path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        guard unlink(path) == 0 else { throw CLIError("cannot remove \(path): \(String(cString: strerror(errno)))") }
        return true
    }
}

import Foundation

/// Who a queued operation waits for: the device's own data (the embedded server, or before any
/// account existed), a verified account, or a token the server has not yet been asked about.
///
/// An account is who the server says you are — the normalised server URL plus the user id
/// `GET /v1/me` returns — never the text of a URL or token, so a trailing slash or a new token
/// for the same user keeps the queue. Stored as the outbox's `user_id` and the entities' `account`.
public enum QueueOwner: Sendable, Hashable, CustomStringConvertible {
    /// Data of this device that no account has adopted yet (synced only with the embedded server).
    case device
    /// A verified account.
    case account(server: String, user: String)
    /// Queued with a server and token whose user is not known yet (offline when it was written).
    case unverified(server: String, tokenFingerprint: String)
    /// An owner written by an older version (a hash of a URL's text and a token).
    case legacy(String)

    /// The stored form of the device's own data (the value older databases already use).
    public static let deviceID = "local"

    /// Parses the stored form.
    public init(storedID: String) {
        if storedID == Self.deviceID {
            self = .device
        } else if storedID.hasPrefix("unverified|") {
            let parts = storedID.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            self =
                parts.count == 3
                ? .unverified(server: String(parts[1]), tokenFingerprint: String(parts[2])) : .legacy(storedID)
        } else if let bar = storedID.firstIndex(of: "|"), storedID.hasPrefix("http") {
            self = .account(
                server: String(storedID[..<bar]), user: String(storedID[storedID.index(after: bar)...]))
        } else {
            self = .legacy(storedID)
        }
    }

    /// The stored form: `local`, `SERVER|USER`, `unverified|SERVER|FINGERPRINT`.
    public var storedID: String {
        switch self {
        case .device: Self.deviceID
        case .account(let server, let user): "\(server)|\(user)"
        case .unverified(let server, let fingerprint): "unverified|\(server)|\(fingerprint)"
        case .legacy(let text): text
        }
    }

    /// The server this owner syncs with, nil for the device's own data.
    public var server: String? {
        switch self {
        case .account(let server, _), .unverified(let server, _): server
        case .device, .legacy: nil
        }
    }

    /// As the user reads it: "alice at https://sync.example", "this device only".
    public var description: String {
        switch self {
        case .device: "this device only"
        case .account(let server, let user): "\(user) at \(server)"
        case .unverified(let server, _): "an unverified token at \(server)"
        case .legacy(let text): "an account of an older version (\(text))"
        }
    }

    /// The owners versions before accounts wrote for a server and token: a hash of the URL's exact
    /// text (so every spelling a user may have typed: as given, normalised, with and without a
    /// trailing slash) and the token.
    public static func legacyIDs(rawServer: String, normalisedServer: String, token: String) -> [String] {
        let spellings = [
            rawServer, normalisedServer, normalisedServer + "/",
            rawServer.hasSuffix("/") ? String(rawServer.dropLast()) : rawServer + "/",
        ]
        return Set(spellings).sorted().map { "remote-" + ContentID.uuid("\($0)|\(token)").wireString.prefix(16) }
    }

    /// A token's fingerprint, so an unverified owner can be matched later without storing the token.
    public static func fingerprint(token: String) -> String {
        String(ContentID.uuid("spotter-token|\(token)").wireString.prefix(16))
    }
}

/// A server URL reduced to what names the server: scheme and host lower-cased, the default port
/// dropped, the path without a trailing slash, no query or fragment.
public enum ServerURL {
    /// Why a URL cannot name a sync server.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let text: String
        public var description: String { "'\(text)' is not a server URL (expected http://HOST[:PORT] or https://…)" }
    }

    public static func normalised(_ text: String) throws(Invalid) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { throw Invalid(text: text) }
        var result = "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)"
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            result += ":\(port)"
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        return result + path
    }
}

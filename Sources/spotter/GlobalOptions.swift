import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

/// Options every command takes: where the database is and which server to sync with. Accepted
/// before or after the subcommand (`Main` moves them after it, as git and kubectl users expect).
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Database file (env SPOTTER_DB; default $XDG_DATA_HOME/spotter/spotter.db).")
    var db: String?

    @Option(
        name: .long,
        help: "Sync server URL (env SPOTTER_SERVER; else the account of `spotter login`; else an embedded server).")
    var server: String?

    @Option(name: .long, help: "Bearer token for --server (env SPOTTER_TOKEN).")
    var token: String?

    /// The options that take a value and may come before the subcommand.
    static let optionNames: Set<String> = ["--db", "--server", "--token"]

    var databasePath: String {
        if let db { return db }
        if let path = ProcessInfo.processInfo.environment["SPOTTER_DB"], !path.isEmpty { return path }
        return (Paths.dataDirectory as NSString).appendingPathComponent("spotter.db")
    }

    /// Where a setting came from (flag > environment > config file > embedded).
    enum Source: String {
        case flag, environment, config = "config file", embedded
    }

    /// The server and token this run syncs with, after precedence.
    struct Target {
        /// Normalised; nil: the embedded server.
        var server: String?
        /// As typed (flag or environment), for recognising queues of older versions.
        var rawServer: String?
        var token: String?
        var source: Source
        /// The stored account, when the server is its server.
        var config: AccountConfig?

        var tokenFingerprint: String? { token.map(QueueOwner.fingerprint(token:)) }
    }

    private static func environment(_ name: String) -> String? {
        let value = ProcessInfo.processInfo.environment[name]
        return value?.isEmpty == false ? value : nil
    }

    /// Only the flag or the environment (what `login` checks and stores).
    var explicitServer: String? { server ?? Self.environment("SPOTTER_SERVER") }
    var explicitToken: String? { token ?? Self.environment("SPOTTER_TOKEN") }

    /// Resolves precedence. The stored token is only ever sent to the stored server: a `--server`
    /// naming another one never receives it.
    func target() throws -> Target {
        let config = try AccountConfig.load()
        let source: Source
        let raw: String?
        if let server {
            (source, raw) = (.flag, server)
        } else if let server = Self.environment("SPOTTER_SERVER") {
            (source, raw) = (.environment, server)
        } else if let config {
            (source, raw) = (.config, config.server)
        } else {
            (source, raw) = (.embedded, nil)
        }
        guard let raw else { return Target(server: nil, rawServer: nil, token: nil, source: .embedded) }
        let normalised: String
        do {
            normalised = try ServerURL.normalised(raw)
        } catch {
            throw CLIError(error.description, code: 2)
        }
        let storedAccount = config?.server == normalised ? config : nil
        let token = explicitToken ?? storedAccount?.token
        return Target(server: normalised, rawServer: raw, token: token, source: source, config: storedAccount)
    }

    /// Who this run's writes are queued for: the stored account, a token the server already
    /// named, or — not yet asked (offline) — the token's fingerprint until a sync asks the server.
    func owner(of target: Target, store: SpotterStore) throws -> QueueOwner {
        guard let server = target.server else { return .device }
        let token = target.token ?? ""
        if let config = target.config, config.token == token { return .account(server: server, user: config.user) }
        let fingerprint = QueueOwner.fingerprint(token: token)
        if let user = try store.accounts.knownUser(server: server, fingerprint: fingerprint) {
            return .account(server: server, user: user)
        }
        return .unverified(server: server, tokenFingerprint: fingerprint)
    }

    /// Owners an older version wrote for this server and token (a hash of the URL's exact text).
    func legacyOwners(of target: Target) -> [String] {
        guard let raw = target.rawServer, let server = target.server else { return [] }
        return QueueOwner.legacyIDs(rawServer: raw, normalisedServer: server, token: target.token ?? "")
    }

    /// Opens the database for the current account; commands that only read pass `readOnly`, so a
    /// read-only file can still be listed and exported.
    func openStore(readOnly: Bool = false) throws -> SpotterStore {
        let target = try target()
        let base: SpotterStore
        do {
            base = try SpotterStore.open(path: databasePath, userID: QueueOwner.deviceID, readOnly: readOnly)
        } catch let error as StoreError {
            throw error
        } catch {
            throw CLIError("cannot open database \(databasePath): \(StoreError.oneLine(error))")
        }
        let owner = try owner(of: target, store: base)
        let store = base.forUser(owner.storedID)
        // What this account will adopt on its next sync (its token before the server named the
        // user, refused tokens of this server, an older version's owners) is on this device:
        // listings show it, marked, instead of hiding it until then.
        guard case .account(let server, _) = owner else { return store }
        let fingerprint = QueueOwner.fingerprint(token: target.token ?? "")
        let waiting =
            [QueueOwner.unverified(server: server, tokenFingerprint: fingerprint).storedID]
            + ((try? store.accounts.refusedTokenOwners(server: server)) ?? []) + legacyOwners(of: target)
        return store.listing(waitingFor: waiting)
    }
}

/// How the header and `whoami` name an owner briefly: "alice@sync.example:8443".
func shortAccountLabel(_ owner: QueueOwner) -> String {
    func host(_ server: String) -> String {
        server.replacingOccurrences(of: "https://", with: "").replacingOccurrences(of: "http://", with: "")
    }
    switch owner {
    case .device: return "this device only"
    case .account(let server, let user): return "\(user)@\(host(server))"
    case .unverified(let server, _): return "unverified@\(host(server))"
    case .legacy: return owner.description
    }
}

/// The command that sends what waits for `owner`.
func resolveHint(for owner: QueueOwner) -> String {
    switch owner {
    case .device: "spotter login --server URL --token TOKEN adopts them into your account"
    case .account(let server, let user): "spotter login --server \(server) --token TOKEN (as \(user)) sends them"
    case .unverified(let server, _):
        "spotter sync --server \(server) --token TOKEN with the token they were logged with sends them"
    case .legacy: "spotter sync --server URL --token TOKEN with the server and token they were logged with"
    }
}

import Crypto
import Foundation
import GRDB
import Logging
import PostgresNIO
import Synchronization

/// An account the server runs (`spotter serve users …`): its name, when it was made and when its
/// token was last used. Its token is never stored, only the token's SHA-256.
public struct ServerAccount: Sendable, Equatable {
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?
}

/// The accounts a server store keeps (SQLite and PostgreSQL alike), by the hash of their token.
public protocol ServerAccounts: Sendable {
    /// Adds `name` with its token's hash; false when the name is taken.
    func addAccount(_ name: String, tokenHash: String, at date: Date) async throws -> Bool
    /// Gives `name` a new token; false when there is no such account.
    func replaceAccountToken(_ name: String, tokenHash: String) async throws -> Bool
    /// Removes `name`, whose token stops working; false when there is no such account.
    func removeAccount(_ name: String) async throws -> Bool
    /// Every account, by name.
    func listAccounts() async throws -> [ServerAccount]
    /// The account whose token has this hash.
    func account(tokenHash: String) async throws -> String?
    /// Notes that `name`'s token was used at `date`.
    func noteAccountUsed(_ name: String, at date: Date) async throws
}

public enum AccountToken {
    /// A new token: 256 random bits, base64url without padding (43 characters).
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether `token` has the shape of a made token (43 base64url characters): anything else
    /// is no account's, and is refused without asking the database.
    public static func mayBeMade(_ token: String) -> Bool {
        token.utf8.count == 43
            && token.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// What is stored of a token: its SHA-256, in hex. A token is 256 random bits, so a plain hash
    /// is enough: there is nothing to guess that a slow hash would protect.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension SQLiteServerStore: ServerAccounts {
    public func addAccount(_ name: String, tokenHash: String, at date: Date) async throws -> Bool {
        try await groupCommit.write { db in
            try db.execute(
                sql:
                    "INSERT INTO accounts (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, tokenHash, date.timeIntervalSince1970])
            return db.changesCount == 1
        }
    }

    public func replaceAccountToken(_ name: String, tokenHash: String) async throws -> Bool {
        try await groupCommit.write { db in
            try db.execute(sql: "UPDATE accounts SET token_hash = ? WHERE name = ?", arguments: [tokenHash, name])
            return db.changesCount == 1
        }
    }

    public func removeAccount(_ name: String) async throws -> Bool {
        try await groupCommit.write { db in
            try db.execute(sql: "DELETE FROM accounts WHERE name = ?", arguments: [name])
            return db.changesCount == 1
        }
    }

    public func listAccounts() async throws -> [ServerAccount] {
        try await dbWriter.read { db in
            try Row.fetchAll(db, sql: "SELECT name, created_at, last_used_at FROM accounts ORDER BY name").map { row in
                ServerAccount(
                    name: row[0], createdAt: Date(timeIntervalSince1970: row[1]),
                    lastUsedAt: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func account(tokenHash: String) async throws -> String? {
        try await dbWriter.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM accounts WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    public func noteAccountUsed(_ name: String, at date: Date) async throws {
        try await groupCommit.write { db in
            try db.execute(
                sql: "UPDATE accounts SET last_used_at = ? WHERE name = ?",
                arguments: [date.timeIntervalSince1970, name])
        }
    }
}

extension PostgresServerStore: ServerAccounts {
    public func addAccount(_ name: String, tokenHash: String, at date: Date) async throws -> Bool {
        try await withSession { session in
            try await session.execute(
                """
                INSERT INTO accounts (name, token_hash, created_at) VALUES (\(name), \(tokenHash), \(date.timeIntervalSince1970))
                ON CONFLICT (name) DO NOTHING
                """) == 1
        }
    }

    public func replaceAccountToken(_ name: String, tokenHash: String) async throws -> Bool {
        try await withSession { session in
            try await session.execute("UPDATE accounts SET token_hash = \(tokenHash) WHERE name = \(name)") == 1
        }
    }

    public func removeAccount(_ name: String) async throws -> Bool {
        try await withSession { session in try await session.execute("DELETE FROM accounts WHERE name = \(name)") == 1 }
    }

    public func listAccounts() async throws -> [ServerAccount] {
        try await withSession { session in
            try await session.query("SELECT name, created_at, last_used_at FROM accounts ORDER BY name").rows.map {
                row in
                let (name, created, used) = try row.decode((String, Double, Double?).self)
                return ServerAccount(
                    name: name, createdAt: Date(timeIntervalSince1970: created),
                    lastUsedAt: used.map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func account(tokenHash: String) async throws -> String? {
        try await withSession { session in
            try await session.query("SELECT name FROM accounts WHERE token_hash = \(tokenHash)").rows.first.map {
                try $0.decode(String.self)
            }
        }
    }

    public func noteAccountUsed(_ name: String, at date: Date) async throws {
        _ = try await withSession { session in
            try await session.execute(
                "UPDATE accounts SET last_used_at = \(date.timeIntervalSince1970) WHERE name = \(name)")
        }
    }
}

/// Who a bearer token belongs to: the tokens given at start (`--token`, `--tokens-file`,
/// `SPOTTER_TOKENS`) first, then the store's accounts. An account's answer is kept for at most a
/// second, so a revoked or rotated token stops working on every instance within a second of
/// `spotter serve users revoke`; its last use is written at most once a minute per instance.
final class TokenDirectory: Sendable {
    static let answerLifetime: Duration = .seconds(1)
    static let lastUseInterval: TimeInterval = 60
    /// The most answers kept; past it they are all forgotten (a flood of made-up tokens).
    static let maxRemembered = 10_000

    private let tokens: [String: String]
    private let accounts: (any ServerAccounts)?
    private let logger: Logger
    private struct Remembered {
        let user: String?
        let until: ContinuousClock.Instant
    }
    private let answers = Mutex<[String: Remembered]>([:])
    private let lastNoted = Mutex<[String: Date]>([:])

    init(tokens: [String: String], accounts: (any ServerAccounts)?, logger: Logger) {
        self.tokens = tokens
        self.accounts = accounts
        self.logger = logger
    }

    /// The user of `token`, or nil. Throws `ServerStoreUnavailable` when the store cannot say.
    func user(of token: String) async throws -> String? {
        if let user = tokens[token] { return user }
        guard let accounts, AccountToken.mayBeMade(token) else { return nil }
        let hash = AccountToken.hash(token)
        let now = ContinuousClock.now
        if let remembered = answers.withLock({ $0[hash] }), remembered.until > now { return remembered.user }
        let user: String?
        do { user = try await accounts.account(tokenHash: hash) } catch let error as ServerStoreUnavailable {
            throw error
        } catch {
            throw ServerStoreUnavailable("could not read the accounts: \(error)")
        }
        answers.withLock { answers in
            // Past the bound, the answers out of date go first; only a flood of made-up tokens
            // within one second empties it.
            if answers.count >= Self.maxRemembered { answers = answers.filter { $0.value.until > now } }
            if answers.count >= Self.maxRemembered { answers.removeAll() }
            answers[hash] = Remembered(user: user, until: now + Self.answerLifetime)
        }
        if let user { noteUse(user, accounts: accounts) }
        return user
    }

    private func noteUse(_ user: String, accounts: any ServerAccounts) {
        let date = Date()
        let due = lastNoted.withLock { noted in
            guard date.timeIntervalSince(noted[user] ?? .distantPast) >= Self.lastUseInterval else { return false }
            noted[user] = date
            return true
        }
        guard due else { return }
        let logger = logger
        Task {
            do { try await accounts.noteAccountUsed(user, at: date) } catch {
                logger.notice("could not note an account's last use", metadata: ["error": "\(error)"])
            }
        }
    }
}

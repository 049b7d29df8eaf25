import ArgumentParser
import Foundation
import Logging
import SpotterCore
import SpotterServer

/// `spotter serve users`: the accounts a server keeps in its database. A token is printed once,
/// when it is made; the database holds only its SHA-256, so a lost token is rotated, not read back.
struct ServeUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add, list, revoke or rotate the accounts of the server's database.",
        discussion: """
            Give the server's database as `spotter serve` takes it: --db FILE, or --database-url / \
            --database-url-file with the password from PGPASSWORD or a passfile. A change is seen by \
            every running instance within a second.
            """,
        subcommands: [Add.self, List.self, Revoke.self, Rotate.self])

    /// A name the server can keep, in one spelling: composed (NFC, so "é" typed as e and U+0301
    /// is the same account as "é"), without spaces around it; printable, without control,
    /// direction or line-separating characters, not starting with a mark, and not only blank or
    /// invisible characters. `--token`, `--tokens-file` and `SPOTTER_TOKENS` names pass here too.
    static func checkedName(_ raw: String) throws -> String {
        let name = spelling(raw)
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw ValidationError("a user name has 1 to 200 bytes, not counting spaces around it")
        }
        let refused: [Unicode.GeneralCategory] = [
            .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse,
        ]
        guard
            !name.unicodeScalars.contains(where: {
                refused.contains($0.properties.generalCategory) || $0.properties.isNoncharacterCodePoint
            })
        else { throw ValidationError("a user name must not hold control, direction or line-separating characters") }
        let marks: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
        guard let first = name.unicodeScalars.first, !marks.contains(first.properties.generalCategory),
            Validation.shows(name)
        else { throw ValidationError("a user name must start with a letter, digit or sign that shows") }
        return name
    }

    /// The name as `checkedName` keeps it, for comparing names however they were stored.
    static func spelling(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The stored name `typed` means: the account of exactly that name, else the one whose name is
    /// the same spelled as `checkedName` keeps names. An older build stored names as typed
    /// ("legacy ", a decomposed "é"): `list` shows them, and each can still be revoked or rotated.
    static func storedName(_ typed: String, in store: any ServerAccounts) async throws -> String? {
        let names = try await store.listAccounts().map(\.name)
        // Byte for byte first (Swift's == takes "é" and "e" + U+0301 as one; the database does not).
        if let exact = names.first(where: { $0.utf8.elementsEqual(typed.utf8) }) { return exact }
        return names.first { spelling($0) == spelling(typed) }
    }

    /// One line on stderr, exit 1.
    static func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("spotter serve users: \(message)\n".utf8))
        return ExitCode.failure
    }

    /// - Parameter creating: whether a SQLite file that is not there yet is made (`add`); `list`,
    ///   `revoke` and `rotate` name a file that must exist (a typo must not make an empty one).
    static func withAccounts<T>(
        _ database: ServerDatabaseOptions, creating: Bool = false,
        _ body: (any ServerStore & ServerAccounts) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "spotter.serve.users")
        logger.logLevel = .error
        if !creating, try database.resolvedDatabaseURL() == nil {
            let path = try database.resolvedDatabasePath()
            guard FileManager.default.fileExists(atPath: path) else {
                throw fail(
                    "no server database at \(DisplayText.replacingControls(path)) (`spotter serve users add NAME"
                        + " --db FILE` makes one)")
            }
        }
        let store: any ServerStore & ServerAccounts
        do { store = try await database.openAccounts(logger: logger) } catch {
            throw fail("cannot open the server's database: \(ServerStartError.oneLine(error))")
        }
        do {
            let result = try await body(store)
            try? await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an account and print its new token (once: only its hash is kept).")
        @OptionGroup var database: ServerDatabaseOptions
        @Argument(help: "The account's user name.") var name: String

        func run() async throws {
            let name = try ServeUsers.checkedName(name)
            let token = AccountToken.make()
            let added = try await ServeUsers.withAccounts(database, creating: true) { store in
                // A name an older build stored with spaces or decomposed is this one too.
                guard try await ServeUsers.storedName(name, in: store) == nil else { return false }
                return try await store.addAccount(name, tokenHash: AccountToken.hash(token), at: Date())
            }
            guard added else { throw ServeUsers.fail("\(name) exists already; rotate its token instead") }
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the accounts: name, when made, when last used (never their tokens).")
        @OptionGroup var database: ServerDatabaseOptions
        @Flag(help: "One JSON document on stdout.") var json = false

        func run() async throws {
            let accounts = try await ServeUsers.withAccounts(database) { try await $0.listAccounts() }
            if json {
                let list = JSONValue.array(
                    accounts.map { account in
                        .object([
                            "name": .string(account.name), "created_at": .string(Timestamp.format(account.createdAt)),
                            "last_used_at": account.lastUsedAt.map { .string(Timestamp.format($0)) } ?? .null,
                        ])
                    })
                print(list.canonicalString)
                return
            }
            guard !accounts.isEmpty else {
                print("no accounts (spotter serve users add NAME makes one)")
                return
            }
            for account in accounts {
                let used = account.lastUsedAt.map { "last used \(Timestamp.format($0))" } ?? "never used"
                print(
                    "\(DisplayText.replacingControls(account.name))  made \(Timestamp.format(account.createdAt))  \(used)"
                )
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Remove an account: its token stops working on every instance within a second. Its data stays on the server; adding the name again gives it back."
        )
        @OptionGroup var database: ServerDatabaseOptions
        @Argument(help: "The account's user name.") var name: String

        func run() async throws {
            let removed = try await ServeUsers.withAccounts(database) { store in
                guard let stored = try await ServeUsers.storedName(name, in: store) else { return false }
                return try await store.removeAccount(stored)
            }
            guard removed else { throw ServeUsers.fail("no account \(DisplayText.replacingControls(name))") }
            print("revoked \(DisplayText.replacingControls(name))")
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an account a new token and print it; the old one stops working within a second.")
        @OptionGroup var database: ServerDatabaseOptions
        @Argument(help: "The account's user name.") var name: String

        func run() async throws {
            let token = AccountToken.make()
            let replaced = try await ServeUsers.withAccounts(database) { store in
                guard let stored = try await ServeUsers.storedName(name, in: store) else { return false }
                return try await store.replaceAccountToken(stored, tokenHash: AccountToken.hash(token))
            }
            guard replaced else { throw ServeUsers.fail("no account \(DisplayText.replacingControls(name))") }
            print(token)
        }
    }
}

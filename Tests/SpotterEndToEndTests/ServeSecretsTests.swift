import AsyncHTTPClient
import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

/// Tokens and the database password reach `spotter serve` without appearing on its command line:
/// from a file only its owner may read, or the environment; every mistake is named by where it
/// is, never by the secret.
@Suite(
    "spotter serve keeps its secrets out of ps",
    .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct ServeSecretsTests {
    private func status(_ server: ServerProcess, token: String) async throws -> UInt {
        var request = HTTPClientRequest(url: server.url + "/v1/workouts")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    /// The command line `ps` shows for a process.
    private func commandLine(_ server: ServerProcess) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.process.processIdentifier)/cmdline"))
        return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func tokensFromAFileOrTheEnvironmentNeverShowInPs() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let file = directory.appendingPathComponent("tokens").path
        let aliceSecret = "file-secret-\(UUID().uuidString)"
        let bobSecret = "env-secret-\(UUID().uuidString)"
        let carolSecret = "crlf-secret-\(UUID().uuidString)"
        // Lines may end in CRLF (a file written on Windows).
        let tokens = "# the gym's accounts\n\nalice=\(aliceSecret)\r\ncarol=\(carolSecret)\r\n"

        // A file others may read is refused, and says how to mend it.
        try write(tokens, to: file, mode: 0o644)
        let open = try await SpotterBinary.run(
            ["serve", "--port", "0", "--db", serverDB, "--tokens-file", file], db: serverDB)
        #expect(open.status != 0)
        #expect(open.stderr.contains("chmod 600"), "\(open.stderr)")
        #expect(!open.stderr.contains(aliceSecret))

        try write(tokens, to: file, mode: 0o600)
        let server = try await offThePool {
            try ServerProcess(
                db: serverDB, extra: ["--tokens-file", file], tokens: [],
                environment: ["SPOTTER_TOKENS": "bob=\(bobSecret)"])
        }
        defer { server.stop() }
        #expect(try await status(server, token: aliceSecret) == 200, "alice, from the file")
        #expect(try await status(server, token: carolSecret) == 200, "carol, from a CRLF line")
        #expect(try await status(server, token: bobSecret) == 200, "bob, from the environment")
        #expect(try await status(server, token: "not-a-token") == 401)
        let shown = try commandLine(server)
        #expect(shown.contains("--tokens-file"))
        #expect(!shown.contains(aliceSecret) && !shown.contains(bobSecret), "ps shows no token: \(shown)")
    }

    @Test func aBadTokenIsNamedByWhereItIsNeverByItsSecret() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let file = directory.appendingPathComponent("tokens").path
        let secret = "secret-\(UUID().uuidString)"
        try write("alice=ok-\(UUID().uuidString)\n\(secret)\n", to: file, mode: 0o600)
        let missingUser = try await SpotterBinary.run(
            ["serve", "--port", "0", "--db", serverDB, "--tokens-file", file], db: serverDB)
        #expect(missingUser.status != 0)
        #expect(missingUser.stderr.contains("\(file) line 2"), "\(missingUser.stderr)")
        #expect(!missingUser.stderr.contains(secret))

        // Hostile text in a secret (it travels in an HTTP header): an escape sequence, a bidi
        // override, a NUL, an emoji with its modifier, a combining mark. And in a user name.
        for hostile in [
            "alice=se\u{1B}[2Jcret", "alice=\u{202E}terces", "alice=\u{0}x", "alice=💪🏽-secret", "alice=e\u{301}",
            "al\u{202E}ice=secret", "al\u{1B}ice=secret",
        ] {
            let refused = try await SpotterBinary.run(
                ["serve", "--port", "0", "--db", serverDB, "--token", hostile], db: serverDB, timeout: 20)
            #expect(refused.status != 0, "\(hostile.debugDescription)")
            #expect(refused.stderr.contains("--token: a "), "\(refused.stderr)")
            #expect(!refused.stderr.contains("\u{1B}") && !refused.stderr.contains("\u{202E}"))
        }
        // A user name may be any text a person has.
        let zoe = try await offThePool { try ServerProcess(db: serverDB, tokens: ["Zoë 💪🏽 e\u{301}=plain-secret"]) }
        defer { zoe.stop() }
        #expect(try await status(zoe, token: "plain-secret") == 200)

        // (Another file: one `spotter serve` a SQLite file, and zoe's serves this one.)
        let emptyDB = directory.appendingPathComponent("empty.db").path
        let none = try await SpotterBinary.run(["serve", "--port", "0", "--db", emptyDB], db: emptyDB)
        #expect(none.status != 0)
        #expect(none.stderr.contains("--tokens-file or SPOTTER_TOKENS"))
    }

    @Test func theDatabaseURLFromAFileIsRefusedWhenOthersMayReadIt() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let file = directory.appendingPathComponent("database-url").path
        try write("postgres://spotter:hunter2@127.0.0.1:1/spotter\n", to: file, mode: 0o640)
        let serve = ["serve", "--port", "0", "--token", "alice=s", "--database-url-file", file]
        let open = try await SpotterBinary.run(serve, db: file)
        #expect(open.status != 0)
        #expect(open.stderr.contains("chmod 600") && !open.stderr.contains("hunter2"), "\(open.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        // Read now: nothing listens on port 1, so the start fails saying where, without the password.
        let read = try await SpotterBinary.run(serve, db: file, timeout: 30)
        #expect(read.status == 1)
        #expect(read.stderr.contains("postgres://spotter@127.0.0.1:1/spotter"), "\(read.stderr)")
        #expect(!read.stderr.contains("hunter2"))
        // A passfile others may read is refused rather than silently skipped.
        let passfile = directory.appendingPathComponent("pgpass").path
        try write("127.0.0.1:1:spotter:spotter:hunter3\n", to: passfile, mode: 0o644)
        let loose = try await SpotterBinary.run(
            ["serve", "--port", "0", "--token", "alice=s", "--database-url", "postgres://spotter@127.0.0.1:1/spotter"],
            db: file, environment: ["PGPASSFILE": passfile])
        #expect(loose.status != 0)
        #expect(loose.stderr.contains("chmod 600") && !loose.stderr.contains("hunter3"), "\(loose.stderr)")
    }

    /// Six processes made the same new server file at once: their migrations raced ("table
    /// workouts already exists", "UNIQUE constraint failed: grdb_migrations.identifier").
    @Test func accountsAddedAtOnceOnANewFileAllLand() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("race.db").path
        let names = (1...6).map { "lifter \($0)" }
        let results = try await withThrowingTaskGroup(of: SpotterBinary.Result.self) { group in
            for name in names {
                group.addTask {
                    try await SpotterBinary.run(["serve", "users", "add", name, "--db", serverDB], db: serverDB)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let list = try await SpotterBinary.run(["serve", "users", "list", "--db", serverDB], db: serverDB)
        for name in names { #expect(list.stdout.contains(name), "\(list.stdout)") }
    }

    /// Names that look the same are one account; names that show nothing are none; a tokens
    /// file that gives a name twice is refused, naming both lines and neither secret.
    @Test func oneSpellingPerNameAndOneTokenPerName() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("names.db").path
        func users(_ arguments: [String]) async throws -> SpotterBinary.Result {
            try await SpotterBinary.run(["serve", "users"] + arguments + ["--db", serverDB], db: serverDB)
        }
        #expect(try await users(["add", "\u{e9}lodie"]).status == 0)
        let decomposed = try await users(["add", "e\u{301}lodie"])
        #expect(decomposed.status != 0 && decomposed.stderr.contains("exists already"), "\(decomposed.stderr)")
        #expect(try await users(["add", "alice"]).status == 0)
        for same in ["alice ", "  alice", "alice\u{a0}"] {
            #expect(try await users(["add", same]).status != 0, "\(same.debugDescription) is alice")
        }
        for invisible in [" ", "\u{3000}", "\u{301}", "\u{301}x", "a\u{2029}b", "a\u{2028}b", "\u{ffff}", "\u{200b}"] {
            let refused = try await users(["add", invisible])
            #expect(refused.status != 0, "\(invisible.unicodeScalars.map(\.value)) was taken")
        }
        let list = try await users(["list"])
        #expect(list.stdout.split(separator: "\n").count == 2, "two accounts: \(list.stdout)")
        // A mistyped file is named, never made; a device's database is one line, not its schema.
        let typo = directory.appendingPathComponent("nmaes.db").path
        let missing = try await SpotterBinary.run(["serve", "users", "list", "--db", typo], db: typo)
        #expect(missing.status != 0 && missing.stderr.contains("no server database at"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo))
        let device = SpotterBinary.temporaryDatabase()
        _ = try await SpotterBinary.run(["airplane", "on"], db: device)
        let wrong = try await SpotterBinary.run(["serve", "users", "add", "dana", "--db", device], db: device)
        #expect(wrong.status != 0 && wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        let served = try await SpotterBinary.run(
            ["serve", "--port", "0", "--db", device, "--token", "dana=dana-secret-1"], db: device)
        #expect(served.status != 0 && served.stderr.split(separator: "\n").count == 1, "\(served.stderr)")
        // Revoked by either spelling.
        #expect(try await users(["revoke", "e\u{301}lodie"]).status == 0)
        // Names an older build stored as typed (a trailing space, decomposed) are still reached.
        #expect(try await users(["add", "legacy"]).status == 0)
        #expect(try await users(["add", "trail"]).status == 0)
        let queue = try DatabaseQueue(path: serverDB)
        try await queue.write { db in
            try db.execute(sql: "UPDATE accounts SET name = 'legacy ' WHERE name = 'legacy'")
            try db.execute(sql: "UPDATE accounts SET name = 'trail ' WHERE name = 'trail'")
        }
        try queue.close()
        #expect(try await users(["add", "trail"]).status != 0, "the stored 'trail ' is this name")
        #expect(try await users(["rotate", "trail"]).status == 0)
        let revoked = try await users(["revoke", "legacy "])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try await users(["revoke", "trail"]).status == 0)

        let file = directory.appendingPathComponent("twice").path
        try write("alice=first-secret-1\nbob=bob-secret-12\nalice =second-secret-2\n", to: file, mode: 0o600)
        let twice = try await SpotterBinary.run(
            ["serve", "--port", "0", "--db", serverDB, "--tokens-file", file], db: serverDB)
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("line 3") && twice.stderr.contains("line 1"), "\(twice.stderr)")
        #expect(!twice.stderr.contains("first-secret") && !twice.stderr.contains("second-secret"))
    }

    @Test func accountsAddedRotatedAndRevokedOnTheCommandLine() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        func users(_ arguments: [String]) async throws -> SpotterBinary.Result {
            try await SpotterBinary.run(["serve", "users"] + arguments + ["--db", serverDB], db: serverDB)
        }
        // No account and no token: the server says how to make one instead of starting deaf.
        let deaf = try await SpotterBinary.run(["serve", "--port", "0", "--db", serverDB], db: serverDB)
        #expect(deaf.status != 0 && deaf.stderr.contains("spotter serve users add NAME"), "\(deaf.stderr)")

        let name = "Zoë 💪🏽 e\u{301}"
        let added = try await users(["add", name])
        #expect(added.status == 0, "\(added.stderr)")
        let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.utf8.count == 43, "a 256-bit token, printed once: \(token)")
        #expect(try await users(["add", name]).status != 0, "a name is added once")
        for hostile in ["a\u{1B}[2Jb", "\u{202E}evil", ""] {
            let refused = try await users(["add", hostile])
            #expect(refused.status != 0, "\(hostile.debugDescription)")
            #expect(!refused.stderr.contains("\u{1B}") && !refused.stderr.contains("\u{202E}"))
        }

        // The server starts on its accounts alone.
        let server = try await offThePool {
            try ServerProcess(db: serverDB, extra: ["--log-level", "info"], tokens: [])
        }
        #expect(try await status(server, token: token) == 200)
        let rotated = try await users(["rotate", name])
        let newToken = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rotated.status == 0 && newToken.utf8.count == 43 && newToken != token)
        var refusedOld = false
        for _ in 0..<60 where !refusedOld {
            refusedOld = try await status(server, token: token) == 401
            if !refusedOld { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refusedOld, "the old token stops working")
        #expect(try await status(server, token: newToken) == 200)

        let listed = try await users(["list", "--json"])
        #expect(listed.status == 0)
        let accounts = JSONValue.parse(Data(listed.stdout.utf8))?.arrayValue ?? []
        #expect(accounts.count == 1 && accounts.first?["name"]?.stringValue == name)
        #expect(accounts.first?["last_used_at"]?.stringValue != nil, "its last use is listed")
        #expect(!listed.stdout.contains(token) && !listed.stdout.contains(newToken), "never a token")
        let plain = try await users(["list"])
        #expect(plain.stdout.contains(name) && plain.stdout.contains("last used"))

        #expect(try await users(["revoke", name]).status == 0)
        #expect(try await users(["revoke", name]).status != 0, "an unknown name is said")
        var refusedNew = false
        for _ in 0..<60 where !refusedNew {
            refusedNew = try await status(server, token: newToken) == 401
            if !refusedNew { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refusedNew, "a revoked account signs in no more")
        let shown = try commandLine(server)
        server.stop()
        #expect(!shown.contains(token) && !shown.contains(newToken))
        let database = (try? Data(contentsOf: URL(fileURLWithPath: serverDB))) ?? Data()
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: serverDB + "-wal"))) ?? Data()
        for bytes in [database, wal] {
            #expect(bytes.range(of: Data(token.utf8)) == nil && bytes.range(of: Data(newToken.utf8)) == nil)
        }
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The accounts a server keeps (`spotter serve users`): stored by the hash of their token, read by
/// the server for every token it was not given at start, and changed under running instances.
@Suite("Accounts kept by the server (SQLite and PostgreSQL)")
struct ServerAccountsTests {
    private func accounts(_ server: TestServer) throws -> any ServerAccounts {
        guard let accounts = server.store as? any ServerAccounts else { throw TestFailure("no accounts") }
        return accounts
    }

    /// Polls until `condition` holds (a bounded wait for something to happen, not a speed figure).
    private func eventually(_ seconds: Double = 5, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test(
        "add, sign in, last use, rotate, revoke; only the token's hash is stored", arguments: StoreBackend.available)
    func theLifeOfAnAccount(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let store = try accounts(server)
            let name = "Zoë 💪🏽 e\u{301} عربي"
            let token = AccountToken.make()
            #expect(token.utf8.count == 43 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(try await store.addAccount(name, tokenHash: AccountToken.hash(token), at: Date()))
            #expect(try await !store.addAccount(name, tokenHash: AccountToken.hash(AccountToken.make()), at: Date()))
            #expect(try await store.listAccounts().map(\.name) == [name])
            #expect(try await store.listAccounts().first?.lastUsedAt == nil)

            // The token signs in as the account, and its use is noted.
            let me = try await server.send(.GET, Route.me, token: token)
            #expect(me.status == 200 && me.json?["user"]?.stringValue == name)
            #expect(try await eventually { try await store.listAccounts().first?.lastUsedAt != nil })
            #expect(try await server.send(.GET, Route.workouts, token: token + "x").status == 401)

            // Nothing of the token itself is in the database.
            if backend == .sqlite {
                for file in [server.databasePath, server.databasePath + "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    #expect(bytes.range(of: Data(token.utf8)) == nil, "\(file) holds no token")
                }
            } else {
                let postgres = try #require(server.store as? PostgresServerStore)
                let rows = try await postgres.withSession { session in
                    try await session.query("SELECT name, token_hash FROM accounts").rows.map {
                        try $0.decode((String, String).self)
                    }
                }
                #expect(rows.count == 1 && rows[0].1 == AccountToken.hash(token) && rows[0].1 != token)
            }

            // Rotated: the old token stops, the new one works.
            let rotated = AccountToken.make()
            #expect(try await store.replaceAccountToken(name, tokenHash: AccountToken.hash(rotated)))
            #expect(try await eventually { try await server.send(.GET, Route.workouts, token: token).status == 401 })
            #expect(try await server.send(.GET, Route.workouts, token: rotated).status == 200)
            // Revoked: nothing works; an unknown name is said, not ignored.
            #expect(try await store.removeAccount(name))
            #expect(try await !store.removeAccount(name))
            #expect(try await !store.replaceAccountToken(name, tokenHash: AccountToken.hash(token)))
            #expect(try await eventually { try await server.send(.GET, Route.workouts, token: rotated).status == 401 })
            #expect(try await store.listAccounts().isEmpty)
            // The tokens given at start are untouched.
            #expect(try await server.send(.GET, Route.workouts).status == 200)
        }
    }

    @Test("a wait on the feed opened with a token revoked meanwhile never carries what was written after")
    func aRevokedTokensOpenWaitGetsNothingNew() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let store = try accounts(server)
            let old = AccountToken.make()
            #expect(try await store.addAccount("pat", tokenHash: AccountToken.hash(old), at: Date()))
            #expect(try await server.send(.GET, Route.me, token: old).status == 200)
            let wait = Task { try await server.send(.GET, Route.changes + "?since=0&wait=20", token: old) }
            try await Task.sleep(for: .milliseconds(300))  // the wait is open
            #expect(try await store.removeAccount("pat"))
            try await Task.sleep(for: .milliseconds(1_200))  // past the second a token's answer is kept
            let new = AccountToken.make()
            #expect(try await store.addAccount("pat", tokenHash: AccountToken.hash(new), at: Date()))
            let workout: JSONValue = .object([
                "id": .string(UUID().wireString), "name": .string("After revoke"),
                "started_at": .string(Fixtures.startedAt),
            ])
            #expect(
                try await server.send(.POST, Route.workouts, json: workout, key: UUID().uuidString, token: new).status
                    == 201)
            let answer = try await wait.value
            #expect(answer.status == 401, "the revoked token's wait: \(answer.status) \(answer.text)")
            #expect(!answer.text.contains("After revoke"))
            // A wait that runs out with nothing new after its token was revoked is 401 too.
            let quiet = AccountToken.make()
            #expect(try await store.addAccount("quiet", tokenHash: AccountToken.hash(quiet), at: Date()))
            #expect(try await server.send(.GET, Route.me, token: quiet).status == 200)
            let short = Task { try await server.send(.GET, Route.changes + "?since=0&wait=2", token: quiet) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await store.removeAccount("quiet"))
            #expect(try await short.value.status == 401)
        }
    }

    @Test("a revoked token is refused by another instance within a second", .postgresRequired)
    func revokedOnEveryInstance() async throws {
        let first = try await TestServer.start(.postgres)
        let second = try await TestServer.start(.postgres, in: first.directory)
        let token = AccountToken.make()
        let store = try accounts(first)
        let added = try await store.addAccount("carol", tokenHash: AccountToken.hash(token), at: Date())
        let before = try await second.send(.GET, Route.workouts, token: token).status
        let again = try await second.send(.GET, Route.workouts, token: token).status
        let removed = try await store.removeAccount("carol")
        let revoked = ContinuousClock.now
        let refused = await eventually(5) {
            (try? await second.send(.GET, Route.workouts, token: token).status) == 401
        }
        let took = ContinuousClock.now - revoked
        await second.stop(removingFiles: false)
        await first.stop()
        #expect(added && removed)
        #expect(before == 200 && again == 200, "the other instance signs the account in")
        #expect(refused, "and refuses it once revoked")
        // Bounded well above the second it takes, so a loaded machine does not fail it.
        #expect(took < .seconds(3), "refused within about a second (\(took))")
    }
}

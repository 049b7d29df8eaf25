import AsyncHTTPClient
import Foundation
import GRDB
import Testing

/// The account story of issue 9, with the real binary against a real `spotter serve` on loopback:
/// nothing logged is stranded, whatever order the user sets things up in.
@Suite("Accounts, from first launch to a real server", .enabled(if: SpotterBinary.exists, "build the binary first"))
struct AccountTests {
    static let aliceToken = "alice-secret"
    static let bobToken = "bob-secret"

    /// A server with alice and bob, in a directory of its own.
    static func startServer() async throws -> ServerProcess {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        return try await offThePool {
            try ServerProcess(db: serverDB, tokens: ["alice=\(Self.aliceToken)", "bob=\(Self.bobToken)"])
        }
    }

    /// The live sets the server holds for a token's user (`GET /v1/sets`).
    static func serverSetIDs(_ server: ServerProcess, token: String) async throws -> [String] {
        var request = HTTPClientRequest(url: server.url + "/v1/sets")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        #expect(response.status.code == 200)
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        let sets = (object as? [String: Any])?["sets"] as? [[String: Any]] ?? (object as? [[String: Any]]) ?? []
        return sets.filter { ($0["deleted"] as? Bool) != true }.compactMap { $0["id"] as? String }.sorted()
    }

    static func localSetIDs(db: String, _ extra: [String] = []) async throws -> [String] {
        let listed = try await SpotterBinary.run(["sets", "--json"] + extra, db: db)
        #expect(listed.status == 0, "sets --json: \(listed.stderr)")
        let sets = try SpotterBinary.json(listed.stdout)["sets"] as? [[String: Any]] ?? []
        return sets.compactMap { $0["id"] as? String }.sorted()
    }

    @discardableResult
    static func log(db: String, weight: String, _ extra: [String] = []) async throws -> String {
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Overhead Press (Barbell)", "--weight", weight, "--reps", "5"] + extra, db: db)
        #expect(logged.status == 0, "log: \(logged.stderr)")
        return logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func status(db: String) async throws -> [String: Any] {
        try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
    }

    static let strongCSV = """
        Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-03-02 18:00:00,Legs,Squat (Barbell),1,100,5,0,0,,,
        2026-03-02 18:00:00,Legs,Squat (Barbell),2,105,5,0,0,,,
        """

    static func writeImportFile(beside db: String) throws -> String {
        let path = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("strong.csv").path
        try strongCSV.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("sets logged with no account (embedded, airplane, an import) all reach the server after login; sync exits 0")
    func noAccountThenLoginSyncsEverything() async throws {
        let db = SpotterBinary.temporaryDatabase()
        // One set synced with the embedded server: a real server has never seen it.
        let embedded = try await Self.log(db: db, weight: "95")
        #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
        try await SpotterBinary.run(["airplane", "on"], db: db)
        var logged = [embedded]
        for weight in ["100", "102.5", "105"] { logged.append(try await Self.log(db: db, weight: weight)) }
        let file = try Self.writeImportFile(beside: db)
        let imported = try await SpotterBinary.run(["import", file], db: db)
        #expect(imported.stdout.contains("imported 2 sets"), "\(imported.stdout)\(imported.stderr)")
        let offline = try await SpotterBinary.run(["sync"], db: db)
        #expect(offline.status == 3, "airplane mode with sets queued is not 'all sent'")
        try await SpotterBinary.run(["airplane", "off"], db: db)
        let local = try await Self.localSetIDs(db: db)
        #expect(local.count == 6)

        let server = try await Self.startServer()
        defer { server.stop() }
        let login = try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.aliceToken], db: db)
        #expect(login.status == 0, "login: \(login.stderr)")
        #expect(login.stdout.contains("queued operations will sync to alice at \(server.url)"), "\(login.stdout)")

        let sync = try await SpotterBinary.run(["sync"], db: db)
        #expect(sync.status == 0, "sync: \(sync.stdout) \(sync.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == local, "exactly the sets on screen")
        #expect(Set(local).isSuperset(of: logged))
        let status = try await Self.status(db: db)
        #expect(status["pending"] as? Int == 0)
        #expect(status["stranded"] as? Int == 0)
        #expect((status["account"] as? [String: Any])?["user"] as? String == "alice")
        #expect(status["server"] as? String == server.url)

        // The file imported before the login, imported again after it: nothing doubles.
        let again = try await SpotterBinary.run(["import", file], db: db)
        #expect(again.stdout.contains("imported 0 sets"), "\(again.stdout)")
        #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == local)
    }

    @Test("a second database synced only with its embedded server is not called synced once the account file exists")
    func anotherDatabaseOfTheDeviceWaitsForItsLogin() async throws {
        let first = SpotterBinary.temporaryDatabase()
        // The same folder, so the same account file: the same person on the same machine.
        let second = URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("garage.db").path
        let embedded = try await Self.log(db: second, weight: "90")
        #expect(try await SpotterBinary.run(["star", "Deadlift (Barbell)"], db: second).status == 0)
        #expect(try await SpotterBinary.run(["sync"], db: second).status == 0, "synced with its embedded server")

        let server = try await Self.startServer()
        defer { server.stop() }
        let login = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", Self.aliceToken], db: first)
        #expect(login.status == 0, "login: \(login.stderr)")

        // The second database now runs as alice, but alice's server has never seen its set.
        let status = try await Self.status(db: second)
        #expect((status["account"] as? [String: Any])?["user"] as? String == "alice")
        #expect(status["stranded"] as? Int == 3, "its workout, its set and its star wait: \(status)")
        let waiting = (status["stranded_for"] as? [[String: Any]])?.first
        #expect((waiting?["resolve"] as? String)?.contains("spotter login") == true, "\(status)")
        let sync = try await SpotterBinary.run(["sync"], db: second)
        #expect(sync.status == 3, "not 'all sent' while the set is on no server of alice's: \(sync.stdout)")
        #expect(sync.stderr.contains("wait for this device only"), "\(sync.stderr)")
        #expect(try await Self.localSetIDs(db: second) == [embedded], "still listed, never hidden")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken).isEmpty)

        // Logging in from it adopts it, as the first login did for its own database.
        let adopt = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", Self.aliceToken], db: second)
        #expect(adopt.stdout.contains("3 queued operations will sync to alice"), "\(adopt.stdout)")
        let sent = try await SpotterBinary.run(["sync"], db: second)
        #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == [embedded])
        let stars = try await SpotterBinary.run(["stars"], db: second)
        #expect(stars.stdout.contains("Deadlift (Barbell)"), "the star went to alice and stays: \(stars.stdout)")
        #expect(try await Self.status(db: second)["stranded"] as? Int == 0)
    }

    @Test("alice and bob on one device: no mixing, bob's older sets pulled, alice's queue stranded then sent")
    func switchingAccountsNeverMixesOrStrands() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        // Bob's older sets, from another device.
        let bobsPhone = SpotterBinary.temporaryDatabase()
        let bobRemote = ["--server", server.url, "--token", Self.bobToken]
        let bobOld = [
            try await Self.log(db: bobsPhone, weight: "60", bobRemote),
            try await Self.log(db: bobsPhone, weight: "62.5", bobRemote),
        ].sorted()
        #expect(try await SpotterBinary.run(["sync"] + bobRemote, db: bobsPhone).status == 0)

        let db = SpotterBinary.temporaryDatabase()
        #expect(
            try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.aliceToken], db: db).status
                == 0)
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let alices = [try await Self.log(db: db, weight: "80"), try await Self.log(db: db, weight: "82.5")].sorted()
        let logout = try await SpotterBinary.run(["logout"], db: db)
        #expect(logout.stdout.contains("3 operations wait for alice"), "\(logout.stdout)")
        try await SpotterBinary.run(["airplane", "off"], db: db)

        let bobLogin = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", Self.bobToken], db: db)
        #expect(bobLogin.status == 0, "\(bobLogin.stderr)")
        #expect(bobLogin.stdout.contains("3 operations wait for alice at \(server.url)"), "\(bobLogin.stdout)")
        #expect(bobLogin.stdout.contains("run `spotter sync` to fetch bob's workouts"), "\(bobLogin.stdout)")
        let bobSync = try await SpotterBinary.run(["sync"], db: db)
        #expect(bobSync.status == 3, "alice's sets are unsent: \(bobSync.stdout)")
        #expect(bobSync.stderr.contains("3 wait for alice at \(server.url)"), "one line says why: \(bobSync.stderr)")
        #expect(bobSync.stderr.split(separator: "\n").count == 1)
        #expect(try await Self.localSetIDs(db: db) == bobOld, "bob sees his older sets and none of alice's")
        let listing = try await SpotterBinary.run(["sets"], db: db)
        #expect(listing.stderr.contains("3 operation(s) wait for alice"), "the list says what waits: \(listing.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.bobToken) == bobOld)
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken).isEmpty)
        let status = try await Self.status(db: db)
        #expect(status["stranded"] as? Int == 3)
        let stranded = try #require((status["stranded_for"] as? [[String: Any]])?.first)
        #expect((stranded["account"] as? [String: Any])?["user"] as? String == "alice")
        #expect((stranded["account"] as? [String: Any])?["server"] as? String == server.url)

        // Bob logs a set: his own workout, accepted by the server.
        let bobNew = try await Self.log(db: db, weight: "65")
        let afterLog = try await SpotterBinary.run(["sync"], db: db)
        #expect(afterLog.stdout.hasPrefix("pending 0, failed 0, blocked 0, stranded 3"), "\(afterLog.stdout)")
        #expect(try await Self.serverSetIDs(server, token: Self.bobToken) == (bobOld + [bobNew]).sorted())

        // Back to alice: her queue goes, and bob's data is not hers to see.
        #expect(
            try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.aliceToken], db: db).status
                == 0)
        let aliceSync = try await SpotterBinary.run(["sync"], db: db)
        #expect(aliceSync.status == 0, "\(aliceSync.stdout) \(aliceSync.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == alices)
        #expect(try await Self.localSetIDs(db: db) == alices)
    }

    @Test("a set queued with a trailing-slash URL, or under a mistyped token, syncs once the token is right")
    func trailingSlashAndCorrectedTokenKeepTheQueue() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let slashed = try await Self.log(
            db: db, weight: "70", ["--server", server.url + "/", "--token", Self.aliceToken])
        try await SpotterBinary.run(["airplane", "off"], db: db)
        // A typo: the server refuses the token (the eager sync asks), and the set waits.
        let typo = try await Self.log(db: db, weight: "72.5", ["--server", server.url, "--token", "alice-secrte"])
        // Refused again and again: each 401 backs the operation off further (past 5 s by the fourth).
        for _ in 0..<4 {
            let refused = try await SpotterBinary.run(
                ["sync", "--timeout", "2", "--server", server.url, "--token", "alice-secrte"], db: db)
            #expect(refused.status == 3)
        }

        // The corrected token is accepted: what the 401s held back goes at once, not after the backoff.
        let corrected = try await SpotterBinary.run(
            ["sync", "--timeout", "5", "--server", server.url, "--token", Self.aliceToken], db: db)
        #expect(corrected.status == 0, "\(corrected.stdout) \(corrected.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == [slashed, typo].sorted())
    }

    @Test("login writes a 0600 account file that a second process uses; flags and env win over it")
    func accountFileIsPrivateAndShared() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let db = SpotterBinary.temporaryDatabase()
        let file = SpotterBinary.configHome(for: db) + "/spotter/config.json"
        let refused = try await SpotterBinary.run(["login", "--server", server.url, "--token", "nope"], db: db)
        #expect(refused.status == 1 && refused.stderr.contains("refused the token"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file), "a refused token is not saved")
        // Nothing listens on port 1: said as the system says it, in one line without NIO's wording.
        let closed = try await SpotterBinary.run(["login", "--server", "http://127.0.0.1:1", "--token", "x"], db: db)
        #expect(closed.status == 1 && closed.stderr.contains("Connection refused"), "\(closed.stderr)")
        #expect(!closed.stderr.contains("errno") && !closed.stderr.contains("error set"), "\(closed.stderr)")

        #expect(
            try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.aliceToken], db: db).status
                == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let whoami = try await SpotterBinary.run(["whoami"], db: db)
        #expect(whoami.stdout.contains("alice at \(server.url)"), "\(whoami.stdout)")
        let id = try await Self.log(db: db, weight: "90")
        #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken) == [id])

        // The environment wins over the file, and the stored token never goes to another server.
        let elsewhere = try await SpotterBinary.run(
            ["whoami"], db: db, environment: ["SPOTTER_SERVER": "http://127.0.0.1:9"])
        #expect(elsewhere.stdout.contains("unverified token at http://127.0.0.1:9"), "\(elsewhere.stdout)")

        let logout = try await SpotterBinary.run(["logout"], db: db)
        #expect(logout.status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try await SpotterBinary.run(["whoami"], db: db).stdout.contains("this device only"))
    }

    @Test("sync with nothing to send but a refused token exits 3 and says nothing was received")
    func syncSaysSoWhenThePullIsRefused() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let alice = SpotterBinary.temporaryDatabase()
        let login = ["login", "--server", server.url, "--token", Self.aliceToken]
        #expect(try await SpotterBinary.run(login, db: alice).status == 0)
        try await Self.log(db: alice, weight: "100")
        #expect(try await SpotterBinary.run(["sync"], db: alice).status == 0)

        // A second device with a mistyped token: nothing of its own to send, and the server's
        // sets never arrive. "pending 0" alone would read as all done.
        let device = SpotterBinary.temporaryDatabase()
        let sync = try await SpotterBinary.run(
            ["sync", "--timeout", "5", "--server", server.url, "--token", "alice-secrte"], db: device)
        #expect(sync.status == 3, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stderr.contains("not all received") && sync.stderr.contains("refused the token"), "\(sync.stderr)")
        #expect(sync.stderr.split(separator: "\n").count == 1, "one line: \(sync.stderr)")
        // Status says so too, and no request the server refused counts as a sync.
        let flags = ["--server", server.url, "--token", "alice-secrte"]
        let status = try SpotterBinary.json(
            try await SpotterBinary.run(["status", "--json"] + flags, db: device).stdout)
        #expect(status["sign_in_needed"] as? Bool == true, "\(status)")
        #expect(status["last_sync_at"] == nil || status["last_sync_at"] is NSNull, "\(status)")
        let text = try await SpotterBinary.run(["status"] + flags, db: device)
        #expect(text.stdout.contains("sign-in    needed"), "\(text.stdout)")
        // The refusal is that account's: the device's own status (no --token) does not carry it.
        let own = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: device).stdout)
        #expect(own["sign_in_needed"] as? Bool == false, "\(own)")
    }

    @Test("sync exits 3 with one line when an operation failed permanently, not 0 as if all were sent")
    func syncSaysSoWhenSomethingFailed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let login = ["login", "--server", server.url, "--token", Self.aliceToken]
        let phone = SpotterBinary.temporaryDatabase()
        let laptop = SpotterBinary.temporaryDatabase()
        #expect(try await SpotterBinary.run(login, db: phone).status == 0)
        #expect(try await SpotterBinary.run(login, db: laptop).status == 0)
        try await Self.log(db: phone, weight: "100", ["--new-workout", "Push"])
        #expect(try await SpotterBinary.run(["sync"], db: phone).status == 0)
        #expect(try await SpotterBinary.run(["sync"], db: laptop).status == 0)
        let workouts = try SpotterBinary.json(try await SpotterBinary.run(["workouts", "--json"], db: laptop).stdout)
        let workoutID = try #require((workouts["workouts"] as? [[String: Any]])?.first?["id"] as? String)

        // An edit the server refuses for good: queued as an older version could have left it
        // (the client's own rules would refuse 5 000 reps before queuing it).
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: laptop).stdout)
        let setID = try #require((sets["sets"] as? [[String: Any]])?.first?["id"] as? String)
        _ = workoutID
        let queue = try DatabaseQueue(path: laptop)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox (op_id, user_id, entity_type, entity_id, kind, payload, idempotency_key, state,
                        attempt_count, created_at, updated_at)
                    SELECT ?, account, 'set', id, 'update', '{"reps":5000}', ?, 'pending', 0, 0, 0
                    FROM sets WHERE id = ?
                    """, arguments: [UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), setID])
        }
        try await queue.close()
        let sync = try await SpotterBinary.run(["sync"], db: laptop)
        #expect(sync.status == 3, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stdout.hasPrefix("pending 0, failed 1"), "\(sync.stdout)")
        #expect(sync.stderr.contains("1 failed permanently"), "\(sync.stderr)")
        #expect(sync.stderr.split(separator: "\n").count == 1, "one line: \(sync.stderr)")
        #expect(try await Self.status(db: laptop)["failed"] as? Int == 1)
    }

    /// Alice and bob imported the same file (the same content ids), then bob signs in on alice's
    /// device: his rows cannot stand beside hers under the same ids here, and that is said, not
    /// dropped in silence; alice's rows stay hers.
    @Test("another account's rows with the same ids on one device are reported, never dropped silently")
    func sameImportIdsOnOneDeviceAreReported() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let phone = SpotterBinary.temporaryDatabase()
        let tablet = SpotterBinary.temporaryDatabase()
        let file = try Self.writeImportFile(beside: phone)
        for (db, token) in [(phone, Self.aliceToken), (tablet, Self.bobToken)] {
            #expect(try await SpotterBinary.run(["import", file], db: db).status == 0)
            #expect(
                try await SpotterBinary.run(["login", "--server", server.url, "--token", token], db: db).status == 0)
            #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
        }
        #expect(try await SpotterBinary.run(["logout"], db: phone).status == 0)
        #expect(
            try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.bobToken], db: phone).status
                == 0)
        let sync = try await SpotterBinary.run(["sync"], db: phone)
        #expect(sync.stderr.contains("held here by another account"), "said: \(sync.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.bobToken).count == 2, "bob's rows are on the server")
    }

    @Test("login in airplane mode sends nothing and saves nothing; after airplane off it logs in")
    func loginRespectsAirplaneMode() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let db = SpotterBinary.temporaryDatabase()
        #expect(try await SpotterBinary.run(["airplane", "on"], db: db).status == 0)
        let refused = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", Self.aliceToken], db: db)
        #expect(refused.status == 1 && refused.stderr.contains("airplane mode is on"), "\(refused.stderr)")
        let whoami = try await SpotterBinary.run(["whoami"], db: db)
        #expect(!whoami.stdout.contains("alice"), "nothing saved: \(whoami.stdout)")
        let metrics = try await SpotterBinary.run(["status", "--json"], db: db)
        #expect(metrics.status == 0)
        #expect(try await SpotterBinary.run(["airplane", "off"], db: db).status == 0)
        let login = try await SpotterBinary.run(["login", "--server", server.url, "--token", Self.aliceToken], db: db)
        #expect(login.status == 0, "\(login.stderr)")
    }

    @Test("--db and --server before or after the subcommand; --version")
    func globalOptionsGoEitherSide() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let envDB = SpotterBinary.temporaryDatabase()
        let other = SpotterBinary.temporaryDatabase()
        let file = try Self.writeImportFile(beside: other)
        let before = try await SpotterBinary.run(
            ["--db", other, "log", "--exercise", "Deadlift (Barbell)", "--weight", "140", "--reps", "3"], db: envDB)
        #expect(before.status == 0, "\(before.stderr)")
        let after = try await SpotterBinary.run(["import", file, "--db", other], db: envDB)
        #expect(after.status == 0 && after.stdout.contains("imported 2 sets"), "\(after.stderr)")
        #expect(try await Self.localSetIDs(db: envDB, ["--db=\(other)"]).count == 3)
        #expect(try await Self.localSetIDs(db: envDB).isEmpty, "the environment's database is untouched")

        // A sync with flags alone sends nothing of the device's own data, and says so.
        let flagsOnly = try await SpotterBinary.run(
            ["--db", other, "--server", server.url, "--token", Self.aliceToken, "sync"], db: envDB)
        #expect(flagsOnly.status == 3, "\(flagsOnly.stdout) \(flagsOnly.stderr)")
        #expect(flagsOnly.stderr.contains("wait for this device only (spotter login"), "\(flagsOnly.stderr)")
        let login = try await SpotterBinary.run(
            ["--db", other, "--server", server.url, "--token", Self.aliceToken, "login"], db: envDB)
        #expect(login.status == 0, "\(login.stderr)")
        let remote = try await SpotterBinary.run(["sync", "--db", other], db: envDB)
        #expect(remote.status == 0, "\(remote.stdout) \(remote.stderr)")
        #expect(try await Self.serverSetIDs(server, token: Self.aliceToken).count == 3)

        let version = try await SpotterBinary.run(["--version"], db: envDB)
        #expect(version.status == 0 && version.stdout.hasPrefix("spotter "), "\(version.stdout)")

        // Commands with actions of their own take the global options first too.
        let workoutID = try #require(
            (try SpotterBinary.json(
                try await SpotterBinary.run(["--db", other, "workouts", "--json"], db: envDB).stdout)["workouts"]
                as? [[String: Any]])?.first?["id"] as? String)
        for arguments in [
            ["--db", other, "config", "rest", "45"], ["--db", other, "config", "show"],
            ["--db", other, "exercises", "list", "--custom"], ["--db", other, "workout", "rename", workoutID, "Pull"],
        ] {
            let result = try await SpotterBinary.run(arguments, db: envDB)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let shown = try await SpotterBinary.run(["config", "show", "--db", other], db: envDB)
        #expect(shown.stdout.contains("45"), "the rest set with --db first is in that database: \(shown.stdout)")
        let renamed = try SpotterBinary.json(
            try await SpotterBinary.run(["workouts", "--json", "--db", other], db: envDB).stdout)
        #expect((renamed["workouts"] as? [[String: Any]])?.contains { $0["name"] as? String == "Pull" } == true)
    }
}

import Foundation
import SpotterTestSupport
import Testing

/// A server whose database is lost (restored from nothing, its file replaced) and that comes back
/// on the same address: the devices must notice, and send what they hold again, instead of calling
/// it synced while the server has none of it.
@Suite("A server that lost its database", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct ServerResetTests {
    static func log(_ db: String, _ weight: Int, _ remote: [String]) async throws -> String {
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "\(weight)", "--reps", "5"] + remote, db: db)
        #expect(logged.status == 0, "log: \(logged.stderr)")
        return logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A server in a fresh directory: the directory, its database file, the server, its port (to
    /// come back on the same address) and the flags that reach it.
    static func firstServer() async throws -> (
        directory: URL, serverDB: String, server: ServerProcess, port: Int, remote: [String]
    ) {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB) }
        let port = try #require(URLComponents(string: server.url)?.port)
        return (directory, serverDB, server, port, ["--server", server.url, "--token", ServerProcess.token])
    }

    static func setIDs(_ db: String, _ remote: [String]) async throws -> [String] {
        let listed = try await SpotterBinary.run(["sets", "--json"] + remote, db: db)
        let sets = try SpotterBinary.json(listed.stdout)["sets"] as? [[String: Any]] ?? []
        return sets.compactMap { $0["id"] as? String }.sorted()
    }

    @Test("a server restarted on an empty database gets every set again, and each device sees all of them once")
    func aServerRestartedEmptyGetsEverythingAgain() async throws {
        let (directory, serverDB, first, port, remote) = try await Self.firstServer()
        let phone = directory.appendingPathComponent("phone.db").path
        let laptop = directory.appendingPathComponent("laptop.db").path
        var logged = [try await Self.log(phone, 100, remote), try await Self.log(phone, 102, remote)]
        logged.append(try await Self.log(laptop, 60, remote))
        for db in [phone, laptop, phone] {
            #expect(try await SpotterBinary.run(["sync"] + remote, db: db).status == 0)
        }
        #expect(try await Self.setIDs(laptop, remote) == logged.sorted())

        // The server's database is lost; the server comes back empty on the same address.
        first.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: serverDB + suffix) }
        let second = try await offThePool { try ServerProcess(db: serverDB, port: port) }
        defer { second.stop() }

        // The laptop logs into the new server first; the log's own sync finds the new database,
        // says so, and sends everything the laptop holds again, the phone's sets included.
        let newSet = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "62", "--reps", "5"] + remote, db: laptop)
        #expect(newSet.stderr.contains("is not what this device synced with"), "\(newSet.stderr)")
        logged.append(newSet.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let laptopSync = try await SpotterBinary.run(["sync"] + remote, db: laptop)
        #expect(laptopSync.status == 0, "\(laptopSync.stdout) \(laptopSync.stderr)")
        // The phone, back too, sends its own again (the server already has them: no double) and
        // receives the laptop's new set, logged at versions its old cursor had passed.
        let phoneSync = try await SpotterBinary.run(["sync"] + remote, db: phone)
        #expect(phoneSync.status == 0, "\(phoneSync.stdout) \(phoneSync.stderr)")
        #expect(try await Self.setIDs(phone, remote) == logged.sorted())
        let status = try SpotterBinary.json(
            try await SpotterBinary.run(["status", "--json"] + remote, db: phone).stdout)
        #expect(status["pending"] as? Int == 0)
        #expect(status["failed"] as? Int == 0)

        // A device that never saw the old database gets every set, each once.
        let fresh = directory.appendingPathComponent("fresh.db").path
        #expect(try await SpotterBinary.run(["sync"] + remote, db: fresh).status == 0)
        #expect(try await Self.setIDs(fresh, remote) == logged.sorted())

        // A sync with nothing new after that is quiet: the name is known now.
        let again = try await SpotterBinary.run(["sync"] + remote, db: laptop)
        #expect(again.status == 0)
        #expect(!again.stderr.contains("synced with"), "\(again.stderr)")
    }

    @Test("a server restored from an older backup gets what it lost again, and the devices see each other's sets")
    func aServerRestoredFromABackupGetsWhatItLostAgain() async throws {
        let (directory, serverDB, first, port, remote) = try await Self.firstServer()
        let backup = directory.appendingPathComponent("backup.db").path
        let phone = directory.appendingPathComponent("phone.db").path
        var logged = [try await Self.log(phone, 100, remote)]
        #expect(try await SpotterBinary.run(["sync"] + remote, db: phone).status == 0)
        // A backup (the server stopped, its file copied), then more training.
        first.stop()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: serverDB + suffix) {
            try FileManager.default.copyItem(atPath: serverDB + suffix, toPath: backup + suffix)
        }
        let second = try await offThePool { try ServerProcess(db: serverDB, port: port) }
        for weight in [102, 104] { logged.append(try await Self.log(phone, weight, remote)) }
        #expect(try await SpotterBinary.run(["sync"] + remote, db: phone).status == 0)
        // The server's disk fails; the backup is restored: the same database, older.
        second.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: serverDB + suffix) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: backup + suffix) {
            try FileManager.default.copyItem(atPath: backup + suffix, toPath: serverDB + suffix)
        }
        let restored = try await offThePool { try ServerProcess(db: serverDB, port: port) }
        defer { restored.stop() }
        // The phone's cursor is past everything the restored database has: it says so, and sends
        // what the server lost again.
        let phoneSync = try await SpotterBinary.run(["sync"] + remote, db: phone)
        #expect(phoneSync.status == 0, "\(phoneSync.stdout) \(phoneSync.stderr)")
        #expect(phoneSync.stderr.contains("went back to an older copy"), "\(phoneSync.stderr)")
        // A new device logs on the restored server; both see every set, each once.
        let laptop = directory.appendingPathComponent("laptop.db").path
        logged.append(try await Self.log(laptop, 60, remote))
        #expect(try await SpotterBinary.run(["sync"] + remote, db: laptop).status == 0)
        #expect(try await SpotterBinary.run(["sync"] + remote, db: phone).status == 0)
        #expect(try await Self.setIDs(phone, remote) == logged.sorted(), "the laptop's set reached the phone")
        #expect(try await Self.setIDs(laptop, remote) == logged.sorted(), "the phone's lost sets reached the server")
    }

    @Test("edits and sets queued offline before the server lost its database reach it whole, in their own workout")
    func queuedWorkOutlivesAReset() async throws {
        let (directory, serverDB, first, port, remote) = try await Self.firstServer()
        let phone = directory.appendingPathComponent("phone.db").path
        let edited = try await Self.log(phone, 100, remote)
        #expect(try await SpotterBinary.run(["sync"] + remote, db: phone).status == 0)
        // Offline: an edit of a synced set, and a new set into the same workout.
        #expect(try await SpotterBinary.run(["airplane", "on"] + remote, db: phone).status == 0)
        #expect(try await SpotterBinary.run(["edit", edited, "--reps", "9"] + remote, db: phone).status == 0)
        let added = try await Self.log(phone, 105, remote)
        first.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: serverDB + suffix) }
        let second = try await offThePool { try ServerProcess(db: serverDB, port: port) }
        defer { second.stop() }
        #expect(try await SpotterBinary.run(["airplane", "off"] + remote, db: phone).status == 0)
        let sync = try await SpotterBinary.run(["sync"] + remote, db: phone)
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        #expect(!sync.stderr.contains("restored"), "nothing was deleted: \(sync.stderr)")
        // A fresh device sees both sets, the edit in, in one workout.
        let fresh = directory.appendingPathComponent("fresh.db").path
        #expect(try await SpotterBinary.run(["sync"] + remote, db: fresh).status == 0)
        let listed = try await SpotterBinary.run(["sets", "--json"] + remote, db: fresh)
        let sets = try SpotterBinary.json(listed.stdout)["sets"] as? [[String: Any]] ?? []
        #expect(Set(sets.compactMap { $0["id"] as? String }) == [edited, added], "\(sets)")
        #expect(sets.first { $0["id"] as? String == edited }?["reps"] as? Int == 9, "the offline edit is in")
        #expect(Set(sets.compactMap { $0["workout_id"] as? String }).count == 1, "one workout, not split")
        #expect(try await Self.setIDs(phone, remote) == [edited, added].sorted(), "nothing left the phone")
    }
}

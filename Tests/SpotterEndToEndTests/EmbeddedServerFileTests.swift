import Foundation
import GRDB
import Testing

/// A database with no account syncs with an embedded server of its own: two databases in one
/// folder ("work" and "test") never exchange their sets, as "this device only" promises. A
/// database that already synced with the folder's shared server file keeps it.
@Suite("Each database its own embedded server", .enabled(if: SpotterBinary.exists, "build the binary first"))
struct EmbeddedServerFileTests {
    static func run(_ arguments: [String], db: String, expect status: Int32 = 0) async throws -> SpotterBinary.Result {
        let result = try await SpotterBinary.run(arguments, db: db)
        #expect(result.status == status, "\(arguments): \(result.stdout) \(result.stderr)")
        return result
    }

    static func sets(_ db: String) async throws -> [[String: Any]] {
        try SpotterBinary.json(try await run(["sets", "--json"], db: db).stdout)["sets"] as? [[String: Any]] ?? []
    }

    @Test("two databases in one folder, each synced with no account, never see each other's sets")
    func twoDatabasesInOneFolderStayApart() async throws {
        let folder = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let work = folder.appendingPathComponent("work.db").path
        let test = folder.appendingPathComponent("test 🏋️‍♀️.db").path
        try await Self.run(
            [
                "log", "--exercise", "Deadlift (Barbell)", "--weight", "200", "--reps", "1", "--new-workout",
                "WORK-ONLY",
            ],
            db: work)
        try await Self.run(["sync"], db: work)
        try await Self.run(["sync"], db: test)
        #expect(try await Self.sets(test).isEmpty, "the new database holds nothing of the other")
        try await Self.run(["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: test)
        try await Self.run(["sync"], db: test)
        try await Self.run(["sync"], db: work)
        #expect(try await Self.sets(work).count == 1, "nor the other way round")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(files.contains("work.db.server") && files.contains("test 🏋️‍♀️.db.server"), "\(files)")
        #expect(!files.contains("spotter-server.db"))
    }

    @Test(
        "databases of one name but their extension, or named like another's server file, or reached by a link, stay apart"
    )
    func namesThatCouldCollideStayApart() async throws {
        let folder = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        // The database named like lift.db's server file comes first, as a user could make it.
        let names = ["lift.db.server", "lift", "lift.db", "lift.sqlite"]
        for (index, name) in names.enumerated() {
            let db = folder.appendingPathComponent(name).path
            try await Self.run(
                ["log", "--exercise", "Squat (Barbell)", "--weight", "\(100 + index)", "--reps", "5"], db: db)
            try await Self.run(["sync"], db: db)
        }
        for (index, name) in names.enumerated() {
            let db = folder.appendingPathComponent(name).path
            try await Self.run(["sync"], db: db)
            let weights = try await Self.sets(db).compactMap { $0["weight"] as? Double }
            #expect(weights == [Double(100 + index)], "\(name) holds only its own set: \(weights)")
        }
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        // "lift.db.server" is a device's database: lift.db's server passed over its name.
        #expect(files.contains("lift.db.server-2"), "\(files)")

        // The same database through a link in another folder finds the same server.
        let elsewhere = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let link = elsewhere.appendingPathComponent("alias.db").path
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: folder.appendingPathComponent("lift.db").path)
        try await Self.run(["sync"], db: link)
        #expect(try await Self.sets(link).compactMap { $0["weight"] as? Double } == [102])
        let linked = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path)
        #expect(!linked.contains { $0.hasSuffix(".server") }, "no second server beside the link: \(linked)")
    }

    @Test("a database that synced with the folder's shared server file before keeps syncing with it")
    func aDatabaseThatUsedTheSharedFileKeepsIt() async throws {
        let folder = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let legacy = folder.appendingPathComponent("legacy.db").path
        try await Self.run(["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: legacy)
        // As an earlier version left it: a pull cursor of the shared server, no choice kept.
        let queue = try DatabaseQueue(path: legacy)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('pull_cursor', '0')")
        }
        try await queue.close()
        try await Self.run(["sync"], db: legacy)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(files.contains("spotter-server.db") && !files.contains("legacy.db.server"), "\(files)")
        try await Self.run(["sync"], db: legacy)
        #expect(try await Self.sets(legacy).count == 1)
        let again = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(!again.contains("legacy.db.server"), "the choice is kept: \(again)")
    }
}

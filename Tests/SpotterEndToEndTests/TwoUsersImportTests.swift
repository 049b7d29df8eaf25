import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Issue 8 item 4, end to end: entity ids are scoped per user on the server, so two users
/// importing the same file (the same derived ids) both sync, and neither sees the other's.
@Suite("Two users, the same file", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct TwoUsersImportTests {
    static let bobToken = "bob-import-secret"

    /// A workout name over 200 characters' worth of scalars (accents that are scalars of their
    /// own) and notes over 4 000 used to import here and be refused by the server: the workout
    /// and its every set rejected. They are cut to the limit, said, and everything syncs.
    @Test func aLongWorkoutNameAndLongNotesImportCutAndSync() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let server = try await offThePool {
            try ServerProcess(db: directory.appendingPathComponent("server.db").path)
        }
        defer { server.stop() }
        let name = String(repeating: "e\u{301}", count: 150)
        let notes = String(repeating: "💪🏽", count: 2_500)
        let file = directory.appendingPathComponent("long.csv").path
        try
            ("Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-04-08 16:50:00,\(name),Bench Press (Barbell),1,100,kg,5,0,0,\(notes),\(notes),\n"
            + "2026-04-08 16:50:00,\(name),Bench Press (Barbell),2,100,kg,5,0,0,,,\n").write(
                toFile: file, atomically: true, encoding: .utf8)
        let db = directory.appendingPathComponent("lifter.db").path
        let remote = ["--server", server.url, "--token", ServerProcess.token]
        let imported = try await SpotterBinary.run(["import", file] + remote, db: db)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("2 rows with a workout name over 200 or notes over 4000 characters cut"))
        let synced = try await SpotterBinary.run(["sync", "--timeout", "30"] + remote, db: db)
        #expect(synced.status == 0, "nothing refused: \(synced.stdout) \(synced.stderr)")
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"] + remote, db: db).stdout)
        let rows = sets["sets"] as? [[String: Any]] ?? []
        #expect(rows.count == 2 && rows.allSatisfy { $0["sync_state"] as? String == "synced" }, "\(rows)")
        #expect(rows.compactMap { $0["notes"] as? String }.map(\.unicodeScalars.count) == [4_000])
        // Imported again: the same workout and sets, nothing added.
        let again = try await SpotterBinary.run(["import", file] + remote, db: db)
        #expect(again.stdout.contains("imported 0 sets into 0 new workouts"), "\(again.stdout)")
    }

    @Test func aliceAndBobImportTheSameFileAndBothSync() async throws {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let server = try await offThePool {
            try ServerProcess(db: serverDB, extra: ["--token", "bob=\(Self.bobToken)"])
        }
        defer { server.stop() }
        let file = directory.appendingPathComponent("strong.csv").path
        try """
        Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
        2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
        2026-04-11,Deadlift (Barbell),Back,185.0,2,,,
        2026-04-12,Squat (Barbell),Legs,140.0,5,,,
        """.write(toFile: file, atomically: true, encoding: .utf8)

        for (user, token) in [("alice", ServerProcess.token), ("bob", Self.bobToken)] {
            let db = directory.appendingPathComponent("\(user).db").path
            let remote = ["--server", server.url, "--token", token]
            let imported = try await SpotterBinary.run(["import", file] + remote, db: db)
            #expect(imported.status == 0, "\(user): \(imported.stderr)")
            #expect(imported.stdout.contains("imported 3 sets"))
            let synced = try await SpotterBinary.run(["sync", "--timeout", "30"] + remote, db: db)
            #expect(synced.status == 0, "\(user): \(synced.stderr)")
            let outbox = try SpotterBinary.json(
                try await SpotterBinary.run(["outbox", "--json"] + remote, db: db).stdout)
            let failed = (outbox["operations"] as? [[String: Any]] ?? []).filter {
                ($0["last_error"] as? String) != nil
            }
            #expect(failed.isEmpty, "\(user): \(failed)")
        }

        // The server holds three sets for each of them; each sees only their own.
        for token in [ServerProcess.token, Self.bobToken] {
            var request = HTTPClientRequest(url: server.url + "/v1/sets")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.status.code == 200)
            let body = try await response.body.collect(upTo: 1 << 20)
            let sets = try SpotterBinary.json(String(buffer: body))["sets"] as? [[String: Any]] ?? []
            #expect(sets.count == 3)
            #expect(Set(sets.compactMap { $0["weight"] as? Double }) == [180, 185, 140])
        }
    }
}

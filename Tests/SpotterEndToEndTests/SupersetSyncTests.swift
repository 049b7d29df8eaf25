import Foundation
import Testing

/// A superset travels with its sets: the real binary against a real `spotter serve` on loopback.
@Suite("Supersets across devices", .serialized, .enabled(if: SpotterBinary.exists, "build the binary first"))
struct SupersetSyncTests {
    @Test("grouped on the phone, the laptop has the group, and a set it logs of either exercise joins it")
    func aSupersetSyncs() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let curl = try await fleet.run(
            "phone",
            ["log", "--exercise", "Bicep Curl (Dumbbell)", "--weight", "15", "--reps", "10", "--new-workout", "Arms"])
        #expect(curl.status == 0, "\(curl.stderr)")
        let pushdown = try await fleet.run(
            "phone", ["log", "--exercise", "Triceps Pushdown (Cable)", "--weight", "30", "--reps", "12", "--superset"])
        #expect(pushdown.status == 0, "\(pushdown.stderr)")
        #expect(try await fleet.run("phone", ["sync"]).status == 0)
        let onServer = try await fleet.serverSets()
        #expect(onServer.count == 2)
        #expect(onServer.values.allSatisfy { $0["superset"] as? Int == 1 }, "\(onServer)")

        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        let laptopSets = try await fleet.sets("laptop")
        #expect(laptopSets.values.allSatisfy { $0["superset"] as? Int == 1 })
        let workout = try #require(laptopSets.values.first?["workout_id"] as? String)
        let more = try await fleet.run(
            "laptop",
            ["log", "--exercise", "Bicep Curl (Dumbbell)", "--weight", "15", "--reps", "9", "--workout", workout])
        #expect(more.status == 0, "\(more.stderr)")
        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        #expect(try await fleet.run("phone", ["sync"]).status == 0)
        let phoneSets = try await fleet.sets("phone")
        #expect(phoneSets.count == 3)
        #expect(phoneSets.values.allSatisfy { $0["superset"] as? Int == 1 }, "\(phoneSets)")
    }

    @Test("Hevy's superset_id comes in as the workout's superset")
    func hevySupersetsImport() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let file = db.replacingOccurrences(of: ".db", with: ".csv")
        try """
        title,start_time,end_time,description,exercise_title,superset_id,exercise_notes,set_index,set_type,weight_kg,reps,distance_km,duration_seconds,rpe
        "Arms","12 Nov 2026, 18:00","12 Nov 2026, 19:00","","Bicep Curl (Dumbbell)",0,"",0,"normal",15,10,,,
        "Arms","12 Nov 2026, 18:00","12 Nov 2026, 19:00","","Triceps Pushdown (Cable)",0,"",0,"normal",30,12,,,
        "Arms","12 Nov 2026, 18:00","12 Nov 2026, 19:00","","Lateral Raise (Dumbbell)",,"",0,"normal",8,15,,,

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await SpotterBinary.run(["import", file], db: db)
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        let listed = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let groups = Dictionary(
            uniqueKeysWithValues: (listed["sets"] as? [[String: Any]] ?? []).compactMap { row in
                (row["exercise"] as? String).map { ($0, row["superset"] as? Int) }
            })
        #expect(groups["Bicep Curl (Dumbbell)"] == 1 && groups["Triceps Pushdown (Cable)"] == 1, "\(groups)")
        #expect(groups["Lateral Raise (Dumbbell)"] == .some(nil), "\(groups)")
    }
}

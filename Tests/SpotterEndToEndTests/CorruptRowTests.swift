import Foundation
import GRDB
import Testing

/// Damage a database by hand, as a user with the sqlite3 shell (or a bad disk) would.
func corrupt(_ db: String, _ sql: String) throws {
    let queue = try DatabaseQueue(path: db)
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA ignore_check_constraints = 1")
        try db.execute(sql: sql)
    }
}

@Suite("Unreadable rows are reported and skipped, never a crash", .enabled(if: SpotterBinary.exists, "build first"))
struct CorruptRowTests {
    @Test func aMistypedCellIsNamedAndTheOtherSetsStillListAndExport() async throws {
        let db = SpotterBinary.temporaryDatabase()
        var ids: [String] = []
        for weight in ["100", "105"] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "Bench Press (Barbell)", "--weight", weight, "--reps", "5"], db: db)
            ids.append(logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try corrupt(db, "UPDATE sets SET weight = 'abc' WHERE id = '\(ids[0])'")

        let sets = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect(sets.status == 0, "\(sets.stderr)")
        let listed = (try SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]] ?? []).compactMap {
            $0["id"] as? String
        }
        #expect(listed == [ids[1]], "the readable set is still listed")
        #expect(!sets.stderr.contains("Fatal error"))
        #expect(sets.stderr.contains("sets") && sets.stderr.contains(ids[0]) && sets.stderr.contains("weight"))
        #expect(sets.stderr.split(separator: "\n").count == 1)

        let exported = try await SpotterBinary.run(["export"], db: db)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.split(separator: "\n").count == 2, "header and the readable set")
        #expect(exported.stderr.contains(ids[0]))
        for command in [["workouts"], ["stats"], ["status"]] {
            let result = try await SpotterBinary.run(command, db: db)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }

        // A kind no version knows, on the exercise's best set: stats reports it and still prints.
        try corrupt(db, "UPDATE sets SET kind = 'superset' WHERE id = '\(ids[1])'")
        let stats = try await SpotterBinary.run(["stats"], db: db)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("Bench Press (Barbell)"), "\(stats.stdout)")
        #expect(stats.stderr.contains(ids[1]), "the unreadable row is named: \(stats.stderr)")
    }

    /// A hostile pass over every read a lifter runs: text or bytes in a number, a time or a name
    /// ("five" in reps, a BLOB for a date or an exercise) once stopped `stats`, `records`,
    /// `chart`, `calendar`, `volume`, `exercises`, `undo`, `routine start` and `sync` on GRDB's
    /// decoding. Each read now leaves such a row out
    /// (the set list names it) and exits with its own code.
    @Test func textOrBytesInANumberOrATimeStopNoReadAndNoSync() async throws {
        let base = SpotterBinary.temporaryDatabase()
        for (exercise, weight, reps) in [
            ("Squat (Barbell)", "100", "5"), ("Squat (Barbell)", "110", "3"), ("Pull Up", "10", "8"),
        ] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", exercise, "--weight", weight, "--reps", reps], db: base)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        let workouts = try SpotterBinary.json(try await SpotterBinary.run(["workouts", "--json"], db: base).stdout)
        let workoutID = try #require((workouts["workouts"] as? [[String: Any]])?.first?["id"] as? String)
        try await SpotterBinary.run(["routine", "create", "--from-workout", workoutID, "--name", "A"], db: base)
        try await SpotterBinary.run(["bodyweight", "log", "80"], db: base)
        // The newest action to undo is an edit: undo then reads what the set held before it.
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: base).stdout)
        let setID = try #require((sets["sets"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try await SpotterBinary.run(["edit", setID, "--reps", "6"], db: base).status == 0)
        try corrupt(base, "PRAGMA wal_checkpoint(TRUNCATE)")
        let damages = [
            "UPDATE sets SET weight = 'x'", "UPDATE sets SET reps = 'five'", "UPDATE sets SET e1rm_kg = 'x'",
            "UPDATE sets SET performed_at = X'ff00'", "UPDATE sets SET server_version = 'x'",
            "UPDATE workouts SET server_version = X'ff00'", "UPDATE sets SET exercise = X'ff00'",
            "UPDATE undo_journal SET before = X'ff00'", "UPDATE exercises SET is_custom = 'x'",
            "UPDATE exercises SET equipment = X'ff00'", "UPDATE routines SET name = X'ff00'",
            "INSERT INTO favorites (exercise) VALUES (X'ff00')", "UPDATE body_weights SET sync_state = X'ff00'",
        ]
        let reads = [
            ["stats"], ["records", "squat"], ["chart", "squat", "--list"], ["calendar"], ["volume"],
            ["routine", "show", "A"], ["routine", "start", "A"], ["exercises"], ["undo"], ["stars"],
            ["bodyweight", "list"],
            ["sync", "--timeout", "10"],
        ]
        for damage in damages {
            let db = SpotterBinary.temporaryDatabase()
            try FileManager.default.copyItem(atPath: base, toPath: db)
            try corrupt(db, damage)
            for read in reads {
                let result = try await SpotterBinary.run(read, db: db)
                #expect([0, 1, 2, 3].contains(result.status), "\(damage): \(read) ended \(result.status)")
                #expect(!result.stderr.contains("Fatal error"), "\(damage): \(read): \(result.stderr.prefix(300))")
            }
        }
    }

    @Test func aBlobPayloadFailsThatOperationWithAReasonAndTheRestSync() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        var ids: [String] = []
        for weight in ["60", "65", "70"] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "Squat (Barbell)", "--weight", weight, "--reps", "5"], db: db)
            ids.append(logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try corrupt(db, "UPDATE outbox SET payload = X'00FF10' WHERE entity_id = '\(ids[1])'")

        let outbox = try await SpotterBinary.run(["outbox", "--json"], db: db)
        #expect(outbox.status == 0, "\(outbox.stderr)")
        #expect((try SpotterBinary.json(outbox.stdout)["operations"] as? [[String: Any]])?.count == 3)
        #expect(outbox.stderr.contains("payload") && outbox.stderr.contains("BLOB"))

        try await SpotterBinary.run(["airplane", "off"], db: db)
        let sync = try await SpotterBinary.run(["sync", "--timeout", "20"], db: db)
        #expect(!sync.stderr.contains("Fatal error"), "\(sync.stderr)")
        let status = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
        #expect(status["failed"] as? Int == 1, "the unreadable operation failed for good, visibly")
        #expect(status["pending"] as? Int == 0, "the rest synced")
        let shown = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let rows = shown["sets"] as? [[String: Any]] ?? []
        let broken = try #require(rows.first { $0["id"] as? String == ids[1] })
        #expect(broken["sync_state"] as? String == "rejected")
        #expect((broken["sync_error"] as? String ?? "").contains("unreadable"))
        #expect(rows.filter { $0["sync_state"] as? String == "synced" }.count == 2)
    }

    /// A corrupt create and a corrupt operation that depends on it (a new workout and its first
    /// set): both fail for good with their reasons, and the claim does not stall the whole queue.
    @Test func aCorruptCreateAndItsCorruptDependantFailAndTheRestSync() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "60", "--reps", "5", "--new-workout", "Broken"], db: db
        )
        var fine: [String] = []
        for weight in ["65", "70"] {
            let logged = try await SpotterBinary.run(
                [
                    "log", "--exercise", "Bench Press (Barbell)", "--weight", weight, "--reps", "5", "--new-workout",
                    "Fine",
                ],
                db: db)
            fine.append(logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // The first workout's create and its set's create (seq 1 and 2) are unreadable.
        try corrupt(db, "UPDATE outbox SET payload = X'00FF' WHERE seq IN (1, 2)")
        try await SpotterBinary.run(["airplane", "off"], db: db)
        let sync = try await SpotterBinary.run(["sync", "--timeout", "10"], db: db)
        #expect(sync.status == 3, "two operations failed: \(sync.stdout)")
        #expect(!sync.stderr.contains("claim failed"), "\(sync.stderr.prefix(400))")
        let status = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
        #expect(status["failed"] as? Int == 2, "both unreadable operations failed for good, visibly: \(status)")
        #expect(status["pending"] as? Int == 0, "the rest synced: \(status)")
        let shown = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let synced = (shown["sets"] as? [[String: Any]] ?? []).filter { $0["sync_state"] as? String == "synced" }
        #expect(Set(synced.compactMap { $0["id"] as? String }) == Set(fine))
    }

    /// The airplane switch damaged by hand ('maybe' is neither on nor off): nothing may leave on a
    /// guess. sync sends nothing and says the operations remain; switching airplane mode off
    /// repairs it and the same sync sends them.
    @Test func aDamagedAirplaneSwitchCountsAsOnAndNothingIsSent() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: db)
        try corrupt(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('airplane', 'maybe')")

        let blocked = try await SpotterBinary.run(["sync", "--timeout", "2"], db: db)
        #expect(blocked.status == 3, "operations remain: \(blocked.stderr)")
        let outbox = try SpotterBinary.json(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout)
        let ops = outbox["operations"] as? [[String: Any]] ?? []
        #expect(ops.count == 2)
        #expect(ops.allSatisfy { $0["attempt_count"] as? Int == 0 }, "no request left: \(ops)")

        try await SpotterBinary.run(["airplane", "off"], db: db)
        let synced = try await SpotterBinary.run(["sync", "--timeout", "30"], db: db)
        #expect(synced.status == 0, "\(synced.stderr)")
    }
}

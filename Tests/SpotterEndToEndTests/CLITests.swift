import Foundation
import SpotterTestSupport
import Testing

@Suite("The CLI, as a script uses it", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct CLITests {
    /// With no database named and no XDG directory set, the files go under `$HOME`, as the XDG
    /// directories are defined: not under the account's home from the password file (here
    /// `/nonexistent` for nobody, and root's own for a root run with HOME set elsewhere).
    @Test func theDefaultDatabaseIsUnderHome() async throws {
        let home = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
            .appendingPathComponent("a home with spaces")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: "",
            environment: ["HOME": home.path, "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""])
        #expect(logged.status == 0, "\(logged.stderr)")
        let database = home.appendingPathComponent(".local/share/spotter/spotter.db").path
        #expect(FileManager.default.fileExists(atPath: database), "the database is under $HOME: \(logged.stderr)")
        let listed = try await SpotterBinary.run(
            ["sets", "--json"], db: database, environment: ["HOME": home.path, "XDG_CONFIG_HOME": ""])
        #expect((try? SpotterBinary.json(listed.stdout)["sets"] as? [[String: Any]])?.count == 1, "\(listed.stdout)")
    }

    @Test("sync in airplane mode with nothing queued still exits 3: nothing was fetched from other devices")
    func airplaneSyncWithAnEmptyQueueIsNotAllReceived() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let sync = try await SpotterBinary.run(["sync"], db: db)
        #expect(sync.status == 3, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stderr.contains("not all received: airplane mode is on"), "\(sync.stderr)")
        try await SpotterBinary.run(["airplane", "off"], db: db)
        #expect(try await SpotterBinary.run(["sync"], db: db).status == 0)
    }

    @Test func logThenOutboxJSONShowsTheOperations() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "bench press (barbell)", "--weight", "100", "--reps", "5", "--rpe", "8"], db: db)
        #expect(logged.status == 0)
        let setID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: setID) != nil, "log prints the set id alone: \(logged.stdout)")

        let outbox = try SpotterBinary.json(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout)
        let ops = try #require(outbox["operations"] as? [[String: Any]])
        #expect(ops.count == 2)
        #expect(ops[0]["entity_type"] as? String == "set")  // newest first
        #expect(ops[0]["entity_id"] as? String == setID)
        #expect(ops[0]["kind"] as? String == "create")
        #expect(ops[0]["state"] as? String == "pending")
        #expect(ops[1]["entity_type"] as? String == "workout")
        for key in [
            "op_id", "idempotency_key", "attempt_count", "created_at", "next_attempt_at", "last_status", "last_error",
        ] {
            #expect(ops[0].keys.contains(key), "outbox --json has \(key)")
        }

        // The text listing names each entity by its whole id: a version-7 id's first digits are
        // its time, the same for a workout and the set logged with it.
        let text = try await SpotterBinary.run(["outbox"], db: db).stdout
        #expect(text.contains("create set \(setID)"), "\(text)")

        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let rows = try #require(sets["sets"] as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["exercise"] as? String == "Bench Press (Barbell)")
        #expect(rows[0]["sync_state"] as? String == "pending")

        let status = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
        #expect(status["pending"] as? Int == 2)
        #expect(status["airplane"] as? Bool == true)
    }

    @Test(arguments: [
        ["log", "--exercise", "Squat (Barbell)", "--weight=-5", "--reps", "5"],
        ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5000"],
        ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--rpe", "8.3"],
        ["log", "--exercise", "", "--weight", "100", "--reps", "5"],
        ["log", "--exercise", "Squat (Barbell)", "--weight", "heavy", "--reps", "5"],
        ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--workout", "not-a-uuid"],
        ["edit", "8b0f4c1e-8d7a-4a51-9a53-0b7b8c5a2f10", "--reps", "3"],
        ["delete", "8b0f4c1e-8d7a-4a51-9a53-0b7b8c5a2f10"],
        ["discard", "no-such-op"],
        ["airplane", "sideways"],
    ])
    func badInputExitsNonZeroWithOneLineAndChangesNothing(arguments: [String]) async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await SpotterBinary.run(
            ["log", "--exercise", "Deadlift (Barbell)", "--weight", "140", "--reps", "3"], db: db)
        let before = try await SpotterBinary.run(["outbox", "--json"], db: db).stdout

        let result = try await SpotterBinary.run(arguments, db: db)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(!lines.isEmpty && lines.count <= 2, "one clear line (plus a usage hint): \(result.stderr)")
        #expect(lines.first?.hasPrefix("spotter: ") == true)
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack"))
        #expect(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout == before)
    }

    @Test func aSigkillRightAfterLogReturnsLosesNothing() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        let idsFile = db + ".ids"
        // Marks this test's own `log` processes, so the kill below takes those and nobody else's
        // (other tests, and other people on this machine, run `spotter log` too).
        let marker = "sigkill-\(UUID().uuidString.prefix(8))"
        // A shell that logs sets back to back, recording each id once `log` has returned;
        // it is killed with SIGKILL (with whatever `log` it is running) at an arbitrary moment.
        let script = """
            i=0
            while [ $i -lt 400 ]; do
              id=$("\(SpotterBinary.path)" log --exercise "Bench Press (Barbell)" --weight $((60 + i % 40)) --reps 5 --notes \(marker)) || exit 1
              echo "$id" >> "\(idsFile)"
              i=$((i + 1))
            done
            """
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var env = ProcessInfo.processInfo.environment
        env["SPOTTER_DB"] = db
        process.environment = env
        try Spawning.run(process)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let count = (try? String(contentsOfFile: idsFile, encoding: .utf8))?.split(separator: "\n").count ?? 0
            if count >= 12 { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        kill(-process.processIdentifier, SIGKILL)
        kill(process.processIdentifier, SIGKILL)
        system("pkill -KILL -f -- '--notes \(marker)' >/dev/null 2>&1")
        process.waitUntilExit()

        let confirmed = Set(
            try String(contentsOfFile: idsFile, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(confirmed.count >= 12)
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        let setIDs = Set((sets["sets"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(confirmed.isSubset(of: setIDs), "every set whose log returned is there")
        let outbox = try SpotterBinary.json(
            try await SpotterBinary.run(["outbox", "--json", "--limit", "10000"], db: db).stdout)
        let createdSets = Set(
            (outbox["operations"] as? [[String: Any]] ?? []).filter { $0["entity_type"] as? String == "set" }
                .compactMap { $0["entity_id"] as? String })
        #expect(createdSets == setIDs, "each set has its operation and each operation its set: both writes or neither")
    }
}

@Suite(
    "Import and export from the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build")
)
struct ImportExportCLITests {
    @Test func aMalformedRowIsReportedWithItsLineAndTheRestImportsOnce() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let file = db + ".csv"
        try """
        Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time
        2026-04-11,Deadlift (Barbell),Back,180.0,3,,,
        2026-04-11,Curl, Hammer,Arms,20,10,,,
        2026-04-11,Deadlift (Barbell),Back,185.0,2,,,
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let first = try await SpotterBinary.run(["import", file], db: db)
        #expect(first.status == 0)
        #expect(first.stdout.contains("imported 2 sets"))
        #expect(first.stderr.contains("line 3"), "the bad row is named: \(first.stderr)")
        let second = try await SpotterBinary.run(["import", file], db: db)
        #expect(second.stdout.contains("imported 0 sets"))
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [Any])?.count == 2)

        let exported = try await SpotterBinary.run(["export"], db: db).stdout
        #expect(exported.hasPrefix("Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Weight Unit,Reps"))
        let other = SpotterBinary.temporaryDatabase()
        try exported.write(toFile: other + ".csv", atomically: true, encoding: .utf8)
        #expect(try await SpotterBinary.run(["import", other + ".csv"], db: other).stdout.contains("imported 2 sets"))
        #expect(try await SpotterBinary.run(["export"], db: other).stdout == exported)
    }

    /// A backup read back into the database it came from: the sets logged in the app (their
    /// workout started with milliseconds, written to the file as whole seconds) are found, not doubled.
    @Test func anExportImportedIntoItsOwnDatabaseAddsNothing() async throws {
        let db = SpotterBinary.temporaryDatabase()
        for weight in ["100", "105"] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "Squat (Barbell)", "--weight", weight, "--reps", "5"], db: db)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        let exported = try await SpotterBinary.run(["export"], db: db).stdout
        let file = db + ".csv"
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        let again = try await SpotterBinary.run(["import", file], db: db)
        #expect(again.stdout.contains("imported 0 sets"), "\(again.stdout)")
        let workouts = try SpotterBinary.json(try await SpotterBinary.run(["workouts", "--json"], db: db).stdout)
        #expect((workouts["workouts"] as? [Any])?.count == 1)
        #expect(try await SpotterBinary.run(["export"], db: db).stdout == exported)
    }

    /// A file saved in another encoding (Windows-1252: "é" is the byte 0xE9) would import each
    /// accented name as another exercise: it is refused with the line of the first such byte, and
    /// nothing is written. A spreadsheet's UTF-16 with its byte-order mark imports; a directory,
    /// a missing file and an empty one each say so in a line.
    @Test func aFileThatIsNotUTF8IsRefusedWithItsLineAndUTF16Imports() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let header =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
        var latin1 = Data((header + "2026-04-08 16:50:00,Push,Bench Press (Barbell),1,100,kg,5,0,0,,,\n").utf8)
        latin1 +=
            Data("2026-04-08 16:50:00,Push,Bench Press (Barbell),2,100,kg,5,0,0,".utf8) + Data([0x72, 0xE9, 0x70])
        latin1 += Data(",,\n".utf8)
        try latin1.write(to: URL(fileURLWithPath: db + "-latin1.csv"))
        let refused = try await SpotterBinary.run(["import", db + "-latin1.csv"], db: db)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("line 3 is not UTF-8 text (byte 0xE9)"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout.contains(#""operations":[]"#))

        let utf16 = header + "2026-04-08 16:50:00,Push 💪🏽,Bench Press (Barbell),1,100,kg,5,0,0,ré\u{301}p,,\n"
        try utf16.write(toFile: db + "-utf16.csv", atomically: true, encoding: .utf16)  // with its byte-order mark
        let imported = try await SpotterBinary.run(["import", db + "-utf16.csv"], db: db)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 1 set into 1 new workout"), "\(imported.stdout)")
        let sets = try SpotterBinary.json(try await SpotterBinary.run(["sets", "--json"], db: db).stdout)
        #expect((sets["sets"] as? [[String: Any]])?.first?["notes"] as? String == "ré\u{301}p")

        for (path, message) in [
            (URL(fileURLWithPath: db).deletingLastPathComponent().path, "is a directory"),
            (db + "-missing.csv", "no such file"), ("/dev/null", "the file is empty"),
        ] {
            let result = try await SpotterBinary.run(["import", path], db: db)
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "\(path): \(result.stderr)")
        }
    }

    @Test func aFileThatIsNotAnExportChangesNothing() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try "name,age\nbob,3\n".write(toFile: db + ".csv", atomically: true, encoding: .utf8)
        let result = try await SpotterBinary.run(["import", db + ".csv"], db: db)
        #expect(result.status == 1)
        #expect(result.stderr.contains("unrecognised header"))
        #expect(try await SpotterBinary.run(["outbox", "--json"], db: db).stdout.contains(#""operations":[]"#))
    }
}

@Suite("Syncing from the command line", .enabled(if: SpotterBinary.exists, "build the binary first: swift build"))
struct SyncCLITests {
    /// Nothing listens on port 9 of the loopback: connections are refused.
    static let deadServer = ["--server", "http://127.0.0.1:9", "--token", "t"]

    /// A pasted tab or escape in a name used to be logged here and fail for good at sync: the
    /// client refuses what the server would, in one line, and queues nothing.
    @Test func aControlCharacterInANameIsRefusedHereNotAtSync() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let tab = try await SpotterBinary.run(
            ["log", "--exercise", "Bench\tPress", "--weight", "100", "--reps", "5"], db: db)
        #expect(tab.status != 0)
        #expect(tab.stderr.contains("exercise") && tab.stderr.contains("U+0009"), "\(tab.stderr)")
        #expect(tab.stderr.split(separator: "\n").count == 1)
        let escape = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--notes", "\u{1B}[31mred"],
            db: db)
        #expect(escape.status != 0, "\(escape.stderr)")
        let status = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
        #expect(status["pending"] as? Int == 0, "nothing was queued")
    }

    @Test func logWithAnUnreachableServerStillExitsZeroAndKeepsTheSetQueued() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let result = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"] + Self.deadServer, db: db)
        #expect(result.status == 0)
        let status = try SpotterBinary.json(
            try await SpotterBinary.run(["status", "--json"] + Self.deadServer, db: db).stdout)
        #expect(status["pending"] as? Int == 2, "the set and its workout stay queued")
    }

    @Test func syncExitsThreeWhenOperationsRemainAndZeroWhenTheQueueEmpties() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await SpotterBinary.run(["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: db)
        let offline = try await SpotterBinary.run(["sync", "--timeout", "1"], db: db)
        #expect(offline.status == 3, "airplane mode: operations remain")
        try await SpotterBinary.run(["airplane", "off"], db: db)
        // Nothing of the device's queue is sent to another server without a login — and sync says
        // so instead of "all sent" (issue 9: it used to exit 0 with the sets pending forever).
        let unreachable = try await SpotterBinary.run(["sync", "--timeout", "1"] + Self.deadServer, db: db)
        #expect(unreachable.status == 3, "the device's sets are not on that server")
        #expect(unreachable.stderr.contains("wait for this device only"), "\(unreachable.stderr)")
        let synced = try await SpotterBinary.run(["sync", "--timeout", "30"], db: db)
        #expect(synced.status == 0, "the embedded server takes them: \(synced.stderr)")
        let status = try SpotterBinary.json(try await SpotterBinary.run(["status", "--json"], db: db).stdout)
        #expect(status["pending"] as? Int == 0)
        #expect(status["last_sync_at"] is String)
    }

    @Test func syncAgainstAnUnreachableServerExitsThree() async throws {
        let db = SpotterBinary.temporaryDatabase()
        try await SpotterBinary.run(["airplane", "on"], db: db)
        try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"] + Self.deadServer, db: db)
        try await SpotterBinary.run(["airplane", "off"], db: db)
        let result = try await SpotterBinary.run(["sync", "--timeout", "2"] + Self.deadServer, db: db)
        #expect(result.status == 3)
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(
            result.stderr.contains("last try:") && result.stderr.lowercased().contains("connect"),
            "says why: \(result.stderr)")
        let outbox = try SpotterBinary.json(
            try await SpotterBinary.run(["outbox", "--json"] + Self.deadServer, db: db).stdout)
        let ops = outbox["operations"] as? [[String: Any]] ?? []
        #expect(ops.contains { ($0["last_error"] as? String)?.contains("connection") == true })
    }
}

import AsyncHTTPClient
import Foundation
import SpotterTestSupport
import Testing

/// Devices, each its own database, syncing with one real `spotter serve` through the real binary.
struct Fleet {
    let directory: URL
    let serverDB: String
    var server: ServerProcess
    let port: Int

    static func start(extra: [String] = []) async throws -> Fleet {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let serverDB = directory.appendingPathComponent("server.db").path
        let server = try await offThePool { try ServerProcess(db: serverDB, extra: extra) }
        let port = try #require(URL(string: server.url)?.port)
        return Fleet(directory: directory, serverDB: serverDB, server: server, port: port)
    }

    /// Stops the server and starts it again on the same file and port, with other fault flags.
    mutating func restart(extra: [String] = []) async throws {
        server.stop()
        let (db, port) = (serverDB, self.port)
        server = try await offThePool { try ServerProcess(db: db, port: port, extra: extra) }
    }

    func device(_ name: String) -> String { directory.appendingPathComponent("\(name).db").path }

    var remote: [String] { ["--server", server.url, "--token", ServerProcess.token] }

    @discardableResult
    func run(
        _ device: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws
        -> SpotterBinary.Result
    {
        try await SpotterBinary.run(arguments + remote, db: self.device(device), environment: environment)
    }

    /// What a device shows, by id.
    func sets(_ device: String) async throws -> [String: [String: Any]] {
        let listed = try SpotterBinary.json(try await run(device, ["sets", "--json"]).stdout)
        let rows = listed["sets"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0) })
    }

    func workouts(_ device: String) async throws -> [[String: Any]] {
        let listed = try SpotterBinary.json(try await run(device, ["workouts", "--json"]).stdout)
        return listed["workouts"] as? [[String: Any]] ?? []
    }

    /// The server's own answer to a GET, as alice.
    func serverGet(_ path: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: server.url + path)
        request.headers.add(name: "Authorization", value: "Bearer \(ServerProcess.token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return try SpotterBinary.json(String(buffer: body))
    }

    func serverSets() async throws -> [String: [String: Any]] {
        let rows = try await serverGet("/v1/sets")["sets"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0) })
    }

    func serverWorkouts() async throws -> [[String: Any]] {
        try await serverGet("/v1/workouts")["workouts"] as? [[String: Any]] ?? []
    }
}

/// The five ways devices used to disagree with the server for good while every status line said
/// all was well (issue 8), each replayed with the real binary against a real server.
@Suite("Every device ends with the server's state", .enabled(if: SpotterBinary.exists, "build the binary first"))
struct ConvergenceTests {
    /// A and B edit different fields of one set while the server commits but drops every reply;
    /// each then pulls while its retry waits out its backoff (the pull used to skip the set and
    /// move its cursor past the other device's change), and the replayed answer is older than
    /// that change.
    @Test func editsWhoseRepliesWereDroppedReachBothDevices() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let slow = ["SPOTTER_RETRY_BASE_SECONDS": "5"]  // the retry comes after the next pull
        let logged = try await fleet.run(
            "a",
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Push"])
        let setID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.sets("b")[setID]?["reps"] as? Int == 5)

        try await fleet.restart(extra: ["--chaos-drop", "1.0"])
        #expect(try await fleet.run("a", ["edit", setID, "--notes", "paused"], environment: slow).status == 0)
        #expect(try await fleet.run("a", ["sync", "--timeout", "1"], environment: slow).status == 3)
        #expect(try await fleet.run("b", ["edit", setID, "--reps", "6"], environment: slow).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "1"], environment: slow).status == 3)

        try await fleet.restart()
        for device in ["a", "b", "a", "b"] {
            let synced = try await fleet.run(device, ["sync", "--timeout", "60"], environment: slow)
            #expect(synced.status == 0, "\(device): \(synced.stderr)")
        }
        let server = try #require(try await fleet.serverSets()[setID])
        #expect(server["reps"] as? Int == 6)
        #expect(server["notes"] as? String == "paused")
        for device in ["a", "b"] {
            let shown = try #require(try await fleet.sets(device)[setID], "\(device) still shows the set")
            #expect(shown["reps"] as? Int == 6, "\(device) shows the other device's reps")
            #expect(shown["notes"] as? String == "paused", "\(device) shows the other device's notes")
            #expect(shown["sync_state"] as? String == "synced")
        }
    }

    /// The feed orders changes by version: a workout renamed after its sets were logged comes
    /// after them, and a device that had never seen it used to drop the sets.
    @Test func setsOfAWorkoutRenamedAfterThemReachEveryDevice() async throws {
        let fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)  // B has an older cursor
        var logged: Set<String> = []
        for (index, weight) in ["60", "70"].enumerated() {
            let result = try await fleet.run(
                "a",
                ["log", "--exercise", "Squat (Barbell)", "--weight", weight, "--reps", "5"]
                    + (index == 0 ? ["--new-workout", "Legs"] : []))
            logged.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        let workoutID = try #require(try await fleet.workouts("a").first?["id"] as? String)
        #expect(try await fleet.run("a", ["workout", "rename", workoutID, "Leg Day"]).status == 0)
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)

        for device in ["b", "c"] {
            #expect(try await fleet.run(device, ["sync", "--timeout", "30"]).status == 0)
            #expect(Set(try await fleet.sets(device).keys) == logged, "\(device) shows every set")
            let workouts = try await fleet.workouts(device)
            #expect(workouts.count == 1)
            #expect(workouts.first?["name"] as? String == "Leg Day")
            #expect(workouts.first?["set_count"] as? Int == 2)
        }
    }

    /// A set logged offline into a workout that another device deletes meanwhile: the server
    /// refuses the set (the workout is gone), and the device keeps it — not silently taken away,
    /// not left rejected — in a copy of the workout, "Legs (restored)", which it sends like any
    /// workout; the deleted workout itself goes, and `sync` says what was kept and exits 0.
    @Test func aSetLoggedIntoAWorkoutDeletedElsewhereIsKeptInARestoredCopy() async throws {
        let fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let first = try await fleet.run(
            "a", ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Legs"])
        #expect(first.status == 0)
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)
        let workoutID = try #require(try await fleet.workouts("b").first?["id"] as? String)

        #expect(try await fleet.run("a", ["airplane", "on"]).status == 0)
        let late = try await fleet.run(
            "a", ["log", "--exercise", "Squat (Barbell)", "--weight", "105", "--reps", "5", "--workout", workoutID])
        #expect(late.status == 0)
        #expect(try await fleet.run("b", ["delete", "--workout", workoutID]).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.run("a", ["airplane", "off"]).status == 0)
        let sync = try await fleet.run("a", ["sync", "--timeout", "30"])
        #expect(sync.status == 0, "the kept set is sent: \(sync.stdout) \(sync.stderr)")
        #expect(sync.stdout.contains("1 set of 'Legs' was kept in 'Legs (restored)'"), "\(sync.stdout)")

        let workouts = try await fleet.workouts("a")
        #expect(!workouts.contains { $0["id"] as? String == workoutID }, "the deleted workout goes: \(workouts)")
        let copy = try #require(workouts.first { $0["name"] as? String == "Legs (restored)" }, "\(workouts)")
        #expect(copy["sync_state"] as? String == "synced")
        let lateID = late.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let lateRow = try #require(try await fleet.sets("a")[lateID], "the late set is never dropped")
        #expect(lateRow["sync_state"] as? String == "synced")
        #expect(lateRow["workout_id"] as? String == copy["id"] as? String)
        #expect(try await fleet.serverSets()[lateID]?["workout_id"] as? String == copy["id"] as? String)
    }

    /// A create the engine gave up on (its replies were dropped, yet it had committed) is
    /// deleted by the user: the delete must reach the server, not only this device.
    @Test func deletingAWorkoutWhoseCreateGaveUpDeletesItOnTheServer() async throws {
        var fleet = try await Fleet.start(extra: ["--chaos-drop", "1.0"])
        defer { fleet.server.stop() }
        let quick = ["SPOTTER_RETRY_BASE_SECONDS": "0.1", "SPOTTER_MAX_ATTEMPTS": "3"]
        #expect(
            try await fleet.run(
                "a",
                ["log", "--exercise", "Deadlift (Barbell)", "--weight", "180", "--reps", "3", "--new-workout", "Pull"],
                environment: quick
            ).status == 0)
        let gaveUp = try await fleet.run("a", ["sync", "--timeout", "10"], environment: quick)
        #expect(gaveUp.status == 3, "sync says an operation is not sent: \(gaveUp.stderr)")
        let outbox = try SpotterBinary.json(try await fleet.run("a", ["outbox", "--json"]).stdout)
        let ops = outbox["operations"] as? [[String: Any]] ?? []
        let create = try #require(ops.first { $0["entity_type"] as? String == "workout" })
        // Never answered: not done, and not a refusal (it goes back to the queue whenever the
        // server answers something, here the pull).
        #expect(create["state"] as? String != "succeeded")
        #expect(create["last_status"] as? Int == nil, "no definite answer: \(create)")
        let workoutID = try #require(create["entity_id"] as? String)

        #expect(try await fleet.run("a", ["delete", "--workout", workoutID]).status == 0)
        try await fleet.restart()
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.serverWorkouts().isEmpty, "the server no longer keeps the workout")
        #expect(try await fleet.workouts("a").isEmpty)
        #expect(try await fleet.run("c", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.workouts("c").isEmpty, "a fresh device does not see it either")
        let status = try SpotterBinary.json(try await fleet.run("a", ["status", "--json"]).stdout)
        let after = try await fleet.run("a", ["outbox", "--json"]).stdout
        #expect(status["failed"] as? Int == 0, "nothing left failed: \(after)")
        #expect(status["pending"] as? Int == 0)
    }

    /// The same export imported on two devices of one account gives the same ids; when another
    /// device edited one of those sets in between, the second import's create meets a different
    /// row under its id (409). That create is fulfilled — the set exists — and the device must
    /// end with the server's row, not a rejected copy of the file's old values.
    @Test func importingAFileAnotherDeviceImportedAndEditedConvergesOnTheServersRow() async throws {
        let fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let file = fleet.directory.appendingPathComponent("strong.csv").path
        try """
        Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
        2026-03-02 18:00:00,Push,Bench Press (Barbell),1,80,8,0,0,,,
        2026-03-02 18:00:00,Push,Bench Press (Barbell),2,85,6,0,0,,,

        """.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await fleet.run("a", ["import", file]).status == 0)
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)
        let edited = try #require(try await fleet.sets("b").values.first { $0["weight"] as? Double == 85 })
        let setID = try #require(edited["id"] as? String)
        #expect(try await fleet.run("b", ["edit", setID, "--reps", "7"]).status == 0)
        #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0)

        #expect(try await fleet.run("c", ["import", file]).status == 0)
        let synced = try await fleet.run("c", ["sync", "--timeout", "30"])
        #expect(synced.status == 0, "nothing is left failed: \(synced.stderr)")
        #expect(try await fleet.run("c", ["sync", "--timeout", "30"]).status == 0)
        let shown = try await fleet.sets("c")
        #expect(shown.count == 2, "the import added nothing the server did not have")
        #expect(shown[setID]?["reps"] as? Int == 7, "the other device's edit, not the file's old value")
        #expect(shown.values.allSatisfy { $0["sync_state"] as? String == "synced" })
        #expect(try await fleet.serverSets().count == 2)
    }

    /// A `spotter sync` killed while its request is out leaves a lease behind; the next sync sees
    /// that its holder is gone and sends at once instead of waiting out the 60 s lease.
    @Test func aLeaseHeldByAKilledProcessIsReleasedAtOnce() async throws {
        // The write waits 30 s on the server, so the claim stays visible however slowly a
        // loaded machine runs the polling below; the deadline, not a count, bounds the wait.
        var fleet = try await Fleet.start(extra: ["--chaos-latency", "30000"])
        defer { fleet.server.stop() }
        let phone = fleet.device("phone")
        try await SpotterBinary.run(["airplane", "on"], db: phone)
        let logged = try await fleet.run("phone", ["log", "--exercise", "Pull Up", "--weight", "0", "--reps", "8"])
        let setID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await SpotterBinary.run(["airplane", "off"], db: phone)

        let sync = ChildProcess()
        sync.executableURL = URL(fileURLWithPath: SpotterBinary.path)
        sync.arguments = ["sync", "--timeout", "120"] + fleet.remote
        sync.environment = ProcessInfo.processInfo.environment.merging(["SPOTTER_DB": phone]) { $1 }
        sync.standardOutput = FileHandle.nullDevice
        sync.standardError = FileHandle.nullDevice
        try Spawning.run(sync)
        var claimed = false
        let deadline = Date().addingTimeInterval(90)
        while !claimed && Date() < deadline {
            try await Task.sleep(nanoseconds: 100_000_000)
            let outbox = try await fleet.run("phone", ["outbox", "--json"]).stdout
            claimed = outbox.contains("\"in_flight\"")
        }
        kill(sync.processIdentifier, SIGKILL)
        sync.waitUntilExit()
        #expect(claimed, "the killed sync had claimed its operations")

        try await fleet.restart()
        let next = try await fleet.run("phone", ["sync", "--timeout", "20"])
        #expect(next.status == 0, "the dead process's lease does not hold the queue: \(next.stderr)")
        #expect(Array(try await fleet.serverSets().keys) == [setID], "exactly once on the server")
    }

    /// One device, one user: a set logged into a workout and an edit of another of its sets are
    /// sent and answered 503 (each waits for its retry), then the user deletes the workout. The
    /// delete went out first: the server deleted the workout, the late create was refused (422)
    /// and stayed "failed" for good, blamed on "another device", and the edit was listed on every
    /// device as lost to another device's delete. Operations go out in the order they were made.
    @Test func aWorkoutsDeleteDoesNotOvertakeItsSetsRetries() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let slow = ["SPOTTER_RETRY_BASE_SECONDS": "3"]
        let logged = try await fleet.run(
            "a",
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Push"])
        let setID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await fleet.run("a", ["sync", "--timeout", "30"]).status == 0)
        let workoutID = try #require(try await fleet.workouts("a").first?["id"] as? String)

        try await fleet.restart(extra: ["--chaos-fail", "1.0"])
        let late = try await fleet.run(
            "a",
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "110", "--reps", "3", "--workout", workoutID],
            environment: slow)
        #expect(late.status == 0)
        #expect(try await fleet.run("a", ["edit", setID, "--reps", "9"], environment: slow).status == 0)
        #expect(try await fleet.run("a", ["sync", "--timeout", "1"], environment: slow).status == 3)

        try await fleet.restart()
        #expect(try await fleet.run("a", ["delete", "--workout", workoutID]).status == 0)
        let synced = try await fleet.run("a", ["sync", "--timeout", "60"], environment: slow)
        #expect(synced.status == 0, "everything sent, nothing failed: \(synced.stdout) \(synced.stderr)")
        let outbox = try await fleet.run("a", ["outbox"]).stdout
        #expect(!outbox.contains("failed_permanent"), "\(outbox)")
        #expect(try await fleet.serverSets().isEmpty)
        #expect(try await fleet.serverWorkouts().isEmpty)
        #expect(try await fleet.sets("a").isEmpty)
        for device in ["a", "b"] {
            if device == "b" { #expect(try await fleet.run("b", ["sync", "--timeout", "30"]).status == 0) }
            let conflicts = try await fleet.run(device, ["conflicts"]).stdout
            #expect(
                conflicts.contains("No open conflicts"), "\(device): the user's own edit is no conflict: \(conflicts)")
        }
    }
}

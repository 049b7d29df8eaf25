import Foundation
import GRDB
import SpotterTestSupport
import Testing

/// Faults of the device itself rather than of the network: a database in a folder that may not
/// be written, and one the kernel refuses even to root. What is on the device is still listed,
/// every screen and status line says it is read-only, and a write is refused in one line and
/// changes nothing.
@Suite("Local faults: read-only folders and files", .enabled(if: SpotterBinary.exists, "build first"))
struct LocalFaultTests {
    /// Root may write any file whatever its mode: the binary runs as an unprivileged user then.
    static let unprivileged =
        getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

    /// A database with two sets (and their workout) queued, in a folder of its own.
    static func loggedDatabase() async throws -> String {
        let db = SpotterBinary.temporaryDatabase()
        for (weight, reps) in [("100", "5"), ("105", "3")] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "Squat (Barbell)", "--weight", weight, "--reps", reps], db: db)
            try #require(logged.status == 0, "\(logged.stderr)")
        }
        return db
    }

    static func folder(of db: String) -> String { URL(fileURLWithPath: db).deletingLastPathComponent().path }

    /// The folder may be read, not written: SQLite cannot make the `-shm` index it reads a WAL
    /// database through, and reading commands used to fail with "attempt to write a readonly database".
    @Test("a database in a folder that may not be written is listed, exported and shown read-only; a write is refused")
    func readOnlyFolder() async throws {
        let db = try await Self.loggedDatabase()
        let folder = Self.folder(of: db)
        // The file is the user's own and may be written: only the folder may not.
        if getuid() == 0 { chown(db, 65534, 65534) }
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }

        let sets = try await SpotterBinary.run(["sets", "--json"], db: db, launcher: Self.unprivileged)
        #expect(sets.status == 0, "sets reads it: \(sets.stderr)")
        #expect((try? SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]])?.count == 2)
        let workouts = try await SpotterBinary.run(["workouts"], db: db, launcher: Self.unprivileged)
        #expect(workouts.status == 0, "\(workouts.stderr)")
        #expect(workouts.stdout.contains("2 sets"), "\(workouts.stdout)")
        let exported = try await SpotterBinary.run(["export"], db: db, launcher: Self.unprivileged)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.split(separator: "\n").count == 3, "a header and two sets:\n\(exported.stdout)")
        let outbox = try await SpotterBinary.run(["outbox"], db: db, launcher: Self.unprivileged)
        #expect(outbox.status == 0, "\(outbox.stderr)")
        for reading in [
            ["stars"], ["exercises", "list"], ["config", "show"], ["routine", "list"], ["whoami"],
            ["warmup", "Squat (Barbell)", "100"], ["stats"],
        ] {
            let result = try await SpotterBinary.run(reading, db: db, launcher: Self.unprivileged)
            #expect(result.status == 0, "\(reading) reads it: \(result.stderr)")
        }

        let status = try await SpotterBinary.run(["status"], db: db, launcher: Self.unprivileged)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("read-only"), "status says so:\n\(status.stdout)")
        #expect(status.stdout.contains("pending    3"), "and still counts what waits:\n\(status.stdout)")
        let statusJSON = try await SpotterBinary.run(["status", "--json"], db: db, launcher: Self.unprivileged)
        let readOnly = try SpotterBinary.json(statusJSON.stdout)["read_only"] as? String
        #expect(readOnly?.contains(folder) == true, "status --json names the folder: \(statusJSON.stdout)")

        for write in [
            ["log", "--exercise", "Squat (Barbell)", "--weight", "110", "--reps", "1"], ["airplane", "on"], ["sync"],
        ] {
            let refused = try await SpotterBinary.run(write, db: db, launcher: Self.unprivileged)
            #expect(refused.status == 1, "\(write): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
            #expect(refused.stderr.contains("read-only") && refused.stderr.contains(folder), "\(refused.stderr)")
        }
        let filesAfter = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(filesAfter == filesBefore, "nothing was made in the folder")

        chmod(folder, 0o755)
        let after = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect((try? SpotterBinary.json(after.stdout)["sets"] as? [[String: Any]])?.count == 2, "nothing changed")
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "110", "--reps", "1"], db: db)
        #expect(logged.status == 0, "writable again, it takes writes again: \(logged.stderr)")
    }

    /// The read-only folder's name is put into an SQLite URI: every character that means something
    /// in a URI, and text that is not ASCII, must reach the file as it is.
    @Test(
        "a read-only folder named with ?, #, %, %41, spaces, emoji with modifiers, combining marks and RTL text is read",
        arguments: ["a?b#c", "100% done %41", "Zoë 💪🏽 e\u{301} عربي", "  spaced  "])
    func readOnlyFolderWithAHostileName(_ name: String) async throws {
        let parent = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        let folder = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent("my db?.sqlite").path
        let logged = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "100", "--reps", "5"], db: db)
        try #require(logged.status == 0, "\(logged.stderr)")
        if getuid() == 0 { chown(db, 65534, 65534) }
        chmod(parent.path, 0o755)
        chmod(folder.path, 0o555)
        defer { chmod(folder.path, 0o755) }
        let sets = try await SpotterBinary.run(["sets", "--json"], db: db, launcher: Self.unprivileged)
        #expect(sets.status == 0, "\(name): \(sets.stderr)")
        #expect((try? SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]])?.count == 1, "\(name)")
        let status = try await SpotterBinary.run(["status"], db: db, launcher: Self.unprivileged)
        #expect(status.stdout.contains("read-only") && status.stdout.contains(name), "\(status.stdout)")
    }

    /// Sets or clears a file's immutable flag (what `chattr +i` / `-i` do); false where it cannot.
    @discardableResult
    static func setImmutable(_ path: String, _ on: Bool) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // FS_IOC_GETFLAGS and FS_IOC_SETFLAGS; FS_IMMUTABLE_FL is 0x10. The kernel reads an int.
        var flags: Int32 = 0
        guard withUnsafeMutablePointer(to: &flags, { ioctl(descriptor, 0x8008_6601, $0) }) == 0 else { return false }
        flags = on ? flags | 0x10 : flags & ~0x10
        return withUnsafeMutablePointer(to: &flags, { ioctl(descriptor, 0x4008_6602, $0) }) == 0
    }

    /// Whether immutable files can be made here (root, on a file system with inode flags).
    static let immutableFilesWork: Bool = {
        guard getuid() == 0 else { return false }
        let probe = SpotterBinary.temporaryDatabase()
        FileManager.default.createFile(atPath: probe, contents: Data())
        defer {
            setImmutable(probe, false)
            try? FileManager.default.removeItem(atPath: probe)
        }
        return setImmutable(probe, true) && !FileManager.default.isWritableFile(atPath: probe)
    }()

    /// Root itself may not write an immutable file: the one read-only case a root user meets.
    @Test(
        "an immutable database refuses even root's writes in one line, and status says read-only",
        .enabled(if: immutableFilesWork, "needs root and a file system with immutable files"))
    func immutableFile() async throws {
        let db = try await Self.loggedDatabase()
        try #require(Self.setImmutable(db, true))
        defer { Self.setImmutable(db, false) }
        let status = try await SpotterBinary.run(["status"], db: db)
        #expect(status.status == 0 && status.stdout.contains("read-only"), "\(status.stdout)\(status.stderr)")
        let sets = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect((try? SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]])?.count == 2, "\(sets.stderr)")
        let refused = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "110", "--reps", "1"], db: db)
        #expect(refused.status == 1 && refused.stderr.contains("read-only"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
    }

    /// A database a newer Spotter has migrated may hold rules this version does not keep (v17
    /// moved the marking of a new set's records from a trigger into the code that inserts it):
    /// it is listed, never written. And a database that may be written is opened writable even
    /// by a listing, so records left to recompute are brought up to date before they show.
    @Test("a newer Spotter's database is listed and refuses writes in one line; a listing brings records up to date")
    func newerSchemaAndStaleRecords() async throws {
        let db = try await Self.loggedDatabase()
        let record = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "110", "--reps", "5"], db: db)
        try #require(record.status == 0, "\(record.stderr)")
        // Records left stale, as a crash between a write and its recompute leaves them.
        let queue = try DatabaseQueue(path: db)
        try await queue.write { db in
            try db.execute(sql: "UPDATE sets SET is_pr = 0")
            try db.execute(sql: "INSERT OR IGNORE INTO records_dirty (exercise) VALUES ('Squat (Barbell)')")
        }
        let listed = try await SpotterBinary.run(["sets"], db: db)
        let heaviest = listed.stdout.split(separator: "\n").first { $0.contains("110 kg") } ?? ""
        #expect(heaviest.contains("PR"), "110 kg × 5 is a record again:\n\(listed.stdout)")

        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-spotter')")
        }
        let refused = try await SpotterBinary.run(
            ["log", "--exercise", "Squat (Barbell)", "--weight", "110", "--reps", "1"], db: db)
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        #expect(refused.stderr.contains("a newer version of Spotter"), "\(refused.stderr)")
        let again = try await SpotterBinary.run(["sets", "--json"], db: db)
        #expect(again.status == 0, "listed: \(again.stderr)")
        #expect((try? SpotterBinary.json(again.stdout)["sets"] as? [[String: Any]])?.count == 3, "nothing was added")
        let status = try await SpotterBinary.run(["status"], db: db)
        #expect(status.status == 0 && status.stdout.contains("read-only"), "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("a newer version of Spotter"), "\(status.stdout)")
    }

    /// The full-screen UI on a database it may not write: it opens, shows what is there, says
    /// "read-only" in the header, and a set typed into the form is refused with the form kept.
    @Test(
        "the UI opens a read-only database, says so, and refuses a set without losing what was typed",
        .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func readOnlyUI() async throws {
        let workspace = try TUIEndToEndTests.Workspace()
        for weight in ["100", "105"] {
            let logged = try await SpotterBinary.run(
                ["log", "--exercise", "Squat (Barbell)", "--weight", weight, "--reps", "5"], db: workspace.database)
            try #require(logged.status == 0, "\(logged.stderr)")
        }
        chmod(workspace.directory.path, 0o555)
        defer { chmod(workspace.directory.path, 0o755) }
        let tmux = try await TUIEndToEndTests.launch(
            workspace: workspace, environment: Self.unprivileged.joined(separator: " "))
        var step = try await tmux.waitFor { $0.contains("read-only") && $0.contains("105 kg") }
        #expect(step.ok, "the sets are shown and the header says read-only:\n\(step.screen)")
        #expect(step.screen.contains("3 unsent (read-only)"), "what waits is not called synced:\n\(step.screen)")
        #expect(!step.screen.contains("Synced"), "\(step.screen)")

        try tmux.press("n")
        step = try await tmux.waitFor("Log set")
        #expect(step.ok, "the form opens:\n\(step.screen)")
        try tmux.press("C-u")
        try tmux.type("117.5")
        try tmux.press("Tab", "C-u")
        try tmux.type("2")
        try tmux.press("Enter")
        step = try await tmux.waitFor("Not saved: the database is read-only")
        #expect(step.ok, "the save is refused in the form:\n\(step.screen)")
        #expect(step.screen.contains("117.5"), "what was typed is still there:\n\(step.screen)")
        // The form as it closed: the hint, the plates of what was typed and the last sessions.
        for kept in ["previous: 105 kg × 5", "20 + 25 + 20 + 2.5 + 1.25 per side", "Last sessions", "e1RM 122.5 kg"] {
            #expect(step.screen.contains(kept), "\(kept) is still shown:\n\(step.screen)")
        }
        try tmux.press("Escape")
        try tmux.press("a")
        step = try await tmux.waitFor { $0.contains("Not saved") && !$0.contains("Airplane") }
        #expect(step.ok, "airplane mode is a saved switch, refused too:\n\(step.screen)")
        try tmux.press("q")

        chmod(workspace.directory.path, 0o755)
        let sets = try await SpotterBinary.run(["sets", "--json"], db: workspace.database)
        #expect((try? SpotterBinary.json(sets.stdout)["sets"] as? [[String: Any]])?.count == 2, "nothing was saved")
    }
}

/// A full disk, on a small tmpfs mounted for the test: the device keeps working as far as it
/// can, says so everywhere, and once room is freed sends everything by itself.
@Suite(
    "Local faults: a full disk", .serialized,
    .enabled(if: SpotterBinary.exists, "build first"),
    .enabled(if: Tmpfs.works, "needs root where a tmpfs can be mounted"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct FullDiskTests {
    @Test("writes on a full disk are refused in one line, the UI says disk full, and freeing room sends it all")
    func fullDiskRecoversByItself() async throws {
        let server = try await AccountTests.startServer()
        defer { server.stop() }
        let workspace = try TUIEndToEndTests.Workspace()
        let folder = workspace.directory.path
        try #require(Tmpfs.mount(on: folder, size: "16m"), "mount a tmpfs on \(folder)")
        defer { Tmpfs.unmount(folder) }
        let db = workspace.database
        let login = try await SpotterBinary.run(
            ["login", "--server", server.url, "--token", AccountTests.aliceToken], db: db)
        try #require(login.status == 0, "\(login.stderr)")
        try await AccountTests.log(db: db, weight: "60")
        let tmux = try await TUIEndToEndTests.launch(workspace: workspace)
        var step = try await tmux.waitFor { $0.contains("Synced") }
        #expect(step.ok, "the UI runs and has sent the first set:\n\(step.screen)")

        // Fill the disk but for a little room, then log until a write finds none.
        let filler = workspace.directory.appendingPathComponent("filler").path
        #expect(
            FileManager.default.createFile(atPath: filler, contents: Data(count: Int(Tmpfs.free(folder)) - 120_000)))
        var logged = 0
        var refused: SpotterBinary.Result?
        while logged < 500 {
            let result = try await SpotterBinary.run(
                ["log", "--exercise", "Overhead Press (Barbell)", "--weight", "\(61 + logged % 20)", "--reps", "5"],
                db: db)
            if result.status != 0 {
                refused = result
                break
            }
            logged += 1
        }
        let refusal = try #require(refused, "a write was refused once the disk was full (\(logged) went in)")
        #expect(refusal.status == 1)
        #expect(refusal.stderr.split(separator: "\n").count == 1, "one line: \(refusal.stderr)")
        #expect(refusal.stderr.contains("the disk is full"), "\(refusal.stderr)")
        #expect(logged > 0, "sets went in while there was room")

        step = try await tmux.waitFor { $0.contains("disk full") && $0.contains("unsent") }
        #expect(step.ok, "the badge says the disk is full and what is unsent:\n\(step.screen)")
        #expect(!step.screen.contains("Synced"), "\(step.screen)")
        let status = try await SpotterBinary.run(["status"], db: db)
        #expect(status.status == 0, "status works on a full disk: \(status.stderr)")
        #expect(status.stdout.contains("the disk is full"), "\(status.stdout)")
        let sync = try await SpotterBinary.run(["sync", "--timeout", "20"], db: db)
        #expect(sync.status == 3, "sync says not all sent: \(sync.stdout) \(sync.stderr)")
        #expect(sync.stderr.contains("the disk is full"), "and why: \(sync.stderr)")
        #expect(sync.stderr.components(separatedBy: "the disk is full").count == 2, "once: \(sync.stderr)")

        // Room again: nothing is typed, nothing is run; the UI's engine sends it all.
        try FileManager.default.removeItem(atPath: filler)
        step = try await tmux.waitFor(timeout: 30) { $0.contains("Synced") }
        #expect(step.ok, "everything is sent once there is room, with no step of the user's:\n\(step.screen)")
        let counts = try await AccountTests.status(db: db)
        #expect(counts["pending"] as? Int == 0, "\(counts)")
        let local = try await AccountTests.localSetIDs(db: db)
        let remote = try await AccountTests.serverSetIDs(server, token: AccountTests.aliceToken)
        #expect(local.count == logged + 1, "every set logged is on the device")
        #expect(remote == local, "and on the server, each once")
        try tmux.press("q")
    }
}

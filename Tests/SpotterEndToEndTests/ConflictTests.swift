import Foundation
import Testing

/// Two devices of one user, the real binary against a real `spotter serve` on loopback: an edit
/// made offline earlier never silently replaces a later one, and whatever the merge overrode is
/// listed on the devices, where it can be taken back.
@Suite("Conflicts between two devices", .serialized, .enabled(if: SpotterBinary.exists, "build the binary first"))
struct ConflictTests {
    /// A device: its own database, signed in to `server` as alice.
    struct Device {
        let db: String
        let server: ServerProcess

        init(_ server: ServerProcess) {
            db = SpotterBinary.temporaryDatabase()
            self.server = server
        }

        @discardableResult
        func run(_ arguments: [String], expecting status: Int32 = 0) async throws -> SpotterBinary.Result {
            let result = try await SpotterBinary.run(
                arguments + ["--server", server.url, "--token", ServerProcess.token], db: db)
            #expect(result.status == status, "\(arguments): \(result.stdout) \(result.stderr)")
            return result
        }

        func sets() async throws -> [[String: Any]] {
            try SpotterBinary.json(try await run(["sets", "--json"]).stdout)["sets"] as? [[String: Any]] ?? []
        }

        func conflicts(all: Bool = false) async throws -> [[String: Any]] {
            let listed = try await run(["conflicts", "list", "--json"] + (all ? ["--all"] : []))
            return try SpotterBinary.json(listed.stdout)["conflicts"] as? [[String: Any]] ?? []
        }
    }

    static func startServer() async throws -> ServerProcess {
        let directory = URL(fileURLWithPath: SpotterBinary.temporaryDatabase()).deletingLastPathComponent()
        return try await offThePool { try ServerProcess(db: directory.appendingPathComponent("server.db").path) }
    }

    /// Two devices that both hold one set (100 kg × 5), synced; the set's id.
    static func twoDevicesWithOneSet(_ server: ServerProcess) async throws -> (Device, Device, String) {
        let phone = Device(server)
        let laptop = Device(server)
        let logged = try await phone.run(
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "100", "--reps", "5", "--new-workout", "Push"])
        let setID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        #expect(try await laptop.sets().map { $0["id"] as? String } == [setID])
        return (phone, laptop, setID)
    }

    /// The phone goes offline and sets 6 reps; a moment later the laptop sets 7 and syncs.
    static func phoneOfflineSixLaptopSeven(_ phone: Device, _ laptop: Device, _ setID: String) async throws {
        try await phone.run(["airplane", "on"])
        try await phone.run(["edit", setID, "--reps", "6"])
        try await Task.sleep(for: .milliseconds(20))
        try await laptop.run(["edit", setID, "--reps", "7"])
        try await laptop.run(["sync"])
    }

    @Test("an older offline edit does not replace a newer one: both end at 7 reps, and the phone lists the 6 it lost")
    func olderOfflineEditLoses() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)

        try await Self.phoneOfflineSixLaptopSeven(phone, laptop, setID)
        // The phone comes back.
        try await phone.run(["airplane", "off"])
        let synced = try await phone.run(["sync"])
        #expect(synced.stdout.contains("1 conflict (spotter conflicts)"), "\(synced.stdout)")
        #expect(synced.stdout.contains("reps 6 from this device was replaced by 7 from another device"))
        try await laptop.run(["sync"])

        for device in [phone, laptop] {
            #expect(try await device.sets().first?["reps"] as? Int == 7, "both devices end at the later edit")
        }
        let listed = try await phone.conflicts()
        #expect(listed.count == 1)
        let conflict = try #require(listed.first)
        #expect(conflict["field"] as? String == "reps")
        #expect(conflict["overridden"] as? Int == 6 && conflict["kept"] as? Int == 7)
        #expect(conflict["overridden_here"] as? Bool == true)
        #expect(conflict["entity_id"] as? String == setID)
        // The laptop hears of it too, as another device's value its edit replaced.
        let onLaptop = try #require(try await laptop.conflicts().first)
        #expect(onLaptop["overridden_here"] as? Bool == false)
        #expect(
            (onLaptop["sentence"] as? String)?.contains("reps 6 from another device was replaced by 7 from this device")
                == true)
        let status = try SpotterBinary.json(try await phone.run(["status", "--json"]).stdout)
        #expect(status["conflicts"] as? Int == 1)

        // Taking it back is a new edit: it syncs, and wins, on every device.
        let id = try #require(conflict["id"] as? String)
        let taken = try await phone.run(["conflicts", "take", String(id.suffix(12))])
        #expect(taken.stdout.contains("took back reps 6"), "\(taken.stdout)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            #expect(try await device.sets().first?["reps"] as? Int == 6, "the value taken back is everywhere")
        }
        #expect(try await phone.conflicts().isEmpty, "a conflict taken back is no longer open")
        #expect(try await phone.conflicts(all: true).first?["status"] as? String == "taken")
        // The laptop dismisses its copy.
        let dismissed = try await laptop.run(["conflicts", "dismiss", "--all"])
        #expect(dismissed.stdout.contains("dismissed"))
        #expect(try await laptop.conflicts().isEmpty)
    }

    @Test(
        "an offline edit followed by a later edit of another field keeps its own time: the laptop's reps in between win"
    )
    func aLaterEditOfAnotherFieldLendsNoTime() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        // Offline, the phone sets 6 reps; then the laptop sets 7 and syncs; then the phone adds a note.
        try await Self.phoneOfflineSixLaptopSeven(phone, laptop, setID)
        try await Task.sleep(for: .milliseconds(20))
        try await phone.run(["edit", setID, "--notes", "grinder"])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let set = try #require(try await device.sets().first)
            #expect(set["reps"] as? Int == 7, "the reps edited later (on the laptop) win: \(set)")
            #expect(set["notes"] as? String == "grinder", "the phone's note stands")
        }
        let listed = try await phone.conflicts()
        #expect(listed.map { $0["field"] as? String } == ["reps"], "\(listed)")
        #expect(listed.first?["overridden"] as? Int == 6)
    }

    @Test("undoing an edit another device's newer one replaced is refused, names the value, and changes nothing")
    func undoOfALostEditKeepsTheWinner() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        try await Self.phoneOfflineSixLaptopSeven(phone, laptop, setID)
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])

        let undo = try await phone.run(["undo"], expecting: 1)
        #expect(undo.stderr.contains("could not undo"), "\(undo.stderr)")
        #expect(undo.stderr.contains("reps is 7"), "\(undo.stderr)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            #expect(try await device.sets().first?["reps"] as? Int == 7, "the newer edit stays on every device")
        }
        // The next undo goes on to the action before it: the log. The set carries the laptop's
        // edit since, so it is not taken away with it: refused too, naming the value.
        let before = try await phone.run(["undo"], expecting: 1)
        #expect(before.stderr.contains("changed since it was logged: reps is 7"), "\(before.stderr)")
        #expect(try await phone.sets().count == 1)
    }

    @Test("undoing a log after another device edited the set keeps the set and its edit, on both devices")
    func undoOfALogAnotherDeviceEditedIsRefused() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        try await laptop.run(["edit", setID, "--reps", "7", "--notes", "laptop fixed this"])
        try await laptop.run(["sync"])
        let undo = try await phone.run(["undo"], expecting: 1)
        #expect(undo.stderr.contains("changed since it was logged"), "\(undo.stderr)")
        #expect(undo.stderr.contains("reps is 7"), "\(undo.stderr)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let set = try #require(try await device.sets().first, "the set is still there")
            #expect(set["notes"] as? String == "laptop fixed this")
        }
    }

    @Test(
        "the first set logged on a new device signed in by token is undone at once, before any sync, and never reaches the server"
    )
    func theFirstLogOfATokenDeviceIsUndone() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let phone = Device(server)
        let laptop = Device(server)
        try await phone.run(["log", "--exercise", "Deadlift (Barbell)", "--weight", "141", "--reps", "3"])
        let undo = try await phone.run(["undo"])
        #expect(undo.stdout.contains("undid: logged Deadlift (Barbell) 141 kg × 3"), "\(undo.stdout)")
        #expect(try await phone.sets().isEmpty)
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        #expect(try await laptop.sets().isEmpty, "the set taken back is nowhere")
    }

    @Test("undo hears the other device first: an edit it changed since is refused though nothing was pulled by hand")
    func undoPullsBeforeItDecides() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        try await phone.run(["edit", setID, "--weight", "105"])
        try await Task.sleep(for: .milliseconds(20))
        try await laptop.run(["edit", setID, "--weight", "110"])
        let undo = try await phone.run(["undo"], expecting: 1)
        #expect(undo.stderr.contains("weight is 110 kg"), "\(undo.stderr)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            #expect(try await device.sets().first?["weight"] as? Double == 110, "the newer edit stays")
        }
    }

    @Test("undoing the first set of a workout another device has logged into since keeps the workout and its set")
    func undoOfAFirstLogKeepsAWorkoutOthersUse() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        let workoutID = try #require(try await laptop.sets().first?["workout_id"] as? String)
        try await laptop.run(
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "80", "--reps", "5", "--workout", workoutID])
        let undo = try await phone.run(["undo"])
        #expect(undo.stdout.contains("undid: logged"), "\(undo.stdout)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let sets = try await device.sets()
            #expect(sets.map { $0["weight"] as? Double } == [80], "the other device's set stays: \(sets)")
            #expect(!sets.contains { $0["id"] as? String == setID }, "the undone set is gone")
        }
    }

    @Test("undoing a rename another device's newer rename replaced is refused: the newer name stays everywhere")
    func undoOfALostRenameKeepsTheWinner() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, _) = try await Self.twoDevicesWithOneSet(server)
        let workoutID = try #require(try await phone.sets().first?["workout_id"] as? String)
        try await phone.run(["airplane", "on"])
        try await phone.run(["workout", "rename", workoutID, "Phone name 🏋️‍♀️"])
        try await Task.sleep(for: .milliseconds(20))
        try await laptop.run(["workout", "rename", workoutID, "Laptop name"])
        try await laptop.run(["sync"])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])

        let undo = try await phone.run(["undo"], expecting: 1)
        #expect(undo.stderr.contains("name is 'Laptop name'"), "\(undo.stderr)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let listed = try SpotterBinary.json(try await device.run(["workouts", "--json"]).stdout)
            let names = (listed["workouts"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names == ["Laptop name"], "the newer name stays on every device")
        }
    }

    @Test("fields merge one by one: the phone's offline note and the laptop's later reps both survive, no conflict")
    func differentFieldsBothSurvive() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        try await phone.run(["airplane", "on"])
        try await phone.run(["edit", setID, "--notes", "paused at the bottom"])
        try await laptop.run(["edit", setID, "--reps", "8"])
        try await laptop.run(["sync"])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let set = try #require(try await device.sets().first)
            #expect(set["reps"] as? Int == 8)
            #expect(set["notes"] as? String == "paused at the bottom")
            #expect(try await device.conflicts().isEmpty)
        }
    }

    @Test("an edit of a set another device deleted: the delete wins, and the dropped edit is listed")
    func deleteWinsAndIsListed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        try await phone.run(["airplane", "on"])
        try await phone.run(["edit", setID, "--reps", "6"])
        try await laptop.run(["delete", setID])
        try await laptop.run(["sync"])
        try await phone.run(["airplane", "off"])
        // The phone's edit is answered 404 (the set is gone): nothing of it is left unsent.
        try await phone.run(["sync"])
        #expect(try await phone.sets().isEmpty, "the set is deleted on the phone too")
        let conflict = try #require(try await phone.conflicts().first)
        #expect(conflict["field"] as? String == "deleted")
        #expect((conflict["sentence"] as? String)?.contains("was dropped") == true, "\(conflict)")
        // Nothing to take back into: said, and nothing changes.
        let refused = try await phone.run(
            ["conflicts", "take", try #require(conflict["id"] as? String)], expecting: 1)
        #expect(refused.stderr.contains("deleted on another device"), "\(refused.stderr)")
    }

    @Test(
        "a delete that reaches the server after an edit it never saw: the set goes, and both devices list the edit it dropped"
    )
    func deleteAfterUnseenEditIsListed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        // The laptop sets 7 reps and syncs; the phone, offline since before, deletes the set.
        try await phone.run(["airplane", "on"])
        try await laptop.run(["edit", setID, "--reps", "7"])
        try await laptop.run(["sync"])
        try await phone.run(["delete", setID])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            #expect(try await device.sets().isEmpty, "the delete wins on every device")
        }
        let onLaptop = try #require(try await laptop.conflicts().first)
        #expect(onLaptop["field"] as? String == "deleted")
        #expect(onLaptop["entity_id"] as? String == setID)
        #expect(onLaptop["overridden_here"] as? Bool == true, "the laptop's own edit was dropped")
        #expect(
            (onLaptop["sentence"] as? String)?.contains("your edit (reps 7) from this device was dropped") == true,
            "\(onLaptop)")
        #expect((onLaptop["sentence"] as? String)?.contains("deleted on another device") == true, "\(onLaptop)")
        let onPhone = try #require(try await phone.conflicts().first)
        #expect((onPhone["sentence"] as? String)?.contains("deleted on this device") == true, "\(onPhone)")
    }

    @Test(
        "a workout deleted on a device that never saw a set logged into it elsewhere: the set is listed, not lost silently"
    )
    func workoutDeleteOverUnseenSetIsListed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, _) = try await Self.twoDevicesWithOneSet(server)
        let workoutID = try #require(try await laptop.sets().first?["workout_id"] as? String)
        try await phone.run(["airplane", "on"])
        // The laptop logs a second set into the workout and syncs; the phone never pulls it.
        let logged = try await laptop.run([
            "log", "--exercise", "Squat (Barbell)", "--weight", "140", "--reps", "3", "--workout", workoutID,
        ])
        let unseenID = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await laptop.run(["sync"])
        try await phone.run(["delete", "--workout", workoutID])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        let listed = try await laptop.conflicts()
        #expect(listed.map { $0["entity_id"] as? String } == [unseenID], "\(listed)")
        let sentence = try #require(listed.first?["sentence"] as? String)
        #expect(sentence.contains("Squat (Barbell) set"), "\(sentence)")
        #expect(
            sentence.contains(
                "the set (140 kg × 3) went with its workout, deleted on another device before it had seen"),
            "\(sentence)")
        // Taking it back logs it again, as it was, into the workout's restored copy, which syncs.
        let conflictID = try #require(listed.first?["id"] as? String)
        let taken = try await laptop.run(["conflicts", "take", conflictID])
        #expect(taken.stdout.contains("took back"), "\(taken.stdout)")
        try await laptop.run(["sync"])
        try await phone.run(["sync"])
        for device in [laptop, phone] {
            let sets = try await device.sets()
            #expect(
                sets.contains { $0["exercise"] as? String == "Squat (Barbell)" && $0["weight"] as? Double == 140 },
                "the set is back on every device: \(sets)")
            let workouts = try SpotterBinary.json(try await device.run(["workouts", "--json"]).stdout)
            let names = (workouts["workouts"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.contains { $0.hasSuffix("(restored)") }, "\(names)")
        }
        #expect(try await laptop.conflicts().isEmpty, "taken, no longer open")
        // The phone, which deleted the workout, lists the same set; taking it there too makes no
        // second copy: the copy and the set have ids derived from the deleted ones.
        let onPhone = try #require(try await phone.conflicts().first?["id"] as? String)
        try await phone.run(["conflicts", "take", onPhone])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [laptop, phone] {
            let sets = try await device.sets().filter { $0["weight"] as? Double == 140 }
            #expect(sets.count == 1, "one set back, not two: \(sets)")
            let workouts = try SpotterBinary.json(try await device.run(["workouts", "--json"]).stdout)
            let restored = (workouts["workouts"] as? [[String: Any]] ?? []).filter {
                ($0["name"] as? String)?.hasSuffix("(restored)") == true
            }
            #expect(restored.count == 1, "one restored copy: \(restored)")
        }
    }

    static func routine(_ device: Device) async throws -> [String: Any] {
        let listed = try SpotterBinary.json(try await device.run(["routine", "list", "--json"]).stdout)
        let routines = listed["routines"] as? [[String: Any]] ?? []
        return try #require(routines.first)
    }

    @Test("a routine edited on two offline devices merges row by row; the name both changed is a conflict")
    func routineMergesRowByRow() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let phone = Device(server)
        let laptop = Device(server)
        try await phone.run(["routine", "create", "Push A"])
        try await phone.run([
            "routine", "add", "Push A", "--exercise", "Squat (Barbell)", "--reps", "5", "--weight", "100",
        ])
        try await phone.run([
            "routine", "add", "Push A", "--exercise", "Bench Press (Barbell)", "--reps", "5", "--weight", "80",
        ])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        // Offline, the phone adds a lift and renames the routine; the laptop, later, drops the
        // squat and renames it too, and syncs first.
        try await phone.run(["airplane", "on"])
        try await phone.run([
            "routine", "add", "Push A", "--exercise", "Overhead Press (Barbell)", "--reps", "8", "--weight", "40",
        ])
        try await phone.run(["routine", "rename", "Push A", "Push light"])
        try await Task.sleep(for: .milliseconds(20))
        try await laptop.run(["routine", "remove", "Push A", "--exercise", "Squat (Barbell)"])
        try await laptop.run(["routine", "rename", "Push A", "Push heavy"])
        try await laptop.run(["sync"])
        try await phone.run(["airplane", "off"])
        try await phone.run(["sync"])
        try await laptop.run(["sync"])

        for device in [phone, laptop] {
            let routine = try await Self.routine(device)
            #expect(routine["name"] as? String == "Push heavy", "the later rename wins")
            let names = (routine["exercises"] as? [[String: Any]] ?? []).compactMap { $0["exercise"] as? String }
            #expect(
                names == ["Bench Press (Barbell)", "Overhead Press (Barbell)"],
                "the laptop's removal and the phone's addition both stand: \(names)")
        }
        let conflicts = try await phone.conflicts()
        #expect(conflicts.count == 1, "\(conflicts)")
        #expect(conflicts.first?["field"] as? String == "name")
        #expect(conflicts.first?["overridden"] as? String == "Push light")
        #expect(conflicts.first?["entity_type"] as? String == "routine")
    }

    @Test("spotter undo takes back the last set on this device and, after sync, on the server and the other device")
    func undoReachesTheServer() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let (phone, laptop, setID) = try await Self.twoDevicesWithOneSet(server)
        let second = try await phone.run(
            ["log", "--exercise", "Bench Press (Barbell)", "--weight", "105", "--reps", "3"])
        let secondID = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await phone.run(["sync"])
        let undone = try await phone.run(["undo"])
        #expect(undone.stdout.contains("undid: logged Bench Press (Barbell) 105 kg × 3"), "\(undone.stdout)")
        try await phone.run(["sync"])
        try await laptop.run(["sync"])
        for device in [phone, laptop] {
            let ids = try await device.sets().compactMap { $0["id"] as? String }
            #expect(ids == [setID], "the undone set is gone everywhere, the first stays: \(ids)")
            #expect(!ids.contains(secondID))
        }
    }
}

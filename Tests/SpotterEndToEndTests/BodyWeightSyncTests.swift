import Foundation
import Testing

/// Weigh-ins between devices: the real binary against a real `spotter serve` on loopback.
@Suite("Body weight across devices", .serialized, .enabled(if: SpotterBinary.exists, "build the binary first"))
struct BodyWeightSyncTests {
    /// A device's weigh-ins by id, as `spotter bodyweight --json` lists them.
    static func weighIns(_ fleet: Fleet, _ device: String) async throws -> [String: [String: Any]] {
        let listed = try await fleet.run(device, ["bodyweight", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try SpotterBinary.json(listed.stdout)["body_weights"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["id"] as? String).map { ($0, row) } })
    }

    @Test(
        "logged offline on the phone, its weight edited offline there and its note on the laptop: both edits stand everywhere, no conflict"
    )
    func offlineAndEditedOnAnotherDevice() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        #expect(try await fleet.run("phone", ["airplane", "on"]).status == 0)
        let logged = try await fleet.run("phone", ["bodyweight", "log", "81.4", "--notes", "morning 🌅"])
        #expect(logged.status == 0, "\(logged.stderr)")
        let id = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Offline: it is on the phone, pending, and nowhere else.
        #expect(try await Self.weighIns(fleet, "phone")[id]?["sync_state"] as? String == "pending")
        let bodyWeights = try await fleet.serverGet("/v1/body-weights")["body_weights"] as? [[String: Any]]
        #expect(bodyWeights?.isEmpty == true)

        #expect(try await fleet.run("phone", ["airplane", "off"]).status == 0)
        #expect(try await fleet.run("phone", ["sync"]).status == 0)
        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        #expect(try await Self.weighIns(fleet, "laptop")[id]?["weight"] as? Double == 81.4)

        // The phone goes offline and corrects the weight; the laptop changes the note and syncs.
        #expect(try await fleet.run("phone", ["airplane", "on"]).status == 0)
        #expect(try await fleet.run("phone", ["bodyweight", "edit", id, "--weight", "81.0"]).status == 0)
        #expect(try await fleet.run("laptop", ["bodyweight", "edit", id, "--notes", "fasted"]).status == 0)
        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        #expect(try await fleet.run("phone", ["airplane", "off"]).status == 0)
        let synced = try await fleet.run("phone", ["sync"])
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        for device in ["phone", "laptop"] {
            let row = try await Self.weighIns(fleet, device)[id]
            #expect(row?["weight"] as? Double == 81, "\(device): \(String(describing: row))")
            #expect(row?["notes"] as? String == "fasted", "\(device)")
            #expect(row?["sync_state"] as? String == "synced", "\(device)")
            let conflicts = try SpotterBinary.json(try await fleet.run(device, ["conflicts", "list", "--json"]).stdout)
            #expect((conflicts["conflicts"] as? [Any])?.isEmpty == true, "two fields, two edits: \(conflicts)")
        }

        // Deleted on the laptop: gone from the phone after its next sync.
        #expect(try await fleet.run("laptop", ["bodyweight", "delete", id]).status == 0)
        #expect(try await fleet.run("laptop", ["sync"]).status == 0)
        #expect(try await fleet.run("phone", ["sync"]).status == 0)
        #expect(try await Self.weighIns(fleet, "phone").isEmpty)
    }

    @Test(
        "a later edit's weight in the unit the device already had wins whole: never one device's number in another's unit"
    )
    func weightAndUnitStayOneReading() async throws {
        var fleet = try await Fleet.start()
        defer { fleet.server.stop() }
        let logged = try await fleet.run("a", ["bodyweight", "log", "180", "--unit", "lb"])
        let id = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        #expect(try await fleet.run("b", ["sync"]).status == 0)
        #expect(try await fleet.run("b", ["airplane", "on"]).status == 0)
        // A changes both; a moment later B, offline and still in lb, changes the weight only.
        #expect(try await fleet.run("a", ["bodyweight", "edit", id, "--weight", "90", "--unit", "kg"]).status == 0)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await fleet.run("b", ["bodyweight", "edit", id, "--weight", "200"]).status == 0)
        #expect(try await fleet.run("b", ["airplane", "off"]).status == 0)
        #expect(try await fleet.run("b", ["sync"]).status == 0)
        #expect(try await fleet.run("a", ["sync"]).status == 0)
        for device in ["a", "b"] {
            let row = try await Self.weighIns(fleet, device)[id]
            #expect(
                row?["weight"] as? Double == 200 && row?["unit"] as? String == "lb",
                "\(device): \(String(describing: row))")
        }
        let stored = try await fleet.serverGet("/v1/body-weights")["body_weights"] as? [[String: Any]] ?? []
        #expect(stored.first?["unit"] as? String == "lb", "\(stored)")
    }

    @Test(
        "a weigh-in whose replies were dropped after the server stored it is sent again under its key: one on the server"
    )
    func aDroppedReplyMakesNoDuplicate() async throws {
        var fleet = try await Fleet.start(extra: ["--chaos-drop", "1", "--chaos-seed", "7"])
        defer { fleet.server.stop() }
        let logged = try await fleet.run(
            "a", ["bodyweight", "log", "80.2"], environment: NoSilentLossTests.quickGiveUp)
        #expect(logged.status == 0, "\(logged.stderr)")
        let id = logged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let dropped = try await fleet.run("a", ["sync", "--timeout", "5"], environment: NoSilentLossTests.quickGiveUp)
        #expect(dropped.status != 0, "no answer came: \(dropped.stdout) \(dropped.stderr)")
        // The server has it already; the device does not know.
        let stored = try await fleet.serverGet("/v1/body-weights")["body_weights"] as? [[String: Any]] ?? []
        #expect(stored.map { $0["id"] as? String } == [id])
        #expect(try await Self.weighIns(fleet, "a")[id]?["sync_state"] as? String == "pending")

        try await fleet.restart()
        let back = try await fleet.run("a", ["sync", "--timeout", "30"], environment: NoSilentLossTests.quickGiveUp)
        #expect(back.status == 0, "\(back.stdout) \(back.stderr)")
        let after = try await fleet.serverGet("/v1/body-weights")["body_weights"] as? [[String: Any]] ?? []
        #expect(after.count == 1, "no duplicate: \(after)")
        #expect(try await Self.weighIns(fleet, "a")[id]?["sync_state"] as? String == "synced")
        #expect(try await fleet.run("b", ["sync"]).status == 0)
        #expect(try await Self.weighIns(fleet, "b").count == 1)
    }
}

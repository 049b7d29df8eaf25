import Foundation
import SpotterCore
import SpotterStore
import Testing

@testable import SpotterTUI

@Suite("C: the values another device's edit replaced, in the UI")
struct ConflictsViewTests {
    /// A conflict pulled from the feed: this device's 6 reps replaced by another device's 7.
    static func pullConflict(_ fixture: Fixture, setID: UUID, label: String) throws -> ConflictRecord {
        let device = try #require(try fixture.store.preferences.meta(MetaKey.deviceID))
        let at = fixture.clock.now()
        let ms = Int64(at.timeIntervalSince1970 * 1000)
        let record = ConflictRecord(
            id: UUID.timeOrdered(at: at), entityType: .set, entityID: setID, field: "reps", kept: .int(7),
            overridden: .int(6), keptStamp: ClockStamp(milliseconds: ms, device: "other-device"),
            overriddenStamp: ClockStamp(milliseconds: ms - 60_000, device: device), label: label, recordedAt: at)
        _ = try fixture.store.pull.mergePulled(
            [.conflict(record, ServerStamp(serverVersion: 9, updatedAt: nil))], cursor: "9")
        return record
    }

    @Test(
        "the header counts open conflicts; C lists each in a sentence; Enter takes the value back as an edit that syncs"
    )
    func takeBack() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Bench Press (Barbell)", 100, 7)
        _ = try Self.pullConflict(fixture, setID: logged.set.id, label: "Bench Press (Barbell) set in 'Push 💪🏽'")
        let sync = RecordingSync()
        let app = fixture.controller(columns: 120, rows: 30, sync: sync)
        #expect(app.screen.line(0).contains("1 conflict (C)"), "\(app.screen)")
        app.handle(.character("C"))
        let listed = app.screen
        #expect(listed.contains("Conflicts · 1 open"), "\(listed)")
        #expect(listed.contains("reps 6 from this device was replaced by 7 from another device"), "\(listed)")
        #expect(listed.contains("Push 💪"), "names are drawn in their terminal form")
        app.handle(.enter)
        #expect(try fixture.store.queries.sets(workoutID: logged.workout.id).first?.set.reps == 6)
        #expect(try fixture.store.conflicts.list().isEmpty, "taken back, it is no longer open")
        #expect(sync.calls.contains(.trigger(.enqueue)), "the edit goes to the engine")
        #expect(app.state.overlay == .none, "the list closes when nothing is left")
        #expect(!app.screen.line(0).contains("conflict"))
    }

    @Test("x dismisses the selected conflict and keeps the value that won; Esc closes the list")
    func dismiss() throws {
        let fixture = try Fixture()
        let logged = try fixture.log("Squat (Barbell)", 140, 7)
        _ = try Self.pullConflict(fixture, setID: logged.set.id, label: "Squat (Barbell) set")
        _ = try Self.pullConflict(fixture, setID: logged.set.id, label: "Squat (Barbell) set")
        let app = fixture.controller(columns: 100, rows: 30)
        app.handle(.character("C"))
        #expect(app.screen.contains("Conflicts · 2 open"))
        app.handle(.character("x"))
        #expect(try fixture.store.conflicts.list().count == 1)
        #expect(app.screen.contains("Conflicts · 1 open"))
        app.handle(.escape)
        #expect(app.state.overlay == .none)
        #expect(try fixture.store.queries.sets(workoutID: logged.workout.id).first?.set.reps == 7)
    }
}

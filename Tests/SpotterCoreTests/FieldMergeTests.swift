import Foundation
import Testing

@testable import SpotterCore

@Suite("The field merge: by when an edit was made, field by field, every overridden value named")
struct FieldMergeTests {
    let phone = "phone"
    let laptop = "laptop"

    func stamp(_ ms: Int64, _ device: String, counter: Int = 0) -> ClockStamp {
        ClockStamp(milliseconds: ms, counter: counter, device: device)
    }

    /// Every combination for one field: the edit sends it or not; the other side changed it since
    /// the base or not (or never: no clock); the edit's stamp is earlier, equal or later; the two
    /// values differ or not.
    @Test("every combination of base, local and remote change for one field")
    func everyCombination() {
        enum Other: CaseIterable { case never, beforeBase, sinceBase }
        enum When: CaseIterable { case earlier, same, later }
        for other in Other.allCases {
            for when in When.allCases {
                for sameValue in [false, true] {
                    let storedClock: FieldClock? =
                        switch other {
                        case .never: nil
                        case .beforeBase: FieldClock(stamp: stamp(1000, laptop), version: 3)
                        case .sinceBase: FieldClock(stamp: stamp(1000, laptop), version: 7)
                        }
                    let editStamp =
                        switch when {
                        case .earlier: stamp(900, phone)
                        case .same: stamp(1000, phone)
                        case .later: stamp(1100, phone)
                        }
                    let stored: JSONValue = .int(7)
                    let incoming: JSONValue = sameValue ? .int(7) : .int(6)
                    let outcome = FieldMerge.decide(
                        incoming: incoming, stamp: editStamp, baseVersion: 5, stored: stored, storedClock: storedClock)
                    let label = "\(other) \(when) same=\(sameValue)"
                    if sameValue {
                        #expect(outcome == .unchanged, "\(label)")
                    } else if other != .sinceBase {
                        #expect(outcome == .applied, "\(label): only this side changed it since the base")
                    } else if editStamp > storedClock!.stamp {
                        #expect(outcome == .appliedOverriding(stored: stored, storedClock: storedClock!), "\(label)")
                    } else {
                        #expect(outcome == .keptStored(stored: stored, storedClock: storedClock!), "\(label)")
                    }
                }
            }
        }
    }

    /// A device renames a workout, and renames it again before the first rename's answer came
    /// back: the second is based on the version before the first. Its own earlier value is
    /// replaced on purpose — no conflict. Another device's value, or one a plain HTTP client
    /// wrote (stamped by the server), is still a conflict.
    @Test("a device's later edit over its own earlier one, sent before the first was answered, is no conflict")
    func aDevicesOwnEarlierEditIsNoConflict() {
        let own = FieldClock(stamp: stamp(1000, phone), version: 7)
        #expect(
            FieldMerge.decide(
                incoming: .string("B"), stamp: stamp(1100, phone), baseVersion: 5, stored: .string("A"),
                storedClock: own)
                == .applied)
        // Its own later value stays over an earlier one that arrives later still.
        #expect(
            FieldMerge.decide(
                incoming: .string("A"), stamp: stamp(900, phone), baseVersion: 5, stored: .string("B"), storedClock: own
            )
                == .keptStored(stored: .string("B"), storedClock: own))
        let other = FieldClock(stamp: stamp(1000, laptop), version: 7)
        #expect(
            FieldMerge.decide(
                incoming: .string("B"), stamp: stamp(1100, phone), baseVersion: 5, stored: .string("A"),
                storedClock: other) == .appliedOverriding(stored: .string("A"), storedClock: other))
        let server = ClockStamp.serverDevice
        let plain = FieldClock(stamp: stamp(1000, server), version: 7)
        #expect(
            FieldMerge.decide(
                incoming: .string("B"), stamp: stamp(1100, server), baseVersion: nil, stored: .string("A"),
                storedClock: plain) == .appliedOverriding(stored: .string("A"), storedClock: plain))
    }

    @Test("equal milliseconds: the counter, then the device id breaks the tie, the same on every device")
    func ties() {
        #expect(stamp(1000, "a", counter: 1) > stamp(1000, "b", counter: 0))
        #expect(stamp(1000, "b") > stamp(1000, "a"))
        let clock = FieldClock(stamp: stamp(1000, "b"), version: 9)
        let outcome = FieldMerge.decide(
            incoming: .int(6), stamp: stamp(1000, "a"), baseVersion: 5, stored: .int(7), storedClock: clock)
        #expect(outcome == .keptStored(stored: .int(7), storedClock: clock), "device b's stamp sorts later")
    }

    @Test("the lost-edit case: an offline edit made earlier loses to a later one, and is named as overridden")
    func offlineEditLoses() {
        // The laptop set reps 7 at 10:05 (stored, version 8); the phone had set 6 offline at 10:04,
        // based on version 5, and only now syncs.
        let result = FieldMerge.merge(
            patch: ["reps": .int(6), "notes": .string("felt heavy")], stamp: stamp(1_000_000, phone), baseVersion: 5,
            stored: ["reps": .int(7), "notes": .null, "weight": .double(100)],
            clocks: ["reps": FieldClock(stamp: stamp(1_060_000, laptop), version: 8)])
        #expect(result.writes == ["notes": .string("felt heavy")], "the phone's other field is kept")
        #expect(
            result.conflicts == [
                FieldMerge.FieldConflict(
                    field: "reps", kept: .int(7), overridden: .int(6), keptStamp: stamp(1_060_000, laptop),
                    overriddenStamp: stamp(1_000_000, phone))
            ])
    }

    @Test("an edit that saw the other write (its base is newer) changes it on purpose, whatever its clock says")
    func causalEditWins() {
        let clock = FieldClock(stamp: stamp(5_000, laptop), version: 8)
        let outcome = FieldMerge.decide(
            incoming: .int(8), stamp: stamp(1_000, phone), baseVersion: 8, stored: .int(7), storedClock: clock)
        #expect(outcome == .applied)
    }

    @Test("a device clock hours ahead is held to the server's time plus a minute: it cannot win forever")
    func clockAheadIsClamped() {
        let serverNow = Date(timeIntervalSince1970: 1_790_000_000)
        let ahead = ClockStamp.next(after: nil, now: serverNow.addingTimeInterval(5 * 3600), device: phone)
        let clamped = ahead.clamped(serverNow: serverNow)
        #expect(clamped.milliseconds == Int64((serverNow.timeIntervalSince1970 + ClockStamp.maxLead) * 1000))
        // An honest edit made two minutes later on the laptop wins over the clamped one.
        let later = ClockStamp.next(after: nil, now: serverNow.addingTimeInterval(120), device: laptop)
        #expect(later > clamped)
        // A stamp within the bound is kept as it is.
        let slightlyAhead = ClockStamp.next(after: nil, now: serverNow.addingTimeInterval(10), device: phone)
        #expect(slightlyAhead.clamped(serverNow: serverNow) == slightlyAhead)
    }

    @Test("a device's stamps only grow, even when its clock steps back")
    func monotonic() {
        let first = ClockStamp.next(after: nil, now: Date(timeIntervalSince1970: 100), device: phone)
        let back = ClockStamp.next(after: first, now: Date(timeIntervalSince1970: 50), device: phone)
        #expect(back > first)
        #expect(back.milliseconds == first.milliseconds && back.counter == 1)
        let same = ClockStamp.next(after: back, now: Date(timeIntervalSince1970: 100), device: phone)
        #expect(same > back)
    }

    @Test("the text form sorts as the stamp does and reads back; anything else is refused")
    func textForm() throws {
        let stamps = [stamp(5, "b"), stamp(1_790_000_000_000, "a", counter: 300), stamp(5, "a", counter: 2)]
        for value in stamps { #expect(ClockStamp(value.description) == value) }
        #expect(stamps.sorted().map(\.description) == stamps.map(\.description).sorted())
        for bad in [
            "", "12-0000-a", "0000000000005-zz-a", "0000000000005-0000-", "0000000000000-0001-",
            "0000000000005-0000-a b",
            "0000000000005-0000-\u{202E}x",
        ] {
            #expect(ClockStamp(bad) == nil, "\(bad)")
            #expect(ClockStamp(recorded: bad) == nil, "\(bad)")
        }
        // No edit carries the origin; a conflict over a value never edited since its create
        // records it, and what a conflict records reads back.
        #expect(ClockStamp(ClockStamp.origin.description) == nil)
        #expect(ClockStamp(recorded: ClockStamp.origin.description) == .origin)
        for value in stamps { #expect(ClockStamp(recorded: value.description) == value) }
    }
}

@Suite("A routine's plan merges row by row, field by field")
struct RoutineMergeTests {
    let early = ClockStamp(milliseconds: 1000, device: "phone")
    let late = ClockStamp(milliseconds: 2000, device: "laptop")

    func exercise(_ name: String, reps: [Int], notes: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "exercise": .string(name), "unit": .string("kg"),
            "sets": .array(reps.map { .object(["kind": .string("normal"), "reps": .int(Int64($0))]) }),
        ]
        if let notes { fields["notes"] = .string(notes) }
        return .object(fields)
    }

    @Test("rows changed on one side each keep their change: one device adds a lift, the other removes one")
    func disjointRowEdits() {
        let base: JSONValue = .array([exercise("Squat", reps: [5, 5]), exercise("Bench", reps: [5])])
        let local: JSONValue = .array([
            exercise("Squat", reps: [5, 5]), exercise("Bench", reps: [5]), exercise("Row", reps: [8]),
        ])
        let remote: JSONValue = .array([exercise("Bench", reps: [5])])
        let result = RoutineMerge.merge(base: base, local: local, remote: remote, localStamp: early, remoteStamp: late)
        #expect(result.exercises == .array([exercise("Bench", reps: [5]), exercise("Row", reps: [8])]))
        #expect(result.conflicts.isEmpty)
    }

    @Test(
        "the same planned set's reps changed on both: the later stamp keeps its value, the other is a conflict by path")
    func sameFieldBothSides() {
        let base: JSONValue = .array([exercise("Squat", reps: [5, 5])])
        let local: JSONValue = .array([exercise("Squat", reps: [5, 3], notes: "pause")])
        let remote: JSONValue = .array([exercise("Squat", reps: [5, 8])])
        let result = RoutineMerge.merge(base: base, local: local, remote: remote, localStamp: early, remoteStamp: late)
        #expect(result.exercises == .array([exercise("Squat", reps: [5, 8], notes: "pause")]))
        #expect(result.conflicts.count == 1)
        let conflict = result.conflicts[0]
        #expect(conflict.field == "exercises/Squat/sets/1/reps")
        #expect(conflict.kept == .int(8) && conflict.overridden == .int(3))
        #expect(conflict.keptStamp == late)
        #expect(RoutineMerge.readable(conflict.field) == "Squat set 2 reps")
        // Taken back, the value goes where the path says.
        #expect(
            RoutineMerge.setting(conflict.field, to: conflict.overridden, in: result.exercises)
                == .array([exercise("Squat", reps: [5, 3], notes: "pause")]))
        // With the stamps the other way round, the other value wins.
        let flipped = RoutineMerge.merge(base: base, local: local, remote: remote, localStamp: late, remoteStamp: early)
        #expect(flipped.exercises == .array([exercise("Squat", reps: [5, 3], notes: "pause")]))
    }

    @Test("a row removed on one side and changed on the other is removed, and the change is the conflict")
    func removalWinsOverEdit() {
        let base: JSONValue = .array([exercise("Squat", reps: [5]), exercise("Bench", reps: [5])])
        let local: JSONValue = .array([exercise("Squat", reps: [5]), exercise("Bench", reps: [6])])
        let remote: JSONValue = .array([exercise("Squat", reps: [5])])
        let result = RoutineMerge.merge(base: base, local: local, remote: remote, localStamp: late, remoteStamp: early)
        #expect(result.exercises == .array([exercise("Squat", reps: [5])]))
        #expect(result.conflicts.count == 1)
        #expect(result.conflicts[0].field == "exercises/Bench")
        #expect(result.conflicts[0].kept == .null && result.conflicts[0].overridden == exercise("Bench", reps: [6]))
        #expect(RoutineMerge.setting("exercises/Bench/sets/0/reps", to: .int(6), in: result.exercises) == nil)
    }
}

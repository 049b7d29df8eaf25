import Foundation
import SpotterCore
import Testing

@Suite("Coalescing rules")
struct CoalescingTests {
    func queued(
        _ kind: OperationKind, attempts: Int = 0, state: OperationState = .pending, payload: [String: JSONValue] = [:]
    )
        -> QueuedOperation
    {
        QueuedOperation(
            opID: "op1", kind: kind, state: state, attemptCount: attempts, payload: payload, before: ["reps": .int(5)])
    }

    @Test func createThenUpdateIsOneCreateWithFinalFields() {
        let decision = Coalescing.decide(
            existing: queued(.create, payload: ["reps": .int(5), "weight": .double(100)]), kind: .update,
            payload: ["reps": .int(6)], before: ["reps": .int(5)])
        // The before-image names the field edited after the create (for a create the server turns
        // out to have already: that edit still goes out as an update).
        #expect(
            decision
                == .rewrite(
                    kind: .create, payload: ["reps": .int(6), "weight": .double(100)], before: ["reps": .int(5)]))
    }

    @Test func updateThenUpdateMergesLaterWinsAndKeepsOldestBefore() {
        let decision = Coalescing.decide(
            existing: queued(.update, payload: ["reps": .int(6)]), kind: .update,
            payload: ["reps": .int(7), "rpe": .double(8)], before: ["reps": .int(6), "rpe": .null])
        #expect(
            decision
                == .rewrite(
                    kind: .update, payload: ["reps": .int(7), "rpe": .double(8)],
                    before: ["reps": .int(5), "rpe": .null]))
    }

    @Test(
        "an edit that leaves a field of the queued update out is its own update: one stamp never covers an older edit")
    func updateOfOtherFieldsIsAppended() {
        let decision = Coalescing.decide(
            existing: queued(.update, payload: ["reps": .int(6)]), kind: .update, payload: ["notes": .string("slow")],
            before: ["notes": .null])
        #expect(decision == .append(dependsOn: "op1"))
    }

    @Test func createThenDeleteCancels() {
        #expect(Coalescing.decide(existing: queued(.create), kind: .delete, payload: [:], before: [:]) == .cancel)
        // An imported row's id comes from its content: both go out, so the server keeps a tombstone
        // that answers the same file imported on another device.
        #expect(
            Coalescing.decide(
                existing: queued(.create), kind: .delete, payload: [:], before: [:], contentDerivedID: true)
                == .append(dependsOn: "op1"))
    }

    @Test func updateThenDeleteIsOneDelete() {
        let decision = Coalescing.decide(
            existing: queued(.update), kind: .delete, payload: [:], before: ["deleted_at": .null])
        #expect(decision == .rewrite(kind: .delete, payload: [:], before: ["reps": .int(5), "deleted_at": .null]))
    }

    @Test func aSentOperationIsNeverRewritten() {
        for kind in [OperationKind.create, .update] {
            let sent = queued(kind, attempts: 1, state: .failedTransient)
            #expect(
                Coalescing.decide(existing: sent, kind: .update, payload: ["reps": .int(1)], before: [:])
                    == .append(dependsOn: "op1"))
            #expect(
                Coalescing.decide(existing: sent, kind: .delete, payload: [:], before: [:]) == .append(dependsOn: "op1")
            )
        }
        let inFlight = queued(.create, attempts: 0, state: .inFlight)
        #expect(
            Coalescing.decide(existing: inFlight, kind: .update, payload: [:], before: [:]) == .append(dependsOn: "op1")
        )
    }

    @Test func deleteThenAnythingAppends() {
        #expect(
            Coalescing.decide(existing: queued(.delete), kind: .update, payload: [:], before: [:])
                == .append(dependsOn: "op1"))
    }
}

@Suite("Retry policy and classification")
struct RetryTests {
    @Test func backoffDoublesFromOneSecondAndCapsAtSixty() {
        let policy = RetryPolicy()
        let delays = (1...9).map { policy.delay(afterAttempt: $0, unitRandom: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    }

    @Test func jitterStaysWithinThirtyPercent() {
        let policy = RetryPolicy()
        #expect(abs(policy.delay(afterAttempt: 4, unitRandom: 0) - 8 * 0.7) < 1e-9)
        #expect(abs(policy.delay(afterAttempt: 4, unitRandom: 0.999_999) - 8 * 1.3) < 1e-4)
    }

    @Test func givesUpAfterTwentyAttemptsOrSevenDays() {
        let policy = RetryPolicy()
        let start = Date(timeIntervalSince1970: 0)
        #expect(!policy.shouldGiveUp(attempts: 19, createdAt: start, now: start))
        #expect(policy.shouldGiveUp(attempts: 20, createdAt: start, now: start))
        #expect(!policy.shouldGiveUp(attempts: 1, createdAt: start, now: start.addingTimeInterval(6.9 * 86400)))
        #expect(policy.shouldGiveUp(attempts: 1, createdAt: start, now: start.addingTimeInterval(7 * 86400)))
    }

    @Test func retryAfterTakesSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.parse("2", now: now) == 2)
        #expect(RetryAfter.parse("Tue, 14 Nov 2023 22:13:30 GMT", now: now) == 10)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        // A server (or a proxy) asking for an hour, or for 2^63 seconds, is taken for five minutes.
        #expect(RetryAfter.parse("3600", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("9223372036854775807", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.longest)
    }

    @Test(arguments: [
        (200, OperationKind.create, false, ResultClass.success),
        (201, .create, false, .success),
        (204, .delete, false, .success),
        (404, .delete, false, .success),
        (410, .delete, false, .success),
        (409, .create, true, .transient(.keyInUse)),
        (401, .update, false, .transient(.unauthorized)),
        (408, .update, false, .transient(.requestTimeout)),
        (425, .update, false, .transient(.serverError)),
        (429, .update, false, .transient(.rateLimited)),
        (500, .create, false, .transient(.serverError)),
        (503, .create, false, .transient(.serverError)),
        (400, .create, false, .permanent),
        (403, .create, false, .permanent),
        (404, .update, false, .permanent),
        (409, .create, false, .permanent),
        (413, .create, false, .permanent),
        (422, .create, false, .permanent),
    ])
    func classification(status: Int, kind: OperationKind, keyInUse: Bool, expected: ResultClass) {
        #expect(ResultClassifier.classify(status: status, kind: kind, keyInUse: keyInUse) == expected)
    }
}

@Suite("Validation and canonical JSON")
struct ValidationTests {
    @Test func lengthsAreCountedInCodePoints() {
        #expect(throws: ValidationError.self) {
            try Validation.exercise("e" + String(repeating: "\u{0301}", count: 200))
        }
        #expect(throws: ValidationError.self) { try Validation.workoutName(String(repeating: "🏋️‍♂️", count: 50)) }
        #expect(throws: Never.self) { try Validation.exercise("Bench Press (Barbell)") }
    }

    /// A name of only invisible characters looks empty in every list: refused, on the device and
    /// on the server (one rule). What draws something, however odd, stays allowed.
    @Test func aNameOfOnlyInvisibleCharactersIsRefused() {
        // A mark with no letter to sit on is drawn on nothing (the lists leave it out), and a
        // Hangul filler is blank by design.
        for invisible in [
            "\u{200C}\u{200D}", "\u{FFFF}\u{FFFE}", "\u{2060}\u{FE0F}", "\u{200B} \u{00A0}", "\u{E0001}", "\u{0301}",
            "\u{0301}\u{0308}", "\u{3164}", "\u{115F}\u{1160}",
        ] {
            #expect(throws: ValidationError.self, "\(invisible.unicodeScalars.map(\.value))") {
                try Validation.workoutName(invisible)
            }
            #expect(throws: ValidationError.self) { try Validation.exercise(invisible) }
        }
        for shown in ["Push 💪🏽", "e\u{0301}", "\u{0301}x", "👨‍👩‍👧", "مرحبا", "Ｂench", "·"] {
            #expect(throws: Never.self, "\(shown)") { try Validation.workoutName(shown) }
        }
    }

    @Test func rulesNameTheField() {
        #expect(throws: ValidationError(field: "weight", message: "must be 0 or more")) {
            try Validation.weight(-1, unit: .kg)
        }
        #expect(throws: ValidationError.self) { try Validation.weight(2001, unit: .kg) }
        #expect(throws: Never.self) { try Validation.weight(4400, unit: .lb) }
        #expect(throws: ValidationError.self) { try Validation.reps(1001) }
        #expect(throws: ValidationError.self) { try Validation.rpe(8.3) }
        #expect(throws: Never.self) { try Validation.rpe(8.5) }
        #expect(throws: ValidationError.self) { try Validation.exercise(" ") }
        #expect(throws: ValidationError.self) { try Validation.exercise(String(repeating: "x", count: 101)) }
    }

    @Test func canonicalJSONIgnoresKeyOrderAndWhitespace() throws {
        let a = try #require(JSONValue.parse(#"{"b": 1, "a": {"y": [1, 2.5, "x"], "x": null}}"#))
        let b = try #require(JSONValue.parse(#"{"a":{"x":null,"y":[1,2.5,"x"]},"b":1.0}"#))
        #expect(a.canonicalString == b.canonicalString)
        #expect(a.canonicalString == #"{"a":{"x":null,"y":[1,2.5,"x"]},"b":1}"#)
    }

    @Test func epleyEstimatesOneRepMax() {
        #expect(OneRepMax.epley(weight: 100, reps: 1) == 100)
        #expect(OneRepMax.epley(weight: 100, reps: 5)! > 116.6)
        #expect(OneRepMax.epley(weight: 100, reps: 0) == nil)
    }
}

@Suite("Classification of a taken id")
struct TakenIDClassificationTests {
    @Test func aCreateWhoseIdIsTakenIsFulfilledButAnEditConflictIsNot() {
        #expect(ResultClassifier.classify(status: 409, kind: .create, idTaken: true) == .success)
        #expect(ResultClassifier.classify(status: 409, kind: .create) == .permanent)
        #expect(ResultClassifier.classify(status: 409, kind: .update, idTaken: true) == .permanent)
    }
}

@Suite("Text the client and the server both refuse")
struct PlainTextTests {
    /// The client refuses what the server would (a tab in an exercise name used to be logged,
    /// then failed for good at sync); free text keeps tabs and line breaks.
    @Test func controlCharactersAreRefusedOnOneLineAndInFreeTextAlike() {
        #expect(
            throws: ValidationError(field: "exercise", message: "must not contain control characters (found U+0009)")
        ) {
            try Validation.exercise("Tab\there")
        }
        #expect(throws: ValidationError.self) { try Validation.workoutName("x\u{07}y") }
        #expect(throws: ValidationError.self) { try Validation.notes("a\u{1B}[31mred") }
        #expect(throws: ValidationError.self) { try Validation.notes("a\u{85}b") }
        #expect(throws: Never.self) { try Validation.notes("line 1\nline 2\tindented\n") }
        #expect(throws: Never.self) { try Validation.exercise("Squat (Barbell) — pause") }
    }

    /// A carriage return sent to a terminal goes back to the start of the row and overwrites it:
    /// no field keeps one, notes neither (they keep tabs and line feeds).
    @Test func carriageReturnIsRefusedInNotesToo() {
        #expect(
            throws: ValidationError(field: "notes", message: "must not contain control characters (found U+000D)")
        ) {
            try Validation.notes("line 1\r\nline 2")
        }
        #expect(
            throws: ValidationError(field: "notes", message: "must not contain control characters (found U+000D)")
        ) {
            try Validation.notes("fake\rreal")
        }
        #expect(
            throws: ValidationError(field: "name", message: "must not contain control characters (found U+000D)")
        ) {
            try Validation.workoutName("Push\rDay")
        }
        #expect(throws: ValidationError.self) { try Validation.exercise("Bench\rPress") }
        var workout = Workout(name: "Push", startedAt: Date(timeIntervalSince1970: 0))
        workout.notes = "a\rb"
        #expect(throws: ValidationError.self) { try Validation.workout(workout) }
    }

    @Test("an import cleans carriage returns: a CR LF in notes becomes a line feed, one in a name a space")
    func importCleansCarriageReturns() throws {
        let text =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
            + "2026-04-08 16:50:00,\"Push\rDay\",Bench Press (Barbell),1,100,5,0,0,\"one\r\ntwo\rthree\",,\n"
            + "2026-04-08 16:50:00,Push Day,Bench Press (Barbell),2,100,5,0,0,,,\n"
        let parsed = try ImportParser.parse(text, timeZone: TimeZone(identifier: "UTC")!)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.sets.count == 2)
        #expect(parsed.cleanedLines == [2], "the row it had to clean is told")
        #expect(parsed.sets[0].workoutName == "Push Day")
        #expect(parsed.sets[0].notes == "one\ntwo\nthree")
        for set in parsed.sets {
            #expect(Validation.controlCharacter(in: set.notes ?? "", singleLine: false) == nil)
            #expect(Validation.controlCharacter(in: set.workoutName, singleLine: true) == nil)
        }
    }

    @Test func freeTextKeepsTabsAndLineFeeds() {
        #expect(throws: Never.self) { try Validation.notes("line 1\n\tindented") }
        #expect(throws: Never.self) { try Validation.exercise("Squat (Barbell) — pause") }
    }

    @Test("bidi overrides and isolates are refused in names and notes alike, naming the field")
    func bidiControls() {
        #expect(
            throws: ValidationError(field: "name", message: "must not contain control characters (found U+202E)")
        ) {
            try Validation.workoutName("\u{200B}\u{202E}")
        }
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] {
            let text = "Push \(Character(Unicode.Scalar(scalar)!)) day"
            #expect(throws: ValidationError.self) { try Validation.workoutName(text) }
            #expect(throws: ValidationError.self) { try Validation.exercise(text) }
            #expect(throws: ValidationError.self) { try Validation.notes(text) }
        }
        // Right-to-left text itself, and the marks that only hint direction, are names like any other.
        #expect(throws: Never.self) { try Validation.workoutName("אימון רגליים") }
        #expect(throws: Never.self) { try Validation.workoutName("تمرين \u{200F}صباحي") }
        #expect(throws: Never.self) { try Validation.workoutName("Morning workout ☀️ 💪🏽 👨‍👩‍👧 🇺🇸") }
    }
}

@Suite("Ids as the wire writes them")
struct WireIDTests {
    /// The id reader agrees with Foundation on every shape it accepts, and refuses what Foundation
    /// reads loosely.
    @Test func wireIdsAgreeWithFoundation() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.wireString == id.uuidString.lowercased())
            #expect(UUID(wire: id.wireString) == id)
            #expect(UUID(wire: id.uuidString) == id)
        }
        for text in [
            "", "123", "6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f1", "6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f111",
            "6f1c3a52x0d5e-4e8a-9a51-2b7c1d0e9f11", "6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9g11",
            "{6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11}",
        ] {
            #expect(UUID(wire: text) == nil, "\(text)")
            #expect(UUID(uuidString: text) == nil, "Foundation agrees: \(text)")
        }
        // Texts Foundation reads as an id and the wire does not: each would come back written
        // differently, so a row stored under it would never be found again by its id.
        for text in [
            "0x1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11", "-f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11",
            "6f c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11", "6f1c3a52-0d5e-4e8a-9a51-2b7c1d0e9f11\u{0}",
        ] {
            #expect(UUID(wire: text) == nil, "\(text.debugDescription)")
            if let lax = UUID(uuidString: text) {
                #expect(lax.wireString != text.lowercased(), "Foundation's reading is another text")
            }
        }
    }

    @Test func newIdsAreVersion7UUIDsThatSortByTheTimeTheyWereMade() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var ids: [UUID] = []
        for step in 0..<500 { ids.append(UUID.timeOrdered(at: start.addingTimeInterval(Double(step) * 0.002))) }
        for id in ids {
            let text = id.wireString
            #expect(UUID(uuidString: text) == id, "a UUID Foundation reads: \(text)")
            #expect(Array(text)[14] == "7", "version 7: \(text)")
            #expect("89ab".contains(Array(text)[19]), "RFC 9562 variant: \(text)")
        }
        // The first 48 bits are the milliseconds: 1795000000000 is 0x01a1ee565e00.
        #expect(ids[0].wireString.hasPrefix("01a1ee56-5e00-7"))
        #expect(ids.map(\.wireString) == ids.map(\.wireString).sorted(), "later ids sort after earlier ones")
        // 74 random bits: ids made in the same millisecond differ.
        let sameInstant = (0..<10_000).map { _ in UUID.timeOrdered(at: start) }
        #expect(Set(sameInstant).count == sameInstant.count)
    }
}

@Suite("Weights named in text follow the unit the lifter chose")
struct WeightsInTextTests {
    @Test("a routine's reason in lb mode names pounds; nothing else in the text changes")
    func reasonsInTheDisplayUnit() {
        #expect(
            Formatting.weights(in: "+2.5 kg: all 3×5 done on Mon 16 Nov", shownIn: .lb)
                == "+5.51 lb: all 3×5 done on Mon 16 Nov")
        #expect(
            Formatting.weights(in: "same weight: 3×5 at 100 kg not all done", shownIn: .lb)
                == "same weight: 3×5 at 220.46 lb not all done")
        #expect(Formatting.weights(in: "+5 lb, back to 8 reps", shownIn: .kg) == "+2.27 kg, back to 8 reps")
        #expect(Formatting.weights(in: "+2.5 kg", shownIn: nil) == "+2.5 kg")
        #expect(Formatting.weights(in: "+2.5 kg", shownIn: .kg) == "+2.5 kg")
        #expect(Formatting.weights(in: "5 kgs of chalk", shownIn: .lb) == "5 kgs of chalk", "only a whole unit word")
    }
}

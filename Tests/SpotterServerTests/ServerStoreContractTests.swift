import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The `ServerStore` contract, asserted word for word on every backend: whatever the routes and
/// the batch code rely on, SQLite and PostgreSQL must both do, so the two cannot drift apart.
@Suite("Server store contract (SQLite and PostgreSQL)")
struct ServerStoreContractTests {
    static let day: TimeInterval = 24 * 3600
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// A fresh store of `backend` for one test, closed and removed afterwards.
    private func withStore(
        _ backend: StoreBackend, _ body: (any ServerStore) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDirectory()
        let url = try await backend.freshLocation(in: directory)
        let store = try await StoreBackend.openStore(
            path: directory.appendingPathComponent("server.db").path, url: url)
        do {
            try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    private func scope(_ key: String, user: String = "alice", path: String = Route.sets) -> IdempotencyScope {
        IdempotencyScope(user: user, method: "POST", path: path, key: key)
    }

    private func claim(
        _ store: any ServerStore, _ scope: IdempotencyScope, fingerprint: String = "f1", at now: Date
    ) async throws -> IdempotencyClaim {
        try await store.claimIdempotencyKey(
            scope, fingerprint: fingerprint, now: now, expiresAfter: 8 * Self.day, staleAfter: 30)
    }

    private func token(_ claim: IdempotencyClaim) throws -> String {
        guard case .claimed(let token) = claim else { throw TestFailure("expected a claim, got \(claim)") }
        return token
    }

    private func workout(_ name: String = "Push", at date: Date) -> WireWorkout {
        WireWorkout(id: UUID(), name: name, startedAt: date)
    }

    private func set(workout: UUID, position: Int, at date: Date) -> WireSet {
        WireSet(
            id: UUID(), workoutID: workout, exercise: "Bench Press (Barbell)", position: position, kind: .normal,
            weight: 100, unit: .kg, reps: 5, performedAt: date)
    }

    @Test(
        "a claim is in progress for everyone else until completed, then replays; another body is refused",
        arguments: StoreBackend.available)
    func claimLifecycle(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let key = scope("k")
            let held = try token(try await claim(store, key, at: start))
            #expect(try await claim(store, key, at: start.addingTimeInterval(1)) == .inProgress)
            #expect(try await claim(store, key, fingerprint: "other", at: start) == .fingerprintMismatch)
            let answer = StoredResponse(status: 201, contentType: "application/json", body: Data("{\"a\":1}".utf8))
            try await store.write { tx in try await tx.completeIdempotencyRecord(key, token: held, response: answer) }
            #expect(try await claim(store, key, at: start.addingTimeInterval(2)) == .completed(answer))
            #expect(try await claim(store, key, fingerprint: "other", at: start) == .fingerprintMismatch)
            let record = try await store.idempotencyRecord(key)
            #expect(record?.isCompleted == true)
            #expect(record?.response == answer)
            #expect(record?.fingerprint == "f1")
        }
    }

    @Test(
        "a released claim can be claimed again; a stale one is taken over and its old holder cannot complete",
        arguments: StoreBackend.available)
    func releaseAndTakeOver(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let key = scope("k")
            let first = try token(try await claim(store, key, at: start))
            try await store.releaseIdempotencyKey(key, token: first)
            #expect(try await store.idempotencyRecord(key) == nil)
            let second = try token(try await claim(store, key, at: start))
            #expect(try await claim(store, key, at: start.addingTimeInterval(29)) == .inProgress)
            let third = try token(try await claim(store, key, at: start.addingTimeInterval(31)))
            #expect(third != second)
            let answer = StoredResponse(status: 201, contentType: nil, body: Data())
            await #expect(throws: IdempotencyClaimLost.self) {
                try await store.write { tx in
                    try await tx.completeIdempotencyRecord(key, token: second, response: answer)
                }
            }
            // Releasing with the lost token leaves the new holder's record alone.
            try await store.releaseIdempotencyKey(key, token: second)
            #expect(try await store.idempotencyRecord(key) != nil)
            try await store.write { tx in try await tx.completeIdempotencyRecord(key, token: third, response: answer) }
            #expect(try await claim(store, key, at: start.addingTimeInterval(40)) == .completed(answer))
        }
    }

    @Test(
        "an expired record is claimed anew with the new body; purge removes only the old ones",
        arguments: StoreBackend.available)
    func expiryAndPurge(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let old = scope("old")
            let answer = StoredResponse(status: 201, contentType: nil, body: Data("x".utf8))
            let held = try token(try await claim(store, old, at: start))
            try await store.write { tx in try await tx.completeIdempotencyRecord(old, token: held, response: answer) }
            let later = start.addingTimeInterval(8 * Self.day + 1)
            _ = try token(try await claim(store, old, fingerprint: "f2", at: later))
            #expect(try await store.idempotencyRecord(old)?.fingerprint == "f2")
            #expect(try await store.idempotencyRecord(old)?.isCompleted == false)

            _ = try token(try await claim(store, scope("a"), at: start))
            _ = try token(try await claim(store, scope("b"), at: start.addingTimeInterval(10)))
            #expect(try await store.purgeIdempotencyRecords(createdBefore: start.addingTimeInterval(5)) == 1)
            #expect(try await store.idempotencyRecord(scope("a")) == nil)
            #expect(try await store.idempotencyRecord(scope("b")) != nil)
        }
    }

    @Test("records are scoped by user, method and path", arguments: StoreBackend.available)
    func recordsAreScoped(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            _ = try token(try await claim(store, scope("k"), at: start))
            _ = try token(try await claim(store, scope("k", user: "bob"), at: start))
            _ = try token(try await claim(store, scope("k", path: Route.workouts), at: start))
            #expect(try await claim(store, scope("k"), at: start) == .inProgress)
        }
    }

    @Test(
        "writes, reads and the change feed: versions grow, pages are exact, users never mix",
        arguments: StoreBackend.available)
    func entitiesAndFeed(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let draft = workout(at: start)
            var sets: [WireSet] = []
            try await store.write { tx in
                var stored = draft
                stored.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                stored.updatedAt = Date(timeIntervalSince1970: 1_790_000_000.5)
                stored.deleted = false
                try await tx.saveWorkout(stored, owner: "alice")
            }
            let workout = try #require(try await store.workouts(user: "alice", includeDeleted: false).first)
            #expect(workout.updatedAt == Date(timeIntervalSince1970: 1_790_000_000.5))
            for position in [3, 1, 2] {
                var row = set(workout: workout.id, position: position, at: start)
                row.rpe = position == 1 ? 8.5 : nil
                row.notes = position == 2 ? "paused, 2 s" : nil
                sets.append(row)
            }
            let toStore = sets
            try await store.write { tx in
                for var row in toStore {
                    row.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                    row.updatedAt = Date(timeIntervalSince1970: 1_790_000_001)
                    row.deleted = false
                    try await tx.saveSet(row, owner: "alice")
                }
                // Bob's rows with the same ids are his own.
                var bobs = toStore[0]
                bobs.serverVersion = try await tx.nextChangeVersion(owner: "bob")
                bobs.deleted = false
                try await tx.saveSet(bobs, owner: "bob")
            }
            let listed = try await store.sets(user: "alice", workoutID: workout.id.wireString, includeDeleted: false)
            #expect(listed.map(\.position) == [1, 2, 3], "ordered by position")
            #expect(listed.first?.rpe == 8.5)
            #expect(listed[1].notes == "paused, 2 s")
            #expect(try await store.sets(user: "bob", workoutID: nil, includeDeleted: false).count == 1)
            #expect(try await store.sets(user: "alice", workoutID: UUID().wireString, includeDeleted: false).isEmpty)

            // Tombstone one: gone from the live list, present with deleted, in the feed once, last.
            let victim = listed[0]
            try await store.write { tx in
                var row = try await #require(try tx.set(id: victim.id.wireString, owner: "alice"))
                row.deleted = true
                row.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                try await tx.saveSet(row, owner: "alice")
                await #expect(try tx.liveSets(workoutID: workout.id.wireString, owner: "alice").count == 2)
            }
            #expect(try await store.sets(user: "alice", workoutID: nil, includeDeleted: false).count == 2)
            #expect(try await store.sets(user: "alice", workoutID: nil, includeDeleted: true).count == 3)

            var cursor: Int64 = 0
            var seen: [WireChange] = []
            while true {
                let page = try await store.changes(user: "alice", after: cursor, limit: 2)
                seen += page.changes
                cursor = page.changes.last?.serverVersion ?? cursor
                if !page.hasMore { break }
            }
            let versions = seen.map(\.serverVersion)
            #expect(versions == versions.sorted() && Set(versions).count == versions.count)
            #expect(seen.count == 4, "one workout, three sets; the tombstone replaced its row")
            #expect(seen.last?.setRow?.deleted == true)
            #expect(seen.last?.setRow?.id == victim.id)
            #expect(try await store.changes(user: "bob", after: 0, limit: 10).changes.count == 1)
        }
    }

    @Test(
        "favorites fold ASCII case like SQLite's NOCASE: one entry, first spelling kept, listed folded",
        arguments: StoreBackend.available)
    func favoritesFoldCase(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let added = try await store.write { tx in
                await [
                    try tx.addFavorite("bench Press", owner: "alice"),
                    try tx.addFavorite("Bench press", owner: "alice"),
                    try tx.addFavorite("Squat", owner: "alice"), try tx.addFavorite("arnold Press", owner: "alice"),
                    try tx.addFavorite("Écarté", owner: "alice"), try tx.addFavorite("écarté", owner: "alice"),
                ]
            }
            #expect(added == [true, false, true, true, true, true], "only ASCII letters fold")
            // Folded bytewise: "É" (C3 89) sorts before "é" (C3 A9), both after ASCII.
            #expect(
                try await store.favorites(user: "alice") == [
                    "arnold Press", "bench Press", "Squat", "Écarté", "écarté",
                ])
            let removed = try await store.write { tx in
                await [
                    try tx.removeFavorite("BENCH PRESS", owner: "alice"), try tx.removeFavorite("Squat", owner: "bob"),
                ]
            }
            #expect(removed == [true, false])
            #expect(try await store.favorites(user: "bob").isEmpty)
        }
    }

    @Test(
        "a savepoint that is rolled back undoes its writes and the transaction goes on",
        arguments: StoreBackend.available)
    func savepointRollback(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let kept = workout("kept", at: start)
            let undone = workout("undone", at: start)
            try await store.write { tx in
                try await tx.savepoint {
                    var row = undone
                    row.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                    try await tx.saveWorkout(row, owner: "alice")
                    _ = try await tx.claimIdempotencyKey(
                        IdempotencyScope(user: "alice", method: "POST", path: Route.workouts, key: "undone"),
                        fingerprint: "f", now: start, expiresAfter: 8 * Self.day, staleAfter: 30)
                    return false
                }
                try await tx.savepoint {
                    var row = kept
                    row.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                    try await tx.saveWorkout(row, owner: "alice")
                    return true
                }
            }
            #expect(try await store.workouts(user: "alice", includeDeleted: true).map(\.name) == ["kept"])
            #expect(try await store.idempotencyRecord(scope("undone", path: Route.workouts)) == nil)
        }
    }

    /// Two stores on one database are two instances. One user's writes from both, racing, while a
    /// reader follows the feed: every change is read exactly once, in version order — no write
    /// that commits late is passed over by a cursor that moved on.
    @Test("two instances writing at once: versions unique, the feed misses nothing", arguments: StoreBackend.available)
    func concurrentWritersAndAFeedReader(_ backend: StoreBackend) async throws {
        let directory = try TestServer.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await backend.freshLocation(in: directory)
        let path = directory.appendingPathComponent("server.db").path
        let first = try await StoreBackend.openStore(path: path, url: url)
        let second = try await StoreBackend.openStore(path: path, url: url)
        let workoutID = UUID()
        let perWriter = 60
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in [first, second, first, second].enumerated() {
                    group.addTask {
                        for position in 0..<(perWriter / 2) {
                            let row = self.set(workout: workoutID, position: index * 100 + position, at: self.start)
                            try await store.write { tx in
                                var stored = row
                                stored.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                                stored.deleted = false
                                try await tx.saveSet(stored, owner: "alice")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Follow the feed while the writes land (bounded: at most 20 000 reads).
        var cursor: Int64 = 0
        var read: [WireChange] = []
        for _ in 0..<20_000 where read.count < 2 * perWriter {
            let page = try await second.changes(user: "alice", after: cursor, limit: 7)
            read += page.changes
            cursor = page.changes.last?.serverVersion ?? cursor
            if page.changes.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await writers.value
        while true {
            let page = try await first.changes(user: "alice", after: cursor, limit: 7)
            read += page.changes
            cursor = page.changes.last?.serverVersion ?? cursor
            if !page.hasMore { break }
        }
        let versions = read.map(\.serverVersion)
        #expect(read.count == 2 * perWriter, "every write read once")
        #expect(Set(read.compactMap(\.setRow?.id)).count == 2 * perWriter)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count)
        try await first.close()
        try await second.close()
    }

    // MARK: The field merge (one rule, both stores)

    /// Runs one route through the entity handlers in one write of `store`, at `now`.
    private func handle(
        _ store: any ServerStore, _ route: APIRoute, _ fields: [String: JSONValue], at now: Date
    ) async throws -> (status: Int, body: JSONValue?) {
        let response = try await store.write { tx in
            try await EntityHandlers(transaction: tx, user: "alice", now: now).handle(route, fields: fields)
        }
        return (response.status, response.body.flatMap { JSONValue.parse($0) })
    }

    /// An update as a device sends it: its fields, the edit's stamp (made `madeAt` seconds after
    /// the start, on `device`) and the version it was based on; it arrives `arrivesAt` seconds in.
    private func edit(
        _ store: any ServerStore, _ route: APIRoute, _ fields: [String: JSONValue], madeAt: TimeInterval,
        by device: String, base: Int64, arrivesAt: TimeInterval
    ) async throws -> (status: Int, body: JSONValue?) {
        var sent = fields
        sent["stamp"] = stamp(start.addingTimeInterval(madeAt), device)
        sent["base_version"] = .int(base)
        return try await handle(store, route, sent, at: start.addingTimeInterval(arrivesAt))
    }

    /// Every conflict in alice's feed.
    private func conflicts(_ store: any ServerStore) async throws -> [WireConflict] {
        try await store.changes(user: "alice", after: 0, limit: 1000).changes.compactMap {
            if case .conflict(let conflict) = $0 { conflict } else { nil }
        }
    }

    private func stamp(_ date: Date, _ device: String) -> JSONValue {
        .string(ClockStamp(milliseconds: Int64(date.timeIntervalSince1970 * 1000), device: device).description)
    }

    /// A workout and one set in it (100 kg × 5), created through the routes; the set's version.
    private func workoutAndSet(_ store: any ServerStore) async throws -> (set: WireSet, version: Int64) {
        let workout = workout(at: start)
        _ = try await handle(store, .createWorkout, workout.json.objectValue!, at: start)
        let row = set(workout: workout.id, position: 1, at: start)
        let created = try await handle(store, .createSet, row.json.objectValue!, at: start)
        let stored = try WireSet(json: try #require(created.body))
        return (stored, try #require(stored.serverVersion))
    }

    @Test(
        "an older offline edit loses to a newer one field by field, its other fields are kept, and the loss is a conflict",
        arguments: StoreBackend.available)
    func olderEditLosesPerField(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            // The laptop sets reps 7 at 10:05; the phone had set reps 6 and a note at 10:04, offline,
            // on the same base, and syncs after.
            let laptop = try await edit(
                store, .updateSet(id: id), ["reps": .int(7)], madeAt: 65, by: "laptop", base: base, arrivesAt: 66)
            #expect(laptop.status == 200)
            let phone = try await edit(
                store, .updateSet(id: id), ["reps": .int(6), "notes": .string("felt heavy")], madeAt: 4, by: "phone",
                base: base, arrivesAt: 120)
            #expect(phone.status == 200)
            let answered = try WireSet(json: try #require(phone.body))
            #expect(answered.reps == 7, "the later edit's value stays")
            #expect(answered.notes == "felt heavy", "the phone's other field is kept")
            let stored = try #require(try await store.sets(user: "alice", workoutID: nil, includeDeleted: false).first)
            #expect(stored.reps == 7 && stored.notes == "felt heavy")
            let recorded = try await conflicts(store)
            #expect(recorded.count == 1)
            let conflict = try #require(recorded.first).record
            #expect(conflict.entityType == .set && conflict.entityID == row.id && conflict.field == "reps")
            #expect(conflict.kept == .int(7) && conflict.overridden == .int(6))
            #expect(conflict.keptStamp.device == "laptop" && conflict.overriddenStamp.device == "phone")
            #expect(conflict.label == "Bench Press (Barbell) set in 'Push'")
            // A conflict is an entry of the feed, after the writes it explains.
            let feed = try await store.changes(user: "alice", after: 0, limit: 1000).changes
            #expect(feed.map(\.serverVersion) == feed.map(\.serverVersion).sorted())
        }
    }

    @Test(
        "a newer edit wins over an older one already stored, and the value it replaced is the conflict",
        arguments: StoreBackend.available)
    func newerEditWins(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            _ = try await edit(
                store, .updateSet(id: id), ["reps": .int(6)], madeAt: 4, by: "phone", base: base, arrivesAt: 5)
            let later = try await edit(
                store, .updateSet(id: id), ["reps": .int(7)], madeAt: 65, by: "laptop", base: base, arrivesAt: 66)
            #expect(try WireSet(json: try #require(later.body)).reps == 7)
            let conflict = try #require(try await conflicts(store).first).record
            #expect(conflict.kept == .int(7) && conflict.overridden == .int(6))
            #expect(conflict.keptStamp.device == "laptop")
        }
    }

    @Test(
        "an edit based on the other write changes it with no conflict; an edit of a field nobody else touched is no conflict",
        arguments: StoreBackend.available)
    func causalEditsAreNoConflict(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            let first = try await edit(
                store, .updateSet(id: id), ["reps": .int(6)], madeAt: 60, by: "phone", base: base, arrivesAt: 61)
            let seen = try WireSet(json: try #require(first.body)).serverVersion!
            // The laptop saw reps 6 (its base is that version) and its clock is behind: still wins.
            let second = try await edit(
                store, .updateSet(id: id), ["reps": .int(8)], madeAt: 10, by: "laptop", base: seen, arrivesAt: 62)
            #expect(try WireSet(json: try #require(second.body)).reps == 8)
            // A field only the phone touches, on the old base: taken.
            let third = try await edit(
                store, .updateSet(id: id), ["rpe": .double(8)], madeAt: 5, by: "phone", base: base, arrivesAt: 63)
            let answered = try WireSet(json: try #require(third.body))
            #expect(answered.reps == 8 && answered.rpe == 8)
            #expect(try await conflicts(store).isEmpty)
        }
    }

    @Test(
        "weight and unit merge as one: 105 kg from one device and 220 lb from another never make 105 lb",
        arguments: StoreBackend.available)
    func weightAndUnitTogether(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            _ = try await edit(
                store, .updateSet(id: id), ["weight": .double(105)], madeAt: 60, by: "laptop", base: base, arrivesAt: 61
            )
            let phone = try await edit(
                store, .updateSet(id: id), ["weight": .double(220), "unit": .string("lb")], madeAt: 30, by: "phone",
                base: base, arrivesAt: 62)
            let answered = try WireSet(json: try #require(phone.body))
            #expect(answered.weight == 105 && answered.unit == .kg)
            let conflict = try #require(try await conflicts(store).first).record
            #expect(conflict.field == "weight")
            #expect(conflict.overridden == .object(["weight": .double(220), "unit": .string("lb")]))
        }
    }

    @Test(
        "a clock days ahead is held to the server's time plus a minute: an honest later edit still wins",
        arguments: StoreBackend.available)
    func clockAheadCannotWinForever(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            _ = try await edit(
                store, .updateSet(id: id), ["reps": .int(3)], madeAt: 3 * Self.day, by: "skewed", base: base,
                arrivesAt: 10)
            let honest = try await edit(
                store, .updateSet(id: id), ["reps": .int(9)], madeAt: 300, by: "laptop", base: base, arrivesAt: 300)
            #expect(try WireSet(json: try #require(honest.body)).reps == 9)
        }
    }

    @Test(
        "an edit that reaches a set another device deleted is 404, and the dropped edit is a conflict",
        arguments: StoreBackend.available)
    func deleteWinsOverEdit(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            #expect(try await handle(store, .deleteSet(id: id), [:], at: start.addingTimeInterval(10)).status == 204)
            let edit = try await edit(
                store, .updateSet(id: id), ["reps": .int(6)], madeAt: 5, by: "phone", base: base, arrivesAt: 20)
            #expect(edit.status == 404)
            let conflict = try #require(try await conflicts(store).first).record
            #expect(conflict.isDeleteOverEdit)
            #expect(conflict.overridden == .object(["reps": .int(6)]))
            // A weight sent without its unit names no unit (the merge groups them, the edit did not).
            let weighed = try await self.edit(
                store, .updateSet(id: id), ["weight": .double(102.5)], madeAt: 6, by: "phone", base: base,
                arrivesAt: 21)
            #expect(weighed.status == 404)
            let second = try #require(try await conflicts(store).last).record
            #expect(second.overridden == .object(["weight": .double(102.5)]))
        }
    }

    @Test(
        "a delete that arrives after an edit it never saw still deletes, and the edit it dropped is a conflict",
        arguments: StoreBackend.available)
    func deleteAfterUnseenEdit(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            // The laptop sets reps 7 and syncs; the phone, still on the old version, deletes the set.
            _ = try await edit(
                store, .updateSet(id: id), ["reps": .int(7)], madeAt: 60, by: "laptop", base: base, arrivesAt: 61)
            let delete = try await handle(
                store, .deleteSet(id: id),
                ["stamp": stamp(start.addingTimeInterval(70), "phone"), "base_version": .int(base)],
                at: start.addingTimeInterval(80))
            #expect(delete.status == 204)
            #expect(try await store.sets(user: "alice", workoutID: nil, includeDeleted: false).isEmpty)
            let conflict = try #require(try await conflicts(store).first).record
            #expect(conflict.isDeleteOverEdit && conflict.entityID == row.id)
            #expect(conflict.overridden == .object(["reps": .int(7)]))
            #expect(conflict.keptStamp.device == "phone" && conflict.overriddenStamp.device == "laptop")
            #expect(conflict.label == "Bench Press (Barbell) set in 'Push'")
        }
    }

    @Test(
        "a delete made on the version that holds the edit, or on this device's own edit, records nothing",
        arguments: StoreBackend.available)
    func deleteAfterSeenEditIsNoConflict(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let id = row.id.wireString
            let edited = try await edit(
                store, .updateSet(id: id), ["reps": .int(7)], madeAt: 60, by: "phone", base: base, arrivesAt: 61)
            let editedSet = try WireSet(json: try #require(edited.body))
            let seen = try #require(editedSet.serverVersion)
            _ = try await edit(
                store, .updateSet(id: id), ["rpe": .double(8)], madeAt: 62, by: "laptop", base: seen, arrivesAt: 63)
            // The laptop's own edit (its device) and the phone's edit it saw are no surprise to it.
            let delete = try await handle(
                store, .deleteSet(id: id),
                ["stamp": stamp(start.addingTimeInterval(70), "laptop"), "base_version": .int(seen)],
                at: start.addingTimeInterval(80))
            #expect(delete.status == 204)
            #expect(try await conflicts(store).isEmpty)
        }
    }

    @Test(
        "a workout's delete names every set it takes that the deleting device never held or held older",
        arguments: StoreBackend.available)
    func workoutDeleteOverUnseenSets(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (row, base) = try await workoutAndSet(store)
            let workoutID = row.workoutID.wireString
            let workoutVersion = try #require(
                try await store.workouts(user: "alice", includeDeleted: false).first?.serverVersion)
            // The laptop logs a second set the phone never pulls, and edits the first.
            let second = set(workout: row.workoutID, position: 2, at: start.addingTimeInterval(30))
            #expect(
                try await handle(store, .createSet, second.json.objectValue!, at: start.addingTimeInterval(31)).status
                    == 201)
            _ = try await edit(
                store, .updateSet(id: row.id.wireString), ["reps": .int(8)], madeAt: 40, by: "laptop", base: base,
                arrivesAt: 41)
            // The phone held the workout and the first set at their old versions.
            let delete = try await handle(
                store, .deleteWorkout(id: workoutID),
                [
                    "stamp": stamp(start.addingTimeInterval(50), "phone"), "base_version": .int(workoutVersion),
                    "seen_sets": .array([.object(["id": .string(row.id.wireString), "server_version": .int(base)])]),
                ], at: start.addingTimeInterval(60))
            #expect(delete.status == 204)
            #expect(try await store.sets(user: "alice", workoutID: nil, includeDeleted: false).isEmpty)
            let recorded = try await conflicts(store).map(\.record)
            #expect(recorded.count == 2)
            let edited = try #require(recorded.first { $0.entityID == row.id })
            #expect(edited.isDeleteOverEdit && edited.overridden == .object(["reps": .int(8)]))
            let unseen = try #require(recorded.first { $0.entityID == second.id })
            #expect(unseen.isDeleteOverEdit)
            #expect(unseen.overridden.objectValue?["position"] == .int(2))
            #expect(unseen.overridden.objectValue?["exercise"] == .string(second.exercise))
        }
    }

    @Test("a delete's body says only what a delete may: a wrong field, stamp or seen list is refused")
    func deleteBodyIsChecked() {
        #expect(DeleteContext.problem(in: ["reps": .int(5)])?.status == 422)
        #expect(DeleteContext.problem(in: ["stamp": .string("yesterday")])?.status == 422)
        #expect(DeleteContext.problem(in: ["base_version": .int(-1)])?.status == 422)
        #expect(DeleteContext.problem(in: ["seen_sets": .object([:])])?.status == 422)
        #expect(
            DeleteContext.problem(in: [
                "seen_sets": .array([.object(["id": .string("nope"), "server_version": .int(1)])])
            ])?
            .status == 422)
        #expect(
            DeleteContext.problem(
                in: ["seen_sets": .array([.object(["id": .string(UUID().uuidString), "server_version": .int(-2)])])])?
                .status == 422)
        #expect(
            DeleteContext.problem(in: [
                "base_version": .int(3),
                "seen_sets": .array([.object(["id": .string(UUID().uuidString), "server_version": .null])]),
            ]) == nil)
    }

    @Test(
        "a routine's plan merges row by row on the store: one device's added lift and the other's removal both stand",
        arguments: StoreBackend.available)
    func routineRowsMerge(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            func exercise(_ name: String) -> RoutineExercise {
                RoutineExercise(exercise: name, sets: [PlannedSet(weight: 100, reps: 5)])
            }
            let routine = Routine(
                name: "Push A", exercises: [exercise("Squat (Barbell)"), exercise("Bench Press (Barbell)")])
            let created = try await handle(store, .createRoutine, routine.wireFields, at: start)
            let createdBody = try #require(created.body)
            let base = try #require(try WireRoutine(json: createdBody).serverVersion)
            let baseList = Routine.exercisesJSON(routine.exercises)
            let id = routine.id.wireString
            // The laptop drops the squat, later; the phone, offline and earlier, adds a row.
            _ = try await edit(
                store, .updateRoutine(id: id),
                ["exercises": Routine.exercisesJSON([exercise("Bench Press (Barbell)")]), "base_exercises": baseList],
                madeAt: 60, by: "laptop", base: base, arrivesAt: 61)
            let phone = try await edit(
                store, .updateRoutine(id: id),
                [
                    "exercises": Routine.exercisesJSON(routine.exercises + [exercise("Row (Cable)")]),
                    "base_exercises": baseList,
                ], madeAt: 30, by: "phone", base: base, arrivesAt: 62)
            let merged = try WireRoutine(json: try #require(phone.body)).routine
            #expect(merged.exercises.map(\.exercise) == ["Bench Press (Barbell)", "Row (Cable)"])
            #expect(try await conflicts(store).isEmpty)
            let stored = try #require(try await store.routines(user: "alice", includeDeleted: false).first)
            #expect(stored.routine == merged)
        }
    }

    @Test(
        "an edit of a routine's plan that was never edited since its create, made on a base the store never had, leaves the feed readable",
        arguments: StoreBackend.available)
    func routineConflictOverAnUneditedPlanReadsBack(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            func squat(reps: Int) -> [RoutineExercise] {
                [RoutineExercise(exercise: "Squat (Barbell)", sets: [PlannedSet(weight: 100, reps: reps)])]
            }
            let routine = Routine(name: "Legs", exercises: squat(reps: 5))
            let created = try await handle(store, .createRoutine, routine.wireFields, at: start)
            let createdBody = try #require(created.body)
            let base = try #require(try WireRoutine(json: createdBody).serverVersion)
            // Found by the server fuzzer: the plan's rows carry no clock yet, so the value the edit
            // overrides is stamped with the origin, and that conflict once made every later read
            // of the change feed fail with a 500.
            let answered = try await edit(
                store, .updateRoutine(id: routine.id.wireString),
                [
                    "exercises": Routine.exercisesJSON(squat(reps: 8)),
                    "base_exercises": Routine.exercisesJSON(squat(reps: 3)),
                ], madeAt: 60, by: "phone", base: base, arrivesAt: 61)
            #expect(answered.status == 200)
            let found = try await conflicts(store)
            #expect(found.count == 1)
            #expect(found.first?.record.overriddenStamp == .origin)
            #expect(found.first?.record.keptStamp.device == "phone")
            // What the device reads of it is what the server sent.
            let page = try await store.changes(user: "alice", after: 0, limit: 100)
            for change in page.changes {
                #expect(try WireChange(json: change.json) == change)
            }
        }
    }

    // MARK: Weigh-ins (one rule, both stores)

    private func weighIn(
        _ weight: Double, _ unit: WeightUnit = .kg, at date: Date, notes: String? = nil
    ) -> WireBodyWeight {
        WireBodyWeight(BodyWeight(measuredAt: date, weight: weight, unit: unit, notes: notes))
    }

    @Test(
        "weigh-ins are stored per user, listed in the order taken, and in the feed with their tombstones",
        arguments: StoreBackend.available)
    func bodyWeightsAndFeed(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            // Written out of order: the third taken first, the first with a note in three scripts.
            let note = "מדוד 🏋🏽‍♀️ e\u{0301}"
            let entries = [
                weighIn(82, at: start.addingTimeInterval(2 * Self.day)),
                weighIn(180.5, .lb, at: start, notes: note),
                weighIn(81.25, at: start.addingTimeInterval(Self.day)),
            ]
            try await store.write { tx in
                for var entry in entries {
                    await entry.stamp(version: try tx.nextChangeVersion(owner: "alice"), at: self.start)
                    try await tx.saveBodyWeight(entry, owner: "alice")
                }
                // Bob's row under the same id is his own.
                var bobs = entries[0]
                bobs.bodyWeight.weight = 95
                await bobs.stamp(version: try tx.nextChangeVersion(owner: "bob"), at: self.start)
                try await tx.saveBodyWeight(bobs, owner: "bob")
            }
            let listed = try await store.bodyWeights(user: "alice", includeDeleted: false)
            #expect(listed.map(\.bodyWeight) == [entries[1], entries[2], entries[0]].map(\.bodyWeight))
            #expect(listed.first?.bodyWeight.unit == .lb)
            #expect(listed.first?.bodyWeight.notes.map { Array($0.utf8) } == Array(note.utf8))
            #expect(listed.last?.bodyWeight.notes == nil)
            #expect(try await store.bodyWeights(user: "bob", includeDeleted: false).map(\.bodyWeight.weight) == [95])

            try await store.write { tx in
                var row = try await #require(try tx.bodyWeight(id: entries[1].bodyWeight.id.wireString, owner: "alice"))
                row.deleted = true
                row.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                try await tx.saveBodyWeight(row, owner: "alice")
                await #expect(
                    try tx.bodyWeight(id: entries[1].bodyWeight.id.wireString, owner: "alice")?.deleted == true)
                await #expect(try tx.bodyWeight(id: UUID().wireString, owner: "alice") == nil)
            }
            #expect(try await store.bodyWeights(user: "alice", includeDeleted: false).count == 2)
            #expect(try await store.bodyWeights(user: "alice", includeDeleted: true).count == 3)

            // Pages of one, with a set's workout between: versions grow, the tombstone comes last.
            try await store.write { tx in
                var workout = self.workout(at: self.start)
                workout.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                workout.deleted = false
                try await tx.saveWorkout(workout, owner: "alice")
            }
            var cursor: Int64 = 0
            var seen: [WireChange] = []
            while true {
                let page = try await store.changes(user: "alice", after: cursor, limit: 1)
                seen += page.changes
                cursor = page.changes.last?.serverVersion ?? cursor
                if !page.hasMore { break }
            }
            let versions = seen.map(\.serverVersion)
            #expect(versions == versions.sorted() && Set(versions).count == versions.count)
            let weighIns = seen.compactMap { if case .bodyWeight(let entry) = $0 { entry } else { nil } }
            #expect(weighIns.map(\.bodyWeight.id) == [entries[0], entries[2], entries[1]].map(\.bodyWeight.id))
            #expect(weighIns.last?.deleted == true)
            #expect(seen.count == 4)
            for change in seen { #expect(try WireChange(json: change.json) == change) }
            let bobsFeed = try await store.changes(user: "bob", after: 0, limit: 10).changes
            #expect(bobsFeed.count == 1)
        }
    }

    @Test(
        "a weigh-in's weight and unit merge as one, the later stamp wins, and an edit of a deleted one is 404 and a conflict",
        arguments: StoreBackend.available)
    func bodyWeightMerge(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let entry = BodyWeight(measuredAt: start, weight: 81, unit: .kg)
            let created = try await handle(store, .createBodyWeight, entry.wireFields, at: start)
            #expect(created.status == 201)
            let createdBody = try #require(created.body)
            let base = try #require(try WireBodyWeight(json: createdBody).serverVersion)
            let id = entry.id.wireString
            _ = try await edit(
                store, .updateBodyWeight(id: id), ["weight": .double(82)], madeAt: 60, by: "laptop", base: base,
                arrivesAt: 61)
            let phone = try await edit(
                store, .updateBodyWeight(id: id),
                ["weight": .double(180), "unit": .string("lb"), "notes": .string("fasted")], madeAt: 30, by: "phone",
                base: base, arrivesAt: 62)
            #expect(phone.status == 200)
            let answered = try WireBodyWeight(json: try #require(phone.body)).bodyWeight
            #expect(answered.weight == 82 && answered.unit == .kg && answered.notes == "fasted")
            let stored = try #require(try await store.bodyWeights(user: "alice", includeDeleted: false).first)
            #expect(stored.bodyWeight == answered)
            let conflict = try #require(try await conflicts(store).first).record
            #expect(conflict.entityType == .bodyWeight && conflict.field == "weight")
            #expect(conflict.overridden == .object(["weight": .double(180), "unit": .string("lb")]))
            #expect(conflict.keptStamp.device == "laptop" && conflict.overriddenStamp.device == "phone")

            let deleted = try await handle(store, .deleteBodyWeight(id: id), [:], at: start.addingTimeInterval(70))
            #expect(deleted.status == 204)
            let late = try await edit(
                store, .updateBodyWeight(id: id), ["weight": .double(83)], madeAt: 65, by: "phone", base: base,
                arrivesAt: 80)
            #expect(late.status == 404)
            let lost = try #require(try await conflicts(store).last).record
            #expect(lost.isDeleteOverEdit && lost.entityType == .bodyWeight)
            #expect(lost.overridden == .object(["weight": .double(83)]), "a weight sent alone names no unit")
            #expect(try await store.bodyWeights(user: "alice", includeDeleted: false).isEmpty)
        }
    }
}

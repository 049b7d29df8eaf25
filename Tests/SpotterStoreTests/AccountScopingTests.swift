import Foundation
import GRDB
import SpotterCore
import SpotterStore
import Testing

/// Per-account scoping: each account its own view and queue on one database;
/// the device's own data adopted once by a login; what waits for another account counted.
@Suite("Accounts on one database")
struct AccountScopingTests {
    static let alice = QueueOwner.account(server: "http://127.0.0.1:8080", user: "alice").storedID
    static let bob = QueueOwner.account(server: "http://127.0.0.1:8080", user: "bob").storedID

    @Test func oneAccountNeverSeesOrEditsAnothersSets() throws {
        let aliceStore = try makeStore(user: Self.alice)
        let bobStore = aliceStore.forUser(Self.bob)
        let hers = try aliceStore.log(weight: 80)
        #expect(try bobStore.queries.sets(workoutID: nil).isEmpty)
        #expect(try bobStore.queries.workoutSummaries().isEmpty)
        #expect(try bobStore.queries.set(id: hers.set.id) == nil)
        #expect(throws: StoreError.notFound("set \(hers.set.id.wireString)")) {
            try bobStore.workoutLog.editSet(id: hers.set.id, changes: SetChanges(reps: 1))
        }
        // Bob's "current workout" is his own, never alice's workout of today.
        let his = try bobStore.log(weight: 60)
        #expect(his.workout.id != hers.workout.id)
        #expect(try aliceStore.queries.sets(workoutID: nil).map(\.set.id) == [hers.set.id])
        #expect(
            try bobStore.accounts.strandedQueues() == [
                StrandedQueue(owner: QueueOwner(storedID: Self.alice), operations: 2)
            ])
    }

    @Test func theFirstLoginAdoptsTheDevicesDataAsCreatesEvenWhenTheEmbeddedServerHadIt() throws {
        let device = try makeStore(user: QueueOwner.deviceID)
        let synced = try device.log(weight: 100)
        for op in try device.queue.claimEligible(limit: 10) {
            try device.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        }
        for op in try device.queue.claimEligible(limit: 10) {
            try device.queue.complete(opID: op.opID, result: .succeeded(status: 201, row: nil))
        }
        #expect(try device.queries.queueCounts().pending == 0, "synced with the embedded server")
        let queued = try device.log(weight: 105)
        let deleted = try device.log(weight: 90)
        try device.workoutLog.deleteSet(id: deleted.set.id)
        // Weigh-ins come along too; one deleted before is forgotten.
        let weighIn = try device.workoutLog.logBodyWeight(81.4, unit: .kg)
        let gone = try device.workoutLog.logBodyWeight(82, unit: .kg)
        try device.workoutLog.deleteBodyWeight(gone.id)

        let alice = device.forUser(Self.alice)
        let adoption = try alice.accounts.adoptDeviceData()
        #expect(adoption.workouts == 1 && adoption.sets == 2 && adoption.bodyWeights == 1)
        let creates = try alice.queries.outbox(limit: 50).filter { $0.state == .pending }
        #expect(creates.allSatisfy { $0.kind == .create && $0.userID == Self.alice })
        #expect(
            Set(creates.map(\.entityID)) == [
                synced.workout.id.wireString, synced.set.id.wireString, queued.set.id.wireString,
                weighIn.id.wireString,
            ])
        #expect(try alice.queries.bodyWeights().map(\.bodyWeight.id) == [weighIn.id])
        #expect(try alice.queries.sets(workoutID: nil).count == 2)
        #expect(try device.queries.queueCounts().pending == 0, "nothing left waiting for the device")
        // The workout's create goes first; each set waits for it.
        let first = try alice.queue.claimEligible(limit: 10)
        #expect(first.map(\.entityType).sorted { $0.rawValue < $1.rawValue } == [.bodyWeight, .workout])
        // Adopting again finds nothing more.
        #expect(try alice.accounts.adoptDeviceData() == Adoption())
        // Bob's later login does not take alice's data.
        #expect(try device.forUser(Self.bob).accounts.adoptDeviceData() == Adoption())
        #expect(try device.forUser(Self.bob).queries.sets(workoutID: nil).isEmpty)
    }

    @Test func importIdsDifferPerAccountAndAReimportAfterAdoptionAddsNothing() throws {
        let rows = try ImportParser.parse(
            """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
            2026-03-02 18:00:00,Legs,Squat (Barbell),1,100,5,0,0,,,
            """, format: .strong, defaultUnit: .kg
        ).sets
        let device = try makeStore(user: QueueOwner.deviceID)
        #expect(try device.workoutLog.importSets(rows).added == 1)
        let alice = device.forUser(Self.alice)
        try alice.accounts.adoptDeviceData()
        #expect(
            try alice.workoutLog.importSets(rows).added == 0,
            "imported before the login, again after it: nothing doubles")
        let bob = device.forUser(Self.bob)
        #expect(try bob.workoutLog.importSets(rows).added == 1)
        let aliceIDs = Set(try alice.queries.sets(workoutID: nil).map(\.set.id))
        let bobIDs = Set(try bob.queries.sets(workoutID: nil).map(\.set.id))
        #expect(aliceIDs.isDisjoint(with: bobIDs), "two users importing one file never share an id")
    }

    @Test func aQueueUnderAnotherNameMovesWithItsKeys() throws {
        let unverified = QueueOwner.unverified(server: "http://127.0.0.1:8080", tokenFingerprint: "abc").storedID
        let before = try makeStore(user: unverified)
        try before.log()
        let keys = try before.queries.outbox(limit: 10).map(\.idempotencyKey)
        let alice = before.forUser(Self.alice)
        #expect(try alice.accounts.reassign(from: [unverified]) == 2)
        #expect(try alice.queries.outbox(limit: 10).map(\.idempotencyKey) == keys)
        #expect(try alice.queries.sets(workoutID: nil).count == 1)
        #expect(try alice.accounts.strandedQueues().isEmpty)
    }

    /// What a device pulled while its token's user was not known yet moves with its rows: a
    /// conflict listed then is still listed once the user is (a Jepsen-style run found one that
    /// stayed under the old name, so the device kept none of the server's conflicts).
    @Test func conflictsPulledUnderAnotherNameMoveWithTheRows() throws {
        let unverified = QueueOwner.unverified(server: "http://127.0.0.1:8080", tokenFingerprint: "abc").storedID
        let before = try makeStore(user: unverified)
        let logged = try before.log()
        let conflict = ConflictRecord(
            id: UUID(), entityType: .set, entityID: logged.set.id, field: "reps", kept: .int(7), overridden: .int(6),
            keptStamp: ClockStamp(milliseconds: 2_000, device: "laptop"),
            overriddenStamp: ClockStamp(milliseconds: 1_000, device: "phone"), label: "Bench Press (Barbell) set",
            recordedAt: Date(timeIntervalSince1970: 1_800_000_000))
        _ = try before.pull.mergePage([.conflict(conflict, ServerStamp(serverVersion: 9, updatedAt: nil))], cursor: "9")
        #expect(try before.conflicts.list().count == 1)
        let alice = before.forUser(Self.alice)
        try alice.accounts.reassign(from: [unverified])
        #expect(try alice.conflicts.list().map(\.record.id) == [conflict.id], "listed under the account")
    }

    @Test func aQueueOfTheVersionBeforeAccountsIsFoundByItsServerAndToken() throws {
        // How that version named the owner of `--server http://127.0.0.1:8080/ --token alice-secret`.
        let old = "remote-" + ContentID.uuid("http://127.0.0.1:8080/|alice-secret").wireString.prefix(16)
        let before = try makeStore(user: old)
        try before.log()
        let legacy = QueueOwner.legacyIDs(
            rawServer: "http://127.0.0.1:8080", normalisedServer: "http://127.0.0.1:8080", token: "alice-secret")
        #expect(legacy.contains(old), "the same server typed without the slash finds it")
        let alice = before.forUser(Self.alice)
        #expect(try alice.accounts.reassign(from: legacy) == 2)
        #expect(try alice.queries.queueCounts().pending == 2)
        #expect(try alice.queries.sets(workoutID: nil).count == 1)
    }

    @Test func serverURLsAreNormalised() throws {
        #expect(try ServerURL.normalised("HTTP://Host:8080/") == "http://host:8080")
        #expect(try ServerURL.normalised("https://sync.example:443/api//") == "https://sync.example/api")
        #expect(throws: ServerURL.Invalid.self) { try ServerURL.normalised("host:8080") }
        let owner = QueueOwner.account(server: "http://host:8080", user: "al|ice")
        #expect(QueueOwner(storedID: owner.storedID) == owner)
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The SQLite server store's group commit: writes that arrive together share one transaction
/// and one flush, yet each keeps its own savepoint and its own answer.
@Suite("Server group commit")
struct GroupCommitTests {
    private func freshStore() throws -> SQLiteServerStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try SQLiteServerStore(path: directory.appendingPathComponent("server.db").path)
    }

    private func workout(_ name: String) -> WireWorkout {
        let stamp = Timestamp.truncated(Date())
        return WireWorkout(id: UUID(), name: name, startedAt: stamp, updatedAt: stamp, serverVersion: 0, deleted: false)
    }

    /// An answered write survives a power cut: the writer flushes the WAL at every commit,
    /// on a new file and on one opened again.
    @Test func everyCommitIsFlushed() async throws {
        let store = try freshStore()
        #expect(try await store.synchronousMode() == 2)
    }

    /// An idempotency claim alone commits without waiting for the flush (it guards an effect
    /// that is flushed when it commits); every write after it is flushed again.
    @Test func aClaimAloneIsNotFlushedButTheWriteAfterItIs() async throws {
        let store = try freshStore()
        let scope = IdempotencyScope(user: "alice", method: "POST", path: "/v1/workouts", key: "k1")
        let claim = try await store.claimIdempotencyKey(
            scope, fingerprint: "f", now: Date(), expiresAfter: 3600, staleAfter: 30)
        guard case .claimed = claim else {
            Issue.record("expected a fresh claim, got \(claim)")
            return
        }
        #expect(try await store.synchronousMode(durable: false) == 1)
        #expect(try await store.synchronousMode() == 2)
        try await store.write { tx in
            try await tx.saveWorkout(self.workout("after the claim"), owner: "alice")
        }
        #expect(try await store.synchronousMode() == 2)
        #expect(try await store.idempotencyRecord(scope) != nil)
    }

    /// Forty writers at once: every write lands, in fewer transactions than writes, and each
    /// version of the change counter is handed out once.
    @Test func concurrentWritesShareTransactionsAndAllLand() async throws {
        let store = try freshStore()
        let workouts = (0..<40).map { workout("W\($0)") }
        let versions = try await withThrowingTaskGroup(of: Int64.self) { group in
            for item in workouts {
                group.addTask {
                    try await store.write { tx in
                        var saved = item
                        saved.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                        try await tx.saveWorkout(saved, owner: "alice")
                        return saved.serverVersion ?? 0
                    }
                }
            }
            var all: [Int64] = []
            for try await version in group { all.append(version) }
            return all
        }
        let stored = try await store.workouts(user: "alice", includeDeleted: true)
        #expect(Set(stored.map(\.id)) == Set(workouts.map(\.id)))
        #expect(Set(versions).count == 40)
        #expect(store.groupedTransactions < 40)
    }

    /// A write that throws inside a group is undone alone: its caller hears its error, the
    /// others in the same transaction commit and hear success.
    @Test func aFailingWriteIsUndoneAloneInsideItsGroup() async throws {
        struct Refused: Error {}
        let store = try freshStore()
        let workouts = (0..<30).map { workout("W\($0)") }
        let results = await withTaskGroup(of: (UUID, Bool).self) { group in
            for (index, item) in workouts.enumerated() {
                group.addTask {
                    do {
                        try await store.write { tx in
                            var saved = item
                            saved.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                            try await tx.saveWorkout(saved, owner: "alice")
                            if index % 3 == 0 { throw Refused() }
                        }
                        return (item.id, true)
                    } catch {
                        return (item.id, false)
                    }
                }
            }
            var all: [UUID: Bool] = [:]
            for await (id, ok) in group { all[id] = ok }
            return all
        }
        let stored = Set(try await store.workouts(user: "alice", includeDeleted: true).map(\.id))
        let expected = Set(workouts.enumerated().filter { $0.offset % 3 != 0 }.map(\.element.id))
        #expect(stored == expected)
        #expect(Set(results.filter(\.value).map(\.key)) == expected)
        #expect(store.groupedTransactions < 30)
    }

    /// A write whose handler suspends on something elsewhere (an actor, a sleep, a yield) still
    /// runs to its end inside its own transaction: its writes before and after the suspension
    /// commit together, and one that throws after it undoes both, while the other writes of its
    /// group land.
    @Test func aWriteThatSuspendsMidwayCommitsOrRollsBackWhole() async throws {
        struct Refused: Error {}
        actor Elsewhere {
            var calls = 0
            func visit() -> Int {
                calls += 1
                return calls
            }
        }
        let store = try freshStore()
        let elsewhere = Elsewhere()
        let pairs = (0..<12).map { (workout("A\($0)"), workout("B\($0)")) }
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, pair) in pairs.enumerated() {
                group.addTask {
                    do {
                        try await store.write { tx in
                            var first = pair.0
                            first.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                            try await tx.saveWorkout(first, owner: "alice")
                            _ = await elsewhere.visit()
                            try await Task.sleep(for: .milliseconds(5))
                            await Task.yield()
                            var second = pair.1
                            second.serverVersion = try await tx.nextChangeVersion(owner: "alice")
                            try await tx.saveWorkout(second, owner: "alice")
                            if index % 4 == 0 { throw Refused() }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            var all: [Int: Bool] = [:]
            for await (index, ok) in group { all[index] = ok }
            return all
        }
        let stored = Set(try await store.workouts(user: "alice", includeDeleted: true).map(\.id))
        let kept = pairs.enumerated().filter { $0.offset % 4 != 0 }.flatMap { [$0.element.0.id, $0.element.1.id] }
        #expect(stored == Set(kept))
        #expect(outcomes.filter(\.value).map(\.key).sorted() == pairs.indices.filter { $0 % 4 != 0 })
        #expect(await elsewhere.calls == 12)
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The list routes answer a page at a time: every row once through the cursor, in the list's
/// order, never a whole history in one answer.
@Suite("List routes are paged (SQLite and PostgreSQL)")
struct ListPagingTests {
    /// Walks `path` with `limit`: the ids of every page's rows, and whether each page said more follow.
    private func walk(
        _ server: TestServer, _ path: String, key: String, limit: Int,
        id: (JSONValue) -> String? = { $0["id"]?.stringValue }
    ) async throws -> (ids: [String], more: [Bool]) {
        var ids: [String] = []
        var more: [Bool] = []
        var after: String?
        let separator = path.contains("?") ? "&" : "?"
        for _ in 0..<100 {
            var url = path + separator + "limit=\(limit)"
            if let after { url += "&after=\(after)" }
            let response = try await server.send(.GET, url)
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            guard let json = response.json, case .array(let rows)? = json[key] else { break }
            #expect(rows.count <= limit)
            ids += rows.compactMap(id)
            let hasMore = json["has_more"] == .bool(true)
            more.append(hasMore)
            guard hasMore, let cursor = json["cursor"]?.stringValue else {
                #expect(json["cursor"] == .null, "the last page names no cursor")
                break
            }
            after = cursor
        }
        return (ids, more)
    }

    @Test(
        "workouts, sets (all and of one workout), routines and weigh-ins: every row once, in the list's order",
        arguments: StoreBackend.available)
    func everyListWalksWholeThroughItsCursor(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            // Workouts that start at the same time are ordered by id: a page may end between them.
            var workouts: [String] = []
            for index in 0..<7 {
                let id = UUID().wireString
                let started = index < 3 ? "2026-03-02T18:00:00.000Z" : "2026-03-0\(index)T18:00:00.000Z"
                let created = try await server.send(
                    .POST, Route.workouts,
                    json: .object([
                        "id": .string(id), "name": .string("Day \(index) 💪🏽 e\u{301} שלום"),
                        "started_at": .string(started),
                    ]), key: UUID().uuidString)
                #expect(created.status == 201)
                workouts.append(id)
            }
            for (index, workout) in workouts.prefix(2).enumerated() {
                for position in 1...(4 + index) {
                    let created = try await server.send(
                        .POST, Route.sets,
                        json: Fixtures.set(workoutID: workout, extra: ["position": .int(Int64(position))]),
                        key: UUID().uuidString)
                    #expect(created.status == 201)
                }
            }
            for name in ["Pull 💪🏽", "push", "Ábc", "e\u{301}", "Legs", "שלום"] {
                let created = try await server.send(
                    .POST, Route.routines, json: RoutineRoutesTests.routineBody(name: name), key: UUID().uuidString)
                #expect(created.status == 201)
            }
            for day in 0..<5 {
                let created = try await server.send(
                    .POST, Route.bodyWeights,
                    json: BodyWeightRoutesTests.body(
                        at: BodyWeightRoutesTests.morning.addingTimeInterval(Double(day % 3) * 86_400)),
                    key: UUID().uuidString)
                #expect(created.status == 201)
            }
            // A deleted workout is not listed.
            #expect(try await server.send(.DELETE, Route.workouts + "/\(workouts[6])", key: "d").status == 204)

            let store = server.store
            let expected: [(path: String, key: String, ids: [String], pages: [Bool])] = [
                (
                    Route.workouts, "workouts",
                    try await store.workouts(user: "alice", includeDeleted: false).map(\.id.wireString),
                    [true, false]
                ),
                (
                    Route.sets, "sets", try await store.allSets(user: "alice").map(\.id.wireString),
                    [true, true, false]
                ),
                (
                    Route.sets + "?workout_id=\(workouts[1])", "sets",
                    try await store.sets(user: "alice", workoutID: workouts[1], includeDeleted: false).map(
                        \.id.wireString), [true, false]
                ),
                (
                    Route.routines, "routines",
                    try await store.routines(user: "alice", includeDeleted: false).map(\.routine.id.wireString),
                    [true, false]
                ),
                (
                    Route.bodyWeights, "body_weights",
                    try await store.bodyWeights(user: "alice", includeDeleted: false).map(\.bodyWeight.id.wireString),
                    [true, false]
                ),
            ]
            #expect(expected.map(\.ids.count) == [6, 9, 5, 6, 5])
            for list in expected {
                let walked = try await walk(server, list.path, key: list.key, limit: 3)
                #expect(walked.ids == list.ids, "\(list.path): each row once, in the list's order")
                #expect(walked.more == list.pages, "\(list.path)")
                // One page that holds them all says so.
                let whole = try await walk(server, list.path, key: list.key, limit: 5000)
                #expect(whole.ids == list.ids && whole.more == [false])
            }
            // Another user's lists stay empty, paged or not.
            let bob = try await server.send(.GET, Route.sets + "?limit=2", token: TestServer.bobToken)
            #expect(bob.json?["sets"] == .array([]) && bob.json?["has_more"] == .bool(false))
        }
    }

    @Test(
        "a limit out of 1...5000 or a cursor the list did not give is 400 naming the parameter",
        arguments: StoreBackend.available)
    func badLimitsAndCursorsAreRefused(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workout = try await server.createWorkout()
            _ = try await server.send(.POST, Route.sets, json: Fixtures.set(workoutID: workout), key: "s1")
            _ = try await server.send(
                .POST, Route.sets, json: Fixtures.set(workoutID: workout, extra: ["position": .int(2)]), key: "s2")
            let first = try await server.send(.GET, Route.sets + "?limit=1")
            let setsCursor = try #require(first.json?["cursor"]?.stringValue)
            let bad: [(String, String)] = [
                (Route.sets + "?limit=0", "limit"), (Route.sets + "?limit=5001", "limit"),
                (Route.sets + "?limit=abc", "limit"), (Route.workouts + "?limit=-3", "limit"),
                // What Swift's Int reads but the API's pattern does not allow.
                (Route.sets + "?limit=%2B3", "limit"), (Route.sets + "?limit=03", "limit"),
                (Route.changes + "?since=%2B5", "since"), (Route.changes + "?since=05", "since"),
                (Route.changes + "?since=1&wait=%2B1", "wait"),
                (Route.routines + "?after=not-a-cursor", "after"),
                (Route.workouts + "?after=\(setsCursor)", "after"),  // a cursor of another list
                (Route.bodyWeights + "?after=" + String(repeating: "A", count: 5000), "after"),
                (Route.sets + "?after=W10", "after"),  // base64 of a JSON array of the wrong size
            ]
            for (path, field) in bad {
                let response = try await server.send(.GET, path)
                #expect(response.status == 400, "\(path)")
                #expect(response.contentType == Problems.contentType)
                #expect(response.json?["field"]?.stringValue == field, "\(path)")
            }
            // The cursor it gave is taken, and the page after it is the rest.
            let second = try await server.send(.GET, Route.sets + "?limit=1&after=\(setsCursor)")
            #expect(second.status == 200)
            #expect(second.json?["has_more"] == .bool(false))
            guard case .array(let rows)? = second.json?["sets"] else {
                Issue.record("no sets")
                return
            }
            #expect(rows.count == 1 && rows[0]["position"] == .int(2))
        }
    }

    @Test("without a limit a page holds 500 rows: 501 sets answer 500, then 1", arguments: StoreBackend.available)
    func theDefaultPageIsBounded(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let workout = try await server.createWorkout()
            let ops = (1...501).map { position in
                BatchOp(
                    idempotencyKey: "set-\(position)", method: "POST", path: Route.sets,
                    body: Fixtures.set(workoutID: workout, extra: ["position": .int(Int64(position))]))
            }
            let batch = try await server.send(.POST, Route.batch, body: BatchRequest(ops: ops).json.canonicalString)
            #expect(batch.status == 200)
            let first = try await server.send(.GET, Route.sets)
            guard case .array(let page)? = first.json?["sets"], let cursor = first.json?["cursor"]?.stringValue else {
                Issue.record("no page: \(String(decoding: first.body, as: UTF8.self).prefix(300))")
                return
            }
            #expect(page.count == 500 && first.json?["has_more"] == .bool(true))
            let rest = try await server.send(.GET, Route.sets + "?after=\(cursor)")
            guard case .array(let last)? = rest.json?["sets"] else {
                Issue.record("no second page")
                return
            }
            #expect(last.count == 1 && last[0]["position"] == .int(501))
        }
    }
}

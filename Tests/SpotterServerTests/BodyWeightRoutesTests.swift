import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `/v1/body-weights` on both stores: the idempotency contract, the field merge, tombstones, the
/// batch route, the change feed, validation and per-user scoping, as sets have them.
@Suite("Body weight routes (SQLite and PostgreSQL)")
struct BodyWeightRoutesTests {
    static let morning = Date(timeIntervalSince1970: 1_795_000_000)

    static func body(
        id: String = UUID().wireString, at date: Date = morning, weight: Double = 81.456, unit: WeightUnit = .kg,
        notes: String? = "after breakfast"
    ) -> JSONValue {
        .object(BodyWeight(id: UUID(wire: id)!, measuredAt: date, weight: weight, unit: unit, notes: notes).wireFields)
    }

    static func path(_ id: String) -> String { Route.bodyWeights + "/\(id)" }

    /// The weigh-ins and conflicts in `token`'s feed.
    static func feed(
        _ server: TestServer, token: String = TestServer.aliceToken
    ) async throws -> (entries: [WireBodyWeight], conflicts: [WireConflict], cursor: String) {
        let page = try await server.send(.GET, Route.changes, token: token).decode(WireChangesPage.self)
        let versions = page.changes.map(\.serverVersion)
        #expect(versions == versions.sorted(), "the feed stays in version order with weigh-ins in it")
        return (
            page.changes.compactMap { if case .bodyWeight(let entry) = $0 { entry } else { nil } },
            page.changes.compactMap { if case .conflict(let conflict) = $0 { conflict } else { nil } }, page.cursor
        )
    }

    /// A stamp made `offset` seconds from now on `device` (the server holds stamps to its own clock).
    static func stamp(_ offset: TimeInterval, _ device: String) -> JSONValue {
        .string(
            ClockStamp(
                milliseconds: Int64(Date().addingTimeInterval(offset).timeIntervalSince1970 * 1000), device: device
            )
            .description)
    }

    @Test(
        "a weigh-in's create is 201 canonical, listed in the order taken, and in the change feed",
        arguments: StoreBackend.available)
    func createListAndFeed(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let later = UUID().wireString
            let earlier = UUID().wireString
            let first = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: later, at: Self.morning.addingTimeInterval(86_400)),
                key: UUID().uuidString)
            #expect(first.status == 201)
            let created = try first.decode(WireBodyWeight.self)
            #expect(created.bodyWeight.weight == 81.46, "the weight is rounded to 2 decimals")
            #expect(created.bodyWeight.notes == "after breakfast")
            #expect(created.serverVersion != nil && created.deleted == false && created.updatedAt != nil)
            let second = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: earlier, weight: 180, unit: .lb, notes: nil),
                key: UUID().uuidString)
            #expect(second.status == 201)

            let list = try await server.send(.GET, Route.bodyWeights).decode(BodyWeightList.self)
            #expect(list.bodyWeights.map(\.bodyWeight.id.wireString) == [earlier, later], "ordered by measured_at")
            #expect(list.bodyWeights.first?.bodyWeight.unit == .lb)
            #expect(list.bodyWeights.first?.bodyWeight.notes == nil)

            let feed = try await Self.feed(server)
            #expect(feed.entries.map(\.bodyWeight.id.wireString) == [later, earlier], "in the order written")
            #expect(feed.entries.first == created)
        }
    }

    @Test(
        "the same Idempotency-Key replays the stored answer and writes nothing twice; with another body it is 422",
        arguments: StoreBackend.available)
    func createIsIdempotent(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let key = UUID().uuidString
            let first = try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id), key: key)
            #expect(first.status == 201)
            #expect(!first.replayed)
            let cursor = try await Self.feed(server).cursor
            let again = try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id), key: key)
            #expect(again.status == 201)
            #expect(again.replayed)
            #expect(again.body == first.body)
            let other = try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id, weight: 90), key: key)
            #expect(other.status == 422)
            #expect(try await server.store.bodyWeights(user: "alice", includeDeleted: true).count == 1)
            #expect(try await Self.feed(server).cursor == cursor, "neither the replay nor the refusal wrote")
            #expect(
                try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id)).status == 400,
                "a create without an Idempotency-Key is refused")
            // The client id is the second layer: the same weigh-in under a new key is the stored
            // one; another weigh-in under its id is a conflict.
            let sameContent = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: id), key: UUID().uuidString)
            #expect(sameContent.status == 200)
            #expect(try sameContent.decode(WireBodyWeight.self) == first.decode(WireBodyWeight.self))
            let otherContent = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: id, weight: 90), key: UUID().uuidString)
            #expect(otherContent.status == 409)
            #expect(try await server.store.bodyWeights(user: "alice", includeDeleted: true).count == 1)
        }
    }

    @Test(
        "two devices' edits merge by stamp: the later weight and unit stay together, the other note is kept, the loss is a conflict in the feed",
        arguments: StoreBackend.available)
    func patchMergesTwoDevices(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let created = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: id, weight: 81), key: UUID().uuidString)
            let base = try #require(try created.decode(WireBodyWeight.self).serverVersion)
            // The laptop weighs in at 82 kg now; the phone, offline since a minute ago, had set
            // 180 lb and a note on the same version, and syncs after.
            let laptop = try await server.send(
                .PATCH, Self.path(id),
                json: .object(["weight": .double(82), "stamp": Self.stamp(-10, "laptop"), "base_version": .int(base)]),
                key: UUID().uuidString)
            #expect(laptop.status == 200)
            let phoneKey = UUID().uuidString
            let phoneEdit: JSONValue = .object([
                "weight": .double(180), "unit": .string("lb"), "notes": .string("fasted"),
                "stamp": Self.stamp(-60, "phone"), "base_version": .int(base),
            ])
            let phone = try await server.send(.PATCH, Self.path(id), json: phoneEdit, key: phoneKey)
            #expect(phone.status == 200)
            let answered = try phone.decode(WireBodyWeight.self).bodyWeight
            #expect(answered.weight == 82 && answered.unit == .kg, "the later reading stays whole")
            #expect(answered.notes == "fasted", "the phone's other field is kept")
            let stored = try #require(try await server.store.bodyWeights(user: "alice", includeDeleted: false).first)
            #expect(stored.bodyWeight == answered)

            let feed = try await Self.feed(server)
            #expect(feed.conflicts.count == 1)
            let conflict = try #require(feed.conflicts.first).record
            #expect(conflict.entityType == .bodyWeight && conflict.entityID.wireString == id)
            #expect(conflict.field == "weight")
            #expect(conflict.kept == .object(["weight": .double(82), "unit": .string("kg")]))
            #expect(conflict.overridden == .object(["weight": .double(180), "unit": .string("lb")]))
            #expect(conflict.keptStamp.device == "laptop" && conflict.overriddenStamp.device == "phone")
            #expect(conflict.label == "weigh-in of 82 kg on 2026-11-18")
            #expect(feed.entries.last?.bodyWeight == answered)

            // The phone's retry replays its answer and records nothing more.
            let retry = try await server.send(.PATCH, Self.path(id), json: phoneEdit, key: phoneKey)
            #expect(retry.replayed && retry.body == phone.body)
            #expect(try await Self.feed(server).conflicts.count == 1)
        }
    }

    @Test(
        "a delete tombstones; an edit of the deleted weigh-in is 404 and a delete-over-edit conflict",
        arguments: StoreBackend.available)
    func deleteThenEdit(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let created = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: id), key: UUID().uuidString)
            let base = try #require(try created.decode(WireBodyWeight.self).serverVersion)
            #expect(try await server.send(.DELETE, Self.path(id)).status == 204)
            #expect(try await server.send(.DELETE, Self.path(id)).status == 404, "one already gone is 404")
            #expect(try await server.send(.GET, Route.bodyWeights).decode(BodyWeightList.self).bodyWeights.isEmpty)

            let edit = try await server.send(
                .PATCH, Self.path(id),
                json: .object([
                    "notes": .string("fasted"), "stamp": Self.stamp(-30, "phone"), "base_version": .int(base),
                ]), key: UUID().uuidString)
            #expect(edit.status == 404)
            let feed = try await Self.feed(server)
            #expect(feed.entries.count == 1, "the tombstone replaced the row in the feed")
            #expect(feed.entries.first?.deleted == true)
            let conflict = try #require(feed.conflicts.first).record
            #expect(conflict.isDeleteOverEdit && conflict.entityType == .bodyWeight)
            #expect(conflict.overridden == .object(["notes": .string("fasted")]))
            #expect(conflict.label == "weigh-in of 81.46 kg on 2026-11-18")
            #expect(
                try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id), key: UUID().uuidString)
                    .status == 409, "a deleted weigh-in's id is not taken again")
        }
    }

    @Test(
        "refusals are 422 naming the field and change nothing; notes in any script are kept byte for byte",
        arguments: StoreBackend.available)
    func validation(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            _ = try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id), key: UUID().uuidString)
            let before = try await Self.feed(server).cursor
            var asText = Self.body().objectValue!
            asText["weight"] = .string("80")
            var withoutTime = Self.body().objectValue!
            withoutTime["measured_at"] = nil
            var unknownUnit = Self.body().objectValue!
            unknownUnit["unit"] = .string("st")
            var controlInUnknown = Self.body().objectValue!
            controlInUnknown["mood"] = .string("ok\u{1B}[2J")
            let creates: [(String, JSONValue)] = [
                ("weight", Self.body(weight: 4.5)),
                ("weight", Self.body(weight: 19.99)),
                ("weight", Self.body(weight: 900, unit: .lb)),
                ("weight", Self.body(weight: 40, unit: .lb)),
                ("weight", .object(asText)),
                ("measured_at", .object(withoutTime)),
                ("unit", .object(unknownUnit)),
                ("notes", Self.body(notes: "bell\u{07}")),
                ("notes", Self.body(notes: "line\r\nfeed")),
                ("notes", Self.body(notes: "\u{202E}reversed")),
                ("notes", Self.body(notes: String(repeating: "a", count: 4001))),
                ("mood", .object(controlInUnknown)),
            ]
            for (field, body) in creates {
                let answer = try await server.send(.POST, Route.bodyWeights, json: body, key: UUID().uuidString)
                #expect(answer.status == 422, "\(field): \(answer.text)")
                #expect(answer.contentType == "application/problem+json")
                #expect(try answer.decode(Problem.self).field == field, "\(answer.text)")
            }
            let patches: [(String, JSONValue)] = [
                ("weight", .object(["weight": .double(4.5)])),
                ("weight", .object(["weight": .string("80")])),
                ("weight", .object(["weight": .null])),
                ("weight", .object(["weight": .double(401)])),
                ("weight", .object(["weight": .double(44), "unit": .string("lb")])),
                ("unit", .object(["unit": .string("stone")])),
                ("notes", .object(["notes": .string("tab\tok but not \u{0}")])),
                ("id", .object(["id": .string(UUID().wireString)])),
            ]
            for (field, body) in patches {
                let answer = try await server.send(.PATCH, Self.path(id), json: body, key: UUID().uuidString)
                #expect(answer.status == 422, "\(field): \(answer.text)")
                #expect(try answer.decode(Problem.self).field == field, "\(answer.text)")
            }
            #expect(try await server.store.bodyWeights(user: "alice", includeDeleted: true).count == 1)
            #expect(try await Self.feed(server).cursor == before, "no refusal wrote anything")

            // A field the server does not know is ignored, as on every entity.
            var unknown = Self.body().objectValue!
            unknown["mood"] = .string("fine")
            #expect(
                try await server.send(.POST, Route.bodyWeights, json: .object(unknown), key: UUID().uuidString)
                    .status == 201)

            // Emoji with a skin tone and a joiner, Arabic and Hebrew, and a combining accent that
            // must not be composed: stored and answered as sent.
            let note = "بعد الفطور 🏋🏽‍♀️ אחרי e\u{0301}te\u{0301} 한국어\tok\nsecond line"
            let noteID = UUID().wireString
            let created = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: noteID, notes: note), key: UUID().uuidString)
            #expect(created.status == 201)
            #expect(try created.decode(WireBodyWeight.self).bodyWeight.notes.map { Array($0.utf8) } == Array(note.utf8))
            let listed = try await server.send(.GET, Route.bodyWeights).decode(BodyWeightList.self).bodyWeights
            let readBack = try #require(listed.first { $0.bodyWeight.id.wireString == noteID }?.bodyWeight.notes)
            #expect(Array(readBack.utf8) == Array(note.utf8), "byte for byte, not merely equal as text")
            let inFeed = try #require(
                try await Self.feed(server).entries.first { $0.bodyWeight.id.wireString == noteID }?.bodyWeight.notes)
            #expect(Array(inFeed.utf8) == Array(note.utf8))
            let patched = try await server.send(
                .PATCH, Self.path(id), json: .object(["notes": .string(note)]), key: UUID().uuidString)
            #expect(patched.status == 200)
            #expect(try patched.decode(WireBodyWeight.self).bodyWeight.notes.map { Array($0.utf8) } == Array(note.utf8))
        }
    }

    @Test("weigh-ins ride in a batch exactly as on their own routes", arguments: StoreBackend.available)
    func batch(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            let createKey = UUID().uuidString
            let ops = [
                BatchOp(idempotencyKey: createKey, method: "POST", path: Route.bodyWeights, body: Self.body(id: id)),
                BatchOp(
                    idempotencyKey: UUID().uuidString, method: "PATCH", path: Self.path(id),
                    body: .object(["weight": .double(176.4), "unit": .string("lb")])),
                BatchOp(
                    idempotencyKey: UUID().uuidString, method: "POST", path: Route.bodyWeights,
                    body: Self.body(weight: 4.5)),
            ]
            let answer = try await server.send(.POST, Route.batch, body: BatchRequest(ops: ops).json.canonicalString)
            #expect(answer.status == 200)
            let results = try answer.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [201, 200, 422])
            let patched = try WireBodyWeight(json: try #require(results[1].body)).bodyWeight
            #expect(patched.weight == 176.4 && patched.unit == .lb)

            let replay = try await server.send(
                .POST, Route.batch,
                body: BatchRequest(ops: [
                    ops[0], BatchOp(idempotencyKey: nil, method: "DELETE", path: Self.path(id), body: nil),
                ]).json.canonicalString)
            let replayed = try replay.decode(BatchResponse.self).results
            #expect(replayed.map(\.status) == [201, 204])
            #expect(replayed[0].replayed && replayed[0].body == results[0].body)
            let feed = try await Self.feed(server)
            #expect(feed.entries.count == 1 && feed.entries.first?.deleted == true)
        }
    }

    @Test("one user never reads or changes another's weigh-ins", arguments: StoreBackend.available)
    func usersAreIsolated(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        try await stopping(server) { server in
            let id = UUID().wireString
            _ = try await server.send(.POST, Route.bodyWeights, json: Self.body(id: id), key: UUID().uuidString)
            let bob = TestServer.bobToken
            #expect(
                try await server.send(
                    .PATCH, Self.path(id), json: .object(["notes": .string("mine")]), key: UUID().uuidString,
                    token: bob
                ).status == 404)
            #expect(try await server.send(.DELETE, Self.path(id), token: bob).status == 404)
            #expect(
                try await server.send(.GET, Route.bodyWeights, token: bob).decode(BodyWeightList.self).bodyWeights
                    .isEmpty)
            #expect(try await Self.feed(server, token: bob).entries.isEmpty)
            #expect(try await Self.feed(server, token: bob).conflicts.isEmpty, "bob's 404s recorded nothing")
            // The same id from bob is bob's own weigh-in.
            let bobs = try await server.send(
                .POST, Route.bodyWeights, json: Self.body(id: id, weight: 95), key: UUID().uuidString, token: bob)
            #expect(bobs.status == 201)
            #expect(
                try await server.store.bodyWeights(user: "alice", includeDeleted: false).first?.bodyWeight.weight
                    == 81.46)
            #expect(try await server.store.bodyWeights(user: "bob", includeDeleted: false).count == 1)
        }
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore
import SpotterSync

extension BenchmarkSuite {
    /// `json`: are the hand-written JSON reader and writer (`JSONValue.parse`, `canonicalData`)
    /// still worth keeping beside Foundation's? The same bytes the pull and the drain move, read
    /// and written every way, alternated round by round in one process:
    ///
    /// - the pull's pages: 100 000 sets in pages of 5 000 (the engine's page size), as the server
    ///   writes them and the device reads them into the wire model;
    /// - the drain's batch bodies: 10 000 queued operations in batches of 100, as the device
    ///   writes them and the server reads them.
    ///
    /// Each is done by the hand path, by `JSONSerialization` (bytes ⇄ Foundation objects, then
    /// the same wire model), by `JSONDecoder`/`JSONEncoder` through the wire types' `Codable`
    /// (which goes through `JSONValue`'s own `Codable`), and, for the pages, by `JSONDecoder` into
    /// plain `Codable` structs with a property per field (the shape a Codable-only wire model
    /// would have). Every path must read back what the hand path read, or the part fails. Beside
    /// them, the hand-written id code against Foundation's `UUID` on the pull's 200 000 ids.
    static func jsonBench(_ options: BenchOptions) throws -> JSONValue {
        let setCount = options.quick ? 2_000 : 100_000
        let pageSize = options.quick ? 500 : 5_000
        let operationCount = options.quick ? 300 : 10_000
        let pages = feedPages(sets: setCount, pageSize: pageSize)
        let batches = try batchBodies(options, operations: operationCount)
        let expectedPages = try pages.map { data throws -> WireChangesPage in
            guard let json = JSONValue.parse(data) else { throw BenchError("a page does not parse") }
            return try WireChangesPage(json: json)
        }
        let expectedBatches = try batches.map { data throws -> BatchRequest in
            guard let json = JSONValue.parse(data) else { throw BenchError("a batch does not parse") }
            return try BatchRequest(json: json)
        }
        let pageReaders: [(String, (Data) throws -> WireChangesPage)] = [
            ("hand", { try WireChangesPage(json: try parsedByHand($0)) }),
            ("serialization", { try WireChangesPage(json: try parsedBySerialization($0)) }),
            ("decoder", { try JSONDecoder().decode(WireChangesPage.self, from: $0) }),
            ("codable_structs", { try CodablePage.decode($0) }),
        ]
        let pageWriters: [(String, (WireChangesPage) throws -> Data)] = [
            ("hand", { $0.json.canonicalData }),
            ("serialization", { try writtenBySerialization($0.json) }),
            ("encoder", { try sortedEncoder().encode($0) }),
            ("codable_structs", { try sortedEncoder().encode(CodablePage($0)) }),
        ]
        let batchReaders: [(String, (Data) throws -> BatchRequest)] = [
            ("hand", { try BatchRequest(json: try parsedByHand($0)) }),
            ("serialization", { try BatchRequest(json: try parsedBySerialization($0)) }),
            ("decoder", { try JSONDecoder().decode(BatchRequest.self, from: $0) }),
        ]
        let batchWriters: [(String, (BatchRequest) throws -> Data)] = [
            ("hand", { $0.json.canonicalData }),
            ("serialization", { try writtenBySerialization($0.json) }),
            ("encoder", { try sortedEncoder().encode($0) }),
        ]
        // What every other path must agree with: read back by the hand path, the same values.
        for (name, read) in pageReaders {
            guard try pages.map(read) == expectedPages else { throw BenchError("\(name) read the pages differently") }
        }
        for (name, write) in pageWriters {
            let again = try expectedPages.map { page in try WireChangesPage(json: try parsedByHand(try write(page))) }
            guard again == expectedPages else { throw BenchError("\(name) wrote the pages differently") }
        }
        for (name, read) in batchReaders {
            guard try batches.map(read) == expectedBatches else {
                throw BenchError("\(name) read the batches differently")
            }
        }
        for (name, write) in batchWriters {
            let again = try expectedBatches.map { batch in try BatchRequest(json: try parsedByHand(try write(batch))) }
            guard again == expectedBatches else { throw BenchError("\(name) wrote the batches differently") }
        }
        // Ids: a pulled set carries two (its own and its workout's), read on the device and
        // written on the server; the hand code against Foundation's `UUID(uuidString:)` and
        // `uuidString` (upper case: lowered, as the wire keeps ids).
        let ids = (0..<(2 * setCount)).map { _ in UUID.timeOrdered() }
        let idTexts = ids.map(\.wireString)
        guard idTexts.map({ UUID(uuidString: $0) }) == ids, ids.map({ $0.uuidString.lowercased() }) == idTexts,
            idTexts.map({ UUID(wire: $0) }) == ids
        else { throw BenchError("the two id codes disagree") }
        // Rounds alternate the paths, so a slow stretch of the machine falls on all of them; each
        // path's figure is its best round.
        let rounds = options.quick ? 1 : 3
        var best: [String: Double] = [:]
        func keep(_ key: String, _ spent: Double) { best[key] = min(best[key] ?? .infinity, spent) }
        for _ in 0..<rounds {
            for (name, read) in pageReaders {
                keep("pull_read.\(name)", try syncSeconds { for page in pages { _ = try read(page) } })
            }
            for (name, write) in pageWriters {
                keep("pull_write.\(name)", try syncSeconds { for page in expectedPages { _ = try write(page) } })
            }
            keep("uuid_read.hand", syncSeconds { for text in idTexts { _ = UUID(wire: text) } })
            keep("uuid_read.foundation", syncSeconds { for text in idTexts { _ = UUID(uuidString: text) } })
            keep("uuid_write.hand", syncSeconds { for id in ids { _ = id.wireString } })
            keep("uuid_write.foundation", syncSeconds { for id in ids { _ = id.uuidString.lowercased() } })
            for (name, read) in batchReaders {
                keep("drain_read.\(name)", try syncSeconds { for batch in batches { _ = try read(batch) } })
            }
            for (name, write) in batchWriters {
                keep(
                    "drain_write.\(name)", try syncSeconds { for batch in expectedBatches { _ = try write(batch) } })
            }
        }
        var result: [String: JSONValue] = [
            "sets": .int(Int64(setCount)), "page_sets": .int(Int64(pageSize)),
            "pull_bytes": .int(Int64(pages.reduce(0) { $0 + $1.count })),
            "operations": .int(Int64(operationCount)), "drain_bytes": .int(Int64(batches.reduce(0) { $0 + $1.count })),
            "rounds": .int(Int64(rounds)), "uuids": .int(Int64(ids.count)),
        ]
        var groups: [String: [String: JSONValue]] = [:]
        for (key, spent) in best {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            groups[parts[0], default: [:]][parts[1]] = .double(rounded(spent, 3))
        }
        for (group, figures) in groups { result["\(group)_s"] = .object(figures) }
        // Per direction, what the best Foundation path adds over the hand path: the figure the
        // hand path is kept or dropped by, set against the whole pull or drain elsewhere in the run.
        for group in ["pull_read", "pull_write", "drain_read", "drain_write", "uuid_read", "uuid_write"] {
            guard let hand = best["\(group).hand"] else { continue }
            let foundation = best.filter { $0.key.hasPrefix("\(group).") && $0.key != "\(group).hand" }.values.min()
            if let foundation { result["\(group)_foundation_extra_s"] = .double(rounded(foundation - hand, 3)) }
        }
        return .object(result)
    }

    /// `sets` set changes in pages of `pageSize`, written as the server writes a feed page.
    static func feedPages(sets count: Int, pageSize: Int) -> [Data] {
        let stamp = Timestamp.truncated(Date())
        var pages: [Data] = []
        var changes: [WireChange] = []
        var workoutID = UUID.timeOrdered()
        for index in 0..<count {
            if index % 20 == 0 { workoutID = UUID.timeOrdered() }
            changes.append(
                .set(
                    WireSet(
                        id: .timeOrdered(), workoutID: workoutID, exercise: lifts[index % lifts.count],
                        position: index % 20 + 1, kind: index % 7 == 0 ? .warmup : .normal,
                        weight: 60 + Double(index % 80) * 2.5, unit: .kg, reps: 1 + index % 12,
                        rpe: index % 3 == 0 ? 8.5 : nil, notes: index % 10 == 0 ? "felt strong 💪" : nil,
                        performedAt: stamp, updatedAt: stamp, serverVersion: Int64(index + 1), deleted: false)))
            if changes.count == pageSize || index == count - 1 {
                let page = WireChangesPage(
                    changes: changes, cursor: String(index + 1), hasMore: index < count - 1)
                pages.append(page.json.canonicalData)
                changes.removeAll(keepingCapacity: true)
            }
        }
        return pages
    }

    /// The batch bodies a device with `operations` queued sends, 100 to a batch (the workout's
    /// create goes alone: its sets wait for it).
    static func batchBodies(_ options: BenchOptions, operations: Int) throws -> [Data] {
        let store = try queuedDevice(options, "json", count: operations)
        var bodies: [Data] = []
        var sent = 0
        while true {
            let claimed = try store.queue.claimEligible(limit: 100)
            sent += claimed.count
            if claimed.isEmpty { break }
            bodies.append(try OperationRequest.batchBody(claimed))
            // Answered as the server would, so the sets that wait on their workout come next.
            try store.queue.complete(
                claimed.map { OperationOutcome(opID: $0.opID, result: .succeeded(status: 201, row: nil)) })
        }
        guard sent == operations else { throw BenchError("\(sent) of \(operations) operations were batched") }
        return bodies
    }

    static func parsedByHand(_ data: Data) throws -> JSONValue {
        guard let json = JSONValue.parse(data) else { throw BenchError("not JSON") }
        return json
    }

    /// `JSONSerialization`'s objects as a `JSONValue`: a number is an integer when it has no
    /// fraction and fits, as the hand reader decides.
    static func parsedBySerialization(_ data: Data) throws -> JSONValue {
        func value(_ object: Any) throws -> JSONValue {
            switch object {
            case is NSNull: return .null
            case let text as String: return .string(text)
            case let array as [Any]: return .array(try array.map(value))
            case let dictionary as [String: Any]: return .object(try dictionary.mapValues(value))
            case let number as NSNumber:
                switch String(cString: number.objCType) {
                case "c", "B": return .bool(number.boolValue)
                case "d", "f": return .double(number.doubleValue)
                default: return .int(number.int64Value)
                }
            default: throw BenchError("JSONSerialization gave a \(type(of: object))")
            }
        }
        return try value(JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// `JSONSerialization` writing a `JSONValue` with sorted keys, as the canonical writer does.
    static func writtenBySerialization(_ json: JSONValue) throws -> Data {
        func object(_ value: JSONValue) -> Any {
            switch value {
            case .null: NSNull()
            case .bool(let flag): NSNumber(value: flag)
            case .int(let int): NSNumber(value: int)
            case .double(let double): NSNumber(value: double)
            case .string(let text): text
            case .array(let array): array.map(object)
            case .object(let fields): fields.mapValues(object)
            }
        }
        return try JSONSerialization.data(withJSONObject: object(json), options: [.sortedKeys, .fragmentsAllowed])
    }

    static func sortedEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

/// A feed page of sets as plain `Codable` structs, a stored property per field and the wire
/// names as coding keys: what a wire model that is only `Codable` reads and writes. Ids, kinds
/// and times are checked and converted as the wire model does, so the work compared is the same.
private struct CodablePage: Codable {
    var changes: [Change]
    var cursor: String
    var hasMore: Bool

    enum CodingKeys: String, CodingKey {
        case changes, cursor
        case hasMore = "has_more"
    }

    struct Change: Codable {
        var entityType: String
        var set: Row

        enum CodingKeys: String, CodingKey {
            case entityType = "entity_type"
            case set
        }
    }

    struct Row: Codable {
        var id: String
        var workoutID: String
        var exercise: String
        var position: Int
        var kind: String
        var weight: Double
        var unit: String
        var reps: Int
        var rpe: Double?
        var distanceM: Double?
        var durationS: Double?
        var notes: String?
        var performedAt: String
        var superset: Int?
        var updatedAt: String?
        var serverVersion: Int64?
        var deleted: Bool?

        enum CodingKeys: String, CodingKey {
            case id, exercise, position, kind, weight, unit, reps, rpe, notes, superset, deleted
            case workoutID = "workout_id"
            case distanceM = "distance_m"
            case durationS = "duration_s"
            case performedAt = "performed_at"
            case updatedAt = "updated_at"
            case serverVersion = "server_version"
        }
    }

    init(_ page: WireChangesPage) {
        cursor = page.cursor
        hasMore = page.hasMore
        changes = page.changes.compactMap { change in
            guard case .set(let row) = change else { return nil }
            let set = row.set
            return Change(
                entityType: EntityType.set.rawValue,
                set: Row(
                    id: set.id.wireString, workoutID: set.workoutID.wireString, exercise: set.exercise,
                    position: set.position, kind: set.kind.rawValue, weight: set.weight, unit: set.unit.rawValue,
                    reps: set.reps, rpe: set.rpe, distanceM: set.distanceM, durationS: set.durationS, notes: set.notes,
                    performedAt: Timestamp.format(set.performedAt), superset: set.superset,
                    updatedAt: row.updatedAt.map(Timestamp.format), serverVersion: row.serverVersion,
                    deleted: row.deleted))
        }
    }

    /// The page read into the wire model by way of the structs.
    static func decode(_ data: Data) throws -> WireChangesPage {
        let page = try JSONDecoder().decode(CodablePage.self, from: data)
        var changes: [WireChange] = []
        changes.reserveCapacity(page.changes.count)
        for change in page.changes {
            let row = change.set
            guard change.entityType == EntityType.set.rawValue, let id = UUID(wire: row.id),
                let workoutID = UUID(wire: row.workoutID), let kind = SetKind(rawValue: row.kind),
                let unit = WeightUnit(rawValue: row.unit), let performedAt = Timestamp.parse(row.performedAt)
            else { throw BenchError("a change does not read as a set") }
            var set = WireSet(
                id: id, workoutID: workoutID, exercise: row.exercise, position: row.position, kind: kind,
                weight: row.weight, unit: unit, reps: row.reps, rpe: row.rpe, distanceM: row.distanceM,
                durationS: row.durationS, notes: row.notes, performedAt: performedAt,
                updatedAt: try row.updatedAt.map { text in
                    guard let date = Timestamp.parse(text) else { throw BenchError("updated_at is not a time") }
                    return date
                }, serverVersion: row.serverVersion, deleted: row.deleted)
            set.set.superset = row.superset
            changes.append(.set(set))
        }
        return WireChangesPage(changes: changes, cursor: page.cursor, hasMore: page.hasMore)
    }
}

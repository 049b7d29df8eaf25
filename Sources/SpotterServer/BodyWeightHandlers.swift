import Foundation
import SpotterCore
import SpotterProtocol

/// The server's rules for weigh-ins: the client owns when, the weight and its unit, and a note.
/// The weight is rounded to 2 decimals as a set's is, then checked with the shared
/// `Validation.bodyWeight`, so the device and the server refuse the same readings.
extension EntityRules {
    static let bodyWeightRequired = [
        BodyWeight.Column.id.name, BodyWeight.Column.measuredAt.name, BodyWeight.Column.weight.name,
    ]

    static func newBodyWeight(from fields: [String: JSONValue]) throws(ValidationError) -> WireBodyWeight {
        let reader = FieldReader(fields: fields)
        try reader.require(bodyWeightRequired)
        var entry = BodyWeight(
            id: try reader.uuid(BodyWeight.Column.id.name)!,
            measuredAt: try reader.timestamp(BodyWeight.Column.measuredAt.name)!,
            weight: try reader.double(BodyWeight.Column.weight.name)!, unit: try unit(reader))
        try apply(reader, to: &entry)
        return WireBodyWeight(entry)
    }

    static func patchBodyWeight(
        _ wire: inout WireBodyWeight, with fields: [String: JSONValue]
    ) throws(ValidationError) {
        let reader = FieldReader(fields: fields)
        try checkPatchID(reader, matches: wire.bodyWeight.id)
        try reader.rejectNull([
            BodyWeight.Column.measuredAt.name, BodyWeight.Column.weight.name, BodyWeight.Column.unit.name,
        ])
        try apply(reader, to: &wire.bodyWeight)
    }

    private static func apply(_ reader: FieldReader, to entry: inout BodyWeight) throws(ValidationError) {
        typealias Column = BodyWeight.Column
        if reader.has(Column.measuredAt.name) { entry.measuredAt = try reader.timestamp(Column.measuredAt.name)! }
        if reader.has(Column.weight.name) { entry.weight = try reader.double(Column.weight.name)! }
        if reader.has(Column.unit.name) { entry.unit = try unit(reader) }
        if reader.has(Column.notes.name) { entry.notes = try reader.string(Column.notes.name) }
        entry.weight = roundedWeight(entry.weight)
        try Validation.bodyWeight(entry)
    }
}

extension WireBodyWeight: MergeableEntity {
    static var entityType: EntityType { .bodyWeight }
    static var mergeGroups: [[String]] { MergeFields.bodyWeight }
    var entityID: UUID { bodyWeight.id }
    var isDeleted: Bool { deleted == true }
    var lastUpdate: Date? { updatedAt }
    mutating func apply(_ fields: [String: JSONValue]) throws(ValidationError) {
        try EntityRules.patchBodyWeight(&self, with: fields)
    }
    /// The client's part is the weigh-in itself; the stamp is the server's.
    func differs(from other: WireBodyWeight) -> Bool { bodyWeight != other.bodyWeight }
    mutating func stamp(version: Int64, at now: Date) {
        updatedAt = now
        serverVersion = version
        deleted = false
    }
}

extension EntityHandlers {
    func createBodyWeight(_ fields: [String: JSONValue]) async throws -> APIResponse {
        let incoming: WireBodyWeight
        do { incoming = try EntityRules.newBodyWeight(from: fields) } catch {
            return .problem(Problems.validation(error))
        }
        if let existing = try await transaction.bodyWeight(id: incoming.bodyWeight.id.wireString, owner: user) {
            // The client id is the second idempotency layer, as for every create: the same
            // weigh-in again is the one stored; another one (or one deleted) under its id is 409.
            guard existing.deleted != true, existing.bodyWeight == incoming.bodyWeight else {
                return .problem(Problems.conflict("a different weigh-in with this id already exists", field: "id"))
            }
            return .json(200, existing)
        }
        var entry = incoming
        entry.stamp(version: try await transaction.nextChangeVersion(owner: user), at: now)
        try await transaction.saveBodyWeight(entry, owner: user)
        return .json(201, entry)
    }

    /// Merged field by field as a set's update is (weight and unit as one), through the same path.
    func updateBodyWeight(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        try await mergedUpdate(
            id: id, fields: fields, read: { try await transaction.bodyWeight(id: $0, owner: user) }, label: label(of:),
            save: { try await transaction.saveBodyWeight($0, owner: user) })
    }

    func deleteBodyWeight(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        guard var entry = try await transaction.bodyWeight(id: id, owner: user), entry.deleted != true else {
            return .problem(Problems.notFound("no weigh-in \(id)"))
        }
        let clock = editClock(fields)
        try await recordDeleteOverUnseenEdits(
            .bodyWeight, id: entry.bodyWeight.id, stored: entry.json, groups: MergeFields.bodyWeight,
            base: clock.base, deleteStamp: clock.stamp, label: label(of: entry))
        entry.updatedAt = now
        entry.serverVersion = try await transaction.nextChangeVersion(owner: user)
        entry.deleted = true
        try await transaction.saveBodyWeight(entry, owner: user)
        return .noContent
    }

    /// "weigh-in of 81.5 kg on 2026-11-27" (the day in UTC): what a conflict names.
    func label(of entry: WireBodyWeight) -> String {
        let day = Timestamp.format(entry.bodyWeight.measuredAt).prefix(10)
        return "weigh-in of \(Formatting.weight(entry.bodyWeight.weight, unit: entry.bodyWeight.unit)) on \(day)"
    }
}

extension StoredEntity {
    /// A `body_weights` row (columns id, measured_at, weight, unit, notes, and the stamp).
    static func bodyWeight(_ row: some StoredRow) throws -> WireBodyWeight {
        WireBodyWeight(
            try BodyWeight(reading: row), updatedAt: try StoredCell.optionalDate(row, "updated_at"),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"),
            deleted: try StoredCell.required(row.flag("deleted"), "deleted"))
    }
}

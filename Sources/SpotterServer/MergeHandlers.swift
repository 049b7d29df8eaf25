import Foundation
import SpotterCore
import SpotterProtocol

/// The fields an update merges one by one, with the fields that only mean something together
/// merged as one (a weight and its unit: 105 from one device and "lb" from another would make a
/// weight nobody lifted).
enum MergeFields {
    static let set = groups(WorkoutSet.Column.allCases.filter { $0 != .id }, together: WorkoutSet.Column.together)
    static let routine = groups(Routine.Column.allCases.filter { $0 != .id })
    /// A weigh-in's weight and unit are one reading, as a set's are.
    static let bodyWeight = groups(
        BodyWeight.Column.allCases.filter { $0 != .id }, together: BodyWeight.Column.together)
    /// A workout's plan is set by its create and never edited, so it is never merged.
    static let workout = groups(Workout.Column.allCases.filter { $0 != .id && $0 != .plan })

    /// One group per column, in the entity's order, except `together`, one group where its first
    /// column stands.
    static func groups<Column: EntityColumn>(_ columns: [Column], together: [Column] = []) -> [[String]] {
        columns.compactMap { column in
            guard together.contains(column) else { return [column.name] }
            return column == together.first ? together.map(\.name) : nil
        }
    }

    /// The merge's view of an entity: one value per group (the group's first field names it; a
    /// group of several holds an object of their values).
    static func values(_ json: JSONValue, groups: [[String]], only sent: Set<String>? = nil) -> [String: JSONValue] {
        let fields = json.objectValue ?? [:]
        var values: [String: JSONValue] = [:]
        for group in groups {
            if let sent, !group.contains(where: sent.contains) { continue }
            if group.count == 1 {
                values[group[0]] = fields[group[0]] ?? .null
            } else {
                values[group[0]] = .object(Dictionary(uniqueKeysWithValues: group.map { ($0, fields[$0] ?? .null) }))
            }
        }
        return values
    }

    /// Group values back into the fields of a patch.
    static func patch(_ values: [String: JSONValue], groups: [[String]]) -> [String: JSONValue] {
        var patch: [String: JSONValue] = [:]
        for group in groups {
            guard let value = values[group[0]] else { continue }
            if group.count == 1 {
                patch[group[0]] = value
            } else {
                for field in group { patch[field] = value.objectValue?[field] ?? .null }
            }
        }
        return patch
    }
}

/// A stored entity an update merges into field by field: a workout, a set or a weigh-in (a
/// routine's plan merges row by row, in `updateRoutine`).
protocol MergeableEntity: WireCodable, Equatable {
    static var entityType: EntityType { get }
    static var mergeGroups: [[String]] { get }
    var entityID: UUID { get }
    var isDeleted: Bool { get }
    var lastUpdate: Date? { get }
    /// The fields of a patch applied, canonicalised and validated as the entity's rules say.
    mutating func apply(_ fields: [String: JSONValue]) throws(ValidationError)
    /// Whether the client's part differs from `other`'s (the server's stamp aside).
    func differs(from other: Self) -> Bool
    mutating func stamp(version: Int64, at now: Date)
}

extension WireWorkout: MergeableEntity {
    static var entityType: EntityType { .workout }
    static var mergeGroups: [[String]] { MergeFields.workout }
    var entityID: UUID { workout.id }
    var isDeleted: Bool { deleted == true }
    var lastUpdate: Date? { updatedAt }
    mutating func apply(_ fields: [String: JSONValue]) throws(ValidationError) {
        try EntityRules.patchWorkout(&self, with: fields)
    }
    func differs(from other: WireWorkout) -> Bool {
        EntityRules.clientContent(self) != EntityRules.clientContent(other)
    }
    mutating func stamp(version: Int64, at now: Date) {
        updatedAt = now
        serverVersion = version
        deleted = false
    }
}

extension WireSet: MergeableEntity {
    static var entityType: EntityType { .set }
    static var mergeGroups: [[String]] { MergeFields.set }
    var entityID: UUID { self.set.id }
    var isDeleted: Bool { deleted == true }
    var lastUpdate: Date? { updatedAt }
    mutating func apply(_ fields: [String: JSONValue]) throws(ValidationError) {
        try EntityRules.patchSet(&self, with: fields)
    }
    func differs(from other: WireSet) -> Bool { EntityRules.clientContent(self) != EntityRules.clientContent(other) }
    mutating func stamp(version: Int64, at now: Date) {
        updatedAt = now
        serverVersion = version
        deleted = false
    }
}

extension EntityHandlers {
    /// An update of a workout, a set or a weigh-in, merged field by field into what is stored (one
    /// path for all three): an edit of a deleted entity is 404 and a conflict; a patch that changes nothing is
    /// no new version; otherwise what another device changed since the edit's base, later, stays,
    /// and every overridden value is recorded.
    /// - Parameter check: a refusal of the merged entity before it is saved (nil: none).
    func mergedUpdate<Entity: MergeableEntity>(
        id: String, fields: [String: JSONValue], read: (String) async throws -> Entity?,
        label: (Entity) async throws -> String, check: (Entity) async throws -> APIResponse? = { _ in nil },
        save: (Entity) async throws -> Void
    ) async throws -> APIResponse {
        let noun = Entity.entityType.rawValue
        guard let before = try await read(id) else { return .problem(Problems.notFound("no \(noun) \(id)")) }
        if before.isDeleted {
            try await recordDeleteOverEdit(
                Entity.entityType, id: before.entityID, sentFields: fields, groups: Entity.mergeGroups,
                deletedAt: before.lastUpdate, label: label(before))
            return .problem(Problems.notFound("no \(noun) \(id)"))
        }
        var patched = before
        do { try patched.apply(fields) } catch { return .problem(Problems.validation(error)) }
        // A patch that changes nothing is no change: no new version, no entry in the feed.
        guard patched.differs(from: before) else { return .json(200, before) }
        let merged = try await merge(
            Entity.entityType, id: id, sentFields: fields, before: before.json, patched: patched.json,
            groups: Entity.mergeGroups)
        var entity = before
        do { try entity.apply(merged.patch) } catch { return .problem(Problems.validation(error)) }
        var version: Int64?
        if entity.differs(from: before) {
            if let refusal = try await check(entity) { return refusal }
            version = try await transaction.nextChangeVersion(owner: user)
            entity.stamp(version: version!, at: now)
            try await save(entity)
        }
        let answer = version == nil ? before : entity
        try await recordMerge(
            Entity.entityType, id: before.entityID, written: merged.patch, groups: Entity.mergeGroups,
            clock: merged.clock, version: version, conflicts: merged.conflicts, label: label(answer))
        return .json(200, answer)
    }

    /// When the edit was made and what it was based on, from its fields. An update from a client
    /// that sends no stamp is taken as made now (last to arrive wins, as before the merge), and
    /// a stamp from a clock far ahead is held back to the server's time plus a bound.
    func editClock(_ fields: [String: JSONValue]) -> (stamp: ClockStamp, base: Int64?) {
        let serverNow = ClockStamp(
            milliseconds: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)), device: ClockStamp.serverDevice)
        let sent = fields[EditClockField.stamp]?.stringValue.flatMap { ClockStamp($0) }
        let base = fields[EditClockField.baseVersion]?.intValue.map(Int64.init)
        return ((sent ?? serverNow).clamped(serverNow: now), base)
    }

    /// Merges the fields an edit sent (already applied to `patched`, so canonical) into what is
    /// stored (`before`): the patch of what is written, and the conflicts.
    func merge(
        _ type: EntityType, id: String, sentFields: [String: JSONValue], before: JSONValue, patched: JSONValue,
        groups: [[String]]
    ) async throws -> (patch: [String: JSONValue], clock: ClockStamp, conflicts: [FieldMerge.FieldConflict]) {
        let clock = editClock(sentFields)
        let sent = Set(sentFields.keys)
        let result = FieldMerge.merge(
            patch: MergeFields.values(patched, groups: groups, only: sent), stamp: clock.stamp, baseVersion: clock.base,
            stored: MergeFields.values(before, groups: groups, only: sent),
            clocks: try await transaction.fieldClocks(type, id: id, owner: user))
        return (MergeFields.patch(result.writes, groups: groups), clock.stamp, result.conflicts)
    }

    /// Stores the clocks of the fields written and records every conflict, each a feed entry.
    func recordMerge(
        _ type: EntityType, id: UUID, written: [String: JSONValue], groups: [[String]], clock: ClockStamp,
        version: Int64?, conflicts: [FieldMerge.FieldConflict], label: String
    ) async throws {
        if let version {
            var clocks: [String: FieldClock] = [:]
            for group in groups where group.contains(where: { written[$0] != nil }) {
                clocks[group[0]] = FieldClock(stamp: clock, version: version)
            }
            try await transaction.saveFieldClocks(clocks, type: type, id: id.wireString, owner: user)
        }
        for conflict in conflicts {
            try await saveConflict(
                ConflictRecord(
                    id: UUID.timeOrdered(at: now), entityType: type, entityID: id, field: conflict.field,
                    kept: conflict.kept, overridden: conflict.overridden, keptStamp: conflict.keptStamp,
                    overriddenStamp: conflict.overriddenStamp, label: label, recordedAt: now))
        }
    }

    /// An edit that reached an entity another device deleted: the delete wins, and the edit is
    /// recorded as overridden by it.
    func recordDeleteOverEdit(
        _ type: EntityType, id: UUID, sentFields: [String: JSONValue], groups: [[String]], deletedAt: Date?,
        label: String
    ) async throws {
        // Only what the edit sent: a weight sent without its unit is no edit of the unit.
        let edited = MergeFields.patch(
            MergeFields.values(.object(sentFields), groups: groups, only: Set(sentFields.keys)), groups: groups
        ).filter { sentFields[$0.key] != nil }
        guard !edited.isEmpty else { return }
        let deleteStamp = ClockStamp(
            milliseconds: Int64(((deletedAt ?? now).timeIntervalSince1970 * 1000).rounded(.down)),
            device: ClockStamp.serverDevice)
        try await saveConflict(
            ConflictRecord(
                id: UUID.timeOrdered(at: now), entityType: type, entityID: id, field: ConflictRecord.deletedField,
                kept: .bool(true), overridden: .object(edited), keptStamp: deleteStamp,
                overriddenStamp: editClock(sentFields).stamp, label: label, recordedAt: now))
    }

    /// A delete made without a sight of edits other devices stored since the version the deleting
    /// device had (`base`): the delete still wins, and those edits are recorded as overridden by
    /// it, so the devices that made them say so. A delete that sends no base (an older client)
    /// records nothing.
    func recordDeleteOverUnseenEdits(
        _ type: EntityType, id: UUID, stored: JSONValue, groups: [[String]], base: Int64?, deleteStamp: ClockStamp,
        label: String
    ) async throws {
        guard let base else { return }
        let unseen = try await transaction.fieldClocks(type, id: id.wireString, owner: user).filter {
            $0.value.version > base && $0.value.stamp.device != deleteStamp.device
        }
        guard let newest = unseen.values.map(\.stamp).max() else { return }
        // A routine's planned rows keep their clocks under "exercises/<row>/<field>".
        let names = Set(
            groups.map { $0[0] }.filter { name in unseen.keys.contains { $0 == name || $0.hasPrefix(name + "/") } })
        let edited = MergeFields.patch(MergeFields.values(stored, groups: groups, only: names), groups: groups)
        guard !edited.isEmpty else { return }
        try await saveConflict(
            ConflictRecord(
                id: UUID.timeOrdered(at: now), entityType: type, entityID: id, field: ConflictRecord.deletedField,
                kept: .bool(true), overridden: .object(edited), keptStamp: deleteStamp, overriddenStamp: newest,
                label: label, recordedAt: now))
    }

    /// A set a workout's delete takes with it that the deleting device never held (logged on
    /// another device after it last pulled): recorded whole as overridden by the delete.
    func recordDeleteOverUnseenSet(_ set: WireSet, deleteStamp: ClockStamp, label: String) async throws {
        let clocks = try await transaction.fieldClocks(.set, id: set.id.wireString, owner: user)
        let made = ClockStamp(
            milliseconds: Int64(((set.updatedAt ?? now).timeIntervalSince1970 * 1000).rounded(.down)),
            device: ClockStamp.serverDevice)
        let content = MergeFields.patch(
            MergeFields.values(EntityRules.clientContent(set).json, groups: MergeFields.set), groups: MergeFields.set)
        try await saveConflict(
            ConflictRecord(
                id: UUID.timeOrdered(at: now), entityType: .set, entityID: set.id, field: ConflictRecord.deletedField,
                kept: .bool(true), overridden: .object(content), keptStamp: deleteStamp,
                overriddenStamp: clocks.values.map(\.stamp).max() ?? made, label: label, recordedAt: now))
    }

    private func saveConflict(_ record: ConflictRecord) async throws {
        try await transaction.saveConflict(
            WireConflict(record: record, serverVersion: try await transaction.nextChangeVersion(owner: user)),
            owner: user)
    }

    /// "Bench Press (Barbell) set in 'Push Day'": what a conflict names.
    func label(of set: WireSet) async throws -> String {
        label(of: set, inWorkout: try await transaction.workout(id: set.workoutID.wireString, owner: user)?.name)
    }

    /// The same, when the workout's name is already at hand (nil: the workout is not found).
    func label(of set: WireSet, inWorkout name: String?) -> String {
        "\(set.exercise) set" + (name.map { " in '\($0)'" } ?? "")
    }

    func label(of workout: WireWorkout) -> String { "workout '\(workout.name)'" }

    func label(of routine: WireRoutine) -> String { "routine '\(routine.routine.name)'" }
}

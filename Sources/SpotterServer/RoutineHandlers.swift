import Foundation
import SpotterCore
import SpotterProtocol

/// The server's rules for routines: the client owns the name, notes, rest and the whole list of
/// planned exercises (one document: a PATCH of `exercises` replaces the list).
extension EntityRules {
    static let routineRequired = ["id", "name"]

    static func newRoutine(from fields: [String: JSONValue]) throws(ValidationError) -> WireRoutine {
        let reader = FieldReader(fields: fields)
        try reader.require(routineRequired)
        var routine = Routine(id: try reader.uuid("id")!, name: try reader.string("name")!)
        try apply(reader, to: &routine)
        return WireRoutine(routine)
    }

    static func patchRoutine(_ wire: inout WireRoutine, with fields: [String: JSONValue]) throws(ValidationError) {
        let reader = FieldReader(fields: fields)
        if reader.has("id") {
            guard let sent = try reader.uuid("id"), sent == wire.routine.id else {
                throw ValidationError(field: "id", message: "must match the id in the path (ids cannot change)")
            }
        }
        try reader.rejectNull(["name", "exercises"])
        try apply(reader, to: &wire.routine)
    }

    private static func apply(_ reader: FieldReader, to routine: inout Routine) throws(ValidationError) {
        if reader.has("name") { routine.name = try reader.string("name")! }
        if reader.has("notes") { routine.notes = try reader.string("notes") }
        if reader.has(Routine.Field.restSeconds) { routine.restSeconds = try reader.int(Routine.Field.restSeconds) }
        if let exercises = reader.fields[Routine.Field.exercises], !exercises.isNull {
            routine.exercises = try Routine.exercises(from: exercises)
        }
        routine.name = routine.name.trimmingCharacters(in: .whitespacesAndNewlines)
        for index in routine.exercises.indices {
            for setIndex in routine.exercises[index].sets.indices {
                if let weight = routine.exercises[index].sets[setIndex].weight {
                    routine.exercises[index].sets[setIndex].weight = roundedWeight(weight)
                }
            }
        }
        try Validation.routine(routine)
    }

    static func clientContent(_ wire: WireRoutine) -> Routine { wire.routine }
}

extension EntityHandlers {
    func createRoutine(_ fields: [String: JSONValue]) async throws -> APIResponse {
        let incoming: WireRoutine
        do { incoming = try EntityRules.newRoutine(from: fields) } catch { return .problem(Problems.validation(error)) }
        if let existing = try await transaction.routine(id: incoming.routine.id.wireString, owner: user) {
            guard existing.deleted != true, existing.routine == incoming.routine else {
                return .problem(Problems.conflict("a different routine with this id already exists", field: "id"))
            }
            return .json(200, existing)
        }
        var routine = incoming
        try await stampRoutine(&routine, deleted: false)
        try await transaction.saveRoutine(routine, owner: user)
        return .json(201, routine)
    }

    func updateRoutine(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        guard let before = try await transaction.routine(id: id, owner: user) else {
            return .problem(Problems.notFound("no routine \(id)"))
        }
        if before.deleted == true {
            try await recordDeleteOverEdit(
                .routine, id: before.routine.id, sentFields: fields, groups: MergeFields.routine,
                deletedAt: before.updatedAt, label: label(of: before))
            return .problem(Problems.notFound("no routine \(id)"))
        }
        var patched = before
        do { try EntityRules.patchRoutine(&patched, with: fields) } catch {
            return .problem(Problems.validation(error))
        }
        if patched.routine == before.routine { return .json(200, before) }
        // Name, notes and rest merge as a set's fields do; the planned exercises row by row
        // against the list the edit was made on (sent as base_exercises).
        var sent = fields
        let clocks = try await transaction.fieldClocks(.routine, id: id, owner: user)
        var rowConflicts: [FieldMerge.FieldConflict] = []
        var mergedExercises: JSONValue?
        let patchedJSON = patched.json.objectValue ?? [:]
        if let base = fields[EditClockField.baseExercises], base.arrayValue != nil,
            let local = patchedJSON[Routine.Field.exercises],
            let remote = before.json.objectValue?[Routine.Field.exercises]
        {
            sent.removeValue(forKey: Routine.Field.exercises)
            let stamp = editClock(fields).stamp
            let result = RoutineMerge.merge(
                base: base, local: local, remote: remote, localStamp: stamp,
                remoteStamp: clocks[Routine.Field.exercises]?.stamp ?? .origin)
            mergedExercises = result.exercises
            rowConflicts = result.conflicts
        }
        let merged = try await merge(
            .routine, id: id, sentFields: sent, before: before.json, patched: patched.json, groups: MergeFields.routine)
        var patch = merged.patch
        if let mergedExercises, mergedExercises != before.json.objectValue?[Routine.Field.exercises] {
            patch[Routine.Field.exercises] = mergedExercises
        }
        var routine = before
        do { try EntityRules.patchRoutine(&routine, with: patch) } catch {
            return .problem(Problems.validation(error))
        }
        var version: Int64?
        if routine.routine != before.routine {
            try await stampRoutine(&routine, deleted: false)
            version = routine.serverVersion
            try await transaction.saveRoutine(routine, owner: user)
        }
        try await recordMerge(
            .routine, id: before.routine.id, written: patch, groups: MergeFields.routine, clock: merged.clock,
            version: version, conflicts: merged.conflicts + rowConflicts,
            label: label(of: version == nil ? before : routine))
        return .json(200, version == nil ? before : routine)
    }

    func deleteRoutine(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        guard var routine = try await liveRoutine(id) else { return .problem(Problems.notFound("no routine \(id)")) }
        let clock = editClock(fields)
        try await recordDeleteOverUnseenEdits(
            .routine, id: routine.routine.id, stored: routine.json, groups: MergeFields.routine, base: clock.base,
            deleteStamp: clock.stamp, label: label(of: routine))
        try await stampRoutine(&routine, deleted: true)
        try await transaction.saveRoutine(routine, owner: user)
        return .noContent
    }

    private func liveRoutine(_ id: String) async throws -> WireRoutine? {
        guard let found = try await transaction.routine(id: id, owner: user), found.deleted != true else { return nil }
        return found
    }

    private func stampRoutine(_ routine: inout WireRoutine, deleted: Bool) async throws {
        routine.updatedAt = now
        routine.serverVersion = try await transaction.nextChangeVersion(owner: user)
        routine.deleted = deleted
    }
}

extension StoredEntity {
    /// A `routines` row (columns id, name, notes, rest_s, exercises as canonical JSON text, and the stamp).
    static func routine(_ row: some StoredRow) throws -> WireRoutine {
        WireRoutine(
            try Routine(reading: row), updatedAt: try StoredCell.optionalDate(row, "updated_at"),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"),
            deleted: try StoredCell.required(row.flag("deleted"), "deleted"))
    }
}

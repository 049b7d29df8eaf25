import Foundation
import SpotterCore
import SpotterProtocol

/// A create's entity, read and validated from its fields before the write transaction: that work
/// needs no database, so it is done on the request's own task rather than inside the one writer
/// every request waits for. A validation error is still answered (and stored) by the handler.
enum ParsedCreate: Sendable {
    case workout(Result<WireWorkout, ValidationError>)
    case set(Result<WireSet, ValidationError>)

    /// The parsed entity of a create route; nil for every other route.
    static func parse(_ route: APIRoute, fields: [String: JSONValue]) -> ParsedCreate? {
        switch route {
        case .createWorkout: .workout(Result { () throws(ValidationError) in try EntityRules.newWorkout(from: fields) })
        case .createSet: .set(Result { () throws(ValidationError) in try EntityRules.newSet(from: fields) })
        default: nil
        }
    }
}

/// The effect of each mutating route, run inside the request's one transaction.
///
/// Outcomes a client must see (422, 404, 409) are returned as responses, not thrown, so
/// they are stored with the idempotency record and replay like any other answer; only
/// unexpected failures throw and roll the transaction back.
struct EntityHandlers {
    let transaction: any ServerTransaction
    let user: String
    /// The time of this write (to the millisecond), stamped as `updated_at`.
    let now: Date

    /// `parsed` is what `ParsedCreate.parse` made of a create's fields beforehand, if anything.
    func handle(_ route: APIRoute, fields: [String: JSONValue], parsed: ParsedCreate? = nil) async throws -> APIResponse
    {
        switch (route, parsed) {
        case (.createWorkout, .workout(let incoming)): return try await createWorkout(incoming)
        case (.createSet, .set(let incoming)): return try await createSet(incoming)
        default: break
        }
        switch route {
        case .createWorkout: return try await createWorkout(fields)
        case .updateWorkout(let id): return try await updateWorkout(id: id, fields)
        case .deleteWorkout(let id): return try await deleteWorkout(id: id, fields)
        case .createSet: return try await createSet(fields)
        case .updateSet(let id): return try await updateSet(id: id, fields)
        case .deleteSet(let id): return try await deleteSet(id: id, fields)
        case .putFavorite(let exercise): return try await putFavorite(exercise)
        case .deleteFavorite(let exercise): return try await deleteFavorite(exercise)
        case .createRoutine: return try await createRoutine(fields)
        case .updateRoutine(let id): return try await updateRoutine(id: id, fields)
        case .deleteRoutine(let id): return try await deleteRoutine(id: id, fields)
        case .createBodyWeight: return try await createBodyWeight(fields)
        case .updateBodyWeight(let id): return try await updateBodyWeight(id: id, fields)
        case .deleteBodyWeight(let id): return try await deleteBodyWeight(id: id, fields)
        case .listWorkouts, .listSets, .listFavorites, .listRoutines, .listBodyWeights, .changes, .batch:
            return .problem(Problems.internalError)
        }
    }

    // MARK: Workouts

    private func createWorkout(_ fields: [String: JSONValue]) async throws -> APIResponse {
        try await createWorkout(Result { () throws(ValidationError) in try EntityRules.newWorkout(from: fields) })
    }

    private func createWorkout(_ parsed: Result<WireWorkout, ValidationError>) async throws -> APIResponse {
        let incoming: WireWorkout
        switch parsed {
        case .success(let workout): incoming = workout
        case .failure(let error): return .problem(Problems.validation(error))
        }
        if let existing = try await transaction.workout(id: incoming.id.wireString, owner: user) {
            // Second idempotency layer: the client id (this user's only; another user's id is
            // another entity). Same content → the existing entity.
            guard existing.deleted != true, EntityRules.clientContent(existing) == incoming else {
                return .problem(Problems.conflict("a different workout with this id already exists", field: "id"))
            }
            return .json(200, existing)
        }
        var workout = incoming
        stamp(
            &workout.updatedAt, &workout.serverVersion, &workout.deleted,
            version: try await transaction.nextChangeVersion(owner: user))
        try await transaction.saveWorkout(workout, owner: user)
        return .json(201, workout)
    }

    private func updateWorkout(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        try await mergedUpdate(
            id: id, fields: fields, read: { try await transaction.workout(id: $0, owner: user) }, label: label(of:),
            save: { try await transaction.saveWorkout($0, owner: user) })
    }

    private func deleteWorkout(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        guard var workout = try await liveWorkout(id) else { return .problem(Problems.notFound("no workout \(id)")) }
        let clock = editClock(fields)
        let seenSets = fields[EditClockField.seenSets].flatMap(DeleteContext.heldVersions)
        try await recordDeleteOverUnseenEdits(
            .workout, id: workout.id, stored: workout.json, groups: MergeFields.workout, base: clock.base,
            deleteStamp: clock.stamp, label: label(of: workout))
        for var set in try await transaction.liveSets(workoutID: id, owner: user) {
            if let seenSets {
                // The delete takes the workout's sets with it; a set the deleting device never
                // saw, or saw before another device's edit, goes unseen: recorded as overridden.
                let setLabel = label(of: set, inWorkout: workout.name)
                if let held = seenSets[set.id.wireString] {
                    try await recordDeleteOverUnseenEdits(
                        .set, id: set.id, stored: set.json, groups: MergeFields.set, base: held ?? 0,
                        deleteStamp: clock.stamp, label: setLabel)
                } else {
                    try await recordDeleteOverUnseenSet(set, deleteStamp: clock.stamp, label: setLabel)
                }
            }
            tombstone(
                &set.updatedAt, &set.serverVersion, &set.deleted,
                version: try await transaction.nextChangeVersion(owner: user))
            try await transaction.saveSet(set, owner: user)
        }
        tombstone(
            &workout.updatedAt, &workout.serverVersion, &workout.deleted,
            version: try await transaction.nextChangeVersion(owner: user))
        try await transaction.saveWorkout(workout, owner: user)
        return .noContent
    }

    /// The user's workout, unless it is absent or deleted (both 404; other users' ids are not looked at).
    private func liveWorkout(_ id: String) async throws -> WireWorkout? {
        guard let found = try await transaction.workout(id: id, owner: user), found.deleted != true else { return nil }
        return found
    }

    // MARK: Sets

    private func createSet(_ fields: [String: JSONValue]) async throws -> APIResponse {
        try await createSet(Result { () throws(ValidationError) in try EntityRules.newSet(from: fields) })
    }

    private func createSet(_ parsed: Result<WireSet, ValidationError>) async throws -> APIResponse {
        let incoming: WireSet
        switch parsed {
        case .success(let set): incoming = set
        case .failure(let error): return .problem(Problems.validation(error))
        }
        // The usual case in one statement: no set with this id, its workout live. (A version
        // taken for a create that then answers otherwise is left unused: versions only grow.)
        var set = incoming
        stamp(
            &set.updatedAt, &set.serverVersion, &set.deleted,
            version: try await transaction.nextChangeVersion(owner: user))
        if try await transaction.insertNewSet(set, owner: user) { return .json(201, set) }
        if let existing = try await transaction.set(id: incoming.id.wireString, owner: user) {
            guard existing.deleted != true, EntityRules.clientContent(existing) == incoming else {
                return .problem(Problems.conflict("a different set with this id already exists", field: "id"))
            }
            return .json(200, existing)
        }
        return .problem(Problems.validation(workoutMissing))
    }

    private func updateSet(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        try await mergedUpdate(
            id: id, fields: fields, read: { try await transaction.set(id: $0, owner: user) }, label: label(of:),
            // A set moved to a workout that is gone is refused, as its create would be.
            check: { set in
                try await transaction.workoutIsLive(id: set.workoutID.wireString, owner: user)
                    ? nil : .problem(Problems.validation(workoutMissing))
            }, save: { try await transaction.saveSet($0, owner: user) })
    }

    private func deleteSet(id: String, _ fields: [String: JSONValue]) async throws -> APIResponse {
        guard var set = try await liveSet(id) else { return .problem(Problems.notFound("no set \(id)")) }
        let clock = editClock(fields)
        try await recordDeleteOverUnseenEdits(
            .set, id: set.id, stored: set.json, groups: MergeFields.set, base: clock.base, deleteStamp: clock.stamp,
            label: try await label(of: set))
        tombstone(
            &set.updatedAt, &set.serverVersion, &set.deleted,
            version: try await transaction.nextChangeVersion(owner: user))
        try await transaction.saveSet(set, owner: user)
        return .noContent
    }

    private func liveSet(_ id: String) async throws -> WireSet? {
        guard let found = try await transaction.set(id: id, owner: user), found.deleted != true else { return nil }
        return found
    }

    var workoutMissing: ValidationError {
        ValidationError(field: "workout_id", message: "must name an existing workout of this user")
    }

    // MARK: Favorites

    private func putFavorite(_ raw: String) async throws -> APIResponse {
        let name: String
        do { name = try EntityRules.favoriteName(raw) } catch { return .problem(Problems.validation(error)) }
        _ = try await transaction.addFavorite(name, owner: user)
        return .noContent
    }

    private func deleteFavorite(_ raw: String) async throws -> APIResponse {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard try await transaction.removeFavorite(name, owner: user) else {
            return .problem(Problems.notFound("\(name) is not a favorite"))
        }
        return .noContent
    }

    // MARK: Stamps

    func stamp(
        _ updatedAt: inout Date?, _ serverVersion: inout Int64?, _ deleted: inout Bool?, version: Int64
    ) {
        updatedAt = now
        serverVersion = version
        deleted = false
    }

    private func tombstone(
        _ updatedAt: inout Date?, _ serverVersion: inout Int64?, _ deleted: inout Bool?, version: Int64
    ) {
        updatedAt = now
        serverVersion = version
        deleted = true
    }
}

import Foundation

/// The server's bookkeeping for a pulled row.
public struct ServerStamp: Sendable, Equatable, Codable {
    public var serverVersion: Int64?
    /// RFC 3339, as the server wrote it.
    public var updatedAt: String?

    public init(serverVersion: Int64?, updatedAt: String?) {
        self.serverVersion = serverVersion
        self.updatedAt = updatedAt
    }
}

/// One entry of the change feed, in local terms: an entity's current row, or its tombstone.
/// (SpotterProtocol reads it from the wire; `Codable` here is the store's own format for a change
/// that waits, not the wire's.)
public enum PulledEntity: Sendable, Equatable, Codable {
    case workout(Workout, ServerStamp)
    case set(WorkoutSet, ServerStamp)
    case deletedWorkout(UUID, ServerStamp)
    case deletedSet(UUID, ServerStamp)
    case routine(Routine, ServerStamp)
    case deletedRoutine(UUID, ServerStamp)
    case bodyWeight(BodyWeight, ServerStamp)
    case deletedBodyWeight(UUID, ServerStamp)
    /// A value the server's merge overrode (see `ConflictRecord`): kept on the device and shown.
    case conflict(ConflictRecord, ServerStamp)

    public var entityType: EntityType {
        switch self {
        case .workout, .deletedWorkout: .workout
        case .set, .deletedSet: .set
        case .routine, .deletedRoutine: .routine
        case .bodyWeight, .deletedBodyWeight: .bodyWeight
        case .conflict(let record, _): record.entityType
        }
    }

    public var entityID: String {
        switch self {
        case .workout(let workout, _): workout.id.wireString
        case .set(let set, _): set.id.wireString
        case .routine(let routine, _): routine.id.wireString
        case .bodyWeight(let entry, _): entry.id.wireString
        case .deletedWorkout(let id, _), .deletedSet(let id, _), .deletedRoutine(let id, _),
            .deletedBodyWeight(let id, _):
            id.wireString
        case .conflict(let record, _): record.id.wireString
        }
    }

    public var stamp: ServerStamp {
        switch self {
        case .workout(_, let stamp), .set(_, let stamp), .deletedWorkout(_, let stamp), .deletedSet(_, let stamp),
            .routine(_, let stamp), .deletedRoutine(_, let stamp), .bodyWeight(_, let stamp),
            .deletedBodyWeight(_, let stamp), .conflict(_, let stamp):
            stamp
        }
    }
}

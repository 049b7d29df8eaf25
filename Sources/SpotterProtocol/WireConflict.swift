import Foundation
import SpotterCore

/// A conflict on the wire: an entry of the change feed (`entity_type` "conflict") saying which
/// value of which entity the merge overrode, so every device of the user can show it.
public struct WireConflict: WireCodable, Equatable {
    public var record: ConflictRecord
    public var serverVersion: Int64

    /// The wire names, written once.
    public enum Field {
        public static let id = "id"
        public static let entityType = "entity_type"
        public static let entityID = "entity_id"
        public static let field = "field"
        public static let kept = "kept"
        public static let overridden = "overridden"
        public static let keptStamp = "kept_stamp"
        public static let overriddenStamp = "overridden_stamp"
        public static let label = "label"
        public static let recordedAt = "recorded_at"
        public static let serverVersion = "server_version"
    }

    public init(record: ConflictRecord, serverVersion: Int64) {
        self.record = record
        self.serverVersion = serverVersion
    }

    public init(json: JSONValue) throws(WireError) {
        let fields = try WireFields(json, "conflict")
        guard let keptStamp = ClockStamp(recorded: try fields.string(Field.keptStamp)) else {
            throw WireError(field: Field.keptStamp, expected: "a clock stamp")
        }
        guard let overriddenStamp = ClockStamp(recorded: try fields.string(Field.overriddenStamp)) else {
            throw WireError(field: Field.overriddenStamp, expected: "a clock stamp")
        }
        record = ConflictRecord(
            id: try fields.uuid(Field.id), entityType: try fields.enumeration(Field.entityType),
            entityID: try fields.uuid(Field.entityID), field: try fields.string(Field.field),
            kept: fields.fields[Field.kept] ?? .null, overridden: fields.fields[Field.overridden] ?? .null,
            keptStamp: keptStamp, overriddenStamp: overriddenStamp, label: try fields.string(Field.label),
            recordedAt: try fields.date(Field.recordedAt))
        serverVersion = try fields.optionalInt64(Field.serverVersion) ?? 0
    }

    public var json: JSONValue {
        var object = WireObject()
        object.set(Field.id, record.id)
        object.set(Field.entityType, record.entityType.rawValue)
        object.set(Field.entityID, record.entityID)
        object.set(Field.field, record.field)
        object.fields[Field.kept] = record.kept
        object.fields[Field.overridden] = record.overridden
        object.set(Field.keptStamp, record.keptStamp.description)
        object.set(Field.overriddenStamp, record.overriddenStamp.description)
        object.set(Field.label, record.label)
        object.set(Field.recordedAt, record.recordedAt)
        object.set(Field.serverVersion, serverVersion)
        return object.json
    }
}

/// What an update carries besides its fields, for the server's merge (`FieldMerge`): when the
/// edit was made and which version of the entity it was made on.
public enum EditClockField {
    /// The edit's clock stamp (`ClockStamp`'s text form).
    public static let stamp = "stamp"
    /// The `server_version` of the entity the device had when the edit was made.
    public static let baseVersion = "base_version"
    /// A routine's planned exercises as they were when the edit was made: the base its list is
    /// merged against, row by row (`RoutineMerge`).
    public static let baseExercises = "base_exercises"
    /// A workout's delete: the sets of that workout the device held, each with the
    /// `server_version` it had of it (null for one not yet answered). A set absent from it was
    /// never seen by the deleting device, and one with a later edit was not seen as it is now.
    public static let seenSets = "seen_sets"
}

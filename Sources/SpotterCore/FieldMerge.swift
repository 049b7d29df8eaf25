import Foundation

/// When an edit was made, as a hybrid logical clock reads it: the device's physical time in
/// milliseconds, a counter for edits within one millisecond (or made while the clock stood behind
/// a stamp already seen), and the device that made it, which breaks the last tie. Stamps order
/// edits by when they were made, not by when they reached the server, so an edit made offline
/// an hour ago does not win over one made a minute ago.
///
/// Written as `"<ms, 13 digits>-<counter, 4 hex digits>-<device>"`, so the text sorts as the
/// stamp does.
public struct ClockStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64
    public var counter: Int
    public var device: String

    public init(milliseconds: Int64, counter: Int = 0, device: String) {
        self.milliseconds = max(0, min(milliseconds, 9_999_999_999_999))
        self.counter = max(0, min(counter, 0xFFFF))
        self.device = device
    }

    /// The earliest stamp: what a field never edited since its creation is treated as carrying.
    public static let origin = ClockStamp(milliseconds: 0, counter: 0, device: "")

    /// The device name of a stamp the server gives an edit that came with none (a plain HTTP
    /// client): the server's time on arrival. Such edits may come from any number of clients.
    public static let serverDevice = "server"

    public static func < (lhs: ClockStamp, rhs: ClockStamp) -> Bool {
        (lhs.milliseconds, lhs.counter, lhs.device) < (rhs.milliseconds, rhs.counter, rhs.device)
    }

    public var description: String {
        let ms = String(milliseconds)
        let counterText = String(counter, radix: 16)
        return String(repeating: "0", count: max(0, 13 - ms.count)) + ms + "-"
            + String(repeating: "0", count: max(0, 4 - counterText.count)) + counterText + "-" + device
    }

    /// Reads the text form; nil when it is not one (a device id of 1 to 64 printable ASCII
    /// characters, no control characters).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 13, parts[1].count == 4,
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let ms = Int64(parts[0]),
            let counter = Int(parts[1], radix: 16),
            !parts[2].isEmpty, parts[2].count <= 64, parts[2].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        self.init(milliseconds: ms, counter: counter, device: String(parts[2]))
    }

    /// Reads a stamp a conflict records: any stamp an edit can carry, or `origin`'s own text
    /// ("0000000000000-0000-", no device), which stands for a value never edited since its
    /// create. An edit never carries the origin (`init?(_:)` refuses it), but a conflict over
    /// such a value does, and every stamp written into a conflict must read back, or the change
    /// feed that holds it could not be sent.
    public init?(recorded text: String) {
        if text == Self.origin.description {
            self = .origin
        } else {
            self.init(text)
        }
    }

    /// The stamp of a new edit on a device whose last stamp was `last`: its clock's time, or one
    /// tick after `last` when the clock stands at or behind it (so stamps of one device only grow).
    public static func next(after last: ClockStamp?, now: Date, device: String) -> ClockStamp {
        let physical = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        guard let last, last.milliseconds >= physical else { return ClockStamp(milliseconds: physical, device: device) }
        if last.counter >= 0xFFFF { return ClockStamp(milliseconds: last.milliseconds + 1, device: device) }
        return ClockStamp(milliseconds: last.milliseconds, counter: last.counter + 1, device: device)
    }

    /// How far ahead of the server's clock a stamp may be: a device whose clock runs days ahead
    /// would otherwise win every merge until the real time caught up with it.
    public static let maxLead: TimeInterval = 60

    /// The stamp as the server keeps it: no later than its own time plus `maxLead`.
    public func clamped(serverNow: Date) -> ClockStamp {
        let limit = Int64(((serverNow.timeIntervalSince1970 + Self.maxLead) * 1000).rounded(.down))
        guard milliseconds > limit else { return self }
        return ClockStamp(milliseconds: limit, counter: counter, device: device)
    }
}

/// One field's last write on the server: the edit's stamp and the change version it was
/// stored under (what tells whether a later edit knew of it).
public struct FieldClock: Sendable, Hashable {
    public var stamp: ClockStamp
    public var version: Int64

    public init(stamp: ClockStamp, version: Int64) {
        self.stamp = stamp
        self.version = version
    }
}

/// The merge of an edit into what is stored, field by field: the one rule the server applies to
/// every update (on SQLite and PostgreSQL alike), kept free of I/O so it is tested on its own.
///
/// A field the edit does not send keeps what is stored. A field it sends, that nobody else
/// changed since the version the edit was based on, takes the edit's value. A field changed on
/// both sides since that base takes the value with the later stamp; the other value is
/// overridden, and that is a conflict the user is told about (unless both sides wrote the same
/// value). An edit with no base (an old client) is based on nothing it knows of: every field it
/// sends is compared by stamp alone.
public enum FieldMerge {
    /// What happened to one field the edit sent.
    public enum Outcome: Sendable, Equatable {
        /// The edit's value is taken; nothing is overridden.
        case applied
        /// The edit's value is taken, over a value another edit wrote since the base.
        case appliedOverriding(stored: JSONValue, storedClock: FieldClock)
        /// The stored value stays: it was written later (by stamp) than the edit's.
        case keptStored(stored: JSONValue, storedClock: FieldClock)
        /// The edit wrote what is stored already.
        case unchanged
    }

    /// The decision for one field.
    /// - Parameters:
    ///   - incoming: the value the edit sends.
    ///   - stamp: the edit's stamp (already clamped by the server).
    ///   - baseVersion: the server version of the entity the edit was based on; nil when unknown.
    ///   - stored: the value stored now.
    ///   - storedClock: the field's last write, or nil when it was never edited since the create.
    public static func decide(
        incoming: JSONValue, stamp: ClockStamp, baseVersion: Int64?, stored: JSONValue, storedClock: FieldClock?
    ) -> Outcome {
        if incoming == stored { return .unchanged }
        guard let storedClock else { return .applied }
        // The other write came before the base: the edit saw it and changes it on purpose.
        if let baseVersion, storedClock.version <= baseVersion { return .applied }
        // The same device's earlier edit, stored while this later one was on its way (made
        // before the first's answer came back, so its base is older): the device replaces its
        // own value on purpose, and nobody's edit is overridden. Not for stamps the server gave
        // edits that came without one: those may be any number of clients.
        if storedClock.stamp.device == stamp.device, stamp.device != ClockStamp.serverDevice,
            stamp > storedClock.stamp
        {
            return .applied
        }
        if stamp > storedClock.stamp {
            return .appliedOverriding(stored: stored, storedClock: storedClock)
        }
        return .keptStored(stored: stored, storedClock: storedClock)
    }

    /// Every field of an edit decided, in the fields' order: the values to write, the clocks
    /// they are written with, and the overridden values (conflicts).
    public struct Result: Sendable, Equatable {
        /// The fields whose value changes, with their new values.
        public var writes: [String: JSONValue] = [:]
        public var conflicts: [FieldConflict] = []
    }

    /// A value one side had set and the merge replaced by the other side's.
    public struct FieldConflict: Sendable, Equatable {
        public var field: String
        public var kept: JSONValue
        public var overridden: JSONValue
        public var keptStamp: ClockStamp
        public var overriddenStamp: ClockStamp
    }

    /// Merges a whole edit: `patch` (the fields sent) over `stored` (the entity's fields now),
    /// with each stored field's clock.
    public static func merge(
        patch: [String: JSONValue], stamp: ClockStamp, baseVersion: Int64?, stored: [String: JSONValue],
        clocks: [String: FieldClock]
    ) -> Result {
        var result = Result()
        for field in patch.keys.sorted() {
            let incoming = patch[field] ?? .null
            let current = stored[field] ?? .null
            switch decide(
                incoming: incoming, stamp: stamp, baseVersion: baseVersion, stored: current,
                storedClock: clocks[field])
            {
            case .unchanged:
                break
            case .applied:
                result.writes[field] = incoming
            case .appliedOverriding(let overridden, let clock):
                result.writes[field] = incoming
                result.conflicts.append(
                    FieldConflict(
                        field: field, kept: incoming, overridden: overridden, keptStamp: stamp,
                        overriddenStamp: clock.stamp))
            case .keptStored(let kept, let clock):
                result.conflicts.append(
                    FieldConflict(
                        field: field, kept: kept, overridden: incoming, keptStamp: clock.stamp,
                        overriddenStamp: stamp))
            }
        }
        return result
    }
}

/// A value the merge replaced, as the server records it in the user's change feed and every
/// device of theirs keeps it: which entity and field, the value kept and the one overridden,
/// and the stamps of both edits (their devices included), so a device can say "reps 6 from this
/// device was replaced by 7 from another device" and offer to take the value back.
public struct ConflictRecord: Sendable, Equatable, Codable {
    public var id: UUID
    public var entityType: EntityType
    public var entityID: UUID
    /// The field's wire name (`reps`), or `deleted` when a delete won over an edit.
    public var field: String
    public var kept: JSONValue
    public var overridden: JSONValue
    public var keptStamp: ClockStamp
    public var overriddenStamp: ClockStamp
    /// What the entity is, for a person: "Bench Press (Barbell) set of Push Day".
    public var label: String
    public var recordedAt: Date

    public init(
        id: UUID, entityType: EntityType, entityID: UUID, field: String, kept: JSONValue, overridden: JSONValue,
        keptStamp: ClockStamp, overriddenStamp: ClockStamp, label: String, recordedAt: Date
    ) {
        self.id = id
        self.entityType = entityType
        self.entityID = entityID
        self.field = field
        self.kept = kept
        self.overridden = overridden
        self.keptStamp = keptStamp
        self.overriddenStamp = overriddenStamp
        self.label = label
        self.recordedAt = recordedAt
    }

    /// The field a delete that won over an edit is recorded under.
    public static let deletedField = "deleted"

    /// Whether a delete won over an edit (nothing to take back but the edit itself).
    public var isDeleteOverEdit: Bool { field == Self.deletedField }
}

extension ClockStamp: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let stamp = ClockStamp(recorded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a stamp"))
        }
        self = stamp
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

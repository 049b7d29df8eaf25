import Foundation

/// One weigh-in: what the lifter weighed, when, in the unit they read it in, with an optional
/// note ("after breakfast"). It is its own synced entity (outbox, idempotency, change feed) and
/// what bodyweight lifts add to or take from what was logged (`EffectiveLoad`).
public struct BodyWeight: Sendable, Equatable {
    public var id: UUID
    /// When the lifter weighed in. A weigh-in counts for every set performed at or after it,
    /// until the next one; one logged for a day (`--date`) is taken at the start of that day.
    public var measuredAt: Date
    public var weight: Double
    public var unit: WeightUnit
    public var notes: String?

    public init(
        id: UUID = .timeOrdered(), measuredAt: Date, weight: Double, unit: WeightUnit, notes: String? = nil
    ) {
        self.id = id
        self.measuredAt = measuredAt
        self.weight = weight
        self.unit = unit
        self.notes = notes
    }

    /// The weight in kilograms, for comparing weigh-ins and loads across units.
    public var kilograms: Double { weight * unit.kilograms }

    public enum Column: String, EntityColumn {
        case id
        case measuredAt = "measured_at"
        case weight
        case unit
        case notes

        public static let table = "body_weights"
        public static let together: [Self] = [.weight, .unit]

        public var type: ColumnType { self == .weight ? .real : .text }

        public var isOptional: Bool { self == .notes }
    }

    /// One field's value as it is sent and stored; nil when unset.
    public func value(_ column: Column) -> JSONValue? {
        switch column {
        case .id: .string(id.wireString)
        case .measuredAt: .string(Timestamp.format(measuredAt))
        case .weight: .double(weight)
        case .unit: .string(unit.rawValue)
        case .notes: notes.map(JSONValue.string)
        }
    }

    /// Reads a weigh-in's fields, whoever holds them (a device row, a server row, the wire).
    public init(reading cells: some ColumnReader) throws {
        self.init(
            id: try cells.uuid(Column.id), measuredAt: try cells.date(Column.measuredAt),
            weight: try cells.double(Column.weight), unit: try cells.enumeration(Column.unit),
            notes: try cells.optionalString(Column.notes))
    }

    /// The client-owned fields as a create sends them (wire names; nil fields omitted).
    public var wireFields: [String: JSONValue] { fieldValues }

    /// The lightest and heaviest weigh-in taken, in kilograms: anything outside is a typo (8.1
    /// for 81) or a unit mix-up, refused on the device and on the server alike.
    public static let kilogramRange = 20.0...400.0
}

extension BodyWeight: ColumnValues {}

extension Validation {
    /// A weigh-in as every writer checks it: a weight a person can weigh, a note that is plain text.
    public static func bodyWeight(_ entry: BodyWeight) throws(ValidationError) {
        let range = BodyWeight.kilogramRange
        guard entry.weight.isFinite, range.contains(entry.kilograms) else {
            let low = entry.unit == .kg ? "20 kg" : "45 lb"
            let high = entry.unit == .kg ? "400 kg" : "881 lb"
            throw ValidationError(
                field: BodyWeight.Column.weight.name, message: "must be a body weight from \(low) to \(high)")
        }
        try notes(entry.notes)
    }
}

/// How a lift's logged weight relates to what was moved.
public enum LoadType: String, Sendable, Codable, CaseIterable {
    /// A bar, dumbbells, a machine: the logged weight is the load.
    case external
    /// Push-ups, pull-ups: the body is the load; a weight logged on it (a belt, a vest) is added,
    /// as Strong and Hevy take it.
    case bodyweight
    /// Weighted dips, weighted pull-ups: the logged weight is added to the body's.
    case weighted
    /// Assisted pull-ups and dips: the logged weight is the machine's help, taken from the body's.
    case assisted

    /// What a lift is, from its catalogue equipment and its name: "(Assisted)" and "(Weighted)"
    /// in the name say it for any lift, imported or custom; the catalogue's "Bodyweight" and
    /// "Assisted Bodyweight" equipment says it for the rest.
    public init(equipment: String?, name: String) {
        let lowered = name.lowercased()
        if lowered.contains("(assisted)") || lowered.hasPrefix("assisted ") {
            self = .assisted
        } else if lowered.contains("(weighted)") || lowered.hasPrefix("weighted ") {
            self = .weighted
        } else {
            switch equipment?.lowercased() {
            case "assisted bodyweight": self = .assisted
            case "bodyweight": self = .bodyweight
            default: self = .external
            }
        }
    }

    /// Whether the body's weight is part of the load.
    public var usesBodyWeight: Bool { self != .external }
}

/// The load a set moved, body weight counted: what records, e1RM, progression and volume rank
/// by, so that more assistance is never a record.
public enum EffectiveLoad {
    /// The weigh-in in force when a set was performed: the latest at or before it, or nil.
    /// `weighIns` must be sorted by `measuredAt`.
    public static func bodyWeight(at date: Date, in weighIns: [BodyWeight]) -> BodyWeight? {
        var low = 0
        var high = weighIns.count
        while low < high {
            let middle = (low + high) / 2
            if weighIns[middle].measuredAt <= date { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : weighIns[low - 1]
    }

    /// The load in `unit` of a set that logged `weight` (in `unit`) on a lift of `type`, the body
    /// weighing `body`; nil when the lift needs a body weight and there is none, so the caller
    /// ranks by reps (and added weight) instead of by a made-up load.
    public static func load(
        logged weight: Double, unit: WeightUnit, type: LoadType, body: BodyWeight?
    ) -> Double? {
        guard type.usesBodyWeight else { return weight }
        guard let body else { return nil }
        let bodyInUnit = body.kilograms / unit.kilograms
        switch type {
        case .external: return weight
        case .bodyweight, .weighted: return bodyInUnit + weight
        case .assisted: return max(0, bodyInUnit - weight)
        }
    }
}

/// When a weigh-in was taken, as a lifter types and reads it: a day is its start in the
/// device's time zone (so a morning weigh-in logged for the day counts for that day's sets).
public enum BodyWeightDate {
    /// "2026-11-20" (that day's start, local), "today", "yesterday", or an RFC 3339 time; nil
    /// when it is none of them.
    public static func read(_ text: String, now: Date, calendar: Calendar = .current) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch trimmed {
        case "today": return calendar.startOfDay(for: now)
        case "yesterday": return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now))
        default: break
        }
        if let instant = Timestamp.parse(text.trimmingCharacters(in: .whitespaces)) { return instant }
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1900...9999).contains(year)
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == components
        else { return nil }  // 2026-02-31 and the like
        return date
    }

    /// "2026-11-20 07:30", local.
    public static func shown(_ date: Date, calendar: Calendar = .current) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return String(format: "%04d", parts.year ?? 0) + "-\(two(parts.month))-\(two(parts.day))"
            + " \(two(parts.hour)):\(two(parts.minute))"
    }
}

import Foundation

/// How a set was performed, as Strong and Hevy distinguish them.
public enum SetKind: String, Codable, Sendable, CaseIterable {
    case normal, warmup, failure, drop
}

/// The unit a weight was entered in; weights are stored as entered, never converted.
public enum WeightUnit: String, Codable, Sendable, CaseIterable {
    case kg, lb

    /// Kilograms per one of this unit, for comparisons across units (PRs, validation).
    public var kilograms: Double { self == .kg ? 1 : 0.45359237 }
}

/// Whether the server has acknowledged the latest local change of an entity.
public enum SyncState: String, Codable, Sendable {
    case synced, pending, rejected
}

/// The kinds of entity that travel through the outbox.
public enum EntityType: String, Codable, Sendable, CaseIterable {
    case workout, set, favorite, routine
    case bodyWeight = "body_weight"
}

/// What a user intent does to its entity.
public enum OperationKind: String, Codable, Sendable {
    case create, update, delete
}

/// The life cycle of one outbox operation.
public enum OperationState: String, Codable, Sendable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case succeeded
    case failedTransient = "failed_transient"
    case failedPermanent = "failed_permanent"
    case blocked

    /// States an operation can still leave by being sent: it counts as queued.
    public var isQueued: Bool {
        switch self {
        case .pending, .inFlight, .failedTransient: true
        case .succeeded, .failedPermanent, .blocked: false
        }
    }
}

/// A training session the user logs sets into.
public struct Workout: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var startedAt: Date
    public var endedAt: Date?
    public var notes: String?
    /// Started from a routine: the routine and the targets it was started with.
    public var plan: WorkoutPlan?
    /// A note on each exercise of it that has one ("elbows in", "left knee sore"), by the
    /// exercise's name as its sets spell it; nil when none has.
    public var exerciseNotes: [String: String]?

    public init(
        id: UUID = .timeOrdered(), name: String, startedAt: Date, endedAt: Date? = nil, notes: String? = nil,
        plan: WorkoutPlan? = nil, exerciseNotes: [String: String]? = nil
    ) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.notes = notes
        self.plan = plan
        self.exerciseNotes = exerciseNotes.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// One logged set: the unit of work a lifter records between rests.
public struct WorkoutSet: Sendable, Equatable {
    public var id: UUID
    public var workoutID: UUID
    public var exercise: String
    public var position: Int
    public var kind: SetKind
    public var weight: Double
    public var unit: WeightUnit
    public var reps: Int
    public var rpe: Double?
    public var distanceM: Double?
    public var durationS: Double?
    public var notes: String?
    public var performedAt: Date
    /// The superset its exercise is in, within its workout (sets of one workout with the same
    /// number are one round's exercises, done in turn); nil when none.
    public var superset: Int?

    public init(
        id: UUID = .timeOrdered(), workoutID: UUID, exercise: String, position: Int, kind: SetKind = .normal,
        weight: Double, unit: WeightUnit = .kg, reps: Int, rpe: Double? = nil, distanceM: Double? = nil,
        durationS: Double? = nil, notes: String? = nil, performedAt: Date, superset: Int? = nil
    ) {
        self.id = id
        self.workoutID = workoutID
        self.exercise = exercise
        self.position = position
        self.kind = kind
        self.weight = weight
        self.unit = unit
        self.reps = reps
        self.rpe = rpe
        self.distanceM = distanceM
        self.durationS = durationS
        self.notes = notes
        self.performedAt = performedAt
        self.superset = superset
    }

    /// Estimated one-rep max by Epley's formula, in kilograms; nil for sets that say nothing of strength.
    public var estimatedOneRepMaxKg: Double? {
        OneRepMax.epley(weight: weight * unit.kilograms, reps: reps)
    }
}

/// Strength estimates used for PRs and stats.
public enum OneRepMax {
    /// The most reps an estimate is made from: beyond about twelve the formula no longer
    /// predicts a single ("18 kg × 1000" is endurance, not a 623 kg squat).
    public static let maxReps = 12

    /// Epley: w × (1 + r / 30); a single is its own 1RM; zero reps or weight, or more than
    /// `maxReps` reps, estimate nothing.
    public static func epley(weight: Double, reps: Int) -> Double? {
        guard weight > 0, reps > 0, reps <= maxReps else { return nil }
        if reps == 1 { return weight }
        return weight * (1 + Double(reps) / 30)
    }
}

/// Lower-case hex of a digest (an idempotency fingerprint, a token's hash). Foundation has no
/// hex writer; `String(format: "%02x")` per byte goes through a formatter 32 times a digest.
public enum Hex {
    /// The digits, by value.
    public static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two digits per byte.
    public static func lowercase<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(Swift.max(bytes.underestimatedCount, 32) * 2)  // a digest says 0: room for 32 bytes
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UUID {
    /// A new id whose leading 48 bits are the Unix time in milliseconds, then 74 random bits
    /// (UUID version 7, RFC 9562): every id, operation and idempotency key this app makes.
    ///
    /// Ids made one after another sort together, so each new row of a table or index keyed by
    /// them lands on its last page on the device and on the server, instead of on a random page
    /// of each: fewer pages written and flushed per commit, fewer read back. The random bits keep
    /// two devices' ids (and keys) apart as a version-4 UUID's do. Drawn from the system
    /// generator (`getrandom`); Foundation's `UUID()` opens and reads `/dev/urandom` every call.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let randomA = generator.next() as UInt64
        let randomB = generator.next() as UInt64
        // 48 bits of time, version 7, 12 random bits; variant 10, 62 random bits.
        let high = (milliseconds << 16) | 0x7000 | (randomA & 0x0FFF)
        let low = (randomB & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }

    /// Lower-case, as the wire format and the database keep ids. Foundation's: written by hand
    /// it saved 0.07 s of a 2.3 s pull of 100 000 sets (`spotter-bench --only json,pull`), 3 %.
    public var wireString: String { uuidString.lowercased() }

    /// Reads exactly `8-4-4-4-12` hex digits in either case, by hand. Not Foundation's
    /// `UUID(uuidString:)`: it also takes "0x90a1b2-…", "-190a1b2-…", "01 0a1b2-…" and a trailing
    /// NUL, each read as some other id — an id the server stored under one text and sends back
    /// under another would be a second entity. (Its speed is no reason: 0.07 s of the pull.)
    public init?(wire text: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        var count = 0
        for byte in text.utf8 {
            count += 1
            if count == 9 || count == 14 || count == 19 || count == 24 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        guard count == 36, bytes.count == 16 else { return nil }
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

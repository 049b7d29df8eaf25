import Foundation

/// How the targets of a planned exercise move from one performance of its routine to the next.
public enum ProgressionRule: String, Codable, Sendable, CaseIterable {
    /// The targets as written, every time.
    case fixed
    /// Add the increment when every planned rep was done last time; keep it otherwise; take
    /// 10 % off after three misses in a row at the same weight.
    case linear
    /// Add a rep up to the top of the rep range, then add the increment and go back to the bottom.
    case double
}

/// One planned set of a routine: what the lifter means to do, not what was done.
public struct PlannedSet: Sendable, Equatable, Codable {
    public var kind: SetKind
    /// The target weight in the exercise's unit; nil when `percentOfOneRepMax` sets it (or none: bodyweight).
    public var weight: Double?
    /// The target as a percentage of the exercise's current estimated 1RM (e.g. 80).
    public var percentOfOneRepMax: Double?
    /// The target reps, or the bottom of the rep range.
    public var reps: Int
    /// The top of the rep range; nil for a single target.
    public var repsMax: Int?
    public var rpe: Double?

    public init(
        kind: SetKind = .normal, weight: Double? = nil, percentOfOneRepMax: Double? = nil, reps: Int,
        repsMax: Int? = nil, rpe: Double? = nil
    ) {
        self.kind = kind
        self.weight = weight
        self.percentOfOneRepMax = percentOfOneRepMax
        self.reps = reps
        self.repsMax = repsMax
        self.rpe = rpe
    }

    /// Reps as typed: "5", or a range "8-12" or "8–12" (a hyphen, an en or em dash; spaces
    /// around the parts allowed); nil otherwise.
    public static func reps(_ text: String) -> (reps: Int, repsMax: Int?)? {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { "-–—".contains($0) }).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard (1...2).contains(parts.count), let bottom = parts[0], parts.count == 1 || parts[1] != nil else {
            return nil
        }
        return (bottom, parts.count == 2 ? parts[1] : nil)
    }

    /// "5", or "8–12" for a range (an en dash, as the screen shows it; `reps(_:)` reads it back).
    public var repsText: String { Self.repsText(reps, repsMax) }

    /// Planned reps as a lifter writes them: "5", or a range "10–15".
    public static func repsText(_ reps: Int, _ repsMax: Int?) -> String {
        guard let top = repsMax, top != reps else { return String(reps) }
        return "\(reps)–\(top)"
    }
}

/// One exercise of a routine, with its planned sets, in the routine's order.
public struct RoutineExercise: Sendable, Equatable, Codable {
    public var exercise: String
    public var unit: WeightUnit
    public var sets: [PlannedSet]
    /// Rest after each set, in seconds; nil takes the routine's (or the device's) rest time.
    public var restSeconds: Int?
    /// Exercises sharing a group number form a superset: their sets alternate.
    public var superset: Int?
    public var progression: ProgressionRule
    /// What `linear` and `double` add to the weight, in `unit`.
    public var increment: Double
    public var notes: String?
    /// Names the lift had before it was renamed or merged (newest last): workouts started from
    /// the routine under an old name are still its history, on every device.
    public var formerly: [String] = []

    /// At most this many former names are kept.
    public static let maxFormerNames = 10

    public init(
        exercise: String, unit: WeightUnit = .kg, sets: [PlannedSet], restSeconds: Int? = nil, superset: Int? = nil,
        progression: ProgressionRule = .fixed, increment: Double = 2.5, notes: String? = nil, formerly: [String] = []
    ) {
        self.exercise = exercise
        self.unit = unit
        self.sets = sets
        self.restSeconds = restSeconds
        self.superset = superset
        self.progression = progression
        self.increment = increment
        self.notes = notes
        self.formerly = formerly
    }

    /// Renamed to `name`: the old one is remembered.
    public mutating func rename(to name: String) {
        formerly.removeAll { $0 == name || $0 == exercise }
        formerly.append(exercise)
        formerly = Array(formerly.suffix(Self.maxFormerNames))
        exercise = name
    }
}

extension Routine {
    /// Each former name of a lift the routine plans, with the name it has now.
    /// A name the routine plans now is that lift, never a former name of another.
    public var currentNames: [String: String] {
        let planned = Set(exercises.map(\.exercise))
        var names: [String: String] = [:]
        for exercise in exercises {
            for old in exercise.formerly where names[old] == nil && !planned.contains(old) {
                names[old] = exercise.exercise
            }
        }
        return names
    }
}

/// A named, ordered plan of exercises a workout can be started from ("Push A").
public struct Routine: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var notes: String?
    /// The rest between sets, in seconds, for exercises that do not set their own.
    public var restSeconds: Int?
    public var exercises: [RoutineExercise]

    public init(
        id: UUID = .timeOrdered(), name: String, notes: String? = nil, restSeconds: Int? = nil,
        exercises: [RoutineExercise] = []
    ) {
        self.id = id
        self.name = name
        self.notes = notes
        self.restSeconds = restSeconds
        self.exercises = exercises
    }

    /// The rest after a set of exercise `index`: its own, else the routine's.
    public func rest(forExercise index: Int) -> Int? {
        guard exercises.indices.contains(index) else { return restSeconds }
        return exercises[index].restSeconds ?? restSeconds
    }

    /// The order the planned sets are done in, as (exercise, set) indices: exercise by exercise,
    /// except that exercises of one superset (adjacent or not) alternate set by set, starting
    /// where the group's first exercise stands — A1 B1 A2 B2 A3 B3.
    public var performanceOrder: [(exercise: Int, set: Int)] {
        var order: [(exercise: Int, set: Int)] = []
        var done = Set<Int>()
        for (index, exercise) in exercises.enumerated() where !done.contains(index) {
            let group: [Int]
            if let superset = exercise.superset {
                group = exercises.indices.filter { exercises[$0].superset == superset }
            } else {
                group = [index]
            }
            done.formUnion(group)
            let rounds = group.map { exercises[$0].sets.count }.max() ?? 0
            for round in 0..<rounds {
                for member in group where round < exercises[member].sets.count {
                    order.append((member, round))
                }
            }
        }
        return order
    }
}

// MARK: Wire form and validation (shared by client, server and --json)

extension Routine {
    /// The wire names: the routine's own (its `Column`s) and those inside its exercises.
    public enum Field {
        public static let id = Column.id.name
        public static let name = Column.name.name
        public static let notes = Column.notes.name
        public static let restSeconds = Column.restSeconds.name
        public static let exercises = Column.exercises.name
        public static let exercise = "exercise"
        public static let unit = "unit"
        public static let sets = "sets"
        public static let superset = "superset"
        public static let progression = "progression"
        public static let increment = "increment"
        public static let kind = "kind"
        public static let weight = "weight"
        public static let percent = "percent_1rm"
        public static let reps = "reps"
        public static let repsMax = "reps_max"
        public static let rpe = "rpe"
        public static let formerly = "formerly"
    }

    public static let maxExercises = 50
    public static let maxSetsPerExercise = 30
    /// Planned sets in all: what one workout started from it can carry to the server in one
    /// request (its plan), with room to spare under the server's 64 KiB body limit.
    public static let maxPlannedSets = 150
    /// The routine as sent, at most: under the server's 64 KiB body limit with room for the
    /// batch around it, so a routine the device accepts always syncs.
    public static let maxEncodedBytes = 48 * 1024
    public static let maxRestSeconds = 3600

    /// The exercises as the wire carries them: an array of objects, nil fields left out.
    public static func exercisesJSON(_ exercises: [RoutineExercise]) -> JSONValue {
        .array(
            exercises.map { exercise in
                var object: [String: JSONValue] = [
                    Field.exercise: .string(exercise.exercise), Field.unit: .string(exercise.unit.rawValue),
                    Field.progression: .string(exercise.progression.rawValue),
                    Field.increment: .double(exercise.increment),
                    Field.sets: .array(
                        exercise.sets.map { set in
                            var planned: [String: JSONValue] = [
                                Field.kind: .string(set.kind.rawValue), Field.reps: .int(Int64(set.reps)),
                            ]
                            if let weight = set.weight { planned[Field.weight] = .double(weight) }
                            if let percent = set.percentOfOneRepMax { planned[Field.percent] = .double(percent) }
                            if let top = set.repsMax { planned[Field.repsMax] = .int(Int64(top)) }
                            if let rpe = set.rpe { planned[Field.rpe] = .double(rpe) }
                            return .object(planned)
                        }),
                ]
                if let rest = exercise.restSeconds { object[Field.restSeconds] = .int(Int64(rest)) }
                if let superset = exercise.superset { object[Field.superset] = .int(Int64(superset)) }
                if let notes = exercise.notes { object[Field.notes] = .string(notes) }
                if !exercise.formerly.isEmpty { object[Field.formerly] = .array(exercise.formerly.map { .string($0) }) }
                return .object(object)
            })
    }

    /// The client-owned fields as a create sends them (wire names; nil fields omitted).
    public var wireFields: [String: JSONValue] { fieldValues }

    /// Reads and validates the wire's exercises; the error names the field ("exercises[1].sets[0].reps").
    public static func exercises(from json: JSONValue) throws(ValidationError) -> [RoutineExercise] {
        guard case .array(let elements) = json else {
            throw ValidationError(field: Field.exercises, message: "must be an array")
        }
        guard elements.count <= maxExercises else {
            throw ValidationError(field: Field.exercises, message: "must hold at most \(maxExercises) exercises")
        }
        var exercises: [RoutineExercise] = []
        for (index, element) in elements.enumerated() {
            let path = "\(Field.exercises)[\(index)]"
            guard let fields = element.objectValue else {
                throw ValidationError(field: path, message: "must be an object")
            }
            let reader = RoutineFieldReader(fields: fields, path: path)
            guard let name = try reader.string(Field.exercise) else {
                throw ValidationError(field: "\(path).\(Field.exercise)", message: "is required")
            }
            let unit = try reader.enumeration(Field.unit, fallback: WeightUnit.kg, message: "must be kg or lb")
            guard case .array(let setElements)? = fields[Field.sets] else {
                throw ValidationError(field: "\(path).\(Field.sets)", message: "must be an array of planned sets")
            }
            var sets: [PlannedSet] = []
            for (setIndex, setElement) in setElements.enumerated() {
                let setPath = "\(path).\(Field.sets)[\(setIndex)]"
                guard let setFields = setElement.objectValue else {
                    throw ValidationError(field: setPath, message: "must be an object")
                }
                let setReader = RoutineFieldReader(fields: setFields, path: setPath)
                guard let reps = try setReader.int(Field.reps) else {
                    throw ValidationError(field: "\(setPath).\(Field.reps)", message: "is required")
                }
                sets.append(
                    PlannedSet(
                        kind: try setReader.enumeration(
                            Field.kind, fallback: SetKind.normal,
                            message: "must be one of \(SetKind.allCases.map(\.rawValue).joined(separator: ", "))"),
                        weight: try setReader.double(Field.weight),
                        percentOfOneRepMax: try setReader.double(Field.percent), reps: reps,
                        repsMax: try setReader.int(Field.repsMax), rpe: try setReader.double(Field.rpe)))
            }
            exercises.append(
                RoutineExercise(
                    exercise: name.trimmingCharacters(in: .whitespacesAndNewlines), unit: unit, sets: sets,
                    restSeconds: try reader.int(Field.restSeconds), superset: try reader.int(Field.superset),
                    progression: try reader.enumeration(
                        Field.progression, fallback: ProgressionRule.fixed, message: "must be fixed, linear or double"),
                    increment: try reader.double(Field.increment) ?? 2.5, notes: try reader.string(Field.notes),
                    formerly: try formerNames(fields[Field.formerly], path: "\(path).\(Field.formerly)")))
        }
        try Validation.routineExercises(exercises)
        return exercises
    }
}

extension Routine {
    /// A validation error of this routine as a lifter reads it: the field
    /// "exercises[4].sets[0].rpe" becomes "Bench Press (Barbell) (exercise 5), set 1" and the
    /// message "rpe must be …". The wire keeps the path (clients match on it); people get names.
    public func readable(_ error: ValidationError) -> ValidationError { Self.readable(error, in: exercises) }

    /// The same, for a list of exercises being edited.
    public static func readable(_ error: ValidationError, in exercises: [RoutineExercise]) -> ValidationError {
        guard let match = error.field.wholeMatch(of: #/exercises\[(\d+)\](?:\.sets\[(\d+)\])?(?:\.(.+))?/#),
            let index = Int(match.1)
        else { return error }
        let name = exercises.indices.contains(index) ? exercises[index].exercise : ""
        var place = name.isEmpty ? "exercise \(index + 1)" : "\(name) (exercise \(index + 1))"
        if let set = match.2.flatMap({ Int($0) }) { place += ", set \(set + 1)" }
        guard let wire = match.3.map(String.init) else { return ValidationError(field: place, message: error.message) }
        let names = [
            "rest_s": "rest", "percent_1rm": "% of 1RM", "reps_max": "top of the rep range", "exercise": "name",
        ]
        let field = names[wire] ?? wire.replacingOccurrences(of: "_", with: " ")
        return ValidationError(field: place, message: ValidationError.sentence(field, error.message))
    }
}

extension Routine {
    /// A lift's former names as sent: an array of names (absent or null: none).
    static func formerNames(_ value: JSONValue?, path: String) throws(ValidationError) -> [String] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let items) = value else {
            throw ValidationError(field: path, message: "must be an array of exercise names")
        }
        var names: [String] = []
        for item in items {
            guard let name = item.stringValue else {
                throw ValidationError(field: path, message: "must be an array of exercise names")
            }
            names.append(name)
        }
        return names
    }
}

/// Typed reads of a routine's nested objects, each error naming its path.
struct RoutineFieldReader {
    let fields: [String: JSONValue]
    let path: String

    private func present(_ name: String) -> JSONValue? {
        guard let value = fields[name], !value.isNull else { return nil }
        return value
    }

    func string(_ name: String) throws(ValidationError) -> String? {
        guard let value = present(name) else { return nil }
        guard let text = value.stringValue else {
            throw ValidationError(field: "\(path).\(name)", message: "must be a string")
        }
        return text
    }

    func int(_ name: String) throws(ValidationError) -> Int? {
        guard let value = present(name) else { return nil }
        guard let number = value.intValue else {
            throw ValidationError(field: "\(path).\(name)", message: "must be a whole number")
        }
        return number
    }

    func double(_ name: String) throws(ValidationError) -> Double? {
        guard let value = present(name) else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw ValidationError(field: "\(path).\(name)", message: "must be a number")
        }
        return number
    }

    func enumeration<Value: RawRepresentable>(
        _ name: String, fallback: Value, message: String
    ) throws(ValidationError) -> Value where Value.RawValue == String {
        guard let text = try string(name) else { return fallback }
        guard let value = Value(rawValue: text) else {
            throw ValidationError(field: "\(path).\(name)", message: message)
        }
        return value
    }
}

extension Validation {
    /// Every rule of a routine: its name, notes, rest and each planned exercise and set.
    public static func routine(_ routine: Routine) throws(ValidationError) {
        try workoutName(routine.name)
        try notes(routine.notes)
        try restSeconds(routine.restSeconds, field: Routine.Field.restSeconds)
        try routineExercises(routine.exercises)
        // A workout started from it carries one plan entry per planned set: its size too must
        // fit (names count in bytes: a 100-character name of emoji is 400).
        let planned = routine.exercises.reduce(0) { total, exercise in
            total + exercise.sets.count * (WorkoutPlan.largestEntryBytes + exercise.exercise.utf8.count)
        }
        let size = max(JSONValue.object(routine.wireFields).canonicalString.utf8.count, planned)
        guard size <= Routine.maxEncodedBytes else {
            throw ValidationError(
                field: Routine.Field.exercises,
                message:
                    "make the routine too large to sync (\(size / 1024) KiB of at most \(Routine.maxEncodedBytes / 1024) KiB)"
            )
        }
    }

    static func restSeconds(_ rest: Int?, field: String) throws(ValidationError) {
        guard let rest else { return }
        guard (0...Routine.maxRestSeconds).contains(rest) else {
            throw ValidationError(field: field, message: "must be from 0 to \(Routine.maxRestSeconds) seconds")
        }
    }

    public static func routineExercises(_ exercises: [RoutineExercise]) throws(ValidationError) {
        guard exercises.count <= Routine.maxExercises else {
            throw ValidationError(field: "exercises", message: "must hold at most \(Routine.maxExercises) exercises")
        }
        let planned = exercises.reduce(0) { $0 + $1.sets.count }
        guard planned <= Routine.maxPlannedSets else {
            throw ValidationError(
                field: "exercises",
                message: "must hold at most \(Routine.maxPlannedSets) planned sets in all (these hold \(planned))")
        }
        for (index, planned) in exercises.enumerated() {
            let path = "exercises[\(index)]"
            do { try exercise(planned.exercise) } catch {
                throw ValidationError(field: "\(path).exercise", message: error.message)
            }
            guard (1...Routine.maxSetsPerExercise).contains(planned.sets.count) else {
                throw ValidationError(
                    field: "\(path).sets", message: "must hold 1 to \(Routine.maxSetsPerExercise) planned sets")
            }
            try restSeconds(planned.restSeconds, field: "\(path).rest_s")
            if let superset = planned.superset, !(1...99).contains(superset) {
                throw ValidationError(field: "\(path).superset", message: "must be a group number from 1 to 99")
            }
            guard planned.increment.isFinite, planned.increment >= 0, planned.increment <= 100 else {
                throw ValidationError(field: "\(path).increment", message: "must be from 0 to 100")
            }
            try notes(planned.notes, field: "\(path).notes")
            guard planned.formerly.count <= RoutineExercise.maxFormerNames else {
                throw ValidationError(
                    field: "\(path).formerly", message: "must hold at most \(RoutineExercise.maxFormerNames) names")
            }
            for name in planned.formerly {
                do { try exercise(name) } catch {
                    throw ValidationError(field: "\(path).formerly", message: error.message)
                }
            }
            for (setIndex, set) in planned.sets.enumerated() {
                let setPath = "\(path).sets[\(setIndex)]"
                do {
                    if let weight = set.weight { try Validation.weight(weight, unit: planned.unit) }
                    try Validation.reps(set.reps)
                    try Validation.rpe(set.rpe)
                } catch {
                    throw ValidationError(field: "\(setPath).\(error.field)", message: error.message)
                }
                guard set.reps >= 1 else {
                    throw ValidationError(
                        field: "\(setPath).reps", message: "a planned set needs at least 1 rep")
                }
                if set.weight != nil && set.percentOfOneRepMax != nil {
                    throw ValidationError(
                        field: "\(setPath).percent_1rm", message: "give a weight or a percentage of 1RM, not both")
                }
                if let percent = set.percentOfOneRepMax, !(percent.isFinite && percent > 0 && percent <= 150) {
                    throw ValidationError(
                        field: "\(setPath).percent_1rm", message: "must be more than 0 and at most 150")
                }
                if let top = set.repsMax, !(set.reps...Validation.maxReps).contains(top) {
                    throw ValidationError(
                        field: "\(setPath).reps_max",
                        message: "must be from reps (\(set.reps)) to \(Validation.maxReps)")
                }
            }
        }
    }
}

import Foundation

/// The plan a workout was started with from a routine: which routine, and each planned set's
/// targets. It travels with the workout (field `plan`), so every device of the account sees the
/// same performances of a routine and computes the same next targets from them. It is written
/// once, when the workout is started; what was done is the workout's sets: the set first logged
/// for a planned set takes the planned set's id.
public struct WorkoutPlan: Sendable, Equatable, Codable {
    public var routineID: UUID
    public var entries: [Entry]

    /// One planned set and the targets it was started with.
    public struct Entry: Sendable, Equatable, Codable {
        /// The planned set's id; the set logged for it on the device that started the workout
        /// (the first time) has this id.
        public var id: UUID
        public var exercise: String
        /// Its place among the planned sets of its exercise (0 = first).
        public var set: Int
        public var kind: SetKind
        /// nil: no target weight (a percentage of an estimated 1RM not known yet): the lifter
        /// enters it.
        public var weight: Double?
        public var unit: WeightUnit
        public var reps: Int
        /// The exercise's place in the routine when started: tells apart two entries of one
        /// lift (a top set and back-offs).
        public var exerciseIndex: Int?
        /// The routine's own target then (before progression): when the routine says something
        /// else now, it was edited, and its new targets count.
        public var writtenWeight: Double?
        public var writtenReps: Int?

        public init(
            id: UUID, exercise: String, set: Int, kind: SetKind, weight: Double?, unit: WeightUnit, reps: Int,
            exerciseIndex: Int? = nil, writtenWeight: Double? = nil, writtenReps: Int? = nil
        ) {
            self.id = id
            self.exercise = exercise
            self.set = set
            self.kind = kind
            self.weight = weight
            self.unit = unit
            self.reps = reps
            self.exerciseIndex = exerciseIndex
            self.writtenWeight = writtenWeight
            self.writtenReps = writtenReps
        }
    }

    public init(routineID: UUID, entries: [Entry]) {
        self.routineID = routineID
        self.entries = entries
    }

    /// The wire names, written once.
    public enum Field {
        public static let plan = "plan"
        public static let routineID = "routine_id"
        public static let sets = "sets"
        public static let id = "id"
        public static let exercise = "exercise"
        public static let set = "set"
        public static let kind = "kind"
        public static let weight = "weight"
        public static let unit = "unit"
        public static let reps = "reps"
        public static let exerciseIndex = "exercise_index"
        public static let writtenWeight = "written_weight"
        public static let writtenReps = "written_reps"
    }

    /// An entry's size on the wire at most, its exercise name aside.
    public static let largestEntryBytes = WorkoutPlan(
        routineID: UUID(),
        entries: [
            Entry(
                id: UUID(), exercise: "", set: Routine.maxSetsPerExercise - 1, kind: .warmup, weight: 1999.99,
                unit: .kg,
                reps: 1000, exerciseIndex: Routine.maxExercises - 1, writtenWeight: 1999.99, writtenReps: 1000)
        ]
    ).entriesBytes

    /// The size of the entries' part of the plan as sent.
    var entriesBytes: Int {
        guard case .object(let fields) = json, let sets = fields[Field.sets] else { return 0 }
        return sets.canonicalString.utf8.count
    }

    /// As many planned sets as the largest routine holds.
    public static let maxEntries = Routine.maxPlannedSets

    public var json: JSONValue {
        .object([
            Field.routineID: .string(routineID.wireString),
            Field.sets: .array(
                entries.map { entry in
                    var object: [String: JSONValue] = [
                        Field.id: .string(entry.id.wireString), Field.exercise: .string(entry.exercise),
                        Field.set: .int(Int64(entry.set)), Field.kind: .string(entry.kind.rawValue),
                        Field.unit: .string(entry.unit.rawValue), Field.reps: .int(Int64(entry.reps)),
                    ]
                    if let weight = entry.weight { object[Field.weight] = .double(weight) }
                    if let index = entry.exerciseIndex { object[Field.exerciseIndex] = .int(Int64(index)) }
                    if let weight = entry.writtenWeight { object[Field.writtenWeight] = .double(weight) }
                    if let reps = entry.writtenReps { object[Field.writtenReps] = .int(Int64(reps)) }
                    return .object(object)
                }),
        ])
    }

    /// Reads and validates a plan; the error names the field ("plan.sets[2].reps").
    public init(json: JSONValue) throws(ValidationError) {
        guard let fields = json.objectValue else {
            throw ValidationError(field: Field.plan, message: "must be an object with routine_id and sets")
        }
        let reader = RoutineFieldReader(fields: fields, path: Field.plan)
        guard let routineText = try reader.string(Field.routineID), let routineID = UUID(wire: routineText) else {
            throw ValidationError(field: "\(Field.plan).\(Field.routineID)", message: "must be a routine's id")
        }
        guard case .array(let elements)? = fields[Field.sets] else {
            throw ValidationError(field: "\(Field.plan).\(Field.sets)", message: "must be an array of planned sets")
        }
        guard !elements.isEmpty, elements.count <= Self.maxEntries else {
            throw ValidationError(
                field: "\(Field.plan).\(Field.sets)", message: "must hold 1 to \(Self.maxEntries) planned sets")
        }
        var entries: [Entry] = []
        var ids = Set<UUID>()
        for (index, element) in elements.enumerated() {
            let path = "\(Field.plan).\(Field.sets)[\(index)]"
            guard let entryFields = element.objectValue else {
                throw ValidationError(field: path, message: "must be an object")
            }
            let entry = RoutineFieldReader(fields: entryFields, path: path)
            func required<Value>(_ name: String, _ value: Value?) throws(ValidationError) -> Value {
                guard let value else { throw ValidationError(field: "\(path).\(name)", message: "is required") }
                return value
            }
            let idText = try required(Field.id, try entry.string(Field.id))
            guard let id = UUID(wire: idText) else {
                throw ValidationError(field: "\(path).\(Field.id)", message: "must be a UUID")
            }
            guard ids.insert(id).inserted else {
                throw ValidationError(field: "\(path).\(Field.id)", message: "is the id of an earlier planned set")
            }
            let unit = try entry.enumeration(Field.unit, fallback: WeightUnit.kg, message: "must be kg or lb")
            let planned = Entry(
                id: id, exercise: try required(Field.exercise, try entry.string(Field.exercise)),
                set: try required(Field.set, try entry.int(Field.set)),
                kind: try entry.enumeration(
                    Field.kind, fallback: SetKind.normal,
                    message: "must be one of \(SetKind.allCases.map(\.rawValue).joined(separator: ", "))"),
                weight: try entry.double(Field.weight), unit: unit,
                reps: try required(Field.reps, try entry.int(Field.reps)),
                exerciseIndex: try entry.int(Field.exerciseIndex), writtenWeight: try entry.double(Field.writtenWeight),
                writtenReps: try entry.int(Field.writtenReps))
            do {
                try Validation.exercise(planned.exercise)
                if let weight = planned.weight { try Validation.weight(weight, unit: unit) }
                try Validation.reps(planned.reps)
            } catch {
                throw ValidationError(field: "\(path).\(error.field)", message: error.message)
            }
            do {
                if let weight = planned.writtenWeight { try Validation.weight(weight, unit: unit) }
            } catch {
                throw ValidationError(field: "\(path).\(Field.writtenWeight)", message: error.message)
            }
            do {
                if let reps = planned.writtenReps { try Validation.reps(reps) }
            } catch {
                throw ValidationError(field: "\(path).\(Field.writtenReps)", message: error.message)
            }
            if let index = planned.exerciseIndex, !(0..<Routine.maxExercises).contains(index) {
                throw ValidationError(
                    field: "\(path).\(Field.exerciseIndex)", message: "must be from 0 to \(Routine.maxExercises - 1)")
            }
            guard (0..<Routine.maxSetsPerExercise).contains(planned.set) else {
                throw ValidationError(
                    field: "\(path).\(Field.set)", message: "must be from 0 to \(Routine.maxSetsPerExercise - 1)")
            }
            entries.append(planned)
        }
        self.init(routineID: routineID, entries: entries)
    }

    /// The plan as stored in a text column.
    public var text: String { json.canonicalString }

    /// A stored plan; nil for none. A stored plan that does not read is an error the caller reports.
    public static func stored(_ text: String?) throws(ValidationError) -> WorkoutPlan? {
        guard let text else { return nil }
        guard let json = JSONValue.parse(text) else {
            throw ValidationError(field: Field.plan, message: "is not JSON")
        }
        return try WorkoutPlan(json: json)
    }
}

import Foundation
import SpotterCore
import SpotterProtocol

/// Reads wire fields out of a JSON object, turning every wrong type or missing value
/// into a `ValidationError` that names the field (the 422 a client can show).
struct FieldReader {
    let fields: [String: JSONValue]

    func has(_ name: String) -> Bool { fields[name] != nil }

    func require(_ names: [String]) throws(ValidationError) {
        for name in names where fields[name] == nil || fields[name]!.isNull {
            throw ValidationError(field: name, message: "is required")
        }
    }

    /// nil when absent or null.
    func string(_ name: String) throws(ValidationError) -> String? {
        guard let value = fields[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ValidationError(field: name, message: "must be a string") }
        return text
    }

    func uuid(_ name: String) throws(ValidationError) -> UUID? {
        guard let text = try string(name) else { return nil }
        guard let id = UUID(wire: text) else { throw ValidationError(field: name, message: "must be a UUID") }
        return id
    }

    func int(_ name: String) throws(ValidationError) -> Int? {
        guard let value = fields[name], !value.isNull else { return nil }
        guard let number = value.intValue else {
            throw ValidationError(field: name, message: "must be a whole number")
        }
        return number
    }

    func double(_ name: String) throws(ValidationError) -> Double? {
        guard let value = fields[name], !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw ValidationError(field: name, message: "must be a number")
        }
        return number
    }

    /// An RFC 3339 timestamp, to the millisecond (the wire's precision).
    func timestamp(_ name: String) throws(ValidationError) -> Date? {
        guard let text = try string(name) else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw ValidationError(field: name, message: "must be an RFC 3339 timestamp")
        }
        return Timestamp.truncated(date)
    }

    /// One of an enum's raw values; absent or null gives `fallback`.
    func enumeration<Value: RawRepresentable & CaseIterable>(
        _ name: String, fallback: Value, message: String
    ) throws(ValidationError) -> Value where Value.RawValue == String {
        guard let text = try string(name) else { return fallback }
        guard let value = Value(rawValue: text) else { throw ValidationError(field: name, message: message) }
        return value
    }

    /// A required field sent as null in a PATCH.
    func rejectNull(_ names: [String]) throws(ValidationError) {
        for name in names where fields[name]?.isNull == true {
            throw ValidationError(field: name, message: "must not be null")
        }
    }
}

/// The server's rules for entities: which fields a client owns, how they are canonicalised
/// (weights rounded to 2 decimals, names trimmed) and validated with the shared `Validation`.
enum EntityRules {
    static let workoutRequired = ["id", "name", "started_at"]
    static let setRequired = ["id", "workout_id", "exercise", "weight", "reps", "performed_at"]

    // MARK: Workouts

    static func newWorkout(from fields: [String: JSONValue]) throws(ValidationError) -> WireWorkout {
        let reader = FieldReader(fields: fields)
        try reader.require(workoutRequired)
        var workout = WireWorkout(
            id: try reader.uuid("id")!, name: try reader.string("name")!, startedAt: try reader.timestamp("started_at")!
        )
        try apply(reader, to: &workout)
        try canonicalise(&workout)
        return workout
    }

    static func patchWorkout(_ workout: inout WireWorkout, with fields: [String: JSONValue]) throws(ValidationError) {
        let reader = FieldReader(fields: fields)
        try checkPatchID(reader, matches: workout.id)
        try reader.rejectNull(["name", "started_at"])
        // Every device reads a routine's history from the plans: one that changed after the
        // start would leave devices with different planned rows for one workout.
        if reader.has(WireWorkout.Field.plan.name) {
            throw ValidationError(field: WireWorkout.Field.plan.name, message: "is set when the workout is created")
        }
        try apply(reader, to: &workout)
        try canonicalise(&workout)
    }

    private static func apply(_ reader: FieldReader, to workout: inout WireWorkout) throws(ValidationError) {
        if reader.has("name") { workout.name = try reader.string("name")! }
        if reader.has("started_at") { workout.startedAt = try reader.timestamp("started_at")! }
        if reader.has("ended_at") { workout.endedAt = try reader.timestamp("ended_at") }
        if reader.has("notes") { workout.notes = try reader.string("notes") }
        if let value = reader.fields[WireWorkout.Field.plan.name] { workout.plan = try WorkoutPlan(json: value) }
        if let value = reader.fields[ExerciseNotes.field] { workout.exerciseNotes = try ExerciseNotes.read(value) }
    }

    private static func canonicalise(_ workout: inout WireWorkout) throws(ValidationError) {
        workout.name = Validation.trimmed(workout.name)
        try Validation.workoutName(workout.name)
        try Validation.notes(workout.notes)
        try ExerciseNotes.validate(workout.exerciseNotes)
        if let ended = workout.endedAt, ended < workout.startedAt {
            throw ValidationError(field: "ended_at", message: "must not be before started_at")
        }
    }

    /// The fields a client owns; two workouts with equal client content are the same create.
    static func clientContent(_ workout: WireWorkout) -> WireWorkout {
        WireWorkout(workout.workout)
    }

    // MARK: Sets

    static func newSet(from fields: [String: JSONValue]) throws(ValidationError) -> WireSet {
        let reader = FieldReader(fields: fields)
        try reader.require(setRequired)
        var set = WireSet(
            id: try reader.uuid("id")!, workoutID: try reader.uuid("workout_id")!,
            exercise: try reader.string("exercise")!,
            position: try reader.int("position") ?? 0, kind: try kind(reader), weight: try reader.double("weight")!,
            unit: try unit(reader), reps: try reader.int("reps")!, performedAt: try reader.timestamp("performed_at")!)
        try apply(reader, to: &set)
        try canonicalise(&set)
        return set
    }

    static func patchSet(_ set: inout WireSet, with fields: [String: JSONValue]) throws(ValidationError) {
        let reader = FieldReader(fields: fields)
        try checkPatchID(reader, matches: set.id)
        try reader.rejectNull(["workout_id", "exercise", "weight", "reps", "performed_at", "kind", "unit"])
        try apply(reader, to: &set)
        try canonicalise(&set)
    }

    private static func apply(_ reader: FieldReader, to set: inout WireSet) throws(ValidationError) {
        if reader.has("workout_id") { set.workoutID = try reader.uuid("workout_id")! }
        if reader.has("exercise") { set.exercise = try reader.string("exercise")! }
        if reader.has("position") { set.position = try reader.int("position") ?? 0 }
        if reader.has("kind") { set.kind = try kind(reader) }
        if reader.has("weight") { set.weight = try reader.double("weight")! }
        if reader.has("unit") { set.unit = try unit(reader) }
        if reader.has("reps") { set.reps = try reader.int("reps")! }
        if reader.has("rpe") { set.rpe = try reader.double("rpe") }
        if reader.has("distance_m") { set.distanceM = try reader.double("distance_m") }
        if reader.has("duration_s") { set.durationS = try reader.double("duration_s") }
        if reader.has("notes") { set.notes = try reader.string("notes") }
        if reader.has("performed_at") { set.performedAt = try reader.timestamp("performed_at")! }
        if reader.has("superset") { set.superset = try reader.int("superset") }
    }

    private static func canonicalise(_ set: inout WireSet) throws(ValidationError) {
        set.exercise = Validation.trimmed(set.exercise)
        try Validation.exercise(set.exercise)
        set.weight = roundedWeight(set.weight)
        try Validation.weight(set.weight, unit: set.unit)
        try Validation.reps(set.reps)
        try Validation.rpe(set.rpe)
        try Validation.nonNegative(set.distanceM, field: "distance_m")
        try Validation.nonNegative(set.durationS, field: "duration_s")
        try Validation.notes(set.notes)
        try Validation.position(set.position)
        try Validation.superset(set.superset)
    }

    /// A set's kind; absent or null is a normal set.
    private static func kind(_ reader: FieldReader) throws(ValidationError) -> SetKind {
        try reader.enumeration(
            "kind", fallback: .normal,
            message: "must be one of \(SetKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    /// A weight's unit; absent or null is kilograms.
    static func unit(_ reader: FieldReader) throws(ValidationError) -> WeightUnit {
        try reader.enumeration("unit", fallback: .kg, message: "must be kg or lb")
    }

    /// Weights are kept to 2 decimals; the answer carries the rounded value ("server rounding").
    static func roundedWeight(_ weight: Double) -> Double {
        Validation.keptWeight(weight)
    }

    static func clientContent(_ set: WireSet) -> WireSet {
        WireSet(set.set)
    }

    // MARK: Favorites

    static func favoriteName(_ raw: String) throws(ValidationError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        try Validation.exercise(name)
        return name
    }

    static func checkPatchID(_ reader: FieldReader, matches id: UUID) throws(ValidationError) {
        guard reader.has("id") else { return }
        guard let sent = try reader.uuid("id"), sent == id else {
            throw ValidationError(field: "id", message: "must match the id in the path (ids cannot change)")
        }
    }
}

/// Which characters a text field may hold. SQLite and terminals do not keep control
/// characters faithfully (a NUL cut "Bench\u{0}Press" to "Bench", U+202E reverses a row), so
/// they are refused (422 naming the field) rather than stored differently from what was answered.
enum TextRules {
    /// Shown on one line (lists, the terminal UI): no control characters at all.
    static let singleLineFields: Set<String> = ["name", "exercise"]

    /// The 422 for the first string field holding a control character, or nil.
    /// Free text (notes) may keep tabs and line feeds; nothing may hold NUL, a carriage return
    /// or any other control.
    static func problem(in fields: [String: JSONValue]) -> Problem? {
        for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let text = value.stringValue else { continue }
            if let problem = problem(field: field, text: text) { return problem }
        }
        return nil
    }

    static func problem(field: String, text: String) -> Problem? {
        let singleLine = singleLineFields.contains(field)
        guard let scalar = Validation.controlCharacter(in: text, singleLine: singleLine) else { return nil }
        return Problems.validation(ValidationError(field: field, message: Validation.controlCharacterMessage(scalar)))
    }
}

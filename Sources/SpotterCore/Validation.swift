import Foundation

/// A rule a value broke, naming the field the way the wire format does, so the client's
/// message and the server's 422 say the same thing.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }

    /// A message said of a field a person knows by `name`: "reps must be …" reads as a sentence;
    /// "reps: a planned set needs …" keeps its own subject.
    public static func sentence(_ name: String, _ message: String) -> String {
        message.hasPrefix("must") ? "\(name) \(message)" : "\(name): \(message)"
    }
}

/// The validation rules of the sync API, shared by the client (before anything is written)
/// and the server (before anything is stored).
public enum Validation {
    /// A number as a lifter writes it: digits with a point and an exponent at most ("12", "-3.5",
    /// ".5", "1e3"), finite. Swift's own reading also takes "0x10" (16), "0x1p3" (8), "nan" and
    /// "inf", which no one means as a weight.
    public static func decimal(_ text: String) -> Double? {
        guard ImportParser.isDecimal(text), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    public static let maxReps = 1000
    public static let maxWeightKg = 2000.0
    public static let maxExerciseLength = 100
    public static let maxNameLength = 200
    public static let maxNotesLength = 4000

    public static func reps(_ reps: Int) throws(ValidationError) {
        guard (0...maxReps).contains(reps) else {
            throw ValidationError(field: "reps", message: "must be a whole number from 0 to \(maxReps)")
        }
    }

    /// A weight as it is kept: to two decimals (0.01 kg or lb), as the server keeps and answers
    /// it. A device stores a typed weight this way too, so what it shows, says and can undo is
    /// what the server will hold ("100.005" is 100.01 everywhere, never 100.005 here and 100.01
    /// there). Imports keep the file's value: their ids come from it.
    public static func keptWeight(_ weight: Double) -> Double {
        guard weight.isFinite, abs(weight) < 1e12 else { return weight }
        return (weight * 100).rounded() / 100
    }

    public static func weight(_ weight: Double, unit: WeightUnit) throws(ValidationError) {
        let limit = maxWeightKg / unit.kilograms
        guard weight >= 0 else {
            throw ValidationError(field: "weight", message: "must be 0 or more")
        }
        // A huge value (1e308, or one that overflowed to infinity on the way) breaks the upper bound, and says so.
        guard weight.isFinite, weight <= limit + 1e-9 else {
            let shown = unit == .kg ? "2000 kg" : String(format: "%.0f lb", limit.rounded(.down))
            throw ValidationError(field: "weight", message: "must be at most \(shown)")
        }
    }

    public static func rpe(_ rpe: Double?) throws(ValidationError) {
        guard let rpe else { return }
        guard rpe.isFinite, rpe >= 1, rpe <= 10, (rpe * 2).rounded() == rpe * 2 else {
            throw ValidationError(field: "rpe", message: "must be from 1 to 10 in steps of 0.5")
        }
    }

    /// `text` cut to at most `limit` Unicode scalars (what every limit here counts), at the end of
    /// a whole character: an emoji with its skin tone, or a letter with its accents, is kept whole
    /// or left out whole, never split. Trailing white space the cut leaves is trimmed.
    public static func cut(_ text: String, toScalars limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var kept = ""
        var count = 0
        for character in text {
            let size = character.unicodeScalars.count
            guard count + size <= limit else { break }
            kept.append(character)
            count += size
        }
        return trimmed(kept)
    }

    /// `text.trimmingCharacters(in: .whitespacesAndNewlines)`, the same answer, without the trip
    /// through Foundation when neither end needs trimming: a name as a client sends it, checked on
    /// every create the server answers.
    public static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, !isTrimmable(first), !isTrimmable(last) else {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return text
    }

    /// In `CharacterSet.whitespacesAndNewlines`: in ASCII, tab, the line breaks U+000A…U+000D and space.
    private static func isTrimmable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
        return CharacterSet.whitespacesAndNewlines.contains(scalar)
    }

    public static func exercise(_ name: String) throws(ValidationError) {
        let trimmed = Self.trimmed(name)
        // Counted in code points, not in what a terminal draws: a "character" of 20 000 combining
        // marks is 20 000 of them (and 40 KB every device would pull).
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= maxExerciseLength else {
            throw ValidationError(field: "exercise", message: "must be 1 to \(maxExerciseLength) characters")
        }
        try plainText(name, field: "exercise", singleLine: true)
        guard shows(trimmed) else { throw ValidationError(field: "exercise", message: invisibleMessage) }
    }

    /// Whether `text` has something a screen draws: not only spaces, invisible format characters
    /// (zero-width joiners and spaces, word joiners), variation selectors, noncharacters (U+FFFF),
    /// Hangul fillers, or marks with no letter to sit on (a lone U+0301 is drawn on nothing),
    /// which leave a name that looks empty.
    public static func shows(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            let properties = scalar.properties
            if properties.isWhitespace || properties.isNoncharacterCodePoint || properties.isVariationSelector {
                return false
            }
            switch scalar.value {
            case 0x115F, 0x1160, 0x3164, 0xFFA0: return false  // Hangul fillers
            default: break
            }
            switch properties.generalCategory {
            case .format, .control, .unassigned, .surrogate, .nonspacingMark, .spacingMark, .enclosingMark:
                return false
            default: return true
            }
        }
    }

    static let invisibleMessage = "must have a letter, digit or sign that shows (not only invisible characters)"

    public static func workoutName(_ name: String) throws(ValidationError) {
        let trimmed = Self.trimmed(name)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= maxNameLength else {
            throw ValidationError(field: "name", message: "must be 1 to \(maxNameLength) characters")
        }
        try plainText(name, field: "name", singleLine: true)
        guard shows(trimmed) else { throw ValidationError(field: "name", message: invisibleMessage) }
    }

    public static func notes(_ notes: String?, field: String = "notes") throws(ValidationError) {
        guard let notes else { return }
        guard notes.unicodeScalars.count <= maxNotesLength else {
            throw ValidationError(field: field, message: "must be at most \(maxNotesLength) characters")
        }
        try plainText(notes, field: field, singleLine: false)
    }

    /// The first control character of `text` that may not be kept, or nil. SQLite and terminals
    /// do not keep control characters faithfully (a NUL cut "Bench\u{0}Press" to "Bench", an ESC
    /// recolours a listing, U+202E draws the rest of a row backwards), so none is stored: no C0
    /// or C1 control, no DEL, no bidi embedding, override or isolate control. Free text
    /// (`singleLine` false) may keep tabs and line feeds, never a carriage return: a lone CR sent
    /// to a terminal moves back to the start of the row and overwrites it.
    public static func controlCharacter(in text: String, singleLine: Bool) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            let value = scalar.value
            if DisplayText.isBidiControl(scalar) { return true }
            guard value < 0x20 || (0x7F...0x9F).contains(value) else { return false }
            return singleLine || !(value == 0x09 || value == 0x0A)
        }
    }

    /// "must not contain control characters (found U+0007)", the one wording client and server use.
    public static func controlCharacterMessage(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
        return "must not contain control characters (found U+\(padded))"
    }

    public static func plainText(_ text: String, field: String, singleLine: Bool) throws(ValidationError) {
        if let scalar = controlCharacter(in: text, singleLine: singleLine) {
            throw ValidationError(field: field, message: controlCharacterMessage(scalar))
        }
    }

    public static func nonNegative(_ value: Double?, field: String) throws(ValidationError) {
        guard let value else { return }
        guard value.isFinite, value >= 0, value <= 1e7 else {
            throw ValidationError(field: field, message: "must be a number from 0 to 10000000")
        }
    }

    /// The last place a set may take in its workout.
    public static let maxPosition = 100_000

    public static func position(_ position: Int) throws(ValidationError) {
        guard (0...maxPosition).contains(position) else {
            throw ValidationError(field: "position", message: "must be from 0 to \(maxPosition)")
        }
    }

    /// Every rule that applies to a whole set.
    public static func set(_ set: WorkoutSet) throws(ValidationError) {
        try exercise(set.exercise)
        try weight(set.weight, unit: set.unit)
        try reps(set.reps)
        try rpe(set.rpe)
        try nonNegative(set.distanceM, field: "distance_m")
        try nonNegative(set.durationS, field: "duration_s")
        try notes(set.notes)
        try position(set.position)
        try superset(set.superset)
    }

    /// The most supersets one workout numbers.
    public static let maxSuperset = 999

    public static func superset(_ group: Int?) throws(ValidationError) {
        guard let group else { return }
        guard (1...maxSuperset).contains(group) else {
            throw ValidationError(field: "superset", message: "must be a whole number from 1 to \(maxSuperset)")
        }
    }

    public static func workout(_ workout: Workout) throws(ValidationError) {
        try workoutName(workout.name)
        try notes(workout.notes)
        try ExerciseNotes.validate(workout.exerciseNotes)
        if let ended = workout.endedAt, ended < workout.startedAt {
            throw ValidationError(field: "ended_at", message: "must not be before started_at")
        }
    }
}

/// The notes a workout keeps on its exercises: one each at most, by exercise name.
public enum ExerciseNotes {
    public static let field = Workout.Column.exerciseNotes.name
    /// Exercises of one workout that may carry a note.
    public static let maxExercises = 20
    /// One exercise's note, in code points: twenty of the longest, in four-byte characters, stay
    /// under the server's 64 KiB body limit with the rest of a workout.
    public static let maxLength = 500

    /// Every rule: names that are exercise names, notes that are free text of at most
    /// `maxLength` (tab and line feed allowed, no other control), not empty, and not too many.
    public static func validate(_ notes: [String: String]?) throws(ValidationError) {
        guard let notes else { return }
        guard notes.count <= maxExercises else {
            throw ValidationError(field: field, message: "may hold notes on at most \(maxExercises) exercises")
        }
        for (exercise, note) in notes {
            do { try Validation.exercise(exercise) } catch {
                throw ValidationError(field: field, message: "names an exercise that \(error.message)")
            }
            guard !note.isEmpty, note.unicodeScalars.count <= maxLength else {
                throw ValidationError(
                    field: field, message: "holds a note on \(exercise) that is not 1 to \(maxLength) characters")
            }
            try Validation.plainText(note, field: field, singleLine: false)
        }
    }

    /// Reads the notes from their JSON object (as sent and as stored), checking every rule.
    public static func read(_ document: JSONValue) throws(ValidationError) -> [String: String]? {
        if document.isNull { return nil }
        guard let object = document.objectValue else {
            throw ValidationError(field: field, message: "must be an object of notes by exercise")
        }
        var notes: [String: String] = [:]
        for (exercise, value) in object {
            guard let note = value.stringValue else {
                throw ValidationError(field: field, message: "holds a note on \(exercise) that is not text")
            }
            notes[exercise] = note
        }
        try validate(notes)
        return notes.isEmpty ? nil : notes
    }

    /// `notes` with `exercise`'s note set to `note` (an empty one removes it); nil when none is left.
    public static func setting(_ note: String, on exercise: String, in notes: [String: String]?) -> [String: String]? {
        var notes = notes ?? [:]
        notes[exercise] = note.isEmpty ? nil : note
        return notes.isEmpty ? nil : notes
    }
}

import Foundation

/// The export formats Spotter reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case strong, hevy, fitnotes, auto
}

/// One set read from a file, before it is stored.
public struct ImportedSet: Sendable, Equatable {
    public var line: Int
    public var workoutName: String
    public var workoutStart: Date
    public var workoutNotes: String?
    public var exercise: String
    /// Order within the workout as the file gives it (Set Order, set_index), if it does.
    public var setOrder: Int?
    public var kind: SetKind
    public var weight: Double
    public var unit: WeightUnit
    public var reps: Int
    public var rpe: Double?
    public var distanceM: Double?
    public var durationS: Double?
    public var notes: String?
    /// The superset its exercise is in within the workout (Hevy's `superset_id`, counted from 1;
    /// the `Superset` column of Spotter's own export).
    public var superset: Int? = nil
    /// The note on its exercise in this workout (the `Exercise Notes` column of Spotter's own
    /// export, repeated on each row of the exercise): not part of the row's identity.
    public var exerciseNote: String? = nil
    /// When the workout ended, when the file says (Strong's Duration, Hevy's end_time): an
    /// imported workout is finished, not left open.
    public var workoutEnd: Date? = nil
    /// The unit is `--unit`'s, the file naming none for the row: the same row imported before
    /// under the other unit is the same set.
    public var unitAssumed = false
    /// A note that is not part of the row's identity (FitNotes' Comment): earlier versions did
    /// not read it, and a set they imported must still be found when the file comes again. The
    /// set is stored with it as its notes when the row has none of its own.
    public var comment: String? = nil
}

/// A row that could not be read, with its line number; the rest of the file still imports.
public struct ImportProblem: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

/// What a file held.
public struct ParsedImport: Sendable, Equatable {
    public var format: ImportFormat
    public var sets: [ImportedSet]
    public var problems: [ImportProblem]
    /// Rows with more fields than the header whose extra commas sat inside parentheses of a
    /// name (FitNotes writes "Overhead Press (Each Side, Dumbbells)" unquoted), read as one field.
    public var repaired: Int = 0
    /// The unit weights were read in because the file does not say (Strong without a Weight
    /// Unit column); nil when every weight's unit came from the file.
    public var assumedUnit: WeightUnit?
    /// The lines whose names or notes held control or bidi characters, imported without them
    /// (`ImportParser.cleaned`): said, so nothing changes without a word.
    public var cleanedLines: [Int] = []
    /// The lines whose workout name or notes were longer than a device or the server keeps,
    /// imported cut to the limit (`ImportParser.fit`): said, like the cleaned ones.
    public var cutLines: [Int] = []
    /// Rows read in the default unit although the file has a unit column (a plank's blank
    /// unit): counted, since the rest of the file's units came from the file.
    public var defaultUnitRows = 0
    /// The lines whose workout end (Hevy's end_time, Strong's Duration) was there but did not
    /// read, or came before the start: their workouts are imported unfinished, and that is said.
    public var unreadableEndLines: [Int] = []

    public init(
        format: ImportFormat, sets: [ImportedSet], problems: [ImportProblem], repaired: Int = 0,
        assumedUnit: WeightUnit? = nil
    ) {
        self.format = format
        self.sets = sets
        self.problems = problems
        self.repaired = repaired
        self.assumedUnit = assumedUnit
    }
}

/// Why a whole file cannot be read.
public struct ImportError: Error, Equatable, CustomStringConvertible {
    public var description: String
    /// The file is not in the format asked for (`--format`): a usage error, nothing was read.
    public var isFormatMismatch: Bool
    public init(_ description: String, isFormatMismatch: Bool = false) {
        self.description = description
        self.isFormatMismatch = isFormatMismatch
    }
}

/// Reads Strong, Hevy and FitNotes CSV exports. Pure: text in, sets out.
public enum ImportParser {
    public static func parse(
        _ text: String, format requested: ImportFormat = .auto, defaultUnit: WeightUnit = .kg,
        timeZone: TimeZone = .current
    ) throws -> ParsedImport {
        guard
            let firstLine = text.drop(while: { $0 == "\u{FEFF}" }).split(maxSplits: 1, whereSeparator: \.isNewline)
                .first
        else {
            throw ImportError("the file is empty")
        }
        let delimiter: Character =
            firstLine.filter { $0 == ";" }.count > firstLine.filter { $0 == "," }.count ? ";" : ","
        let records = CSV.records(text, delimiter: delimiter)
        guard let header = records.first else { throw ImportError("the file is empty") }
        let columns = header.fields.map { normalize($0) }
        let format = requested == .auto ? try detect(columns) : requested
        if requested != .auto, !matches(columns, requested) {
            let detected = (try? detect(columns)).map {
                "; it looks like a \($0.rawValue) export (try --format \($0.rawValue) or auto)"
            }
            throw ImportError(
                "the header is not a \(requested.rawValue) export\(detected ?? "")", isFormatMismatch: true)
        }
        var reader = RowReader(
            columns: columns, defaultUnit: defaultUnit, timeZone: timeZone, commaSeparated: delimiter == ",")
        var sets: [ImportedSet] = []
        var problems: [ImportProblem] = []
        var repaired = 0
        var cleanedLines: [Int] = []
        var cutLines: [Int] = []
        for var record in records.dropFirst() {
            if record.fields.count > columns.count, let merged = mergeParenthesised(record.fields),
                merged.count == columns.count
            {
                record.fields = merged
                repaired += 1
            }
            guard record.fields.count == columns.count else {
                problems.append(
                    ImportProblem(
                        line: record.line,
                        message: "expected \(columns.count) fields, found \(record.fields.count)"
                            + (format == .fitnotes ? " (a name with a comma?)" : "")))
                continue
            }
            do {
                let set: ImportedSet?
                switch format {
                case .strong, .auto: set = try reader.strong(record)
                case .hevy: set = try reader.hevy(record)
                case .fitnotes: set = try reader.fitnotes(record)
                }
                if var set {
                    if clean(&set) { cleanedLines.append(set.line) }
                    if fit(&set) { cutLines.append(set.line) }
                    try validate(set)
                    sets.append(set)
                }
            } catch let error as ImportError {
                problems.append(ImportProblem(line: record.line, message: error.description))
            }
        }
        // "The file names no unit" only when it has no unit at all; a file with a unit column
        // whose few blank cells took the default says how many.
        var parsed = ParsedImport(
            format: format, sets: sets, problems: problems, repaired: repaired,
            assumedUnit: reader.defaultUnitRows > 0 && !reader.hasUnitColumn ? defaultUnit : nil)
        parsed.defaultUnitRows = reader.hasUnitColumn ? reader.defaultUnitRows : 0
        parsed.cleanedLines = cleanedLines
        parsed.cutLines = cutLines
        parsed.unreadableEndLines = reader.unreadableEndLines
        return parsed
    }

    /// Takes out of a row's names and notes what no device or server stores (`Validation`'s
    /// control characters): a bidi control is dropped, any other control becomes a space, and a
    /// name left empty is "Workout". In notes a Windows line break (CR LF) becomes a line feed and
    /// a lone CR a line feed too. Returns whether anything changed.
    static func clean(_ set: inout ImportedSet) -> Bool {
        func cleaned(_ text: String, singleLine: Bool) -> String {
            guard Validation.controlCharacter(in: text, singleLine: singleLine) != nil else { return text }
            var scalars = String.UnicodeScalarView()
            var afterCR = false
            for scalar in text.unicodeScalars {
                defer { afterCR = scalar == "\r" }
                if DisplayText.isBidiControl(scalar) { continue }
                if !singleLine, scalar == "\r" {
                    scalars.append("\n")
                    continue
                }
                if !singleLine, scalar == "\n", afterCR { continue }
                let keep = !singleLine && (scalar == "\t" || scalar == "\n")
                scalars.append(DisplayText.isControl(scalar) && !keep ? " " : scalar)
            }
            return Validation.trimmed(String(scalars))
        }
        let before = set
        set.workoutName = cleaned(set.workoutName, singleLine: true)
        if set.workoutName.isEmpty { set.workoutName = "Workout" }
        set.exercise = cleaned(set.exercise, singleLine: true)
        set.workoutNotes = set.workoutNotes.map { cleaned($0, singleLine: false) }
        set.notes = set.notes.map { cleaned($0, singleLine: false) }
        set.comment = set.comment.map { cleaned($0, singleLine: false) }
        set.exerciseNote = set.exerciseNote.map { cleaned($0, singleLine: false) }.flatMap { $0.isEmpty ? nil : $0 }
        return set != before
    }

    /// Cuts notes longer than `Validation.maxNotesLength` (counted in Unicode scalars, as the
    /// server counts them) to the limit, whole characters kept: without it a long note would
    /// import here and be refused by the server. Returns whether anything was cut, or is to be:
    /// a workout name over `Validation.maxNameLength` is cut where the workout is stored, so
    /// that the name still finds the workout an earlier import made. (An exercise name over its
    /// limit is refused with its line: it names a lift, and a cut one would be another.)
    static func fit(_ set: inout ImportedSet) -> Bool {
        func cut(_ text: inout String?, to limit: Int = Validation.maxNotesLength) -> Bool {
            guard let whole = text, whole.unicodeScalars.count > limit else { return false }
            text = Validation.cut(whole, toScalars: limit)
            return true
        }
        let notes = cut(&set.notes)
        let comment = cut(&set.comment)
        let workoutNotes = cut(&set.workoutNotes)
        let exerciseNote = cut(&set.exerciseNote, to: ExerciseNotes.maxLength)
        return notes || comment || workoutNotes || exerciseNote
            || set.workoutName.unicodeScalars.count > Validation.maxNameLength
    }

    /// Joins fields split by a comma inside parentheses ("Press (Each Side", " Dumbbells)") back
    /// into one; nil when nothing was split that way.
    static func mergeParenthesised(_ fields: [String]) -> [String]? {
        var merged: [String] = []
        var open: String?
        var depth = 0
        var changed = false
        for field in fields {
            let balance = field.reduce(0) { $0 + ($1 == "(" ? 1 : $1 == ")" ? -1 : 0) }
            if let current = open {
                open = current + "," + field
                depth += balance
                changed = true
                if depth <= 0 {
                    merged.append(open!)
                    open = nil
                    depth = 0
                }
            } else if balance > 0 {
                open = field
                depth = balance
            } else {
                merged.append(field)
            }
        }
        if let open { merged.append(open) }
        return changed ? merged : nil
    }

    static func normalize(_ header: String) -> String {
        header.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Whether the header has the columns `format` cannot do without.
    static func matches(_ columns: [String], _ format: ImportFormat) -> Bool {
        switch format {
        case .hevy: columns.contains("exercise_title") && columns.contains("start_time")
        case .strong: columns.contains("exercise name") && columns.contains("date")
        case .fitnotes: columns.contains("exercise") && columns.contains("date")
        case .auto: true
        }
    }

    static func detect(_ columns: [String]) throws -> ImportFormat {
        if columns.contains("exercise_title") && columns.contains("start_time") { return .hevy }
        if columns.contains("exercise name") && columns.contains("date") { return .strong }
        if columns.contains("exercise") && columns.contains("category") && columns.contains("date") { return .fitnotes }
        throw ImportError("unrecognised header: not a Strong, Hevy or FitNotes export")
    }

    /// A distance or time as the file has it: 0 is how the apps write "none"; anything else is
    /// kept, so a negative one is a listed problem (validation), not quietly dropped.
    static func setOrNone(_ value: Double) -> Double? { value == 0 ? nil : value }

    static func validate(_ set: ImportedSet) throws {
        do {
            try Validation.exercise(set.exercise)
            try Validation.weight(set.weight, unit: set.unit)
            try Validation.reps(set.reps)
            try Validation.rpe(set.rpe)
            try Validation.nonNegative(set.distanceM, field: "distance_m")
            try Validation.nonNegative(set.durationS, field: "duration_s")
        } catch {
            throw ImportError("\(error.field) \(error.message)")
        }
    }
}

/// Reads one row of a known header into a set.
struct RowReader {
    let index: [String: Int]
    let columns: [String]
    let defaultUnit: WeightUnit
    let timeZone: TimeZone
    private var formatters: [String: DateFormatter] = [:]
    /// Dates read so far, by their text: every row of a workout repeats its start, and reading it
    /// again with a formatter cost more than the rest of the row.
    private var dates: [String: Date] = [:]
    /// Rows whose weight was read in `defaultUnit` because neither a cell nor the header named its unit.
    var defaultUnitRows = 0
    /// Rows whose workout end is in the file but does not read, or comes before the start.
    var unreadableEndLines: [Int] = []
    /// The file has a "Weight Unit" column (some of its cells may still be blank).
    var hasUnitColumn: Bool { index["weight unit"] != nil }

    /// The weight and distance columns, found once (every row asks), and the units their names give.
    let weightColumn: String?
    let distanceColumn: String?
    /// "Weight (kg)" or "Weight (lbs)": the unit of every row (kg when a name says both).
    let weightHeaderUnit: WeightUnit?
    /// "Distance (km)".
    let distanceInKilometres: Bool
    /// Strong's workout length: "Duration" ("1h 2m", or seconds as Spotter's export writes it)
    /// or "Duration (sec)".
    let durationColumn: String?
    /// The last date read, with its formats: the rows of a workout repeat its start one after another.
    private var lastDate: (text: String, formats: [String], date: Date)?

    /// The file's cells are separated by commas, so a comma inside a number was quoted and may group
    /// thousands ("1,000") as well as mark a decimal ("62,5"); in a semicolon file it is a decimal.
    let commaSeparated: Bool

    init(columns: [String], defaultUnit: WeightUnit, timeZone: TimeZone, commaSeparated: Bool = true) {
        self.commaSeparated = commaSeparated
        self.columns = columns
        let weightColumn = Self.column(startingWith: "weight", in: columns)
        self.weightColumn = weightColumn
        distanceColumn = Self.column(startingWith: "distance", in: columns)
        if weightColumn?.contains("(kg") == true {
            weightHeaderUnit = .kg
        } else if weightColumn?.contains("(lb") == true {
            weightHeaderUnit = .lb
        } else {
            weightHeaderUnit = nil
        }
        distanceInKilometres = distanceColumn?.contains("(km") == true
        durationColumn = Self.column(startingWith: "duration", in: columns)
        var index: [String: Int] = [:]
        for (position, name) in columns.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
        self.defaultUnit = defaultUnit
        self.timeZone = timeZone
    }

    func value(_ record: CSVRecord, _ names: String...) -> String? {
        for name in names {
            if let position = index[name] {
                let raw = record.fields[position]
                // Most cells have no space around them: only those are trimmed. A cell that
                // starts and ends with a printable ASCII byte has none (the bytes are checked
                // first: asking a Character whether it is whitespace cost more than the rest).
                func plain(_ byte: UInt8?) -> Bool { byte.map { $0 > 0x20 && $0 < 0x7F } ?? false }
                let text =
                    plain(raw.utf8.first) && plain(raw.utf8.last)
                    ? raw
                    : raw.first?.isWhitespace == false && raw.last?.isWhitespace == false
                        ? raw : raw.trimmingCharacters(in: .whitespacesAndNewlines)
                return text.isEmpty ? nil : text
            }
        }
        return nil
    }

    /// A row's weight unit: the weight column's name when it gives one, else the row's own unit,
    /// else `defaultUnit` (counted in `defaultUnitRows` when neither the name nor the row says).
    mutating func weightUnit(stated: WeightUnit?) -> WeightUnit {
        if let weightHeaderUnit { return weightHeaderUnit }
        if stated == nil, weightColumn != nil { defaultUnitRows += 1 }
        return stated ?? defaultUnit
    }

    /// The first column whose name starts with `prefix` (e.g. `weight` matches `weight (kg)`).
    func column(startingWith prefix: String) -> String? {
        switch prefix {
        case "weight": weightColumn
        case "distance": distanceColumn
        default: Self.column(startingWith: prefix, in: columns)
        }
    }

    static func column(startingWith prefix: String, in columns: [String]) -> String? {
        columns.first { $0 == prefix || $0.hasPrefix(prefix + " (") }
    }

    func number(_ text: String?, field: String) throws -> Double? {
        guard let text else { return nil }
        let decimal =
            text.utf8.contains(UInt8(ascii: ","))
            ? try Self.commaRead(text, field: field, commaSeparated: commaSeparated) : text
        // Only a decimal number: Swift's `Double` also reads hexadecimal ("0x10" is 16), which no
        // export writes for a weight.
        guard ImportParser.isDecimal(decimal), let value = Double(decimal), value.isFinite else {
            throw ImportError("\(field) '\(text)' is not a number")
        }
        return value
    }

    /// `text`, which holds a comma, as a number `Double` reads. A decimal comma ("62,5") reads as a
    /// point. In a comma-separated file a quoted number may also group thousands: with a point or
    /// with more than one group ("1,000.5", "1,000,000") the commas are groupings and are dropped;
    /// a single comma before exactly three digits ("1,000") is either, and is refused with the
    /// reason rather than guessed.
    static func commaRead(_ text: String, field: String, commaSeparated: Bool) throws -> String {
        guard commaSeparated else { return text.replacingOccurrences(of: ",", with: ".") }
        let digits = text.drop { $0 == "-" || $0 == "+" }
        let whole = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
        func isDigits(_ group: Substring) -> Bool { group.allSatisfy { $0 >= "0" && $0 <= "9" } }
        let grouped =
            groups.count > 1 && (1...3).contains(groups[0].count) && isDigits(groups[0])
            && groups.dropFirst().allSatisfy { $0.count == 3 && isDigits($0) }
        if grouped, groups.count > 2 || digits.contains(".") { return text.replacingOccurrences(of: ",", with: "") }
        if grouped {
            throw ImportError(
                "\(field) '\(text)' could be \(text.replacingOccurrences(of: ",", with: "")) or \(text.replacingOccurrences(of: ",", with: ".")): write it without the comma"
            )
        }
        return text.replacingOccurrences(of: ",", with: ".")
    }

    /// The years a workout of an export may be dated in. A date outside is a misread (a two-digit
    /// year read as the year 24, a placeholder such as 0001-01-01), said, never stored.
    static let plausibleYears = 1900...2199

    func wholeNumber(_ text: String?, field: String) throws -> Int? {
        guard let value = try number(text, field: field) else { return nil }
        guard value.rounded() == value, abs(value) < 1e9 else {
            throw ImportError("\(field) '\(text ?? "")' is not a whole number")
        }
        return Int(value)
    }

    func unit(_ text: String?) throws -> WeightUnit? {
        guard let text = text?.lowercased() else { return nil }
        switch text {
        case "kg", "kgs", "kilograms": return .kg
        case "lb", "lbs", "pounds": return .lb
        default: throw ImportError("weight unit '\(text)' is neither kg nor lb")
        }
    }

    func metres(_ value: Double?, unit: String?) throws -> Double? {
        guard let value else { return nil }
        switch unit?.lowercased() {
        case nil, "", "m", "meters", "metres": return value
        case "km", "kilometers", "kilometres": return value * 1000
        case "mi", "miles": return value * 1609.344
        case "ft", "feet": return value * 0.3048
        case "yd", "yards": return value * 0.9144
        case let other?: throw ImportError("distance unit '\(other)' is not m, km or mi")
        }
    }

    mutating func date(_ text: String?, formats: [String], field: String) throws -> Date {
        guard let text else { throw ImportError("\(field) is missing") }
        if let lastDate, lastDate.text == text, lastDate.formats == formats { return lastDate.date }
        let key = formats.joined(separator: "\u{1F}") + "\u{1E}" + text
        if let known = dates[key] {
            lastDate = (text, formats, known)
            return known
        }
        // A formatter per format, made once: building one per row dominated a 10 000-row import.
        for format in formats {
            let formatter: DateFormatter
            if let cached = formatters[format] {
                formatter = cached
            } else {
                formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = timeZone
                formatter.dateFormat = format
                formatters[format] = formatter
            }
            if let date = formatter.date(from: text) {
                let year = Calendar(identifier: .gregorian).dateComponents(in: timeZone, from: date).year ?? 0
                guard Self.plausibleYears.contains(year) else {
                    throw ImportError(
                        "\(field) '\(text)' is not a workout date (a year from \(Self.plausibleYears.lowerBound)"
                            + " to \(Self.plausibleYears.upperBound), like \(formats[0]))")
                }
                dates[key] = date
                lastDate = (text, formats, date)
                return date
            }
        }
        throw ImportError("\(field) '\(text)' is not a date like \(formats[0])")
    }

    /// `10:30`, `1:02:03` or plain seconds.
    func duration(_ text: String?) throws -> Double? {
        guard let text else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map {
            ImportParser.isDecimal(String($0)) ? Double($0) : nil
        }
        guard !parts.isEmpty, parts.allSatisfy({ $0?.isFinite == true }) else {
            throw ImportError("time '\(text)' is not a duration")
        }
        return parts.reduce(0) { $0 * 60 + $1! }
    }

    mutating func strong(_ record: CSVRecord) throws -> ImportedSet? {
        let start = try date(
            value(record, "date"), formats: ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"], field: "Date")
        guard let exercise = value(record, "exercise name") else { throw ImportError("Exercise Name is missing") }
        var kind = SetKind.normal
        var order: Int?
        if let raw = value(record, "set order") {
            switch raw.uppercased() {
            case "W", "WARM_UP", "WARMUP": kind = .warmup
            case "F", "FAILURE": kind = .failure
            case "D", "DROP", "DROP_SET": kind = .drop
            default:
                guard let number = Int(raw) else {
                    throw ImportError("Set Order '\(raw)' is not a number, W or FAILURE")
                }
                order = number
            }
        }
        let weightColumn = column(startingWith: "weight")
        let stated = try unit(value(record, "weight unit"))
        let unit = weightUnit(stated: stated)
        let weight = try number(weightColumn.flatMap { value(record, $0) }, field: "Weight") ?? 0
        let reps = try wholeNumber(value(record, "reps"), field: "Reps") ?? 0
        let distanceColumn = column(startingWith: "distance")
        let distance = try metres(
            number(distanceColumn.flatMap { value(record, $0) }, field: "Distance"),
            unit: value(record, "distance unit") ?? (distanceInKilometres ? "km" : nil))
        let seconds = try number(value(record, "seconds"), field: "Seconds")
        var set = ImportedSet(
            line: record.line, workoutName: value(record, "workout name") ?? "Workout", workoutStart: start,
            workoutNotes: value(record, "workout notes"), exercise: exercise, setOrder: order, kind: kind,
            weight: weight,
            unit: unit, reps: reps, rpe: try number(value(record, "rpe"), field: "RPE"),
            distanceM: distance.flatMap { ImportParser.setOrNone($0) },
            durationS: seconds.flatMap { ImportParser.setOrNone($0) },
            notes: value(record, "notes"))
        if let cell = durationColumn.flatMap({ value(record, $0) }) {
            if let length = Self.workoutLength(cell) {
                set.workoutEnd = start.addingTimeInterval(length)
            } else {
                unreadableEndLines.append(record.line)
            }
        }
        // Spotter's own export adds these two after Strong's columns; Strong's has neither.
        // Numbered from 1, as the export writes it: 0 or below is none.
        set.superset = try wholeNumber(value(record, "superset"), field: "Superset").flatMap {
            $0 < 1 ? nil : min($0, Validation.maxSuperset)
        }
        set.exerciseNote = value(record, "exercise notes")
        set.unitAssumed = weightHeaderUnit == nil && stated == nil
        return set
    }

    /// A workout's length as Strong writes it: "1h 2m", "45m", "1h", "30s", or plain seconds (0 for
    /// a workout finished the moment it began, which an export of one must read back as finished);
    /// nil for a cell that does not read as one (the workout is then left unfinished).
    static func workoutLength(_ text: String) -> Double? {
        if ImportParser.isDecimal(text), let seconds = Double(text) {
            return seconds >= 0 && seconds < 86_400 * 7 ? seconds : nil
        }
        var total = 0.0
        var any = false
        for part in text.lowercased().split(separator: " ") {
            let number = String(part.dropLast())
            guard let unit = part.last, ImportParser.isDecimal(number), let amount = Double(number) else { return nil }
            switch unit {
            case "h": total += amount * 3600
            case "m": total += amount * 60
            case "s": total += amount
            default: return nil
            }
            any = true
        }
        return any && total >= 0 && total < 86_400 * 7 ? total : nil
    }

    mutating func hevy(_ record: CSVRecord) throws -> ImportedSet? {
        let formats = ["d MMM yyyy, HH:mm", "dd MMM yyyy, HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ssZ"]
        let start = try date(value(record, "start_time"), formats: formats, field: "start_time")
        guard let exercise = value(record, "exercise_title") else { throw ImportError("exercise_title is missing") }
        let kind: SetKind
        switch value(record, "set_type")?.lowercased() {
        case nil, "normal": kind = .normal
        case "warmup": kind = .warmup
        case "dropset", "drop": kind = .drop
        case "failure": kind = .failure
        case let other?: throw ImportError("set_type '\(other)' is not normal, warmup, dropset or failure")
        }
        // The unit is the column the row's weight is in: a file with both columns (merged from two
        // exports) has kg rows and lb rows. A row with both takes its kg, unless that is 0 beside a
        // weight in lb (a bodyweight 0 is no reading of 225 lb).
        let unit: WeightUnit
        let weight: Double
        let kg = try number(value(record, "weight_kg"), field: "weight_kg")
        let lb = try number(value(record, "weight_lbs"), field: "weight_lbs")
        if let kg, kg != 0 || (lb ?? 0) == 0 {
            (unit, weight) = (.kg, kg)
        } else if let lb {
            (unit, weight) = (.lb, lb)
        } else {
            (unit, weight) = (index["weight_lbs"] != nil && index["weight_kg"] == nil ? .lb : .kg, 0)
        }
        let distance: Double?
        if let km = try number(value(record, "distance_km"), field: "distance_km") {
            distance = km * 1000
        } else if let miles = try number(value(record, "distance_miles"), field: "distance_miles") {
            distance = miles * 1609.344
        } else {
            distance = nil
        }
        let order = try wholeNumber(value(record, "set_index"), field: "set_index").map { $0 + 1 }
        // Hevy numbers a workout's supersets from 0; a negative number is none (never folded into
        // superset 0, which would join exercises the file kept apart).
        let superset = try wholeNumber(value(record, "superset_id"), field: "superset_id").flatMap {
            $0 < 0 ? nil : min($0 + 1, Validation.maxSuperset)
        }
        var set = ImportedSet(
            line: record.line, workoutName: value(record, "title") ?? "Workout", workoutStart: start,
            workoutNotes: value(record, "description"), exercise: exercise, setOrder: order, kind: kind, weight: weight,
            unit: unit, reps: try wholeNumber(value(record, "reps"), field: "reps") ?? 0,
            rpe: try number(value(record, "rpe"), field: "rpe"),
            distanceM: distance.flatMap { ImportParser.setOrNone($0) },
            durationS: try number(value(record, "duration_seconds"), field: "duration_seconds").flatMap {
                ImportParser.setOrNone($0)
            },
            notes: value(record, "exercise_notes"))
        set.superset = superset
        // An end that does not read, or comes before the start, leaves the workout unfinished,
        // and the summary says so.
        if let end = try? date(value(record, "end_time"), formats: formats, field: "end_time"), end >= start {
            set.workoutEnd = end
        } else if value(record, "end_time") != nil {
            unreadableEndLines.append(record.line)
        }
        return set
    }

    mutating func fitnotes(_ record: CSVRecord) throws -> ImportedSet? {
        let day = try date(value(record, "date"), formats: ["yyyy-MM-dd"], field: "Date")
        guard let exercise = value(record, "exercise") else { throw ImportError("Exercise is missing") }
        let weightColumn = column(startingWith: "weight")
        let stated = try unit(value(record, "weight unit"))
        let unit = weightUnit(stated: stated)
        let distance = try metres(
            number(value(record, "distance"), field: "Distance"), unit: value(record, "distance unit"))
        var set = ImportedSet(
            line: record.line, workoutName: "FitNotes Workout", workoutStart: day, workoutNotes: nil,
            exercise: exercise,
            setOrder: nil, kind: .normal,
            weight: try number(weightColumn.flatMap { value(record, $0) }, field: "Weight") ?? 0,
            unit: unit, reps: try wholeNumber(value(record, "reps"), field: "Reps") ?? 0, rpe: nil,
            distanceM: distance.flatMap { ImportParser.setOrNone($0) },
            durationS: try duration(value(record, "time")).flatMap { ImportParser.setOrNone($0) },
            notes: nil)
        set.unitAssumed = weightHeaderUnit == nil && stated == nil
        set.comment = value(record, "comment")
        return set
    }
}

/// Ids derived from content, so importing the same file twice adds nothing.
public enum ContentID {
    /// A UUID-shaped name from two independent 64-bit FNV-1a hashes of `text`.
    public static func uuid(_ text: String) -> UUID {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x84222325_cbf29ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9e37_79b9_7f4a_7c15
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom, name-based
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

extension ImportParser {
    /// `12`, `-3.5`, `.5`, `62.`, `1e3`: digits with a point and an exponent at most.
    public static func isDecimal(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(whole.count)
        var digits = whole.count
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            let fraction = bytes.prefix(while: isDigit)
            bytes = bytes.dropFirst(fraction.count)
            digits += fraction.count
        }
        guard digits > 0 else { return false }
        if let mark = bytes.first, mark == UInt8(ascii: "e") || mark == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                bytes = bytes.dropFirst()
            }
            let exponent = bytes.prefix(while: isDigit)
            guard !exponent.isEmpty else { return false }
            bytes = bytes.dropFirst(exponent.count)
        }
        return bytes.isEmpty
    }
}

import Foundation

/// One weigh-in read from a file, before it is stored.
public struct ImportedWeighIn: Sendable, Equatable {
    public var line: Int
    public var measuredAt: Date
    public var weight: Double
    public var unit: WeightUnit
    public var notes: String?
}

/// What a body-weight file held.
public struct ParsedWeighIns: Sendable, Equatable {
    /// The app the file came from, as said to the lifter ("FitNotes body tracker").
    public var source: String
    public var entries: [ImportedWeighIn]
    public var problems: [ImportProblem]
    /// Rows of other measurements (body fat, a waist): not weigh-ins, counted and said.
    public var otherMeasurements = 0
    /// The lines whose note held control or bidi characters, imported without them: said.
    public var cleanedLines: [Int] = []
}

/// Reads body-weight exports: FitNotes' body tracker (`Date,Time,Measurement,Value,Unit,Comment`,
/// whose "Body Weight" rows are weigh-ins; Spotter writes its own in the same shape) and Hevy's
/// measurements (`date,weight_kg,…`, or `weight_lbs`). Pure: text in, weigh-ins out.
public enum BodyWeightImport {
    /// The measurement names FitNotes and others give a weigh-in.
    static let weightNames: Set<String> = ["body weight", "bodyweight", "weight"]

    /// Whether a file's header is a body-weight export's (so `spotter import` reads weigh-ins).
    public static func recognizes(_ text: String) -> Bool {
        guard let columns = header(text)?.columns else { return false }
        return format(columns) != nil
    }

    private enum Format {
        case tracker, hevy
    }

    private static func format(_ columns: [String]) -> Format? {
        if columns.contains("measurement") && columns.contains("value") && columns.contains("date") { return .tracker }
        if columns.contains("date") && (columns.contains("weight_kg") || columns.contains("weight_lbs"))
            && !columns.contains("exercise_title")
        {
            return .hevy
        }
        return nil
    }

    private static func header(_ text: String) -> (records: [CSVRecord], columns: [String], delimiter: Character)? {
        guard let firstLine = text.drop(while: { $0 == "\u{FEFF}" }).split(whereSeparator: \.isNewline).first else {
            return nil
        }
        let delimiter: Character =
            firstLine.filter { $0 == ";" }.count > firstLine.filter { $0 == "," }.count ? ";" : ","
        let records = CSV.records(text, delimiter: delimiter)
        guard let header = records.first else { return nil }
        return (records, header.fields.map(ImportParser.normalize), delimiter)
    }

    /// The weigh-ins of a body-weight export; a row that does not read is a problem with its
    /// line, and the rest still imports.
    public static func parse(_ text: String, timeZone: TimeZone = .current) throws -> ParsedWeighIns {
        guard let (records, columns, delimiter) = header(text) else { throw ImportError("the file is empty") }
        guard let format = format(columns) else {
            throw ImportError("unrecognised header: not a FitNotes body tracker or Hevy measurements export")
        }
        var reader = RowReader(columns: columns, defaultUnit: .kg, timeZone: timeZone, commaSeparated: delimiter == ",")
        var parsed = ParsedWeighIns(
            source: format == .tracker ? "FitNotes body tracker" : "Hevy measurements", entries: [], problems: [])
        for record in records.dropFirst() {
            guard record.fields.count == columns.count else {
                parsed.problems.append(
                    ImportProblem(
                        line: record.line, message: "expected \(columns.count) fields, found \(record.fields.count)"))
                continue
            }
            do {
                switch format {
                case .tracker:
                    let name = reader.value(record, "measurement").map(ImportParser.normalize) ?? ""
                    guard weightNames.contains(name) else {
                        parsed.otherMeasurements += 1
                        continue
                    }
                    let day = reader.value(record, "date") ?? ""
                    let time = reader.value(record, "time") ?? "00:00:00"
                    let measuredAt = try reader.date(
                        "\(day) \(time)", formats: ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"], field: "Date and Time")
                    guard let weight = try reader.number(reader.value(record, "value"), field: "Value") else {
                        throw ImportError("Value is missing")
                    }
                    let unit = try reader.unit(reader.value(record, "unit")) ?? .kg
                    try append(
                        ImportedWeighIn(
                            line: record.line, measuredAt: measuredAt, weight: weight, unit: unit,
                            notes: reader.value(record, "comment")), to: &parsed)
                case .hevy:
                    let unit: WeightUnit = reader.index["weight_lbs"] != nil ? .lb : .kg
                    // A row of other measurements only (a waist, body fat) has no weight.
                    guard
                        let weight = try reader.number(reader.value(record, "weight_kg", "weight_lbs"), field: "weight")
                    else {
                        parsed.otherMeasurements += 1
                        continue
                    }
                    let measuredAt = try reader.date(
                        reader.value(record, "date"),
                        formats: ["d MMM yyyy, HH:mm", "dd MMM yyyy, HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"],
                        field: "date")
                    try append(
                        ImportedWeighIn(line: record.line, measuredAt: measuredAt, weight: weight, unit: unit),
                        to: &parsed)
                }
            } catch let error as ImportError {
                parsed.problems.append(ImportProblem(line: record.line, message: error.description))
            }
        }
        return parsed
    }

    /// Checks a weigh-in by the rules every writer keeps (a note's control characters are taken
    /// out, as a set's are), then keeps it.
    private static func append(_ entry: ImportedWeighIn, to parsed: inout ParsedWeighIns) throws {
        var entry = entry
        if let notes = entry.notes {
            let cleaned = String(
                String.UnicodeScalarView(
                    notes.unicodeScalars.filter {
                        Validation.controlCharacter(in: String($0), singleLine: false) == nil
                    }
                )
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            if cleaned != notes.trimmingCharacters(in: .whitespacesAndNewlines) {
                parsed.cleanedLines.append(entry.line)
            }
            entry.notes = cleaned.isEmpty ? nil : cleaned
        }
        do {
            try Validation.bodyWeight(
                BodyWeight(measuredAt: entry.measuredAt, weight: entry.weight, unit: entry.unit, notes: entry.notes))
        } catch {
            throw ImportError("\(error.field) \(entry.weight) \(entry.unit.rawValue) \(error.message)")
        }
        parsed.entries.append(entry)
    }

    /// The weigh-ins as a FitNotes body tracker file (times in `timeZone`, to the second), which
    /// `parse` reads back.
    public static func csv(_ entries: [BodyWeight], timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var out = "Date,Time,Measurement,Value,Unit,Comment\n"
        for entry in entries.sorted(by: { $0.measuredAt < $1.measuredAt }) {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: entry.measuredAt)
            func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
            let day = String(format: "%04d", parts.year ?? 0) + "-\(two(parts.month))-\(two(parts.day))"
            let time = "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
            let unit = entry.unit == .kg ? "kg" : "lbs"
            out +=
                [day, time, "Body Weight", Formatting.number(entry.weight), unit, entry.notes ?? ""].map(CSV.escape)
                .joined(separator: ",") + "\n"
        }
        return out
    }
}

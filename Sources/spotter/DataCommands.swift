import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

extension ImportFormat: ExpressibleByArgument {}

/// `spotter import FILE`
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Import a Strong, Hevy or FitNotes CSV export, or a body-weight export (FitNotes body tracker, Hevy measurements); the same file twice adds nothing."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The CSV file.") var file: String
    @Option(help: "strong, hevy, fitnotes or auto (from the header).") var format: ImportFormat = .auto
    @Option(help: "Unit for weights whose column does not say (Strong without a Weight Unit column).")
    var unit: WeightUnit = .kg
    @Flag(
        name: .customLong("dry-run"),
        help: "Print what the import would do (sets, workouts, names mapped, exercises made) and write nothing.")
    var dryRun = false

    func run() async throws {
        let text = try ImportFile.text(of: file)
        if format == .auto, BodyWeightImport.recognizes(text) {
            try await importWeighIns(text)
            return
        }
        let parsed: ParsedImport
        do {
            parsed = try ImportParser.parse(text, format: format, defaultUnit: unit)
        } catch let error as ImportError {
            throw CLIError("\(file): \(error.description)", code: error.isFormatMismatch ? 2 : 1)
        }
        // A dry run writes nothing, not even a new database: with no file yet it reads against
        // an empty one made aside and removed.
        let (store, scratch) = try Self.storeForImport(global, dryRun: dryRun)
        defer { scratch.map(Self.removeScratch) }
        let progress = ImportProgress()
        let result: ImportResult
        do {
            result = try store.workoutLog.importSets(
                parsed.sets, dryRun: dryRun, progress: { done, total in progress.report(done: done, total: total) })
        } catch let error where StoreError.isDiskFull(error) {
            // An import commits a few hundred rows at a time: what went in before stays.
            progress.finish()
            throw CLIError(
                "the disk is full: the import stopped part-way; what went in stays, and importing \(file) again "
                    + "once there is room adds only the rest")
        }
        progress.finish()
        for problem in parsed.problems {
            printError("spotter: \(file): \(problem.description) (skipped)")
        }
        print(
            (dryRun ? "would import" : "imported")
                + " \(counted(result.added, "set")) into \(counted(result.workoutsAdded, "new workout"))"
                + " from \(parsed.format.rawValue) export"
                + (result.alreadyPresent > 0 ? "; \(result.alreadyPresent) already present" : "")
                + (result.presentInOtherUnit > 0
                    ? "; \(counted(result.presentInOtherUnit, "set")) already here in the other unit (this file"
                        + " imported before with another --unit), not added again: delete those workouts first to"
                        + " import them in \(unit.rawValue)"
                    : "")
                + (parsed.repaired == 0
                    ? "" : "; \(counted(parsed.repaired, "row")) with a comma in an exercise name repaired")
                + (parsed.problems.isEmpty ? "" : "; \(counted(parsed.problems.count, "malformed row")) skipped")
                + (parsed.cleanedLines.isEmpty
                    ? ""
                    : "; \(counted(parsed.cleanedLines.count, "row")) cleaned of control characters"
                        + Self.named(parsed.cleanedLines))
                + (parsed.cutLines.isEmpty
                    ? ""
                    : "; \(counted(parsed.cutLines.count, "row")) with a workout name over \(Validation.maxNameLength)"
                        + " or notes over \(Validation.maxNotesLength) characters cut to fit"
                        + Self.named(parsed.cutLines))
                + (parsed.unreadableEndLines.isEmpty
                    ? ""
                    : "; \(counted(parsed.unreadableEndLines.count, "row")) whose workout end did not read or came"
                        + " before its start: those workouts are left unfinished"
                        + Self.named(parsed.unreadableEndLines))
                + (parsed.assumedUnit.map { "; weights read as \($0.rawValue) (the file names no unit: --unit)" } ?? "")
                + (parsed.defaultUnitRows > 0
                    ? "; \(counted(parsed.defaultUnitRows, "row")) without a unit read as \(unit.rawValue) (--unit)"
                    : "")
        )
        // Every name taken as another, and every exercise made: nothing merged without a word.
        for (name, mapped) in result.mapped.sorted(by: { $0.key < $1.key }) {
            print("  \(name) → \(mapped.to) (\(mapped.rows) \(mapped.rows == 1 ? "set" : "sets"))")
        }
        if !result.customCreated.isEmpty {
            print(
                "  \(dryRun ? "would make" : "made") \(result.customCreated.count) custom exercise"
                    + "\(result.customCreated.count == 1 ? "" : "s"): \(result.customCreated.joined(separator: "; "))")
        }
        // A file of which no row reads imported nothing: that is no success.
        if parsed.sets.isEmpty, !parsed.problems.isEmpty { throw ExitCode(1) }
        if dryRun { return }
        try await EagerSync.attempt(global: global, store: store)
    }

    /// " (line 4)" or " (lines 2, 3, 5, 8, 9, …)": the first five of the lines a summary names.
    static func named(_ lines: [Int]) -> String {
        " (line\(lines.count == 1 ? "" : "s") \(lines.prefix(5).map(String.init).joined(separator: ", "))"
            + "\(lines.count > 5 ? ", \(terminalEllipsis)" : ""))"
    }

    /// The store an import reads and writes: the user's; for a dry run with no database yet, an
    /// empty one in a folder of its own (returned, to be removed), so the dry run creates nothing.
    static func storeForImport(_ global: GlobalOptions, dryRun: Bool) throws -> (SpotterStore, URL?) {
        guard dryRun, !FileManager.default.fileExists(atPath: global.databasePath) else {
            return (try global.openStore(), nil)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-dry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var scratch = global
        scratch.db = folder.appendingPathComponent("dry-run.db").path
        do { return (try scratch.openStore(), folder) } catch {
            removeScratch(folder)
            throw error
        }
    }

    static func removeScratch(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A body-weight export: its weigh-ins, each row that does not read said with its line.
    private func importWeighIns(_ text: String) async throws {
        let parsed: ParsedWeighIns
        do { parsed = try BodyWeightImport.parse(text) } catch let error as ImportError {
            throw CLIError("\(file): \(error.description)")
        }
        let (store, scratch) = try Self.storeForImport(global, dryRun: dryRun)
        defer { scratch.map(Self.removeScratch) }
        let result = try store.workoutLog.importBodyWeights(parsed.entries, dryRun: dryRun)
        for problem in parsed.problems {
            printError("spotter: \(file): \(problem.description) (skipped)")
        }
        print(
            (dryRun ? "would import" : "imported")
                + " \(counted(result.added, "weigh-in")) from \(parsed.source) export"
                + (result.alreadyPresent > 0 ? "; \(result.alreadyPresent) already present" : "")
                + (parsed.otherMeasurements > 0
                    ? "; \(counted(parsed.otherMeasurements, "row")) of other measurements left out" : "")
                + (parsed.problems.isEmpty ? "" : "; \(counted(parsed.problems.count, "malformed row")) skipped")
                + (parsed.cleanedLines.isEmpty
                    ? ""
                    : "; \(counted(parsed.cleanedLines.count, "note")) cleaned of control characters (line"
                        + "\(parsed.cleanedLines.count == 1 ? "" : "s") \(parsed.cleanedLines.prefix(5).map(String.init).joined(separator: ", ")))")
        )
        if dryRun { return }
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// The import's progress on stderr, only when it is a terminal and the import runs longer than a
/// second: "imported 40 000 of 100 000 rows, 35 000 rows/s, 2 s left".
final class ImportProgress {
    private let started = Date()
    private let terminal = isatty(STDERR_FILENO) == 1
    private var shown = false

    func report(done: Int, total: Int) {
        let elapsed = Date().timeIntervalSince(started)
        guard terminal, elapsed > 1, total > 0 else { return }
        let rate = Double(done) / max(elapsed, 0.001)
        let left = rate > 0 ? Double(total - done) / rate : 0
        let line = "\rimported \(done) of \(total) rows, \(Int(rate)) rows/s, \(Int(left.rounded(.up))) s left   "
        FileHandle.standardError.write(Data(line.utf8))
        shown = true
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// `spotter export`
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Export every set as CSV (Strong's comma dialect with a Weight Unit column), or with --body-weight every weigh-in (FitNotes' body tracker shape)."
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of stdout.") var output: String?
    @Flag(name: .customLong("body-weight"), help: "Export the weigh-ins instead of the sets.") var bodyWeight = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let csv =
            bodyWeight
            ? BodyWeightImport.csv(try store.queries.exportBodyWeights())
            : StrongExport.csv(try store.queries.exportRows())
        if let output {
            do {
                try csv.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            // The export is data, written byte for byte (not through the CLI's terminal print).
            Swift.print(csv, terminator: "")
        }
    }
}

/// `spotter stats`
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Personal records, estimated 1RM and weekly volume.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this exercise.") var exercise: String?
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let records = try store.queries.exerciseStats(exercise: exercise)
        if let exercise, records.isEmpty { throw CLIError(try Self.noSets(of: exercise, store: store)) }
        let weeks = try store.queries.weeklyVolume(exercise: exercise)
        if json {
            printJSON(Self.json(records: records, weeks: weeks))
            return
        }
        // Shown in the unit the lifter chose (`spotter config unit`); kg when none.
        let unit = try store.preferences.displayUnit ?? .kg
        func shown(_ kilograms: Double, places: Double = 10) -> String {
            let value = Formatting.converted(kilograms, from: .kg, to: unit)
            return "\(Formatting.number((value * places).rounded() / places)) \(unit.rawValue)"
        }
        print("Records (estimated 1RM by Epley from 1-\(OneRepMax.maxReps) reps, warm-ups excluded)")
        for record in records {
            // Aligned by what the terminal draws; a long name ends with an ellipsis.
            var line = "  \(Render.nameColumn(record.exercise, 34))"
            line += " \(String(record.sets).leftPadded(5)) \(record.sets == 1 ? "set " : "sets")"
            if let best = record.bestOneRepMaxKg, let set = record.bestOneRepMaxSet {
                line += "   e1RM \(shown(best))"
                let logged = Formatting.weight(set.weight, unit: set.unit, shownIn: unit)
                // What was logged on a lift the body is part of is not its load: say what it was.
                let what =
                    switch record.loadType {
                    case .external: logged
                    case .assisted: "body − \(logged) assistance"
                    case .bodyweight, .weighted: set.weight > 0 ? "body + \(logged)" : "body"
                    }
                line += " (\(what) × \(set.reps), \(ProgressCommands.day(set.performedAt)))"
            }
            if let heaviest = record.heaviestKg {
                line += "   heaviest \(shown(heaviest))"
            }
            print(line)
        }
        print("Volume per week (\(unit.rawValue) × reps)")
        for week in weeks {
            print(
                "  week of \(ProgressCommands.day(week.weekStart))  \(shown(week.volumeKg, places: 1)) in \(week.sets) sets"
            )
        }
    }
}

extension Stats {
    /// "no sets of bench yet; did you mean Bench Press (Barbell)?": names with sets first.
    static func noSets(of exercise: String, store: SpotterStore) throws -> String {
        let needle = exercise.trimmingCharacters(in: .whitespaces).lowercased()
        let logged = try store.queries.exerciseStats().map(\.exercise).filter { $0.lowercased().contains(needle) }
        let candidates =
            logged.isEmpty ? try store.queries.exercises(matching: needle, limit: 3) : Array(logged.prefix(3))
        let hint = candidates.isEmpty ? "" : "; did you mean \(candidates.joined(separator: ", "))?"
        return "no sets of \(exercise) yet\(hint)"
    }

    static func json(records: [ExerciseStats], weeks: [WeeklyVolume]) -> JSONValue {
        .object([
            "records": .array(
                records.map { record in
                    .object([
                        "exercise": .string(record.exercise), "sets": .int(Int64(record.sets)),
                        "best_e1rm_kg": JSONValue(record.bestOneRepMaxKg.map { ($0 * 10).rounded() / 10 }),
                        "best_e1rm_set": record.bestOneRepMaxSet.map { set in
                            .object([
                                "id": .string(set.id.wireString), "weight": .double(set.weight),
                                "unit": .string(set.unit.rawValue), "reps": .int(Int64(set.reps)),
                                "performed_at": .string(Timestamp.format(set.performedAt)),
                            ])
                        } ?? .null,
                        "heaviest_kg": JSONValue(record.heaviestKg.map { ($0 * 10).rounded() / 10 }),
                    ])
                }),
            "weekly_volume": .array(
                weeks.map { week in
                    .object([
                        "week_start": .string(ProgressCommands.day(week.weekStart)),
                        "volume_kg": .double(week.volumeKg.rounded()), "sets": .int(Int64(week.sets)),
                    ])
                }),
        ])
    }
}

/// "1 set", "2 sets", "0 new workouts": a count and its noun, in the number it takes.
func counted(_ count: Int, _ noun: String) -> String { Formatting.counted(count, noun) }

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// Reads a file to import as text, or says in a line what is wrong with it.
enum ImportFile {
    static func text(of file: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw CLIError("cannot read \(file): no such file")
        }
        guard !isDirectory.boolValue else { throw CLIError("cannot read \(file): it is a directory, not a CSV file") }
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw CLIError("cannot read \(file): permission denied")
        }
        // Read through a handle, not `Data(contentsOf:)`, which refuses files that report no
        // size: /dev/null, a pipe, `<(…)` in a shell.
        let data: Data
        do {
            guard let handle = FileHandle(forReadingAtPath: file) else { throw CocoaError(.fileReadUnknown) }
            defer { try? handle.close() }
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw CLIError("cannot read \(file): \(error.localizedDescription)")
        }
        return try decoded(data, file: file)
    }

    /// UTF-8 (a byte-order mark dropped), or UTF-16 when the file begins with its byte-order
    /// mark (what a spreadsheet's "Unicode text" saves). Bytes that are neither are refused with
    /// the line they are on: a file saved in another encoding would otherwise import every
    /// accented name as another exercise.
    static func decoded(_ data: Data, file: String) throws -> String {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let encoding: String.Encoding = bytes[0] == 0xFF ? .utf16LittleEndian : .utf16BigEndian
            guard let text = String(data: data.dropFirst(2), encoding: encoding) else {
                throw CLIError(
                    "\(file): the file begins as UTF-16 text but does not read as UTF-16; nothing was imported")
            }
            return text
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let text = String(validating: body, as: UTF8.self) { return text }
        // Find the first byte that is not UTF-8, to name its line.
        var line = 1
        var start = body.startIndex
        while start < body.endIndex {
            let end = body[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? body.endIndex
            if String(validating: body[start..<end], as: UTF8.self) == nil {
                let chunk = body[start..<end]
                let offending = chunk.first { $0 >= 0x80 } ?? chunk.first ?? 0
                throw CLIError(
                    "\(file): line \(line) is not UTF-8 text (byte 0x\(String(offending, radix: 16, uppercase: true)));"
                        + " save the file as UTF-8 (CSV UTF-8) and import it again; nothing was imported")
            }
            line += 1
            start = end
        }
        throw CLIError("\(file): the file is not UTF-8 text; nothing was imported")
    }
}

import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

extension ImportFormat: ExpressibleByArgument {}

/// `spotter import FILE`
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a Strong, Hevy or FitNotes CSV export; the same file twice adds nothing.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The CSV file.") var file: String
    @Option(help: "strong, hevy, fitnotes or auto (from the header).") var format: ImportFormat = .auto
    @Option(help: "Unit for weights whose column does not say (Strong without a Weight Unit column).")
    var unit: WeightUnit = .kg

    func run() async throws {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw CLIError("cannot read \(file): \(error.localizedDescription)")
        }
        let parsed: ParsedImport
        do {
            parsed = try ImportParser.parse(text, format: format, defaultUnit: unit)
        } catch let error as ImportError {
            throw CLIError("\(file): \(error.description)")
        }
        let store = try global.openStore()
        let result = try store.importSets(parsed.sets)
        for problem in parsed.problems {
            FileHandle.standardError.write(Data("spotter: \(file): \(problem.description) (skipped)\n".utf8))
        }
        print(
            "imported \(result.added) sets into \(result.workoutsAdded) new workouts from \(parsed.format.rawValue) export"
                + (result.alreadyPresent > 0 ? "; \(result.alreadyPresent) already present" : "")
                + (parsed.problems.isEmpty ? "" : "; \(parsed.problems.count) malformed rows skipped"))
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter export`
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export every set as CSV (Strong's comma dialect with a Weight Unit column).")

    @OptionGroup var global: GlobalOptions
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of stdout.") var output: String?

    func run() async throws {
        let store = try global.openStore()
        let csv = StrongExport.csv(try store.exportRows())
        if let output {
            do {
                try csv.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            print(csv, terminator: "")
        }
    }
}

/// `spotter stats`
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Personal records, estimated 1RM and weekly volume.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this exercise.") var exercise: String?

    func run() async throws {
        let store = try global.openStore()
        let records = try store.exerciseStats(exercise: exercise)
        if let exercise, records.isEmpty { throw CLIError("no sets of \(exercise) yet") }
        print("Records (estimated 1RM by Epley, warm-ups excluded)")
        for record in records {
            var line = "  \(record.exercise.padding(toLength: 34, withPad: " ", startingAt: 0))"
            line += " \(String(record.sets).leftPadded(5)) sets"
            if let best = record.bestOneRepMaxKg, let set = record.bestOneRepMaxSet {
                line += "   e1RM \(Formatting.number((best * 10).rounded() / 10)) kg"
                line +=
                    " (\(Formatting.weight(set.weight, unit: set.unit)) × \(set.reps), \(Timestamp.format(set.performedAt).prefix(10)))"
            }
            if let heaviest = record.heaviestKg {
                line += "   heaviest \(Formatting.number((heaviest * 10).rounded() / 10)) kg"
            }
            print(line)
        }
        print("Volume per week (kg × reps)")
        for week in try store.weeklyVolume(exercise: exercise) {
            print(
                "  week of \(Timestamp.format(week.weekStart).prefix(10))  \(Formatting.number(week.volumeKg.rounded())) kg in \(week.sets) sets"
            )
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

import Foundation
import SpotterCore
import SpotterStore
import SpotterTestSupport

extension BenchmarkSuite {
    /// `import`: a Strong export of `count` rows (a set of four lifts per row, twenty to a workout)
    /// read and imported into a fresh database, as `spotter import` does — each set with its
    /// outbox operation — beside the same number of rows inserted bare by the bulk fixture (no
    /// parsing, no ids from content, no outbox), the floor.
    static func importBench(_ options: BenchOptions) async throws -> JSONValue {
        let count = options.quick ? 2_000 : 100_000
        var text =
            "Date,Workout Name,Exercise Name,Set Order,Weight,Weight Unit,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
        text.reserveCapacity(count * 90)
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for index in 0..<count {
            let workout = index / 20
            let day = formatter.string(from: start.addingTimeInterval(Double(workout) * 86_400))
            let lift = lifts[(index / 5) % lifts.count]
            text +=
                "\(day),Session \(workout),\(lift),\(index % 5 + 1),\(60 + index % 80),kg,\(1 + index % 12),0,0,,,\n"
        }
        let store = try SpotterStore.open(path: freshPath(options, "import"), userID: "bench")
        var parsed: ParsedImport?
        let parseSeconds = try await seconds {
            parsed = try ImportParser.parse(text, format: .strong, timeZone: TimeZone(identifier: "UTC")!)
        }
        var added = 0
        let importSeconds = try await seconds {
            added = try store.workoutLog.importSets(parsed?.sets ?? []).added
        }
        let barePath = freshPath(options, "import-bare")
        let bare = try SpotterStore.open(path: barePath, userID: "bench")
        let fixtures = try BenchFixtures(path: barePath, userID: "bench")
        let bareSeconds = try await seconds {
            try fixtures.populateSynced(sets: count, exercises: lifts, store: bare)
        }
        let total = parseSeconds + importSeconds
        return .object([
            "rows": .int(Int64(count)), "added": .int(Int64(added)),
            "parse_s": .double(rounded(parseSeconds, 3)), "import_s": .double(rounded(importSeconds, 3)),
            "total_s": .double(rounded(total, 3)), "rows_per_s": .double(rounded(Double(count) / max(total, 1e-9), 0)),
            "bare_insert_s": .double(rounded(bareSeconds, 3)),
        ])
    }
}

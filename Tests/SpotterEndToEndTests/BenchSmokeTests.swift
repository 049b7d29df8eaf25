import Foundation
import Testing

/// `spotter-bench --quick` runs every part small, only to prove it works (issue 14: speed is
/// measured by the bench, never asserted by a test); `spotter` itself has no `bench`.
@Suite(
    "spotter-bench --quick",
    .enabled(if: SpotterBinary.exists && SpotterBinary.benchExists, "build the binaries first: swift build"))
struct BenchSmokeTests {
    @Test func everyPartRunsAndNamesItsFigures() async throws {
        let db = SpotterBinary.temporaryDatabase()
        let result = try await SpotterBinary.run(
            ["--quick", "--json"], db: db, timeout: 600, binary: SpotterBinary.benchPath)
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try SpotterBinary.json(result.stdout)
        for part in ["write", "frame", "drain", "limit", "pull", "startup", "server", "scale", "json", "machine"] {
            #expect(figures[part] != nil, "spotter-bench --json has \(part): \(result.stdout)")
        }
        let drain = try #require(figures["drain"] as? [String: Any])
        let limit = try #require(figures["limit"] as? [String: Any])
        #expect(((limit["ops_per_s"] as? Double) ?? 0) > 0)
        #expect(((drain["batched_ops_per_s"] as? Double) ?? 0) > 0)
        #expect(drain["of_limit"] != nil, "the drain is judged against the limit")
        // The hand-written JSON path is judged by what Foundation's would add to the pull and the
        // drain, each path having read back the same values (or the part fails).
        // Many users at once: every kind of request of the mix was answered and timed.
        let scale = try #require((figures["scale"] as? [String: Any])?["sqlite_one_instance"] as? [String: Any])
        for kind in ["create", "edit", "feed"] {
            #expect(((scale["\(kind)_p99_ms"] as? Double) ?? 0) > 0, "scale times \(kind): \(scale)")
        }
        let json = try #require(figures["json"] as? [String: Any])
        #expect(json["pull_foundation_share"] != nil && json["drain_foundation_share"] != nil, "\(json)")
    }

    @Test func anUnknownPartIsRefusedWithTheKnownOnes() async throws {
        let result = try await SpotterBinary.run(
            ["--quick", "--only", "drain,warp"], db: SpotterBinary.temporaryDatabase(), binary: SpotterBinary.benchPath)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown bench part 'warp'"))
        #expect(result.stderr.contains("limit"))
    }

    @Test func spotterHasNoBenchSubcommand() async throws {
        let result = try await SpotterBinary.run(["bench", "--quick"], db: SpotterBinary.temporaryDatabase())
        #expect(result.status != 0, "\(result.stdout)")
        let help = try await SpotterBinary.run(["--help"], db: SpotterBinary.temporaryDatabase())
        #expect(!help.stdout.contains("bench"), "\(help.stdout)")
    }
}

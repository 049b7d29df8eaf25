import Foundation
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The password a libpq passfile gives a PostgreSQL location.
@Suite("Passfile")
struct PassfileTests {
    private func passfile(_ text: String, mode: Int = 0o600) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func theFirstMatchingLineWinsWithWildcardsAndEscapes() throws {
        let path = try passfile(
            """
            # comment
            db.internal:5432:other:spotter:wrong
            127.0.0.1:*:spotter:spotter:pa\\:ss\\\\word
            *:*:*:*:fallback
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let here = try PostgresLocation(url: "postgres://spotter@127.0.0.1:6543/spotter")
        #expect(try here.password(fromPassfile: path) == "pa:ss\\word")
        let elsewhere = try PostgresLocation(url: "postgres://admin@db.internal/other")
        #expect(try elsewhere.password(fromPassfile: path) == "fallback")
        // A password in the URL wins over the one given beside it.
        #expect(try PostgresLocation(url: "postgres://u:inurl@h/d", password: "given").password == "inurl")
        #expect(try PostgresLocation(url: "postgres://u@h/d", password: "given").password == "given")
        // No file: no password, and no error.
        #expect(try here.password(fromPassfile: path + "-missing") == nil)
    }

    @Test func aFileOthersMayReadIsRefused() throws {
        let path = try passfile("*:*:*:*:secret\n", mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let location = try PostgresLocation(url: "postgres://spotter@127.0.0.1/spotter")
        #expect(throws: ServerStartError.self) { try location.password(fromPassfile: path) }
    }
}

import Foundation
import Testing

@testable import SpotterServer

/// The name a server's database gives the change feed: drawn once when the database is made, the
/// same for as long as it lives, another for another database.
@Suite("The server database's name")
struct ServerIdentityTests {
    @Test func aDatabaseKeepsItsNameAndAnotherHasAnother() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spotter-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("server.db").path
        let first = try SQLiteServerStore(path: path).identity
        #expect(!first.isEmpty)
        #expect(try SQLiteServerStore(path: path).identity == first, "opened again: the same database")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(try SQLiteServerStore(path: path).identity != first, "made again at the same path: another database")
    }
}

import Foundation
import GRDB
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterStore

/// The CHECKs that list allowed values are comparisons (migration v16): they refuse what they
/// refused, a database made before keeps every row, and an outbox insert no longer builds a
/// temporary b-tree per list each time it runs.
@Suite("CHECK lists written as comparisons")
struct CheckListTests {
    @Test func theRewriteKeepsEverythingButTheListForm() {
        let before = """
            CREATE TABLE t (
                state TEXT NOT NULL CHECK (state IN
                    ('pending','in_flight','blocked')),
                unit TEXT NOT NULL CHECK (unit IN ('kg','lb')),
                name TEXT CHECK (length(name) > 0)
            )
            """
        let after = CheckLists.comparisons(before)
        #expect(after.contains("CHECK (state = 'pending' OR state = 'in_flight' OR state = 'blocked')"))
        #expect(after.contains("CHECK (unit = 'kg' OR unit = 'lb')"))
        #expect(after.contains("CHECK (length(name) > 0)"), "a CHECK without a list is left as it is")
        #expect(CheckLists.comparisons(after) == after, "a second pass changes nothing")
    }

    @Test("a database made before v16 keeps its rows, refuses what it refused, and inserts without temporary b-trees")
    func anOlderDatabaseIsMigratedInPlace() throws {
        let path = temporaryDatabasePath()
        // A set logged, its operations queued.
        do {
            let store = try SpotterStore.open(path: path, userID: "alice")
            try store.log("Squat (Barbell)")
        }
        // Undo v16 by hand to get a pre-v16 file with rows in it, then open it again.
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { db in
            let tables = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table'")
            #expect(
                tables.allSatisfy { !(($0["sql"] as String?) ?? "").contains(" IN ('") },
                "a new database has no CHECK list left")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v16-checks-as-comparisons'")
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            for table in ["sets", "outbox"] {
                let sql = try String.fetchOne(
                    db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table])!
                let listed = sql.replacingOccurrences(
                    of: "CHECK (kind = 'normal' OR kind = 'warmup' OR kind = 'failure' OR kind = 'drop')",
                    with: "CHECK (kind IN ('normal','warmup','failure','drop'))"
                ).replacingOccurrences(
                    of: "CHECK (kind = 'create' OR kind = 'update' OR kind = 'delete')",
                    with: "CHECK (kind IN ('create','update','delete'))")
                #expect(listed != sql)
                try db.execute(sql: "UPDATE sqlite_master SET sql = ? WHERE name = ?", arguments: [listed, table])
            }
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
        try pool.close()

        let store = try SpotterStore.open(path: path, userID: "alice")
        try store.writer.writeWithoutTransaction { db in
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sets") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") == 2, "the workout's create and the set's")
            let definitions = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL")
            #expect(definitions.allSatisfy { !$0.contains(" IN ('") && !$0.contains(" IN\n") })
            // Still refused: a kind no list allows, on both tables.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "UPDATE sets SET kind = 'heavy'")
            }
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "UPDATE outbox SET state = 'lost'")
            }
            #expect(try String.fetchAll(db, sql: "SELECT kind FROM sets") == ["normal"])
            // What the migration is for: an outbox insert builds no temporary b-tree of a list.
            let program = try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN INSERT INTO outbox (op_id, user_id, entity_type, entity_id, kind, payload,
                        idempotency_key, state, created_at, updated_at)
                    VALUES ('a', 'u', 'set', 'x', 'create', '{}', 'k', 'pending', 1, 1)
                    """)
            #expect(!program.contains { ($0["opcode"] as String?) == "OpenEphemeral" })
        }
    }
}

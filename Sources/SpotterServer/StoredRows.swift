import Foundation
import SpotterCore
import SpotterProtocol

/// One row of a server store as its columns read, whichever database it came from.
///
/// The stores differ in how a cell is fetched; how a row becomes a workout, a set or an
/// idempotency record is written once (`StoredEntity`), so SQLite and PostgreSQL cannot read
/// the same stored row differently. Each accessor answers nil for NULL and throws when the cell
/// holds another type.
protocol StoredRow: ColumnReader {
    func text(_ column: String) throws -> String?
    func integer(_ column: String) throws -> Int64?
    func real(_ column: String) throws -> Double?
    func flag(_ column: String) throws -> Bool?
    func bytes(_ column: String) throws -> Data?
}

extension StoredRow {
    /// A JSON document kept as text (a workout's plan).
    public func document(_ column: String) throws -> JSONValue? {
        guard let text = try text(column) else { return nil }
        guard let document = JSONValue.parse(text) else { throw StoredCell.Unreadable(column: column, value: text) }
        return document
    }

    public func unreadable(_ column: String, expected: String) -> any Error {
        StoredCell.Unreadable(column: column, value: "not \(expected)")
    }
}

/// Typed reads of stored cells: a cell that does not read as its type is an error naming the
/// column, never a made-up value.
enum StoredCell {
    struct Unreadable: Error, CustomStringConvertible {
        let column: String
        let value: String
        var description: String { "stored \(column) is unreadable: \(value)" }
    }

    static func required<Value>(_ value: Value?, _ column: String) throws -> Value {
        guard let value else { throw Unreadable(column: column, value: "NULL") }
        return value
    }

    static func uuid(_ row: some StoredRow, _ column: String) throws -> UUID {
        let text = try row.text(column) ?? ""
        guard let id = UUID(wire: text) else { throw Unreadable(column: column, value: text) }
        return id
    }

    static func date(_ row: some StoredRow, _ column: String) throws -> Date {
        let text = try row.text(column) ?? ""
        guard let date = Timestamp.parse(text) else { throw Unreadable(column: column, value: text) }
        return date
    }

    /// nil for NULL and for the empty text a row without a stamp holds.
    static func optionalDate(_ row: some StoredRow, _ column: String) throws -> Date? {
        guard let text = try row.text(column), !text.isEmpty else { return nil }
        guard let date = Timestamp.parse(text) else { throw Unreadable(column: column, value: text) }
        return date
    }

    static func enumeration<Value: RawRepresentable>(_ row: some StoredRow, _ column: String) throws -> Value
    where Value.RawValue == String {
        let text = try row.text(column) ?? ""
        guard let value = Value(rawValue: text) else { throw Unreadable(column: column, value: text) }
        return value
    }

    static func int(_ row: some StoredRow, _ column: String) throws -> Int {
        let value = try required(row.integer(column), column)
        guard let narrowed = Int(exactly: value) else { throw Unreadable(column: column, value: "\(value)") }
        return narrowed
    }
}

/// Stored rows as the wire model and the idempotency rules hold them.
enum StoredEntity {
    static func workout(_ row: some StoredRow) throws -> WireWorkout {
        WireWorkout(
            try Workout(reading: row), updatedAt: try StoredCell.optionalDate(row, "updated_at"),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"),
            deleted: try StoredCell.required(row.flag("deleted"), "deleted"))
    }

    static func set(_ row: some StoredRow) throws -> WireSet {
        WireSet(
            try WorkoutSet(reading: row), updatedAt: try StoredCell.optionalDate(row, "updated_at"),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"),
            deleted: try StoredCell.required(row.flag("deleted"), "deleted"))
    }

    /// An idempotency record (columns fingerprint, completed, status, content_type, body,
    /// created_at, locked_at). A completed record always carries its answer: one whose status
    /// cannot be read is an error, never an answer made up.
    static func idempotencyRecord(_ row: some StoredRow) throws -> IdempotencyRecord {
        let completed = try StoredCell.required(row.flag("completed"), "completed")
        var response: StoredResponse?
        if completed {
            response = StoredResponse(
                status: try StoredCell.int(row, "status"), contentType: try row.text("content_type"),
                body: try row.bytes("body") ?? Data())
        }
        return IdempotencyRecord(
            fingerprint: try StoredCell.required(row.text("fingerprint"), "fingerprint"), isCompleted: completed,
            response: response,
            createdAt: Date(timeIntervalSince1970: try StoredCell.required(row.real("created_at"), "created_at")),
            lockedAt: Date(timeIntervalSince1970: try StoredCell.required(row.real("locked_at"), "locked_at")))
    }
}

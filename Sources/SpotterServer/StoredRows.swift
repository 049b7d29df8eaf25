import Foundation
import SpotterCore
import SpotterProtocol

/// One row of a server store as its columns read, whichever database it came from.
///
/// The stores differ in how a cell is fetched; how a row becomes a workout, a set or an
/// idempotency record is written once (`StoredEntity`), so SQLite and PostgreSQL cannot read
/// the same stored row differently. Each accessor answers nil for NULL and throws when the cell
/// holds another type.
protocol StoredRow {
    func text(_ column: String) throws -> String?
    func integer(_ column: String) throws -> Int64?
    func real(_ column: String) throws -> Double?
    func flag(_ column: String) throws -> Bool?
    func bytes(_ column: String) throws -> Data?
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

    /// A workout's stored plan (column `plan`, canonical JSON); nil for NULL.
    static func plan(_ row: some StoredRow) throws -> WorkoutPlan? {
        do { return try WorkoutPlan.stored(try row.text("plan")) } catch let error as ValidationError {
            throw Unreadable(column: "plan", value: "\(error.field) \(error.message)")
        }
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
            id: try StoredCell.uuid(row, "id"), name: try StoredCell.required(row.text("name"), "name"),
            startedAt: try StoredCell.date(row, "started_at"), endedAt: try StoredCell.optionalDate(row, "ended_at"),
            notes: try row.text("notes"), plan: try StoredCell.plan(row),
            updatedAt: try StoredCell.optionalDate(row, "updated_at"),
            serverVersion: try StoredCell.required(row.integer("server_version"), "server_version"),
            deleted: try StoredCell.required(row.flag("deleted"), "deleted"))
    }

    static func set(_ row: some StoredRow) throws -> WireSet {
        WireSet(
            id: try StoredCell.uuid(row, "id"), workoutID: try StoredCell.uuid(row, "workout_id"),
            exercise: try StoredCell.required(row.text("exercise"), "exercise"),
            position: try StoredCell.int(row, "position"), kind: try StoredCell.enumeration(row, "kind"),
            weight: try StoredCell.required(row.real("weight"), "weight"),
            unit: try StoredCell.enumeration(row, "unit"), reps: try StoredCell.int(row, "reps"),
            rpe: try row.real("rpe"), distanceM: try row.real("distance_m"), durationS: try row.real("duration_s"),
            notes: try row.text("notes"), performedAt: try StoredCell.date(row, "performed_at"),
            updatedAt: try StoredCell.optionalDate(row, "updated_at"),
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

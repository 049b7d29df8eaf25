import Foundation
import GRDB
import SpotterCore

/// A synced entity as a GRDB record of the device's database: a workout, a set, a routine, a
/// weigh-in, a starred exercise.
///
/// Its columns are its `Column` enum — the same cases that name its fields on the wire and in
/// both server schemas — so GRDB's query interface takes them as they are
/// (`WorkoutSet.filter(WorkoutSet.Column.exercise == name)`). A record is read by its throwing
/// `init(row:)` (a cell that does not hold what its column means is an `UnreadableRow` naming
/// the row, never a made-up value) and encoded from `value(_:)`, the one switch the wire object
/// and the stores' statement arguments come from as well.
///
/// The record holds the entity's own fields only. The device keeps bookkeeping beside them in
/// each table (the sync state, the server's stamp, the account, the derived records of a set),
/// which the write path's statements add (`insertSetRow`, `upsertSynced`): their column list is
/// `Column.columnList` and their arguments `columnArguments`, the values `encode(to:)` writes.
public protocol EntityRecord: ColumnValues, FetchableRecord, PersistableRecord, Sendable
where Column: ColumnExpression {}

extension EntityRecord {
    public static var databaseTableName: String { Column.table }

    /// `SELECT` of the entity's own columns, not the bookkeeping beside them.
    public static var databaseSelection: [any SQLSelectable] { Column.allCases.map { $0 } }

    public func encode(to container: inout PersistenceContainer) {
        for column in Column.allCases { container[column] = value(column)?.databaseValue ?? .null }
    }
}

extension Workout.Column: ColumnExpression {
    public var name: String { rawValue }
}

extension WorkoutSet.Column: ColumnExpression {
    public var name: String { rawValue }
}

extension Routine.Column: ColumnExpression {
    public var name: String { rawValue }
}

extension BodyWeight.Column: ColumnExpression {
    public var name: String { rawValue }
}
extension Favorite.Column: ColumnExpression {
    public var name: String { rawValue }
}

extension Workout: EntityRecord {
    /// Reads a `workouts` row; throws `UnreadableRow`. A row read without the plan column has
    /// no plan.
    public init(row: Row) throws {
        try self.init(row: row, prefix: "")
    }
}

extension WorkoutSet: EntityRecord {
    /// Reads a `sets` row; a cell that does not hold what the column means (a mistyped weight,
    /// a BLOB, an unknown kind) throws `UnreadableRow` rather than making a value up.
    public init(row: Row) throws {
        try self.init(reading: RowCells(row, table: Column.table))
    }
}

extension Routine: EntityRecord {
    /// Reads a `routines` row; exercises that do not read as a routine's are an unreadable row.
    public init(row: Row) throws {
        try self.init(reading: RowCells(row, table: Column.table))
    }
}

extension BodyWeight: EntityRecord {
    /// Reads a `body_weights` row; throws `UnreadableRow`.
    public init(row: Row) throws {
        try self.init(reading: RowCells(row, table: Column.table))
    }
}

extension Favorite: EntityRecord {
    /// Reads a `favorites` row (the server's list as last fetched); throws `UnreadableRow`.
    public init(row: Row) throws {
        try self.init(reading: RowCells(row, table: Column.table, idColumn: Column.exercise.name))
    }
}

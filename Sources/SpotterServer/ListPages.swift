import Foundation
import GRDB
import PostgresNIO
import SpotterCore
import SpotterProtocol

/// A list route's entity, read a page at a time (`GET /v1/workouts`, `/v1/sets`, `/v1/routines`,
/// `/v1/body-weights`): no answer grows with the user's whole history.
///
/// Each list keeps the order it always had, and a page ends where its order says: the cursor is
/// the last row's values of the ordering columns, and the next page is the rows after that tuple
/// (a keyset, read from the same index as the order, never an offset). A row edited between two
/// pages so that it moves across the cursor may be seen twice or not at all on that walk — what
/// `GET /v1/changes` is for; a list walked while nothing changes gives every row exactly once.
public enum ListedEntity: Sendable, Equatable {
    case workouts, sets, routines, bodyWeights

    /// The most rows one page holds, and the page when no `limit` is given.
    public static let maximumLimit = 5000
    public static let defaultLimit = 500

    var table: String {
        switch self {
        case .workouts: "workouts"
        case .sets: "sets"
        case .routines: "routines"
        case .bodyWeights: "body_weights"
        }
    }

    /// The list's order: its columns, and which of them are whole numbers (the rest are text).
    var order: [(column: String, integer: Bool)] {
        switch self {
        case .workouts: [("started_at", false), ("id", false)]
        case .sets: [("workout_id", false), ("position", true), ("performed_at", false), ("id", false)]
        case .routines: [("name", false), ("id", false)]
        case .bodyWeights: [("measured_at", false), ("id", false)]
        }
    }

    var orderList: String { order.map(\.column).joined(separator: ", ") }

    func item(_ row: some StoredRow) throws -> ListedItem {
        switch self {
        case .workouts: .workout(try StoredEntity.workout(row))
        case .sets: .set(try StoredEntity.set(row))
        case .routines: .routine(try StoredEntity.routine(row))
        case .bodyWeights: .bodyWeight(try StoredEntity.bodyWeight(row))
        }
    }
}

/// One row of a list page.
public enum ListedItem: Sendable, Equatable {
    case workout(WireWorkout)
    case set(WireSet)
    case routine(WireRoutine)
    case bodyWeight(WireBodyWeight)

    var json: JSONValue {
        switch self {
        case .workout(let workout): workout.json
        case .set(let set): set.json
        case .routine(let routine): routine.json
        case .bodyWeight(let weight): weight.json
        }
    }
}

/// Where a list page starts: after the row whose ordering values these are.
///
/// On the wire it is opaque: the values as a JSON array, in base64url. A cursor that does not
/// read as one of this list's (another list's, or made up) is refused, never guessed at.
public struct ListCursor: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int64)
    }

    public var values: [Value]

    /// Before every row: each row's first ordering value is a non-empty text, so it sorts after "".
    public static func start(of list: ListedEntity) -> ListCursor {
        ListCursor(values: list.order.map { $0.integer ? .integer(Int64.min) : .text("") })
    }

    /// The longest token read: a cursor this server made is a few hundred bytes.
    static let maximumTokenLength = 4096

    public init(values: [Value]) { self.values = values }

    /// The cursor a token names, when it is one of `list`'s.
    public init?(token: String, of list: ListedEntity) {
        guard token.utf8.count <= Self.maximumTokenLength else { return nil }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), case .array(let elements)? = JSONValue.parse(data),
            elements.count == list.order.count
        else { return nil }
        var values: [Value] = []
        for (element, key) in zip(elements, list.order) {
            switch (element, key.integer) {
            case (.string(let text), false): values.append(.text(text))
            case (.int(let number), true): values.append(.integer(number))
            default: return nil
            }
        }
        self.values = values
    }

    public var token: String {
        let array = JSONValue.array(
            values.map {
                switch $0 {
                case .text(let text): .string(text)
                case .integer(let number): .int(number)
                }
            })
        return Data(array.canonicalString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The cursor after `row` in `list`'s order.
    static func after(_ row: some StoredRow, in list: ListedEntity) throws -> ListCursor {
        ListCursor(
            values: try list.order.map { key in
                key.integer
                    ? .integer(try StoredCell.required(row.integer(key.column), key.column))
                    : .text(try StoredCell.required(row.text(key.column), key.column))
            })
    }
}

/// A page of a list: its rows, and the cursor of the next page when there is one.
public struct ListSlice: Sendable, Equatable {
    public var items: [ListedItem]
    public var next: ListCursor?

    /// The page from `rows`, read one past `limit` to know whether more follow.
    static func page(_ rows: [some StoredRow], of list: ListedEntity, limit: Int) throws -> ListSlice {
        let shown = rows.prefix(limit)
        return ListSlice(
            items: try shown.map { try list.item($0) },
            next: rows.count > limit ? try shown.last.map { try ListCursor.after($0, in: list) } : nil)
    }
}

extension SQLiteServerStore {
    public func listPage(
        _ list: ListedEntity, user: String, workoutID: String?, after cursor: ListCursor, limit: Int
    ) async throws -> ListSlice {
        try await dbWriter.read { db in
            var sql = "SELECT * FROM \(list.table) WHERE owner = ? AND deleted = 0"
            var arguments: StatementArguments = [user]
            if list == .sets, let workoutID {
                sql += " AND workout_id = ?"
                arguments += [workoutID]
            }
            sql += """
                 AND (\(list.orderList)) > (\(placeholders(list.order.count)))
                ORDER BY \(list.orderList) LIMIT ?
                """
            for value in cursor.values {
                switch value {
                case .text(let text): arguments += [text]
                case .integer(let number): arguments += [number]
                }
            }
            arguments += [limit + 1]
            let rows = try NamedRow.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            return try ListSlice.page(rows, of: list, limit: limit)
        }
    }
}

extension PostgresServerStore {
    public func listPage(
        _ list: ListedEntity, user: String, workoutID: String?, after cursor: ListCursor, limit: Int
    ) async throws -> ListSlice {
        try await withSession { session in
            var binds = PostgresBindings()
            binds.append(user)
            var sql = "SELECT * FROM \(list.table) WHERE owner = $1 AND NOT deleted"
            if list == .sets, let workoutID {
                binds.append(workoutID)
                sql += " AND workout_id = $\(binds.count)"
            }
            var marks: [String] = []
            for value in cursor.values {
                switch value {
                case .text(let text): binds.append(text)
                case .integer(let number): binds.append(number)
                }
                marks.append("$\(binds.count)")
            }
            binds.append(limit + 1)
            sql += """
                 AND (\(list.orderList)) > (\(marks.joined(separator: ", ")))
                ORDER BY \(list.orderList) LIMIT $\(binds.count)
                """
            let rows = try await session.query(PostgresQuery(unsafeSQL: sql, binds: binds)).rows.map {
                $0.makeRandomAccess()
            }
            return try ListSlice.page(rows, of: list, limit: limit)
        }
    }
}

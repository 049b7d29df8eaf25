import Foundation
import GRDB
import SpotterCore

/// A problem with a local action, worded for the person who asked for it.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case invalid(ValidationError)
    case notFound(String)
    case notAllowed(String)
    case catalogMissing
    case readOnly(path: String, why: String)
    case unreadable(path: String, reason: String)
    /// The database could not even be opened for lack of room (SQLite grows an index beside it).
    case diskFull(path: String, why: String)

    public var description: String {
        switch self {
        case .readOnly(let path, let why): "the database \(path) is read-only: \(why)"
        case .unreadable(let path, let reason): "cannot open the database \(path): \(reason)"
        case .diskFull(let path, let why): "cannot open the database \(path): \(why)"
        case .invalid(let error): "invalid \(error.field): \(error.message)"
        case .notFound(let what): "not found: \(what)"
        case .notAllowed(let why): why
        case .catalogMissing: "the exercise catalogue (exercises.json) is missing from the installation"
        }
    }
}

extension StoreError {
    /// An underlying error in one line (SQLite's errors carry the statement on further lines).
    public static func oneLine(_ error: any Error) -> String {
        if let database = error as? DatabaseError {
            if database.resultCode.primaryResultCode == .SQLITE_READONLY {
                return "the database is read-only: nothing can be saved until it is writable again"
            }
            if database.resultCode.primaryResultCode == .SQLITE_FULL {
                return "the disk is full: nothing was saved; free some space and try again"
            }
            return database.message ?? "SQLite error \(database.resultCode.rawValue)"
        }
        return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
}

/// Something the user should be told about a change that did not come from them
/// (a rejected edit rolled back, a set deleted on another device).
public struct StoreNotice: Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The local database: every write the app makes goes through this type, one transaction
/// per user action, so an entity change and its outbox operation are never apart.
public struct SpotterStore: Sendable {
    let writer: any DatabaseWriter
    /// The user whose operations this store enqueues and claims.
    public let userID: String
    /// The database file.
    public let path: String
    /// Whether the database was opened without write access (a read-only file or folder): every
    /// write is refused with `StoreError.readOnly`.
    public var isReadOnly: Bool { writer.configuration.readonly }

    static let newerSchema = "a newer version of Spotter has changed it; use that version to save to it"

    /// Why nothing can be saved to this database, or nil when it can: its file or folder
    /// (`writeRefusal`), or a schema a newer Spotter wrote.
    public func saveRefusal() -> String? {
        if let why = Self.writeRefusal(path: path) { return why }
        let superseded = try? writer.read { try Schema.migrator.hasBeenSuperseded($0) }
        return superseded == true ? Self.newerSchema : nil
    }
    public let clock: any SpotterClock
    /// Told of every unreadable row a read skipped (which table, which id, why): the CLI prints
    /// it on stderr, the UI writes it to its log and shows a notice. Never silent.
    public var onUnreadable: @Sendable (UnreadableRow) -> Void = SpotterStore.reportOnStandardError
    /// Whether a batch's plain answers are recorded in bulk (`OutboxQueue.recordInBulk`); tests
    /// turn it off to compare with the one-by-one path.
    public var recordsInBulk = true
    /// Tells whether anything committed to the file since last asked (`changeToken()`); shared by
    /// the copies of this store, so it opens its connection once.
    let changeWatch: ChangeWatch
    /// Owners whose rows are this account's under another name, not yet moved to it (a token
    /// queued with before the server named its user): listings show their rows, marked, so what
    /// is on the device is always listed. Never another account's.
    public private(set) var waitingOwners: [String] = []

    /// This store, listing the rows of `owners` too (see `waitingOwners`).
    public func listing(waitingFor owners: [String]) -> SpotterStore {
        var copy = self
        copy.waitingOwners = owners.filter { $0 != userID && $0 != QueueOwner.deviceID }
        return copy
    }

    /// Opens (creating if needed) a database file in WAL mode and migrates it.
    ///
    /// - Parameter readOnly: for commands that only read. A file this process may write is
    ///   opened as usual, so the records it shows are brought up to date first; one it may not
    ///   (a read-only file or folder, a full disk, a newer Spotter's schema) is opened without
    ///   write access, so it can still be listed and exported. (A file that does not exist yet
    ///   is created as usual: there is nothing to protect.)
    public static func open(
        path: String, userID: String, clock: any SpotterClock = SystemClock(), readOnly: Bool = false
    ) throws
        -> SpotterStore
    {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let exists = FileManager.default.fileExists(atPath: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // The writer keeps statement journals in memory. A statement that may fire a trigger
            // journals every page it touches that its transaction already changed; on this
            // SQLite (TEMP_STORE=1) that journal becomes a file past 64 KiB, so a pulled page of
            // thousands of upserts wrote each touched page again to /var/tmp, two system calls a
            // page, gigabytes for one big pull. The journal is per statement and never durable,
            // so nothing about what survives a crash changes; temporary tables and sorts of the
            // readers stay as they were.
            //
            // A checkpoint leaves the WAL at its largest size unless told otherwise: after an
            // import (whose checkpoints wait for 32 MiB) it kept that room for good, room a full
            // disk needs back (see `DiskSpace`).
            if !db.configuration.readonly {
                try db.execute(
                    sql: "PRAGMA temp_store = MEMORY; PRAGMA journal_size_limit = \(DiskSpace.journalSizeLimit)")
            }
        }
        if !readOnly, let why = writeRefusal(path: path) {
            throw StoreError.readOnly(path: path, why: why)
        }
        if exists && readOnly && writeRefusal(path: path) == nil {
            do {
                return try open(path: path, userID: userID, clock: clock)
            } catch let error as StoreError {
                switch error {
                case .diskFull, .readOnly: break  // read as below
                default: throw error
                }
            }
        }
        if exists && readOnly {
            configuration.readonly = true
            let reader = try openForReading(path: path, configuration: configuration)
            if try reader.read({ try Schema.migrator.hasCompletedMigrations($0) }) {
                return SpotterStore(migrated: reader, path: path, userID: userID, clock: clock)
            }
            // An older schema: a file we may write is upgraded first (below); one we may not says so.
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw StoreError.readOnly(
                    path: path, why: "it was made by an older Spotter; open it once with write access to upgrade it")
            }
            configuration.readonly = false
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            // Creating the pool switches a new file to WAL, which needs SQLite's exclusive lock and
            // answers "database is locked" at once (no busy handler) when another process is doing
            // the same: the first open and the migration both run under the directory's lock.
            return try DirectoryLock.holding(directory) {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try durableCommits(pool)
                if try !pool.read({ try Schema.migrator.hasCompletedMigrations($0) }) {
                    try Schema.migrator.migrate(pool)
                }
                // A newer Spotter's schema may move a rule from the database into its code (v17
                // did: new sets mark their records themselves), which this version would break
                // by writing. Such a file is read, never written, until that version opens it.
                if try pool.read({ try Schema.migrator.hasBeenSuperseded($0) }) {
                    throw StoreError.readOnly(path: path, why: newerSchema)
                }
                return SpotterStore(migrated: pool, path: path, userID: userID, clock: clock)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            // On a full disk SQLite cannot even grow the index beside the file ("disk I/O error").
            if let available = DiskSpace.available(at: directory.path), available < DiskSpace.reserve {
                throw StoreError.diskFull(path: path, why: DiskSpace.fullReason(available: available))
            }
            throw StoreError.unreadable(path: path, reason: StoreError.oneLine(error))
        }
    }

    /// Why nothing can be saved to the database at `path` by this process, or nil when it can
    /// (or the file does not exist yet: creating it says what went wrong). SQLite writes the
    /// file and keeps its `-wal` and `-shm` beside it, so a folder that may not be written stops
    /// writes too unless both are already there and writable. Root is refused only where the
    /// kernel refuses root: a read-only mount, an immutable file (`chattr +i`).
    public static func writeRefusal(path: String) -> String? {
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { return nil }
        if !files.isWritableFile(atPath: path) { return "nothing can be saved until it is writable again" }
        let folder = folder(of: path)
        if !files.isWritableFile(atPath: folder),
            !["-wal", "-shm"].allSatisfy({ files.isWritableFile(atPath: path + $0) })
        {
            return "its folder \(folder) may not be written (SQLite keeps its journal there); "
                + "nothing can be saved until it is"
        }
        return nil
    }

    /// Opens an existing file without write access. SQLite reads a WAL database through its
    /// `-shm` index, which it must create (or grow) beside the file when no other connection
    /// has: in a folder that may not be written (a read-only mount, a folder of another user),
    /// or on a full disk, that fails ("attempt to write a readonly database", "disk I/O error")
    /// before anything is read. Then, when nothing waits in a `-wal` file, the database file
    /// alone holds every commit and is opened as immutable: read directly, with no index and
    /// no locks. When a `-wal` holds commits not yet copied into the file, they cannot be read
    /// without the index, and it says so rather than list less.
    static func openForReading(path: String, configuration: Configuration) throws -> DatabasePool {
        func opened(_ location: String) throws -> DatabasePool {
            let pool = try DatabasePool(path: location, configuration: configuration)
            // Opening is lazy: the first read is where a missing index shows.
            _ = try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version") }
            return pool
        }
        do {
            return try opened(path)
        } catch let error as DatabaseError
            where [.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_FULL].contains(
                error.resultCode.primaryResultCode)
        {
            if DiskSpace.journalSize(of: path) == 0 {
                do {
                    return try opened(immutableURI(path))
                } catch {
                    throw StoreError.unreadable(path: path, reason: StoreError.oneLine(error))
                }
            }
            // SQLite's exclusive locking mode could read them without the index, but it holds
            // every other process off for as long as the connection is open (a read-only UI: for
            // good), and GRDB's reads turn `query_only` back off, so a listing could write. Said.
            throw StoreError.readOnly(
                path: path,
                why: "its latest changes wait in \(path)-wal, which SQLite reads only with room and write access "
                    + "in \(folder(of: path))")
        } catch {
            throw StoreError.unreadable(path: path, reason: StoreError.oneLine(error))
        }
    }

    /// `path` as an SQLite URI that opens the file immutable (see `openForReading`).
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var escaped: [UInt8] = []
        for byte in absolute.utf8 {
            // A URI's path may not hold "?" (query), "#" (fragment) or a bare "%"; SQLite decodes
            // %HH. Every other byte, space and non-ASCII included, is read as it is.
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"):
                escaped += Array(String(format: "%%%02X", byte).utf8)
            default: escaped.append(byte)
            }
        }
        return "file://" + String(decoding: escaped, as: UTF8.self) + "?immutable=1"
    }

    /// Wraps an open database (tests pass a queue on a temporary file) and migrates it.
    init(writer: any DatabaseWriter, userID: String, clock: any SpotterClock = SystemClock()) throws {
        self.writer = writer
        path = writer.path
        self.userID = userID
        self.clock = clock
        changeWatch = ChangeWatch()
        try Schema.migrator.migrate(writer)
    }

    /// Every commit flushes the WAL (`synchronous = FULL`): a set the screen shows as logged
    /// survives a power cut, and so does an outbox row's state. GRDB switches a pool's writer to
    /// NORMAL when it turns WAL on (after `prepareDatabase` ran), which keeps the file intact but
    /// may lose the last commits to a power cut; so it is set here, on the one writer connection,
    /// once the pool is open.
    public static func durableCommits(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// The writer connection's `PRAGMA synchronous` (2 is FULL).
    public func synchronousMode() throws -> Int {
        try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    private init(migrated writer: any DatabaseWriter, path: String, userID: String, clock: any SpotterClock) {
        self.writer = writer
        self.path = path
        self.userID = userID
        self.clock = clock
        changeWatch = ChangeWatch()
    }

    private init(sharing other: SpotterStore, userID: String) {
        writer = other.writer
        path = other.path
        self.userID = userID
        clock = other.clock
        changeWatch = other.changeWatch
        onUnreadable = other.onUnreadable
        recordsInBulk = other.recordsInBulk
    }

    /// What a listing says of a row still under a waiting owner.
    public static let waitingForTokenCheck = "waiting for the token to be checked"

    /// The default report of an unreadable row: one line on stderr.
    public static let reportOnStandardError: @Sendable (UnreadableRow) -> Void = { row in
        FileHandle.standardError.write(Data("spotter: skipped an \(row)\n".utf8))
    }

    /// Reads each row, reporting and skipping the ones that cannot be read.
    func readable<T>(_ rows: [Row], _ read: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        result.reserveCapacity(rows.count)
        for row in rows {
            do {
                result.append(try read(row))
            } catch let unreadable as UnreadableRow {
                onUnreadable(unreadable)
            }
        }
        return result
    }

    /// The same database acting for another user: their queue, not this one's.
    public func forUser(_ userID: String) -> SpotterStore {
        SpotterStore(sharing: self, userID: userID)
    }

    var now: Date { Timestamp.truncated(clock.now()) }
}

// MARK: - Row and value helpers

extension JSONValue {
    /// The SQLite value a wire field is stored as (columns mirror wire names and types).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .bool(let value): (value ? 1 : 0).databaseValue
        case .int(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .string(let value): value.databaseValue
        case .array, .object: canonicalString.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .blob: self = .null
        }
    }
}

enum EntityTable {
    /// Columns a wire patch may write, per entity (every field but the id, and a workout's plan,
    /// which only its create sets); anything else in a payload is ignored.
    static let setColumns = Set(WorkoutSet.Column.allCases.filter { $0 != .id }.map(\.name))
    static let workoutColumns = Set(Workout.Column.allCases.filter { $0 != .id && $0 != .plan }.map(\.name))
    static let routineColumns = Set(Routine.Column.allCases.filter { $0 != .id }.map(\.name))
    static let bodyWeightColumns = Set(BodyWeight.Column.allCases.filter { $0 != .id }.map(\.name))

    static func table(_ type: EntityType) -> String? {
        switch type {
        case .set: "sets"
        case .workout: "workouts"
        case .routine: "routines"
        case .bodyWeight: "body_weights"
        case .favorite: nil
        }
    }

    /// The entity's row as wire fields (what a create of it sends); nil when it has no row.
    static func wireFields(_ type: EntityType, id: String, db: Database) throws -> [String: JSONValue]? {
        guard let table = table(type),
            let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM \(table) WHERE id = ?"), arguments: [id])
        else { return nil }
        switch type {
        case .set: return try WorkoutSet(row: row).wireFields
        case .workout: return try Workout(row: row).wireFields
        case .routine: return try Routine(row: row).wireFields
        case .bodyWeight: return try BodyWeight(row: row).wireFields
        case .favorite: return nil
        }
    }

    /// The fields of `type` that are one value (`EntityColumn.together`).
    static func together(_ type: EntityType) -> [String] {
        switch type {
        case .set: WorkoutSet.Column.together.map(\.name)
        case .bodyWeight: BodyWeight.Column.together.map(\.name)
        case .workout, .routine, .favorite: []
        }
    }

    static func columns(_ type: EntityType) -> Set<String> {
        switch type {
        case .set: setColumns
        case .workout: workoutColumns
        case .routine: routineColumns
        case .bodyWeight: bodyWeightColumns
        case .favorite: []
        }
    }

    /// Writes wire fields into an entity's columns.
    static func write(
        _ fields: [String: JSONValue], type: EntityType, id: String, extra: [String: DatabaseValue] = [:], db: Database
    ) throws {
        guard let table = table(type) else { return }
        let allowed = columns(type)
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where allowed.contains(key) {
            assignments.append("\(key) = ?")
            arguments.append(value.databaseValue)
        }
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) {
            assignments.append("\(key) = ?")
            arguments.append(value)
        }
        guard !assignments.isEmpty else { return }
        arguments.append(id.databaseValue)
        // The same field set recurs (every create of a set touches the same fields), so the
        // prepared statement is cached by its text.
        try db.cachedStatement(sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE id = ?")
            .execute(arguments: StatementArguments(arguments))
        if type == .set, fields.keys.contains(where: { $0 == "weight" || $0 == "unit" || $0 == "reps" }) {
            try refreshOneRepMax(setID: id, db: db)
        }
    }

    /// Reads the current values of wire fields, for a before-image.
    static func read(
        _ fields: some Sequence<String>, type: EntityType, id: String, db: Database
    ) throws -> [String: JSONValue] {
        guard let table = table(type) else { return [:] }
        let wanted = fields.filter { columns(type).contains($0) || $0 == "deleted_at" }
        guard !wanted.isEmpty,
            let row = try Row.fetchOne(
                db, sql: "SELECT \(wanted.joined(separator: ", ")) FROM \(table) WHERE id = ?", arguments: [id])
        else { return [:] }
        var image: [String: JSONValue] = [:]
        for name in wanted { image[name] = JSONValue(row[name] as DatabaseValue) }
        return image
    }

    static func refreshOneRepMax(setID: String, db: Database) throws {
        guard
            let row = try Row.fetchOne(db, sql: "SELECT weight, unit, reps FROM sets WHERE id = ?", arguments: [setID])
        else {
            return
        }
        // A set whose weight, unit or reps does not read (a hand edit) has no estimate: nothing
        // is made up for it, and nothing traps (its read elsewhere names the row).
        var e1rm: Double?
        if let weight = row.cell(at: 0, as: Double.self),
            let unit = row.cell(at: 1, as: String.self).flatMap(WeightUnit.init(rawValue:)),
            let reps = row.cell(at: 2, as: Int.self)
        {
            e1rm = OneRepMax.epley(weight: weight * unit.kilograms, reps: reps)
        }
        try db.cachedStatement(sql: "UPDATE sets SET e1rm_kg = ? WHERE id = ?").execute(arguments: [e1rm, setID])
    }
}

extension WorkoutSet {
    /// The client-owned fields as a create sends them (wire names; nil fields omitted).
    var wireFields: [String: JSONValue] { fieldValues }
}

extension Workout {
    /// Reads the `prefix`ed columns of a join as a workout (`w_` beside a set's); throws
    /// `UnreadableRow`. A row read without the plan column has no plan.
    init(row: Row, prefix: String, table: String = "workouts") throws {
        try self.init(reading: RowCells(row, table: table, idColumn: prefix + "id", prefix: prefix))
    }

    var wireFields: [String: JSONValue] { fieldValues }
}

/// A row on disk that cannot be read as what its table holds: a cell edited by hand to the wrong
/// type, a BLOB where text belongs. It is reported (table and id) and skipped, never guessed at.
public struct UnreadableRow: Error, CustomStringConvertible, Sendable, Equatable {
    public let table: String
    public let id: String
    public let reason: String

    public var description: String { "unreadable row of \(table) (id \(id)): \(reason)" }
}

extension Row {
    /// The cell as `Value`; nil when it is NULL or holds what does not read as one (a hand edit
    /// such as "five" in `reps`, text in a total, a BLOB). GRDB's subscript stops the process on
    /// the second, so a read that leaves such a row out (a chart, the stats, a description) asks
    /// here, never the subscript.
    func cell<Value: DatabaseValueConvertible>(_ column: String, as _: Value.Type = Value.self) -> Value? {
        (try? decode(Value?.self, forColumn: column)) ?? nil
    }

    /// The cell at `index` (in the SELECT's order), as `cell(_:as:)` reads it.
    func cell<Value: DatabaseValueConvertible>(at index: Int, as _: Value.Type = Value.self) -> Value? {
        (try? decode(Value?.self, atIndex: index)) ?? nil
    }
}

/// Typed, throwing reads of one row's cells.
struct RowCells {
    let row: Row
    let table: String
    let idColumn: String
    /// Put before every column an entity reads (`w_` for a workout's columns in a join).
    var prefix = ""
    /// Each column's index, by its name as the schema spells it, found in one pass over the row.
    /// (GRDB's lookup by name ignores case by lower-casing every column name on each call; the
    /// drain reads thousands of rows of twenty columns.)
    private let columns: [String: Int]

    /// - Parameter columns: the index of each column, when the caller read many rows of one
    ///   statement and found them once (`columnIndex(of:)`).
    init(
        _ row: Row, table: String, idColumn: String = "id", prefix: String = "", columns: [String: Int]? = nil
    ) {
        self.row = row
        self.table = table
        self.idColumn = idColumn
        self.prefix = prefix
        self.columns = columns ?? Self.columnIndex(of: row)
    }

    /// Each column's index by its name (the first, should two share one).
    static func columnIndex(of row: Row) -> [String: Int] {
        var columns: [String: Int] = [:]
        columns.reserveCapacity(row.count)
        for (index, name) in row.columnNames.enumerated() where columns[name] == nil { columns[name] = index }
        return columns
    }

    var id: String {
        let cell = row[idColumn] as DatabaseValue? ?? .null
        if case .string(let text) = cell.storage { return text }
        return cell.description
    }

    func unreadable(_ column: String, _ what: String) -> UnreadableRow {
        let cell = row[column] as DatabaseValue? ?? .null
        let shown: String
        switch cell.storage {
        case .blob(let data): shown = "a \(data.count)-byte BLOB"
        case .null: shown = "NULL"
        default: shown = cell.description
        }
        return UnreadableRow(table: table, id: id, reason: "\(column) holds \(shown), not \(what)")
    }

    func value<T: DatabaseValueConvertible>(_ column: String) throws -> T {
        do {
            if let index = columns[column] { return try row.decode(T.self, atIndex: index) }
            return try row.decode(T.self, forColumn: column)
        } catch {
            throw unreadable(column, Self.noun(T.self))
        }
    }

    func uuid(_ column: String) throws -> UUID {
        guard let id = UUID(wire: try value(column) as String) else { throw unreadable(column, "a UUID") }
        return id
    }

    func enumeration<E: RawRepresentable>(_ column: String) throws -> E where E.RawValue == String {
        guard let value = E(rawValue: try value(column) as String) else {
            throw unreadable(column, "one of the known values")
        }
        return value
    }

    func timestamp(_ column: String) throws -> Date {
        guard let date = Timestamp.parse(try value(column) as String) else { throw unreadable(column, "a timestamp") }
        return date
    }

    func optionalTimestamp(_ column: String) throws -> Date? {
        guard let text = try value(column) as String? else { return nil }
        guard let date = Timestamp.parse(text) else { throw unreadable(column, "a timestamp") }
        return date
    }

    /// A workout's plan; nil when NULL or when the row was read without the column.
    func plan(_ column: String) throws -> WorkoutPlan? {
        guard row.hasColumn(column) else { return nil }
        do { return try WorkoutPlan.stored(try value(column) as String?) } catch let error as ValidationError {
            throw unreadable(column, "a plan (\(error.field) \(error.message))")
        }
    }

    static func noun<T>(_ type: T.Type) -> String {
        switch type {
        case is Double.Type, is Double?.Type: "a number"
        case is Int.Type, is Int?.Type, is Int64.Type, is Int64?.Type: "a whole number"
        case is Bool.Type, is Bool?.Type: "a flag"
        default: "text"
        }
    }
}

extension RowCells: ColumnReader {
    func text(_ column: String) throws -> String? { try cell(column) }
    func integer(_ column: String) throws -> Int64? { try cell(column) }
    func real(_ column: String) throws -> Double? { try cell(column) }

    /// One cell by its index, found once; nil for NULL and for a column the row was read without.
    private func cell<T: DatabaseValueConvertible>(_ column: String) throws -> T? {
        let name = prefix + column
        guard let index = columns[name] else { return nil }
        do { return try row.decode(T?.self, atIndex: index) } catch { throw unreadable(name, Self.noun(T.self)) }
    }

    func document(_ column: String) throws -> JSONValue? {
        guard let text = try text(column) else { return nil }
        guard let document = JSONValue.parse(text) else { throw unreadable(column, expected: "JSON") }
        return document
    }

    func unreadable(_ column: String, expected: String) -> any Error {
        let row: UnreadableRow = unreadable(prefix + column, expected)
        return row
    }
}

extension ColumnValues {
    /// The entity's columns as statement arguments, in `Column.names` order.
    var columnArguments: [DatabaseValue] { columnValues.map(\.databaseValue) }
}

extension EntityColumn {
    /// `a, b, c`: the entity's columns, for an INSERT.
    static var columnList: String { names.joined(separator: ", ") }

    /// `a = excluded.a, …` for every column but the id: an upsert taking a row whole.
    static var takeExcluded: String {
        names.filter { $0 != "id" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }
}

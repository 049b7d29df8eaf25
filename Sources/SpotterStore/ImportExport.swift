import Foundation
import GRDB
import SpotterCore

/// What an import did.
public struct ImportResult: Sendable, Equatable {
    public var added = 0
    /// Rows already in the database (an earlier import of the same file, or an export of these sets).
    public var alreadyPresent = 0
    public var workoutsAdded = 0
    /// Names of the file taken as another name (an alias of a catalogue lift), with how many rows:
    /// said, so no lift is merged into another without a word.
    public var mapped: [String: MappedName] = [:]
    /// Custom exercises the import made (names no catalogue lift or alias matched), in file order.
    public var customCreated: [String] = []
    /// Rows whose unit the file does not name, already here under the other unit (the file
    /// imported before with another `--unit`): not added a second time.
    public var presentInOtherUnit = 0

    public struct MappedName: Sendable, Equatable {
        public var to: String
        public var rows: Int

        public init(to: String, rows: Int) {
            self.to = to
            self.rows = rows
        }
    }
}

extension SpotterStore {
    /// Import ids derive from the rows' content alone, so every device of an account derives the
    /// same ids for the same file — before the account is known or after, and whether or not the
    /// workout is still here to be found (a deleted one's tombstone answers the create on the
    /// server, and nothing comes back). The server scopes ids per user, so two users importing
    /// the same file never meet there. Only on one device can they meet: when another account
    /// here already holds the workout's id, this account's rows derive under its own name.
    ///
    /// A file imported before the first login and again after it is still found by its workout
    /// and content, also when renamed: ids derived under the owners this account took over (by
    /// versions that derived per owner) are looked for too.
    func importNamespace(forKey key: String, db: Database) throws -> String {
        let plain = ContentID.uuid("spotter-import-workout|\(key)").wireString
        let takenByAnother =
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND NOT (\(visible())))"),
                arguments: [plain]) ?? false
        return takenByAnother ? "\(userID)|" : ""
    }

    /// The owners whose rows `reassign` moved to this account.
    func importAliases(db: Database) throws -> [String] {
        guard
            let text = try String.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [Self.aliasesKey(userID)])
        else { return [] }
        guard case .array(let owners)? = JSONValue.parse(text) else { return [] }
        return owners.compactMap { $0.stringValue }
    }

    static func aliasesKey(_ owner: String) -> String { "import_aliases|\(owner)" }

    fileprivate func importWorkout(
        key: String, rows: [ImportedSet], db: Database, now: Date, result: inout ImportResult,
        names: inout [String: ImportedName], dirty: inout Set<[UInt8]>
    ) throws {
        guard let first = rows.first else { return }
        let importNamespace = try importNamespace(forKey: key, db: db)
        let start = Timestamp.truncated(first.workoutStart)
        let derivedID = ContentID.uuid("spotter-import-workout|\(importNamespace)\(key)")
        let workoutID: UUID
        if let existing = try String.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT id FROM workouts WHERE deleted_at IS NULL
                    AND (id = ? OR (name = ? AND started_at >= ? AND started_at < ?)
                        OR id IN (SELECT value FROM json_each(?)))
                    AND \(visible())
                    ORDER BY id = ? DESC LIMIT 1
                    """),
            // A workout started in the app keeps its milliseconds, and an export writes whole
            // seconds: the same name started within that second is the same workout.
            arguments: [
                derivedID.wireString, first.workoutName, Timestamp.format(start),
                Timestamp.format(start.addingTimeInterval(1)),
                JSONValue.array(
                    try importAliases(db: db).map {
                        .string(ContentID.uuid("spotter-import-workout|\($0)|\(key)").wireString)
                    }
                ).canonicalString, derivedID.wireString,
            ]
        ) {
            // A stored id that is not one is said, never replaced by another (the sets would
            // go to a workout that is not there).
            guard let stored = UUID(wire: existing) else {
                throw UnreadableRow(table: "workouts", id: existing, reason: "id is not a UUID")
            }
            workoutID = stored
        } else {
            // The notes on its exercises (Spotter's own export), by the names the sets take.
            var exerciseNotes: [String: String] = [:]
            for row in rows {
                guard let note = row.exerciseNote, exerciseNotes.count < ExerciseNotes.maxExercises else { continue }
                let named = try importedName(row.exercise, db: db, result: &result, names: &names)
                if exerciseNotes[named.name] == nil { exerciseNotes[named.name] = note }
            }
            let workout = Workout(
                id: derivedID, name: Validation.cut(first.workoutName, toScalars: Validation.maxNameLength),
                startedAt: start,
                // Ended as it began (Duration 0) is ended; before it began is a misread.
                endedAt: rows.lazy.compactMap(\.workoutEnd).first.map(Timestamp.truncated).flatMap {
                    $0 >= start ? $0 : nil
                },
                notes: rows.lazy.compactMap(\.workoutNotes).first, exerciseNotes: exerciseNotes)
            try insertWorkout(workout, db: db, now: now)
            try db.cachedStatement(sql: "UPDATE workouts SET imported = 1 WHERE id = ?").execute(arguments: [
                derivedID.wireString
            ])
            workoutID = derivedID
            result.workoutsAdded += 1
        }
        var position = try Self.lastPosition(in: workoutID.wireString, db: db)
        // The workout's live sets by content, read once: each row is compared in memory (as
        // SQLite compares them: text byte for byte, NULL only `IS` NULL), not by a query of its own.
        var present: [ImportedContent: Int] = [:]
        let presentRows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT exercise, kind, weight, unit, reps, rpe, distance_m, duration_s, notes
                    FROM sets WHERE workout_id = ? AND deleted_at IS NULL
                    """), arguments: [workoutID.wireString])
        while let stored = try presentRows.next() {
            // A cell that does not read (a hand edit) matches no row of the file.
            func bytes(_ index: Int) -> [UInt8]? { stored.cell(at: index, as: String.self).map { Array($0.utf8) } }
            let content = ImportedContent(
                exercise: bytes(0), kind: bytes(1), weight: stored.cell(at: 2), unit: bytes(3),
                reps: stored.cell(at: 4),
                rpe: stored.cell(at: 5), distanceM: stored.cell(at: 6), durationS: stored.cell(at: 7), notes: bytes(8))
            present[content, default: 0] += 1
        }
        var setWriter = ImportedSetWriter(store: self, workoutKey: workoutID.wireString)
        // Each row's catalogue name and id first, then which ids are taken, in one query for the
        // whole workout (a query a row was a tenth of a 100 000-row import).
        var occurrences: [String: Int] = [:]
        var derived: [(row: ImportedSet, named: ImportedName, occurrence: Int, id: UUID, otherUnit: OtherUnitID?)] = []
        derived.reserveCapacity(rows.count)
        for row in rows {
            let named = try importedName(row.exercise, db: db, result: &result, names: &names)
            func content(_ unit: WeightUnit) -> String {
                [
                    named.name, row.kind.rawValue, Formatting.number(row.weight), unit.rawValue, "\(row.reps)",
                    row.rpe.map(Formatting.number) ?? "", row.distanceM.map(Formatting.number) ?? "",
                    row.durationS.map(Formatting.number) ?? "", row.notes ?? "",
                ].joined(separator: "|")
            }
            let text = content(row.unit)
            occurrences[text, default: 0] += 1
            let occurrence = occurrences[text]!
            let setID = ContentID.uuid("spotter-import-set|\(importNamespace)\(key)|\(text)|\(occurrence)")
            // A unit the file does not name: the id the row has when imported under the other.
            let otherUnit = row.unitAssumed ? (row.unit == .kg ? WeightUnit.lb : .kg) : nil
            let other = otherUnit.map { unit in
                OtherUnitID(
                    unit: unit,
                    id: ContentID.uuid("spotter-import-set|\(importNamespace)\(key)|\(content(unit))|\(occurrence)"))
            }
            derived.append((row, named, occurrence, setID, other))
        }
        let taken = Set(
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM sets WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [
                    JSONValue.array(
                        (derived.map(\.id) + derived.compactMap(\.otherUnit?.id)).map { .string($0.wireString) }
                    )
                    .canonicalString
                ]))
        for (row, named, occurrence, setID, other) in derived {
            let (exercise, alias) = (named.name, named.alias)
            // Already here: this file imported before, or these very sets exported and read back.
            // Stored as a typed weight is (to 0.01, as the server keeps it); the id above still
            // comes from the file's value, so a file imported before is found as it was.
            let weight = Validation.keptWeight(row.weight)
            let rowContent = ImportedContent(
                exercise: Array(exercise.utf8), kind: Array(row.kind.rawValue.utf8), weight: weight,
                unit: Array(row.unit.rawValue.utf8), reps: Int64(row.reps), rpe: row.rpe, distanceM: row.distanceM,
                durationS: row.durationS, notes: row.notes.map { Array($0.utf8) })
            let sameContent = present[rowContent] ?? 0
            if taken.contains(setID.wireString) || sameContent >= occurrence {
                result.alreadyPresent += 1
                continue
            }
            if let other {
                var otherContent = rowContent
                otherContent.unit = Array(other.unit.rawValue.utf8)
                if taken.contains(other.id.wireString) || (present[otherContent] ?? 0) >= occurrence {
                    result.presentInOtherUnit += 1
                    continue
                }
            }
            position += 1
            guard position <= Validation.maxPosition else {
                // Commits are per chunk of workouts: what came before this one stays.
                throw StoreError.notAllowed(
                    "the workout \"\(first.workoutName)\" of \(Timestamp.format(start).prefix(10)) would take more"
                        + " than \(Validation.maxPosition) sets, more than a workout holds: the import stopped there;"
                        + " the workouts before it are imported, and importing a corrected file adds only the rest")
            }
            let set = WorkoutSet(
                id: setID, workoutID: workoutID, exercise: exercise, position: position, kind: row.kind,
                weight: weight,
                unit: row.unit, reps: row.reps, rpe: row.rpe, distanceM: row.distanceM, durationS: row.durationS,
                notes: row.notes ?? row.comment.flatMap { $0.isEmpty ? nil : $0 }, performedAt: start,
                superset: row.superset)
            try setWriter.insert(set, db: db, now: now, dirty: &dirty)
            present[rowContent, default: 0] += 1
            result.added += 1
            // Counted as imported: a row already here was not taken as anything.
            if let alias {
                result.mapped[alias, default: ImportResult.MappedName(to: exercise, rows: 0)].rows += 1
            }
        }
    }

    /// The name a file's exercise is stored under. Each name of the file is looked up once: a file
    /// repeats a few dozen names thousands of times.
    func importedName(
        _ raw: String, db: Database, result: inout ImportResult, names: inout [String: ImportedName]
    ) throws -> ImportedName {
        if let known = names[raw] { return known }
        let resolved = try resolveImportedExercise(raw, db: db, result: &result)
        let named = ImportedName(name: resolved.name, alias: resolved.alias)
        names[raw] = named
        return named
    }

    /// The catalogue's name for an exported name: the catalogue's own spelling first, then the
    /// alias table (FitNotes' "Barbell Squat" is "Squat (Barbell)"), else a custom exercise.
    /// Returns the name, and the file's name when the alias table took it as a catalogue lift.
    func resolveImportedExercise(
        _ raw: String, db: Database, result: inout ImportResult
    ) throws -> (name: String, alias: String?) {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if let known = try String.fetchOne(
            db.cachedStatement(sql: "SELECT name FROM exercises WHERE name = ? COLLATE NOCASE AND is_custom = 0"),
            arguments: [name])
        {
            return (known, nil)
        }
        // A name that only looks like a catalogue name (a no-break space, a word joiner, full-width
        // letters) is that lift, and the summary says it was mapped.
        if let catalogue = Catalog.namesByKey[Catalog.aliasKey(name)] { return (catalogue, name) }
        if let alias = Catalog.aliases[Catalog.aliasKey(name)] {
            return (try resolveExercise(alias, db: db), name)
        }
        let existed =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM exercises WHERE name = ? COLLATE NOCASE)"),
                arguments: [name]) ?? false
        let resolved = try resolveExercise(name, db: db)
        if !existed, !result.customCreated.contains(resolved) { result.customCreated.append(resolved) }
        return (resolved, nil)
    }
}

extension WorkoutLog {
    /// Stores imported sets as if logged, grouped into their workouts, each with its outbox
    /// operation so they sync like any other (in batches). Ids derive from the rows' content,
    /// so importing the same file twice adds nothing.
    /// - Parameter dryRun: read, map and count everything in one transaction, then roll it back:
    ///   the report of an import, with nothing written.
    /// - Parameter progress: told the rows done after each chunk.
    public func importSets(
        _ sets: [ImportedSet], chunkSize: Int = 20_000, dryRun: Bool = false,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportResult {
        if dryRun {
            var result = ImportResult()
            let now = self.now
            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    var names: [String: ImportedName] = [:]
                    var dirty: Set<[UInt8]> = []
                    for group in Self.importGroups(sets) {
                        try store.importWorkout(
                            key: group.key, rows: group.rows, db: db, now: now, result: &result, names: &names,
                            dirty: &dirty)
                    }
                    return .rollback
                }
            }
            return result
        }
        // Each chunk changes thousands of pages (random ids: every index leaf). With the default
        // 2 MiB cache each chunk read its pages back from the file and spilled them mid-transaction;
        // the writer keeps a bigger cache (and a later checkpoint) only while the import runs, as
        // a big page of the feed does. The same commits, the same synchronous mode.
        let (cacheSize, autocheckpoint) = try writer.writeWithoutTransaction { db in
            let settings = (
                try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000,
                try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 1000
            )
            try db.execute(sql: "PRAGMA cache_size = -65536; PRAGMA wal_autocheckpoint = 8192")
            return settings
        }
        defer {
            try? writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = \(cacheSize); PRAGMA wal_autocheckpoint = \(autocheckpoint)")
            }
        }
        var result = ImportResult()
        var names: [String: ImportedName] = [:]
        var done = 0
        var groups = Self.importGroups(sets)[...]
        // Workouts are written in transactions of at most `chunkSize` rows and about a quarter of a
        // second each: few enough commits (each flushes the WAL, and each rewrites the index pages
        // of its random ids) and short enough that a set logged meanwhile waits at most that long.
        let budget = Duration.milliseconds(250)
        while !groups.isEmpty {
            let now = self.now
            try writer.write { db in
                let began = ContinuousClock.now
                var rows = 0
                var dirty: Set<[UInt8]> = []  // known within this transaction only
                repeat {
                    let group = groups.removeFirst()
                    try store.importWorkout(
                        key: group.key, rows: group.rows, db: db, now: now, result: &result, names: &names,
                        dirty: &dirty)
                    rows += group.rows.count
                } while !groups.isEmpty && rows < chunkSize && ContinuousClock.now - began < budget
                done += rows
            }
            progress?(done, sets.count)
        }
        // Imported sets come in file order, not performed order: recompute their exercises now.
        try store.refreshRecords()
        return result
    }
}

extension WorkoutLog {
    /// The rows grouped into their workouts (name and start), in file order, each workout's sets
    /// in file order with every block of an exercise in set-number order.
    static func importGroups(_ sets: [ImportedSet]) -> [ImportGroup] {
        var order: [String] = []
        var groups: [String: [ImportedSet]] = [:]
        for set in sets {
            let key = "\(Timestamp.format(set.workoutStart))|\(set.workoutName)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(set)
        }
        return order.map { key in
            var rows = groups[key]!
            // Sets keep the file's order; within one block of an exercise (a run of its rows) they
            // follow its set numbers. A block repeated later in the workout stays where it is.
            if rows.contains(where: { $0.setOrder != nil }) { rows = orderedWithinBlocks(rows) }
            return ImportGroup(key: key, rows: rows)
        }
    }

    /// `rows` in file order, the numbered rows of each run of one exercise in set-number order
    /// (stable), in the places numbered rows held: a row without a number (Strong's "W") keeps
    /// its own place.
    static func orderedWithinBlocks(_ rows: [ImportedSet]) -> [ImportedSet] {
        var ordered: [ImportedSet] = []
        ordered.reserveCapacity(rows.count)
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count, rows[end].exercise == rows[start].exercise { end += 1 }
            var block = Array(rows[start..<end])
            let slots = block.indices.filter { block[$0].setOrder != nil }
            let numbered = slots.map { block[$0] }.enumerated().sorted { lhs, rhs in
                let (left, right) = (lhs.element.setOrder ?? 0, rhs.element.setOrder ?? 0)
                return left != right ? left < right : lhs.offset < rhs.offset
            }.map(\.element)
            for (slot, row) in zip(slots, numbered) { block[slot] = row }
            ordered += block
            start = end
        }
        return ordered
    }
}

extension Queries {
    /// Every live set with its workout, in workout and set order, for export.
    public func exportRows() throws -> [ExportRow] {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.*, w.id AS w_id, w.name AS w_name, w.started_at AS w_started_at,
                        w.ended_at AS w_ended_at, w.notes AS w_notes, w.exercise_notes AS w_exercise_notes
                    FROM sets s JOIN workouts w ON w.id = s.workout_id
                    WHERE s.deleted_at IS NULL AND w.deleted_at IS NULL AND \(store.visible("s."))
                    ORDER BY w.started_at, w.id, s.position
                    """
            )
            return try store.readable(rows) { row in
                ExportRow(workout: try Workout(row: row, prefix: "w_"), set: try WorkoutSet(row: row))
            }
        }
    }
}

/// A name of an imported file as the import takes it: the exercise, and the file's name when the
/// alias table mapped it.
struct ImportedName {
    let name: String
    let alias: String?
}

/// What the import compares to tell a row already present: a set's content, its text as bytes
/// (SQLite's `=` on text is binary, where Swift's `==` would take canonically equal strings as one).
struct ImportedContent: Hashable {
    let exercise: [UInt8]?
    let kind: [UInt8]?
    let weight: Double?
    var unit: [UInt8]?
    let reps: Int64?
    let rpe: Double?
    let distanceM: Double?
    let durationS: Double?
    let notes: [UInt8]?
}

/// The id a row whose unit the file does not name would have under the other unit.
struct OtherUnitID {
    let unit: WeightUnit
    let id: UUID
}

/// The rows of one imported workout (its start and name are the key), written together.
struct ImportGroup {
    let key: String
    let rows: [ImportedSet]
}

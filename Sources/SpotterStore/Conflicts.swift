import Foundation
import GRDB
import SpotterCore

/// The values the server's merge overrode (pulled from the change feed), kept so the user sees
/// each one and can take it back or dismiss it; and the clock every edit made here is stamped by.
public struct ConflictLog: StorePart {
    let store: SpotterStore
}

extension SpotterStore {
    public var conflicts: ConflictLog { ConflictLog(store: self) }
}

/// A conflict as this device keeps it.
public struct StoredConflict: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        /// Not acted on yet: counted and listed.
        case open
        /// The overridden value was queued again as a new edit.
        case taken
        case dismissed
    }

    public var record: ConflictRecord
    public var status: Status
    /// Whether this device's edit is the one overridden (else another device's was).
    public var overriddenHere: Bool
    /// Whether the kept value came from this device.
    public var keptFromHere: Bool

    /// "Bench Press (Barbell) set in 'Push': reps 6 from this device was replaced by 7 from
    /// another device, 10:05", in `timeZone`.
    public func sentence(timeZone: TimeZone = .current) -> String {
        "\(record.label): \(change(timeZone: timeZone))"
    }

    /// What happened, without naming the entity: "reps 6 from this device was replaced by 7 from
    /// another device, 10:05".
    public func change(timeZone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = timeZone
        formatter.dateFormat = "HH:mm"
        let when = formatter.string(
            from: Date(timeIntervalSince1970: Double(record.keptStamp.milliseconds) / 1000))
        let overriddenFrom = overriddenHere ? "this device" : "another device"
        let keptFrom = keptFromHere ? "this device" : "another device"
        if record.isDeleteOverEdit && record.overriddenStamp.device == Self.serverDevice {
            // A set the deleting device never saw, taken with its workout: nobody's edit, and the
            // server cannot tell which device logged it.
            return "the set (\(Self.shown(record.overridden))) went with its workout, deleted on \(keptFrom)"
                + " before it had seen the set, \(when)"
        }
        if record.isDeleteOverEdit {
            return "your edit (\(Self.shown(record.overridden))) from \(overriddenFrom) was dropped:"
                + " it was deleted on \(keptFrom == "this device" ? "this device" : "another device"), \(when)"
        }
        return "\(Self.fieldName(record.field)) \(Self.shown(record.overridden)) from "
            + "\(overriddenFrom) was replaced by \(Self.shown(record.kept)) from \(keptFrom), \(when)"
    }

    /// The device a stamp names when the server made it (a set created without one).
    static let serverDevice = "server"

    /// How a field is called to a person.
    public static func fieldName(_ field: String) -> String {
        if field.hasPrefix(RoutineMerge.exercisesField + "/") { return RoutineMerge.readable(field) }
        return switch field {
        case "distance_m": "distance"
        case "duration_s": "duration"
        case "performed_at": "time"
        case "started_at": "start"
        case "ended_at": "end"
        case "workout_id": "workout"
        case "rpe": "RPE"
        default: field
        }
    }

    /// A value as a person reads it: text without quotes, a weight with its unit, none for null.
    public static func shown(_ value: JSONValue) -> String {
        switch value {
        case .null: return "none"
        case .string(let text): return "'\(text)'"
        case .bool(let flag): return flag ? "yes" : "no"
        case .object(let fields):
            if let weight = fields["weight"]?.doubleValue, let unit = fields["unit"]?.stringValue {
                // A whole set (one a workout's delete took unseen) reads as its weight × reps.
                let reps = fields["reps"]?.intValue.map { " × \($0)" } ?? ""
                return "\(Formatting.number(weight)) \(unit)\(reps)"
            }
            return fields.keys.sorted().map { "\(fieldName($0)) \(shown(fields[$0] ?? .null))" }.joined(
                separator: ", ")
        default:
            if let number = value.doubleValue { return Formatting.number(number) }
            return value.canonicalString
        }
    }
}

extension SpotterStore {
    static let clockKey = "clock_last"

    /// This database's device id: the last part of every clock stamp it makes.
    func deviceID(db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.deviceID])
            ?? QueueOwner.deviceID
    }

    /// A stamp seen from elsewhere moves this device's clock past it, so an edit made here after
    /// seeing another device's edit is stamped later than it, whatever this device's clock says.
    func observe(_ stamp: ClockStamp, db: Database) throws {
        let last = try String.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [Self.clockKey]
        ).flatMap { ClockStamp($0) }
        guard last.map({ stamp.milliseconds > $0.milliseconds }) ?? true else { return }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").execute(arguments: [
            Self.clockKey,
            ClockStamp(milliseconds: stamp.milliseconds, counter: stamp.counter, device: "seen").description,
        ])
    }

    /// Keeps a pulled conflict (once: the feed may bring it again). Returns whether it was new.
    func saveConflict(_ record: ConflictRecord, db: Database) throws -> Bool {
        try observe(record.keptStamp, db: db)
        try observe(record.overriddenStamp, db: db)
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO conflicts (id, account, entity_type, entity_id, field, kept, overridden,
                    kept_stamp, overridden_stamp, label, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            record.id.wireString, userID, record.entityType.rawValue, record.entityID.wireString, record.field,
            record.kept.canonicalString, record.overridden.canonicalString, record.keptStamp.description,
            record.overriddenStamp.description, record.label, Timestamp.format(record.recordedAt),
        ])
        return db.changesCount > 0
    }
}

extension ConflictLog {
    fileprivate static func read(_ row: Row, device: String) throws -> StoredConflict {
        // Every cell through `Row.cell`: one that does not read (bytes, a number) makes the row
        // unreadable, named by its id, never a trap.
        func text(_ column: String) -> String? { row.cell(column, as: String.self) }
        func json(_ column: String) -> JSONValue { JSONValue.parse(text(column) ?? "") ?? .null }
        let id = text("id") ?? "?"
        guard let uuid = UUID(wire: id), let entityID = UUID(wire: text("entity_id") ?? ""),
            let type = EntityType(rawValue: text("entity_type") ?? ""),
            let keptStamp = ClockStamp(recorded: text("kept_stamp") ?? ""),
            let overriddenStamp = ClockStamp(recorded: text("overridden_stamp") ?? ""),
            let recordedAt = Timestamp.parse(text("recorded_at") ?? ""),
            let status = StoredConflict.Status(rawValue: text("status") ?? ""), let field = text("field"),
            let label = text("label")
        else { throw UnreadableRow(table: "conflicts", id: id, reason: "a column does not read") }
        let record = ConflictRecord(
            id: uuid, entityType: type, entityID: entityID, field: field, kept: json("kept"),
            overridden: json("overridden"), keptStamp: keptStamp, overriddenStamp: overriddenStamp,
            label: label, recordedAt: recordedAt)
        return StoredConflict(
            record: record, status: status, overriddenHere: overriddenStamp.device == device,
            keptFromHere: keptStamp.device == device)
    }

    /// This account's conflicts, newest first: the open ones, or all of them.
    public func list(includeSettled: Bool = false) throws -> [StoredConflict] {
        try writer.read { db in
            let device = try store.deviceID(db: db)
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM conflicts WHERE account = ? \(includeSettled ? "" : "AND status = 'open'")
                    ORDER BY recorded_at DESC, id DESC
                    """, arguments: [userID]
            ).map { try Self.read($0, device: device) }
        }
    }

    /// How many conflicts wait for the user.
    public func openCount() throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM conflicts WHERE account = ? AND status = 'open'", arguments: [userID])
                ?? 0
        }
    }

    /// The sentences of conflicts not yet announced, marked announced: what the engine posts
    /// as notices after a pull.
    public func takeAnnouncements() throws -> [String] {
        try writer.write { db in
            let device = try store.deviceID(db: db)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM conflicts WHERE account = ? AND status = 'open' AND announced = 0
                    ORDER BY recorded_at, id
                    """, arguments: [userID])
            try db.execute(
                sql: "UPDATE conflicts SET announced = 1 WHERE account = ? AND announced = 0", arguments: [userID])
            return try rows.map { try Self.read($0, device: device).sentence() }
        }
    }

    /// The conflict whose id is or starts with `id` (at least 8 characters), this account's.
    public func find(_ id: String) throws -> StoredConflict {
        let needle = id.lowercased()
        guard needle.count >= 8 else { throw StoreError.notFound("conflict \(id) (give at least 8 characters)") }
        let matches = try list(includeSettled: true).filter {
            $0.record.id.wireString.hasPrefix(needle) || $0.record.id.wireString.hasSuffix(needle)
        }
        guard matches.count == 1, let match = matches.first else {
            throw StoreError.notFound(matches.isEmpty ? "conflict \(id)" : "more than one conflict matches \(id)")
        }
        return match
    }

    /// Takes the overridden value back: a new edit of the field, stamped now, so it syncs and wins
    /// the next merge. A delete that won cannot be taken back here (the entity is gone): say so.
    public func takeBack(_ id: String) throws -> StoredConflict {
        let conflict = try find(id)
        guard conflict.status == .open else {
            throw StoreError.notAllowed("conflict \(conflict.record.id.wireString) is already \(conflict.status)")
        }
        let record = conflict.record
        // A set that went with a workout deleted on another device before it had seen the set: the
        // set exists now only in this record. Taking it back logs it again, as it was, into the
        // workout's restored copy (the one made before, or a new one started when it was done).
        if record.isDeleteOverEdit, record.entityType == .set,
            record.overriddenStamp.device == StoredConflict.serverDevice,
            var fields = record.overridden.objectValue
        {
            // The record keeps the set's fields but its id (the record's entity).
            fields[WorkoutSet.Column.id.name] = .string(record.entityID.wireString)
            guard let set = try? JSONDecoder().decode(WorkoutSet.self, from: JSONValue.object(fields).canonicalData)
            else { throw StoreError.notAllowed("\(record.label): the set's values in this conflict do not read") }
            // The workout's name, when this device no longer has its row: the record's label
            // names it ("Bench Press (Barbell) set in 'Push'").
            let prefix = "\(set.exercise) set in '"
            let named =
                record.label.hasPrefix(prefix) && record.label.hasSuffix("'") && record.label.count > prefix.count
                ? String(record.label.dropFirst(prefix.count).dropLast()) : nil
            try takeBackIntoRestoredWorkout(set, workoutName: named, conflictID: record.id.wireString)
            var taken = conflict
            taken.status = .taken
            return taken
        }
        guard !record.isDeleteOverEdit else {
            throw StoreError.notAllowed(
                "\(record.label) was deleted on another device: there is nothing to take back into (dismiss it)")
        }
        let now = store.now
        try writer.write { db in
            guard let table = EntityTable.table(record.entityType),
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT EXISTS(SELECT 1 FROM \(table) WHERE id = ? AND deleted_at IS NULL AND \(store.visible()))",
                    arguments: [record.entityID.wireString]) == true
            else { throw StoreError.notFound("\(record.label) is no longer on this device") }
            var patch: [String: JSONValue] = [:]
            if case .object(let fields) = record.overridden, record.field == "weight" {
                patch = fields
            } else if record.field.hasPrefix(RoutineMerge.exercisesField + "/") {
                // A routine's planned row: its field set back in the list the routine has now.
                guard
                    let current = try EntityTable.wireFields(.routine, id: record.entityID.wireString, db: db)?[
                        RoutineMerge.exercisesField],
                    let list = RoutineMerge.setting(record.field, to: record.overridden, in: current)
                else {
                    throw StoreError.notAllowed(
                        "\(StoredConflict.fieldName(record.field)) is no longer in \(record.label): edit the routine instead"
                    )
                }
                patch[RoutineMerge.exercisesField] = list
            } else {
                patch[record.field] = record.overridden
            }
            try store.applyEdit(type: record.entityType, id: record.entityID.wireString, patch: patch, db: db, now: now)
            try db.execute(
                sql: "UPDATE conflicts SET status = 'taken' WHERE id = ?", arguments: [record.id.wireString])
            if record.entityType == .set { try SpotterStore.refreshRecords(db) }
        }
        var taken = conflict
        taken.status = .taken
        return taken
    }

    private func takeBackIntoRestoredWorkout(_ set: WorkoutSet, workoutName: String?, conflictID: String) throws {
        let now = store.now
        try writer.write { db in
            let workoutKey = set.workoutID.wireString
            // Ids from the set's and the workout's own: the same take on another device makes the
            // same copy, which the server takes as the one it has, never a second.
            let derivedCopy = ContentID.uuid("spotter-restored-workout|\(workoutKey)")
            let derivedSet = ContentID.uuid("spotter-restored-set|\(set.id.wireString)")
            let copyID: String
            if try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL AND \(store.visible()))",
                arguments: [derivedCopy.wireString]) == true
            {
                copyID = derivedCopy.wireString  // taken back on another device already: that copy
            } else if let kept = try String.fetchOne(
                db,
                sql: """
                    SELECT r.restored_id FROM restored_workouts r
                    JOIN workouts w ON w.id = r.restored_id AND w.deleted_at IS NULL
                    WHERE r.workout_id = ?
                    """, arguments: [workoutKey])
            {
                copyID = kept
            } else if try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS(SELECT 1 FROM workouts WHERE id = ? AND deleted_at IS NULL AND \(store.visible()))",
                arguments: [workoutKey]) == true
            {
                copyID = workoutKey  // the workout is here after all (restored by undo): back into it
            } else {
                let name =
                    try String.fetchOne(db, sql: "SELECT name FROM workouts WHERE id = ?", arguments: [workoutKey])
                    ?? workoutName ?? "Workout"
                let copy = Workout(
                    id: derivedCopy, name: SpotterStore.restoredName(name),
                    startedAt: Timestamp.truncated(set.performedAt))
                try store.insertWorkout(copy, db: db, now: now)
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO restored_workouts (workout_id, restored_id, account, name, restored_name, untold)
                        VALUES (?, ?, ?, ?, ?, 0)
                        """, arguments: [workoutKey, copy.id.wireString, userID, name, copy.name])
                copyID = copy.id.wireString
            }
            guard let copy = UUID(wire: copyID) else {
                throw UnreadableRow(table: "restored_workouts", id: workoutKey, reason: "restored_id is not a UUID")
            }
            let alreadyBack =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS(SELECT 1 FROM sets WHERE id = ? AND deleted_at IS NULL)",
                    arguments: [derivedSet.wireString]) ?? false
            if alreadyBack {
                try db.execute(sql: "UPDATE conflicts SET status = 'taken' WHERE id = ?", arguments: [conflictID])
                return
            }
            _ = try store.logValidatedSet(
                LogSetInput(
                    exercise: set.exercise, weight: set.weight, unit: set.unit, reps: set.reps, rpe: set.rpe,
                    kind: set.kind, distanceM: set.distanceM, durationS: set.durationS, notes: set.notes,
                    workout: .existing(copy), performedAt: set.performedAt),
                id: derivedSet, db: db, now: now)
            try db.execute(sql: "UPDATE conflicts SET status = 'taken' WHERE id = ?", arguments: [conflictID])
        }
    }

    /// Dismisses one conflict (the kept value stays), or every open one when `id` is nil;
    /// returns how many were dismissed.
    @discardableResult
    public func dismiss(_ id: String?) throws -> Int {
        let target = try id.map { try find($0) }
        if let target, target.status != .open {
            throw StoreError.notAllowed("conflict \(target.record.id.wireString) is already \(target.status)")
        }
        return try writer.write { db in
            if let target {
                try db.execute(
                    sql: "UPDATE conflicts SET status = 'dismissed' WHERE id = ?",
                    arguments: [target.record.id.wireString])
            } else {
                try db.execute(
                    sql: "UPDATE conflicts SET status = 'dismissed' WHERE account = ? AND status = 'open'",
                    arguments: [userID])
            }
            return db.changesCount
        }
    }
}

import Foundation
import GRDB
import SpotterCore

extension SpotterStore {
    /// Writes a weigh-in the server sent (the feed, or the answer to a write of it) as synced.
    func upsert(_ entry: BodyWeight, stamp: ServerStamp, db: Database, now: String) throws {
        if try upsertSynced(entry, id: entry.id, stamp: stamp, db: db, now: now) {
            try Self.markBodyWeightLiftsDirty(db: db)
        }
    }
}

/// A weigh-in as the device holds it: the entry and whether the server has it yet.
public struct BodyWeightEntry: Sendable, Equatable {
    public var bodyWeight: BodyWeight
    public var syncState: SyncState
    public var syncError: String?

    /// "2026-11-20 07:30  81.4 kg  after breakfast": what every listing shows of a weigh-in.
    public var summary: String {
        var line =
            "\(BodyWeightDate.shown(bodyWeight.measuredAt))  \(Formatting.weight(bodyWeight.weight, unit: bodyWeight.unit))"
        if let notes = bodyWeight.notes { line += "  " + DisplayText.replacingControls(notes) }
        return line
    }
}

extension WorkoutLog {
    /// Logs a weigh-in: the row and its create in one transaction, like a set.
    @discardableResult
    public func logBodyWeight(
        _ weight: Double, unit: WeightUnit, at measuredAt: Date? = nil, notes: String? = nil,
        id: UUID = .timeOrdered()
    ) throws -> BodyWeight {
        let now = self.now
        let entry = BodyWeight(
            id: id, measuredAt: Timestamp.truncated(measuredAt ?? now), weight: Validation.keptWeight(weight),
            unit: unit,
            notes: Self.cleanNotes(notes))
        try store.checked { () throws(ValidationError) in try Validation.bodyWeight(entry) }
        return try writer.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO body_weights (\(BodyWeight.Column.columnList), updated_at, sync_state, account)
                    VALUES (\(placeholders(BodyWeight.Column.allCases.count)), ?, \(SyncState.pending.sql), ?)
                    """
            ).execute(
                arguments: StatementArguments(
                    entry.columnArguments + [Timestamp.format(now).databaseValue, userID.databaseValue]))
            _ = try Outbox.appendCreate(
                db, user: userID, type: .bodyWeight, id: entry.id.wireString, payload: entry.wireFields,
                dependency: nil, now: now)
            try SpotterStore.markBodyWeightLiftsDirty(db: db)
            try SpotterStore.refreshRecords(db)
            return entry
        }
    }

    /// Edits a weigh-in: only the fields given change (`notes: .some(nil)` clears the note), and
    /// only what changed is queued, stamped, so another device's edit of another field stands.
    @discardableResult
    public func editBodyWeight(
        _ id: UUID, weight: Double? = nil, unit: WeightUnit? = nil, measuredAt: Date? = nil,
        notes: String?? = nil
    ) throws -> BodyWeight {
        let now = self.now
        return try writer.write { db in
            let old = try store.liveBodyWeight(id, db: db)
            var new = old
            if let weight { new.weight = Validation.keptWeight(weight) }
            if let unit { new.unit = unit }
            if let measuredAt { new.measuredAt = Timestamp.truncated(measuredAt) }
            if let notes { new.notes = Self.cleanNotes(notes) }
            try store.checked { () throws(ValidationError) in try Validation.bodyWeight(new) }
            try store.applyChanges(
                type: .bodyWeight, id: id.wireString, from: old.wireFields, to: new.wireFields, db: db, now: now)
            try SpotterStore.markBodyWeightLiftsDirty(db: db)
            try SpotterStore.refreshRecords(db)
            return new
        }
    }

    /// Deletes a weigh-in; one the server never had is simply removed.
    public func deleteBodyWeight(_ id: UUID) throws {
        let now = self.now
        try writer.write { db in
            let key = id.wireString
            _ = try store.liveBodyWeight(id, db: db)
            if try !store.queueDelete(type: .bodyWeight, id: key, db: db, now: now) {
                try db.cachedStatement(
                    sql: """
                        UPDATE body_weights SET deleted_at = ?, updated_at = ?, sync_state = \(SyncState.pending.sql), sync_error = NULL
                        WHERE id = ?
                        """
                ).execute(arguments: [Timestamp.format(now), Timestamp.format(now), key])
            }
            try SpotterStore.markBodyWeightLiftsDirty(db: db)
            try SpotterStore.refreshRecords(db)
        }
    }

    /// A note as typed: surrounding blanks dropped, an empty note none.
    static func cleanNotes(_ notes: String?) -> String? {
        guard let notes else { return nil }
        let trimmed = Validation.trimmed(notes)
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension SpotterStore {
    /// The live weigh-in `id` of this account, or `notFound`.
    func liveBodyWeight(_ id: UUID, db: Database) throws -> BodyWeight {
        guard
            let entry = try BodyWeight.filter(key: id.wireString).filter(sql: "deleted_at IS NULL AND \(visible())")
                .fetchOne(db)
        else { throw StoreError.notFound("body weight \(id.wireString)") }
        return entry
    }

    /// The live weigh-ins of this account, oldest first: what effective loads look up.
    func bodyWeights(db: Database) throws -> [BodyWeight] {
        try readable(
            Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM body_weights WHERE deleted_at IS NULL AND \(visible())
                        ORDER BY measured_at, id
                        """))
        ) { try BodyWeight(row: $0) }
    }
}

extension Queries {
    /// The live weigh-ins, newest first, each with whether the server has it.
    public func bodyWeights(limit: Int = 10_000) throws -> [BodyWeightEntry] {
        try writer.read { db in
            try store.readable(
                Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT * FROM body_weights WHERE deleted_at IS NULL AND \(store.visible())
                            ORDER BY measured_at DESC, id DESC LIMIT ?
                            """), arguments: [limit])
            ) { row in
                let entry = try BodyWeight(row: row)
                // A state that does not read is said (the row is reported), never taken as pending.
                guard let state = row.cell("sync_state", as: String.self).flatMap(SyncState.init(rawValue:)) else {
                    throw UnreadableRow(
                        table: "body_weights", id: entry.id.wireString, reason: "sync_state does not read")
                }
                return BodyWeightEntry(
                    bodyWeight: entry, syncState: state, syncError: row.cell("sync_error", as: String.self))
            }
        }
    }

    /// The weigh-in in force at `date` (the latest at or before it), or nil.
    public func bodyWeight(at date: Date) throws -> BodyWeight? {
        try writer.read { db in
            try BodyWeight.filter(BodyWeight.Column.measuredAt <= Timestamp.format(date))
                .filter(sql: "deleted_at IS NULL AND \(store.visible())")
                .order(BodyWeight.Column.measuredAt.desc, BodyWeight.Column.id.desc).fetchOne(db)
        }
    }
}

extension SpotterStore {
    /// Adopts the device's own weigh-ins into the account at first login, as routines are.
    func adoptDeviceBodyWeights(db: Database, now: Date) throws -> Int {
        try adoptDeviceRows(.bodyWeight, db: db, now: now) { try BodyWeight(row: $0).wireFields }
    }
}

/// What an import of weigh-ins did.
public struct WeighInImport: Sendable, Equatable {
    public var added = 0
    /// Weigh-ins this account holds already (the same file again, or Spotter's own export).
    public var alreadyPresent = 0
}

extension WorkoutLog {
    /// Imports weigh-ins read from a file, each a row and its queued create, in one transaction.
    /// Ids come from the content, and a live weigh-in of the same second, weight and unit is the
    /// same one, so importing a file twice (or Spotter's own export) adds nothing.
    public func importBodyWeights(_ entries: [ImportedWeighIn], dryRun: Bool = false) throws -> WeighInImport {
        let now = self.now
        let owner = userID
        let work = { (db: Database) throws -> WeighInImport in
            var result = WeighInImport()
            let present = try db.cachedStatement(
                sql: """
                    SELECT EXISTS(SELECT 1 FROM body_weights WHERE deleted_at IS NULL AND \(store.visible())
                        AND (id = ? OR (substr(measured_at, 1, 19) = ? AND weight = ? AND unit = ?)))
                    """)
            for imported in entries {
                let measuredAt = Timestamp.truncated(imported.measuredAt)
                let stamp = Timestamp.format(measuredAt)
                let id = ContentID.uuid(
                    "body_weight|\(owner)|\(stamp)|\(Formatting.number(imported.weight))|\(imported.unit.rawValue)")
                if try Bool.fetchOne(
                    present,
                    arguments: [id.wireString, String(stamp.prefix(19)), imported.weight, imported.unit.rawValue]
                ) == true {
                    result.alreadyPresent += 1
                    continue
                }
                result.added += 1
                if dryRun { continue }
                let entry = BodyWeight(
                    id: id, measuredAt: measuredAt, weight: imported.weight, unit: imported.unit,
                    notes: Self.cleanNotes(imported.notes))
                try store.checked { () throws(ValidationError) in try Validation.bodyWeight(entry) }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO body_weights (\(BodyWeight.Column.columnList), updated_at, sync_state, account, imported)
                        VALUES (\(placeholders(BodyWeight.Column.allCases.count)), ?, \(SyncState.pending.sql), ?, 1)
                        """
                ).execute(
                    arguments: StatementArguments(
                        entry.columnArguments + [Timestamp.format(now).databaseValue, owner.databaseValue]))
                _ = try Outbox.appendCreate(
                    db, user: owner, type: .bodyWeight, id: id.wireString, payload: entry.wireFields, dependency: nil,
                    now: now)
            }
            if result.added > 0, !dryRun {
                try SpotterStore.markBodyWeightLiftsDirty(db: db)
                try SpotterStore.refreshRecords(db)
            }
            return result
        }
        return try dryRun ? writer.read(work) : writer.write(work)
    }
}

extension Queries {
    /// Every live weigh-in, oldest first, for an export.
    public func exportBodyWeights() throws -> [BodyWeight] {
        try bodyWeights().map(\.bodyWeight).reversed()
    }
}

extension Queries {
    /// What a lift's logged weight means (from its catalogue equipment and its name).
    public func loadType(of exercise: String) throws -> LoadType {
        try writer.read { db in try SpotterStore.loadType(exercise, db: db) }
    }
}

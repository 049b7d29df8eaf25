import Foundation
import GRDB

/// Room on the disk the database lives on, and what to do when there is none.
///
/// SQLite appends every commit to the `-wal` file and copies it into the database at a
/// checkpoint; the copy may have to grow the database, so a checkpoint needs room too. On a
/// full disk a commit fails (`SQLITE_FULL`) and nothing of it is kept: the set the user typed is
/// refused whole, an answer the sync engine got is not recorded. Two things keep a device from
/// staying stuck once room comes back:
///
/// - the WAL is checkpointed and truncated as soon as writes fail for lack of space (and again
///   before the engine's next try), so the room it holds goes back to the file system instead of
///   being filled again by the next writes; `journal_size_limit` cuts it back after every
///   checkpoint, so an import's big WAL does not keep its size for good;
/// - the engine claims no more operations than the disk has room to record the answers of
///   (`affordableOperations`), so it never sends what it then cannot write down.
public enum DiskSpace {
    /// Room kept free for the user's own writes and SQLite's checkpoints: below it the engine
    /// claims nothing and says the disk is full.
    public static let reserve: Int64 = 1 << 20
    /// What recording one operation's answer takes at most: its outbox row and its entity's row
    /// touch a few pages, each written whole to the WAL (4 KiB and a frame header).
    public static let perOperation: Int64 = 8 << 10
    /// What merging one pulled change takes at most: a page of the feed writes thousands of rows
    /// together, so its pages are shared (a page of 5 000 sets needs about 5 MiB of room).
    public static let perPulledChange: Int64 = 1 << 10
    /// The longest the WAL is left after a checkpoint (SQLite otherwise keeps its largest size).
    public static let journalSizeLimit = 8 << 20

    /// Bytes an unprivileged process may still write on the file system holding `path` (a file
    /// or folder that exists), or nil when it cannot be told.
    public static func available(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The size of the `-wal` file beside the database at `path` (0 when there is none).
    static func journalSize(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int).map(Int64.init) ?? 0
    }

    /// "free some space": the sentence the status and the engine say (nil: the room is not known).
    public static func fullReason(available: Int64?) -> String {
        let room = available.map { " (\($0 / 1024) KiB free where the database is)" } ?? " where the database is"
        return "the disk is full\(room): free some space; what waits is sent by itself once there is room"
    }
}

extension StoreError {
    /// Whether `error` comes from SQLite (and `oneLine` words it: "the disk is full", …).
    public static func isDatabaseError(_ error: any Error) -> Bool { error is DatabaseError }

    /// Whether `error` is SQLite saying the disk is full (a commit that found no room).
    public static func isDiskFull(_ error: any Error) -> Bool {
        guard let database = error as? DatabaseError else { return false }
        return database.resultCode.primaryResultCode == .SQLITE_FULL
    }
}

extension SpotterStore {
    /// The folder holding the database (its `-wal` grows there).
    var folder: String { Self.folder(of: path) }

    /// The folder holding the database file at `path`.
    static func folder(of path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// Why the disk has no room for sync work now, or nil when it has (or cannot be told).
    public func diskFullReason() -> String? {
        guard let available = DiskSpace.available(at: folder), available < DiskSpace.reserve else { return nil }
        return DiskSpace.fullReason(available: available)
    }

    /// Why sync work must wait although some room came back, or nil: after a checkpoint could not
    /// complete, the changes in the WAL still have to be copied into the database, which may grow
    /// by as much. Writing more first would only grow the WAL into the room that copy needs (the
    /// way a device stayed stuck after a full disk was freed), so the engine waits until the disk
    /// has room for the copy, trying it again each time it looks.
    public func journalNeedsRoom() -> String? {
        let journal = DiskSpace.journalSize(of: path)
        guard journal > 0, let available = DiskSpace.available(at: folder), available < journal + DiskSpace.reserve
        else { return nil }
        return "the disk is full: \(journal >> 20) MiB of changes in \(path)-wal wait to be copied into "
            + "the database, which needs that much room (\(available / 1024) KiB free): free some space; what waits "
            + "is sent by itself once there is room"
    }

    /// Why a page of `changes` pulled changes must not be merged now (the disk has no room for it
    /// beyond the reserve), or nil when it may. A pull never fills the disk the user logs on.
    public func noRoomToMerge(_ changes: Int) -> String? {
        guard let available = DiskSpace.available(at: folder),
            available - DiskSpace.reserve < Int64(changes) * DiskSpace.perPulledChange
        else { return nil }
        return DiskSpace.fullReason(available: available)
    }

    /// How many of `limit` operations may be claimed so that their answers can still be recorded:
    /// `limit` when there is room, fewer when the disk is nearly full, 0 below the reserve.
    public func affordableOperations(_ limit: Int) -> Int {
        guard let available = DiskSpace.available(at: folder) else { return limit }
        let room = (available - DiskSpace.reserve) / DiskSpace.perOperation
        return Int(max(0, min(Int64(limit), room)))
    }

    /// Copies the WAL into the database and truncates it, giving its room back to the file system
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`); called once writes fail for lack of space. Returns
    /// whether it completed: it cannot while the database itself has no room to grow into, nor
    /// while another connection reads an older snapshot; nothing is lost either way.
    @discardableResult
    public func reclaimJournalSpace() -> Bool {
        guard !isReadOnly else { return false }
        do {
            return try writer.writeWithoutTransaction { db in
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                return (row?[0] as Int?) == 0
            }
        } catch {
            return false
        }
    }
}

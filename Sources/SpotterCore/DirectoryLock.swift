import Foundation

/// An exclusive lock on a database's directory (not on the database file, whose locks belong to
/// SQLite: closing any other descriptor of that file would drop them), so two processes opening a
/// new file at once do not both create it and its tables. Held only while opening and migrating:
/// never while the database is in use. The device's store and the server's SQLite store take it.
public enum DirectoryLock {
    public static func holding<T>(_ directory: URL, _ body: () throws -> T) throws -> T {
        let descriptor = Foundation.open(directory.path, O_RDONLY)
        if descriptor >= 0 {
            flock(descriptor, LOCK_EX)
        }
        defer {
            if descriptor >= 0 {
                flock(descriptor, LOCK_UN)
                close(descriptor)
            }
        }
        return try body()
    }
}

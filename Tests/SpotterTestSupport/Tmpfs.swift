import Foundation
import SpotterStore

/// A small file system of a test's own, to fill: a tmpfs mounted on a folder (root only).
public enum Tmpfs {
    /// Whether a tmpfs can be mounted here (root, and a kernel and sandbox that allow it).
    public static let works: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-tmpfs-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard mount(on: probe, size: "1m") else { return false }
        unmount(probe)
        return true
    }()

    /// Mounts a tmpfs of `size` ("16m") on the existing folder `path`; whether it did.
    public static func mount(on path: String, size: String) -> Bool {
        Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(size)") == 0
    }

    /// Unmounts it (lazily: a process still holding a file there does not keep it).
    public static func unmount(_ path: String) {
        umount2(path, Int32(MNT_DETACH))
    }

    /// The bytes still free on it (what the engine itself reads).
    public static func free(_ path: String) -> Int64 {
        DiskSpace.available(at: path) ?? 0
    }
}

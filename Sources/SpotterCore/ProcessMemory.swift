import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: one clock that a parent and its child read alike, so a
/// child's report (the bench's start-up child, `spotter --startup-probe`) can be set against the
/// moment it was spawned.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// This process's resident memory now and at its peak (Linux /proc, VmRSS and VmHWM), in MiB,
/// to a tenth. Here rather than in the bench: `spotter` reports it as the bench's start-up child.
public struct ProcessMemory: Sendable, Equatable {
    public var residentMiB: Double
    public var peakResidentMiB: Double

    public static func current() -> ProcessMemory {
        var memory = ProcessMemory(residentMiB: 0, peakResidentMiB: 0)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return memory }
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kib = Double(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { memory.residentMiB = (kib / 1024 * 10).rounded() / 10 }
            if fields[0] == "VmHWM:" { memory.peakResidentMiB = (kib / 1024 * 10).rounded() / 10 }
        }
        return memory
    }
}

import Foundation

/// Who holds an outbox lease: a process, named by its pid and its start time so that a pid the
/// system reused for another program is not mistaken for the holder.
///
/// A lease exists so a process that dies mid-send gives its operations back; waiting out the
/// whole lease when the holder is plainly gone (killed, crashed) only delays the next sync.
enum LeaseOwner {
    /// This process.
    static let current: String = "\(getpid()):\(startTime(of: getpid()) ?? "-")"

    /// Whether the process that took a lease still runs. Unknown formats count as alive, so
    /// their leases simply run out.
    static func isAlive(_ owner: String) -> Bool {
        let parts = owner.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0 else { return true }
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard parts[1] != "-", let started = startTime(of: pid) else { return true }
        return started == parts[1]
    }

    /// The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or nil
    /// where there is no /proc.
    static func startTime(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces), starting at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}

import Foundation
import SpotterCore
import Synchronization

/// What the UI should show about the network.
public enum Connectivity: Sendable, Equatable {
    case online
    /// The last try could not reach the server.
    case offline(reason: String)
    /// The airplane switch is on: nothing is sent.
    case airplane
    /// The server refused the token: sync pauses until the user signs in again.
    case signInRequired
    /// The device's disk has no room to record what a sync brings back: nothing is claimed or
    /// pulled until there is (the engine looks again every few seconds, by itself).
    case diskFull(reason: String)
}

/// Why a flush was asked for; concurrent triggers coalesce into one running flush.
public enum SyncTrigger: String, Sendable {
    case startup, enqueue, airplaneOff = "airplane_off", periodic, manual, resumed, retry
    /// The server answered the wait on the change feed: something is new.
    case remote
}

/// A change the engine tells the UI about.
public enum SyncEvent: Sendable, Equatable {
    /// Queue counts: `failed` is refused (and what is blocked behind it); `gaveUp` gave up without
    /// an answer (and what waits on it), which is no refusal and goes back to the queue by itself.
    case outboxChanged(pending: Int, failed: Int, gaveUp: Int = 0)
    case connectivity(Connectivity)
    case syncing(Bool)
    case opSucceeded(opID: String)
    case opFailed(opID: String, reason: String)
    case pulled(count: Int)
    case notice(String)
    /// Why the last pull did not receive everything although the server answered (the feed
    /// refused, could not be read, or could not be saved); nil once a pull reads it to its end.
    case feedProblem(String?)
}

/// The thread-safe channel from the engine to the UI. Posting never blocks; the UI drains
/// it whenever `wakeDescriptor` becomes readable (a self-pipe the UI polls beside stdin),
/// so the UI never waits on the engine and the engine never waits on the UI.
public final class SyncEventChannel: Sendable {
    private let pending = Mutex<[SyncEvent]>([])
    private let readEnd: Int32
    private let writeEnd: Int32
    /// Bound on queued events; past it repeated counts are coalesced so nothing that
    /// matters (notices, failures) is dropped while a burst of counts collapses to the newest.
    private let softLimit = 1024

    public init() {
        var fds: [Int32] = [0, 0]
        if pipe(&fds) == 0 {
            readEnd = fds[0]
            writeEnd = fds[1]
            for fd in fds {
                let flags = fcntl(fd, F_GETFL)
                _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            readEnd = -1
            writeEnd = -1
        }
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The descriptor that becomes readable when events are waiting.
    public var wakeDescriptor: Int32 { readEnd }

    public func post(_ event: SyncEvent) {
        let shouldWake: Bool = pending.withLock { pending in
            if case .outboxChanged = event,
                let last = pending.lastIndex(where: { if case .outboxChanged = $0 { true } else { false } }),
                pending.count >= softLimit || last == pending.count - 1
            {
                pending[last] = event  // only the newest count matters
            } else if case .connectivity = event, let last = pending.last, case .connectivity = last {
                pending[pending.count - 1] = event
            } else {
                pending.append(event)
            }
            return pending.count == 1
        }
        if shouldWake, writeEnd >= 0 {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// Takes every waiting event, oldest first, and clears the wake-up signal.
    public func drain() -> [SyncEvent] {
        if readEnd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &buffer, buffer.count) > 0 {}
        }
        return pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}

/// What the UI may ask of the sync engine; all of it returns at once.
public protocol SyncControlling: Sendable {
    /// Ask for a flush (push then pull); coalesces with one already running.
    func trigger(_ reason: SyncTrigger)
    /// Flip the persisted airplane switch; turning it off triggers a flush.
    func setAirplane(_ on: Bool)
}

import Foundation
import GRDB
import SpotterCore

/// A part of the store that owns one responsibility; each reads and writes through the one
/// database its store holds (the writer never leaves this module).
protocol StorePart: Sendable {
    var store: SpotterStore { get }
}

extension StorePart {
    var writer: any DatabaseWriter { store.writer }
    var userID: String { store.userID }
    var clock: any SpotterClock { store.clock }
    var now: Date { store.now }
    var onUnreadable: @Sendable (UnreadableRow) -> Void { store.onUnreadable }
}

/// The user's actions: each validates, writes its entity and queues its outbox operation in one
/// transaction.
public struct WorkoutLog: StorePart {
    let store: SpotterStore
}

/// What the CLI and the UI read: workouts, sets, exercises, history, stats, the outbox rows.
public struct Queries: StorePart {
    let store: SpotterStore
}

/// The outbox as the engine drives it: claim with a lease, record answers, release, retry, discard.
public struct OutboxQueue: StorePart {
    let store: SpotterStore
}

/// Merging the server's change feed (and its favorites) into the local rows.
public struct PullMerge: StorePart {
    let store: SpotterStore
}

/// Which account owns the queue, stranded queues of other owners, tokens seen per server.
public struct Accounts: StorePart {
    let store: SpotterStore
}

/// Routines: making, editing and deleting them, starting a workout from one and logging its
/// planned sets, and reading them back.
public struct RoutineBook: StorePart {
    let store: SpotterStore
}

/// Settings and switches kept in `meta`: rest times, units, the bell, airplane mode.
public struct Preferences: StorePart {
    let store: SpotterStore
}

extension SpotterStore {
    public var workoutLog: WorkoutLog { WorkoutLog(store: self) }
    public var queries: Queries { Queries(store: self) }
    public var queue: OutboxQueue { OutboxQueue(store: self) }
    public var pull: PullMerge { PullMerge(store: self) }
    public var accounts: Accounts { Accounts(store: self) }
    public var preferences: Preferences { Preferences(store: self) }
    public var routines: RoutineBook { RoutineBook(store: self) }
}

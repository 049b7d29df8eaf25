import Foundation
import ServiceLifecycle
import Synchronization

/// The requests waiting for a user's change feed to move (`GET /v1/changes?wait=SECONDS`).
///
/// Each user has a generation that every write through this instance moves on (`changed`); a
/// waiting request notes the generation before it reads the feed, and if the page is empty waits
/// until the generation moves past it or its time is up — so a write that commits between the
/// read and the wait still wakes it. A wake is only a hint: the request reads the feed again, and
/// one that finds nothing new (another instance's write, a write of another kind) waits again
/// for what is left of its time.
///
/// Waiting requests count against `limit` (`--max-waiting`), not against the connection limit's
/// budget of work: past it a request is answered 503 with `Retry-After` at once, and every other
/// request is served as before.
final class ChangeWaiters: Sendable {
    enum Outcome: Sendable, Equatable {
        /// The user's feed moved (or may have).
        case changed
        /// The time ran out first.
        case timedOut
        /// `limit` requests were waiting already: this one did not wait.
        case overLimit
        /// `limitPerUser` requests of this user were waiting already: this one did not wait.
        case userOverLimit
    }

    private struct Waiter {
        let continuation: CheckedContinuation<Outcome, Never>
        let deadline: ContinuousClock.Instant
        let stillWanted: @Sendable () -> Bool
    }

    private struct State {
        var generations: [String: UInt64] = [:]
        var waiters: [String: [UInt64: Waiter]] = [:]
        var waiting = 0
        var nextID: UInt64 = 0
        /// Waits whose time ran out (or whose request was cancelled) before they were registered.
        var expired: Set<UInt64> = []
        /// Whether the sweep that ends waits at their time is running.
        var sweeping = false
        /// The waits by the sweep that is to end them at their time (a wait ended otherwise
        /// stays listed until then, and is passed over).
        var due: [Int: [(user: String, id: UInt64)]] = [:]
        /// The last sweep that ended waits.
        var swept = 0
        /// The waits in four parts (by id): each sweep asks one part whether its clients are
        /// still there, so each is asked once a second and no sweep asks them all.
        var parts: [[UInt64: String]] = Array(repeating: [:], count: 4)

        /// Moved on by `changedEverywhere`: every user's generation at once, the users this
        /// instance has not met yet included.
        var everywhere: UInt64 = 0

        func generation(of user: String) -> UInt64 { generations[user, default: 0] &+ everywhere }

        mutating func forget(_ id: UInt64) { parts[Int(id % 4)][id] = nil }
    }

    /// How often the sweep ends the waits whose time is up (a wait ends at most this long after
    /// its time); each sweep also asks a quarter of the waits whether their clients are still there.
    static let sweepInterval = Duration.milliseconds(250)

    let limit: Int
    /// The most requests of one user waiting at once, so one account cannot take every place.
    let limitPerUser: Int
    private let state = Mutex(State())
    /// Where sweep numbers count from.
    private let epoch = ContinuousClock.now
    /// Told the number waiting whenever it changes (the `/metrics` gauge).
    private let report: @Sendable (Int) -> Void

    init(limit: Int, limitPerUser: Int = 100, report: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.limit = limit
        self.limitPerUser = limitPerUser
        self.report = report
    }

    var waiting: Int { state.withLock { $0.waiting } }

    func generation(of user: String) -> UInt64 { state.withLock { $0.generation(of: user) } }

    /// Where changes made here are also told (the other instances on one PostgreSQL database).
    ///
    /// The closure is kept inside a struct, never as the lock's value itself: a function value
    /// passed `inout` through `withLock`'s generic parameter is re-wrapped in a reabstraction
    /// thunk each time, and the wrapper is what is stored back. Every write then made the stored
    /// closure two thunks deeper: each call walked the whole chain (quadratic time, 15 % of a
    /// PostgreSQL instance's CPU after 10 000 writes), and enough writes would have overflowed
    /// the stack of the thread calling it.
    private let relay = Mutex<Announcer?>(nil)

    private struct Announcer: Sendable {
        let announce: @Sendable (String) -> Void
    }

    /// Changes made here are also told to `announce` from now on.
    func relay(to announce: @escaping @Sendable (String) -> Void) {
        relay.withLock { $0 = Announcer(announce: announce) }
    }

    /// Something of `user`'s changed here: every request waiting on them reads the feed again,
    /// and so do those waiting at the other instances.
    func changed(_ user: String) {
        changedElsewhere(user)
        relay.withLock { $0 }?.announce(user)
    }

    /// Another instance says something of `user`'s changed: the waits here read the feed again.
    func changedElsewhere(_ user: String) {
        let woken = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            state.generations[user, default: 0] &+= 1
            guard let waiters = state.waiters.removeValue(forKey: user) else { return [] }
            state.waiting -= waiters.count
            for id in waiters.keys { state.forget(id) }
            return waiters.values.map(\.continuation)
        }
        guard !woken.isEmpty else { return }
        report(waiting)
        for continuation in woken { continuation.resume(returning: .changed) }
    }

    /// Every user's feed may have moved (notices from other instances were missed): every wait
    /// reads the feed again.
    func changedEverywhere() {
        let woken = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            state.everywhere &+= 1
            let woken = state.waiters.values.flatMap(\.values).map(\.continuation)
            state.waiters.removeAll()
            state.waiting = 0
            state.due.removeAll()
            state.parts = Array(repeating: [:], count: 4)
            return woken
        }
        guard !woken.isEmpty else { return }
        report(waiting)
        for continuation in woken { continuation.resume(returning: .changed) }
    }

    /// Waits until `user`'s generation moves past `seen`, or `timeout` passes, or `stillWanted`
    /// says the request's client went away (seen by the sweep, within a second), or
    /// the server begins to shut down.
    func wait(
        for user: String, after seen: UInt64, timeout: Duration, stillWanted: @escaping @Sendable () -> Bool = { true }
    ) async -> Outcome {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        let deadline = ContinuousClock.now + timeout
        defer { state.withLock { _ = $0.expired.remove(id) } }
        // The server shutting down (it waits for requests in flight) ends the wait at once.
        return await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                    let (immediate, startSweep): (Outcome?, Bool) = state.withLock { state in
                        if state.expired.remove(id) != nil { return (.timedOut, false) }
                        if state.generation(of: user) != seen { return (.changed, false) }
                        if state.waiting >= limit { return (.overLimit, false) }
                        if state.waiters[user, default: [:]].count >= limitPerUser { return (.userOverLimit, false) }
                        state.waiters[user, default: [:]][id] = Waiter(
                            continuation: continuation, deadline: deadline, stillWanted: stillWanted)
                        state.waiting += 1
                        state.due[max(sweep(at: deadline), state.swept + 1), default: []].append((user, id))
                        state.parts[Int(id % 4)][id] = user
                        defer { state.sweeping = true }
                        return (nil, !state.sweeping)
                    }
                    if let immediate {
                        continuation.resume(returning: immediate)
                        return
                    }
                    report(waiting)
                    if startSweep { Task { await self.sweep() } }
                }
            } onCancel: {
                self.resume(user, id, with: .timedOut)
            }
        } onGracefulShutdown: {
            self.resume(user, id, with: .timedOut)
        }
    }

    /// The number of the first sweep at or after `instant` (where a deadline is filed), or of the
    /// last one at or before it (`upTo`: the sweep running now ends only what is due by now).
    private func sweep(at instant: ContinuousClock.Instant, upTo: Bool = false) -> Int {
        Int(((instant - epoch) / Self.sweepInterval).rounded(upTo ? .down : .up))
    }

    /// Ends the waits whose time is up (every `sweepInterval`) and those whose client went away
    /// (each asked once a second, a quarter of them at each sweep), for as long as any wait is
    /// registered. One loop for every wait, and each sweep touches only the waits it ends or
    /// asks: a wait costs no timer of its own.
    private func sweep() async {
        while true {
            try? await Task.sleep(for: Self.sweepInterval)
            let now = sweep(at: ContinuousClock.now, upTo: true)
            let found = state.withLock {
                state -> (due: [(user: String, id: UInt64)], ask: [(String, UInt64, @Sendable () -> Bool)])? in
                guard state.waiting > 0 else {
                    state.sweeping = false
                    state.due.removeAll()
                    return nil
                }
                state.swept = now
                var due: [(user: String, id: UInt64)] = []
                for number in state.due.keys where number <= now {
                    due += state.due.removeValue(forKey: number) ?? []
                }
                let ask = state.parts[now % 4].compactMap { id, user in
                    state.waiters[user]?[id].map { (user, id, $0.stillWanted) }
                }
                return (due, ask)
            }
            guard let found else { return }
            for (user, id) in found.due { end(user, id, with: .timedOut) }
            for (user, id, stillWanted) in found.ask where !stillWanted() { end(user, id, with: .timedOut) }
        }
    }

    /// Ends one wait if it still waits; one that ended otherwise is passed over.
    private func end(_ user: String, _ id: UInt64, with outcome: Outcome) {
        finish(user, id, with: outcome, markingUnregistered: false)
    }

    /// Ends one wait, if it is still waiting; one not registered yet will not wait.
    private func resume(_ user: String, _ id: UInt64, with outcome: Outcome) {
        finish(user, id, with: outcome, markingUnregistered: true)
    }

    private func finish(_ user: String, _ id: UInt64, with outcome: Outcome, markingUnregistered: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let waiter = state.waiters[user]?.removeValue(forKey: id) else {
                if markingUnregistered { state.expired.insert(id) }
                return nil
            }
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            state.waiting -= 1
            state.forget(id)
            return waiter.continuation
        }
        guard let continuation else { return }
        report(waiting)
        continuation.resume(returning: outcome)
    }
}

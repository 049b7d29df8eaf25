import Foundation
import Logging
import SpotterCore
import SpotterProtocol
import SpotterStore
import Synchronization

/// One operation's answer, as the engine classifies it.
struct OperationAnswer {
    let op: OutboxOperation
    let status: Int
    let body: JSONValue?
    /// The server replayed a stored answer (`Idempotent-Replayed: true`).
    let replayed: Bool
    /// What `Retry-After` asked for, in seconds.
    let retryAfter: TimeInterval?
}

/// A claimed operation and the request it travels as.
struct PreparedOperation {
    let op: OutboxOperation
    let request: BatchOp
}

/// A page of the change feed in local terms.
struct ChangePage {
    let entities: [PulledEntity]
    /// Entries the server sent that could not be read (skipped and logged).
    let unreadable: Int
    let cursor: String
    let hasMore: Bool
    /// The name the server gave its database (`Spotter-Server-Identity`); nil from a server that gives none.
    var identity: String? = nil
    /// The highest version the server's database has (`Spotter-Feed-Head`), given when the cursor
    /// asked after is past it.
    var feedHead: Int64? = nil
    /// The cursor this page was asked after.
    var since: String? = nil
}

/// What a request for a page of the change feed came back with.
enum PageAnswer: Sendable {
    case page(ChangePage)
    /// No page: the transport failed, the server refused, or the body did not read.
    case notRead(Result<TransportResponse, TransportError>)
}

/// A page of the change feed asked for and not handled yet; its answer may come before or after
/// the engine is ready for it. Both calls come on the engine's queue, so the lock is never waited
/// for; the handler runs after it is let go.
final class PageRequest: Sendable {
    private struct State {
        var answer: PageAnswer?
        var handler: (@Sendable (PageAnswer) -> Void)?
    }

    private let state = Mutex(State())

    func deliver(_ answer: PageAnswer) {
        let handler: (@Sendable (PageAnswer) -> Void)? = state.withLock { state in
            guard let handler = state.handler else {
                state.answer = answer
                return nil
            }
            state.handler = nil
            return handler
        }
        handler?(answer)
    }

    func whenAnswered(_ handler: @escaping @Sendable (PageAnswer) -> Void) {
        let answer: PageAnswer? = state.withLock { state in
            guard let answer = state.answer else {
                state.handler = handler
                return nil
            }
            state.answer = nil
            return answer
        }
        if let answer { handler(answer) }
    }
}

/// Tunables of the engine.
public struct SyncConfiguration: Sendable {
    /// Operations per `POST /v1/batch`; 1 sends each on its own route (the naive loop).
    public var batchSize = 100
    /// Batches a drain keeps on the wire at once. With two, the server runs one while it flushes
    /// the commit of the other (or flushes both in one group commit), and the device records one
    /// answer while the other travels; each batch is still claimed after every operation it waits
    /// on has left (see `OutboxQueue.claimEligible(aheadOfInFlight:)`), so no order is lost.
    public var batchesInFlight = 2
    /// A batch stays under the server's 64 KiB body limit with room for the envelope.
    public var maxBatchBytes = 56 * 1024
    public var periodicInterval: TimeInterval = 30
    public var lease: TimeInterval = SpotterStore.defaultLease
    public var requestTimeout: TimeInterval = 15
    public var retryPolicy = RetryPolicy()
    /// Succeeded operations kept as history for the debug pane.
    public var historyCap = 500
    /// Changes per page of the feed: the server's largest (fewer round trips and commits).
    public var pullPageSize = 5000
    public var pullEnabled = true
    /// Keep one `GET /v1/changes?wait=` open while online, and pull the moment the server
    /// answers it with something new: another device's set arrives at once instead of on the
    /// periodic tick (which stays, as the fallback). Off for one-shot syncs.
    public var watchChanges = false
    /// Seconds the server is asked to hold each wait (its maximum is 25).
    public var watchWait = 25
    /// The longest pause between waits after failures (they back off from half a second, with jitter).
    public var watchBackoffCap: TimeInterval = 30
    /// How often the engine looks again whether a full disk has room (see `DiskSpace`).
    public var diskFullRetry: TimeInterval = 3

    public init() {}
}

/// The sync engine: drains the outbox to the server and pulls other devices' changes.
///
/// Everything it decides happens on one serial `DispatchQueue` (claim → send → apply →
/// reschedule); the network answers on other threads and hops back onto that queue. Triggers
/// that arrive while a flush runs coalesce into one more flush afterwards. The UI never
/// touches this state: it calls `trigger` / `setAirplane` (which return at once) and drains
/// `events`.
// @unchecked Sendable: every mutable property below is read and written only on `queue` (the
// calls from outside hop onto it with `queue.async` or `queue.sync`, the network's answers with
// `queue.async`; what runs there checks with `dispatchPrecondition`), so no two threads touch
// them at once. The rest is immutable and Sendable.
public final class SyncEngine: SyncControlling, @unchecked Sendable {
    public let store: SpotterStore
    public let events: SyncEventChannel
    private let transport: any SyncTransport
    private let configuration: SyncConfiguration
    private let scheduler: any SyncScheduler
    private let clock: any SpotterClock
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let queue = DispatchQueue(label: "spotter.sync.engine")

    // Queue-confined state.
    private var running = false
    private var rerunRequested = false
    private var stopped = false
    private var authPaused = false
    private var flushSucceeded = true
    private var retryTimer: (any ScheduledWork)?
    private var periodicTimer: (any ScheduledWork)?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var metricDeltas: [SyncCounter: Int] = [:]
    private var lastConnectivity: Connectivity?
    private var pullFailure: String?
    /// `pullFailure` when the server answered (the feed refused, did not read, was not saved), and
    /// what the UI was last told of it.
    private var feedProblem: String?
    private var toldFeedProblem: String?
    /// Changes of the pull under way that could not be read (skipped, each logged): the pull
    /// then did not receive everything, and says so (`lastPullFailure`).
    private var unreadableThisPull = 0
    /// Whether this flush found the server's database replaced already: a second change within
    /// one flush (instances behind one address on different databases) stops the pull instead of
    /// queueing everything again page after page.
    private var replacedThisFlush = false
    /// The name of the server's database this device last saw, as the store keeps it: read once
    /// and kept here, since every batch answer and feed page names one (a store read each would
    /// sit on the drain's path). Nil until one is stored.
    private var seenIdentity: String?
    /// Batches sent and not answered yet (at most `batchesInFlight`). A batch claimed while
    /// another is out stops before any operation that waits on one in flight, so the server
    /// may apply two batches in either order and still end as one batch would have.
    private var batchesOnWire = 0
    private var batchOnWire: Bool { batchesOnWire > 0 }
    private var wireIsFull: Bool { batchesOnWire >= max(1, configuration.batchesInFlight) }
    /// When counts were last posted (monotonic nanoseconds); see `postCounts(between:)`.
    private var lastCountsPostedAt: UInt64 = 0
    private static let countsInterval: UInt64 = 100_000_000
    /// The next batch, claimed while the last one travelled: sent the moment that one is
    /// answered, so the device records one batch while the server applies the next.
    private var readyBatch: [PreparedOperation] = []
    /// This flush sends nothing more (a failure, airplane mode, sign-in): it ends once the batch
    /// on the wire, if any, is answered.
    private var pushStopped = false
    /// The wait on the change feed that is open (see `watch()`), and what gives it up.
    private var watchOpen: TransportCancellation?
    /// Moves on whenever the open wait is given up, so its late answer is ignored.
    private var watchGeneration = 0
    private var watchFailures = 0
    private var watchTimer: (any ScheduledWork)?
    /// Why the disk has no room for sync work, while it has none: nothing is claimed or pulled,
    /// and the engine looks again every `diskFullRetry` seconds.
    private var diskFull: String?
    /// Operations sent and answered whose answers could not be written down (the disk was full).
    /// They stay in flight under this process's lease; once there is room they go back to the
    /// queue at once (not when the lease runs out) and are sent again with their keys, and the
    /// server answers them again from what it stored.
    private var unrecorded: Set<String> = []

    public init(
        store: SpotterStore, transport: any SyncTransport, events: SyncEventChannel = SyncEventChannel(),
        configuration: SyncConfiguration = SyncConfiguration(), scheduler: any SyncScheduler = DispatchSyncScheduler(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger = Logger(label: "spotter.sync")
    ) {
        self.store = store
        self.events = events
        self.configuration = configuration
        self.scheduler = scheduler
        self.clock = store.clock
        self.random = random
        self.logger = logger
        // Fail closed: a switch that cannot be read counts as on, so no request leaves.
        self.transport = AirplaneGatedTransport(base: transport) { [store] in
            store.preferences.airplaneIsOn()
        }
    }

    // MARK: Control (any thread; returns at once)

    /// Starts the periodic tick and runs the start-up flush.
    public func start() {
        queue.async { [self] in
            stopped = false
            schedulePeriodic()
            beginFlush(.startup)
        }
    }

    /// Stops scheduling; a request already out still has its answer recorded (a wait on the
    /// feed is given up).
    public func stop() {
        queue.sync {
            stopped = true
            periodicTimer?.cancel()
            retryTimer?.cancel()
            periodicTimer = nil
            retryTimer = nil
            closeWatch()
        }
    }

    public func trigger(_ reason: SyncTrigger) {
        queue.async { [self] in
            if reason == .manual || reason == .resumed { authPaused = false }
            beginFlush(reason)
        }
    }

    public func setAirplane(_ on: Bool) {
        queue.async { [self] in
            do { try store.preferences.setAirplane(on) } catch {
                logger.error("airplane switch not saved: \(StoreError.oneLine(error))")
            }
            if on { closeWatch() }
            post(connectivity: on ? .airplane : .online)
            postCounts()
            if !on { beginFlush(.airplaneOff) }
        }
    }

    /// Returns once no flush is running or requested.
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if running { idleWaiters.append(continuation) } else { continuation.resume() }
            }
        }
    }

    /// Why the last pull did not read the server's change feed to its end, or nil when it did
    /// (or no pull ran yet). Call from outside the engine's queue.
    public var lastPullFailure: String? {
        queue.sync { pullFailure }
    }

    /// One manual flush (push, then pull), awaited.
    public func syncOnce() async {
        trigger(.manual)
        await waitUntilIdle()
    }

    /// Flushes until nothing of this user is queued, or `timeout` seconds pass on the engine's
    /// clock. Retries wait for their backoff, so this honours the same schedule a running app would.
    /// - Returns: whether the queue is empty; a queue that cannot be read is not called empty.
    public func drain(timeout: TimeInterval) async -> Bool {
        let deadline = clock.now().addingTimeInterval(timeout)
        while true {
            await syncOnce()
            do {
                if try store.queries.queueCounts().pending == 0 { return true }
            } catch {
                logger.error("queue unreadable, not calling it drained: \(StoreError.oneLine(error))")
                return false
            }
            let now = clock.now()
            // A full disk is not waited out here: the engine of a running app looks again by itself.
            if now >= deadline || airplaneOn || diskFullReason != nil { return false }
            var due: Date?
            do { due = try store.queue.nextRetryAt() } catch {
                logger.error("retry time unreadable: \(StoreError.oneLine(error))")
            }
            let wait = min(
                deadline.timeIntervalSince(now), max(0.05, (due ?? now.addingTimeInterval(0.2)).timeIntervalSince(now)))
            do { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) } catch { return false }
        }
    }

    // MARK: The flush (on `queue`)

    private func beginFlush(_ reason: SyncTrigger) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else { return }
        if running {
            rerunRequested = true
            return
        }
        running = true
        flushSucceeded = true
        replacedThisFlush = false
        pushStopped = false
        retryTimer?.cancel()
        retryTimer = nil
        logger.debug("flush", metadata: ["reason": "\(reason.rawValue)"])
        events.post(.syncing(true))
        guard roomToRecord() else {
            flushSucceeded = false
            finishFlush()
            return
        }
        do { try store.queue.releaseExpiredLeases() } catch {
            logger.error("lease recovery failed: \(StoreError.oneLine(error))")
        }
        saving("sets kept from a workout deleted on another device") {
            for notice in try store.queue.keepSetsRefusedForDeletedWorkouts() { events.post(.notice(notice.message)) }
        }
        pushNext()
    }

    private func pushNext() {
        dispatchPrecondition(condition: .onQueue(queue))
        if airplaneOn {
            post(connectivity: .airplane)
            pushStopped = true
        }
        if authPaused { pushStopped = true }
        if pushStopped {
            endPush()
            return
        }
        if wireIsFull { return }  // an answer pushes on
        var batch = readyBatch
        readyBatch = []
        while batch.isEmpty {
            guard let claimed = claimPrepared(aheadOfInFlight: batchOnWire) else { return }
            if claimed.ops.isEmpty {
                if !batchOnWire { pull() }  // else the last answer pushes on, then pulls
                return
            }
            batch = claimed.prepared
        }
        if configuration.batchSize == 1 {
            sendSingle(batch[0])
            return
        }
        sendBatch(batch)
        if !wireIsFull {
            pushNext()
            return
        }
        // The next batch is claimed while these travel.
        if let next = claimPrepared(aheadOfInFlight: true) { readyBatch = next.prepared }
    }

    /// Claims a batch and prepares each operation as it will travel. One whose payload the wire
    /// model refuses fails here with the reason (sending it would send made-up or broken
    /// fields). Nil when the claim or that record failed: the flush then stops.
    private func claimPrepared(aheadOfInFlight: Bool) -> (ops: [OutboxOperation], prepared: [PreparedOperation])? {
        let claimed: [OutboxOperation]
        // Never more than the disk has room to record the answers of.
        let limit = store.affordableOperations(max(1, configuration.batchSize))
        guard limit > 0 else {
            diskIsFull()
            stopPushing()
            return nil
        }
        do {
            claimed = try store.queue.claimEligible(
                limit: limit, lease: configuration.lease, aheadOfInFlight: aheadOfInFlight)
        } catch {
            logger.error("claim failed: \(StoreError.oneLine(error))")
            noteWriteFailure(error)
            stopPushing()
            return nil
        }
        guard let prepared = prepare(claimed) else { return nil }
        return (claimed, prepared)
    }

    private func prepare(_ claimed: [OutboxOperation]) -> [PreparedOperation]? {
        var prepared: [PreparedOperation] = []
        prepared.reserveCapacity(claimed.count)
        var unreadable: [OperationOutcome] = []
        for op in claimed {
            do {
                prepared.append(PreparedOperation(op: op, request: try OperationRequest.batchOp(op)))
            } catch {
                let reason = "unreadable operation: payload \(error)"
                unreadable.append(OperationOutcome(opID: op.opID, result: .permanent(status: nil, error: reason)))
                events.post(.opFailed(opID: op.opID, reason: reason))
            }
        }
        if !unreadable.isEmpty {
            metricDeltas[.permanentFailures, default: 0] += unreadable.count
            guard record(unreadable) else {
                if !prepared.isEmpty { releaseUnsent(prepared.map(\.op.opID)) }
                stopPushing()
                return nil
            }
        }
        return prepared
    }

    /// Pushes no more in this flush; it ends once nothing is on the wire.
    private func stopPushing() {
        flushSucceeded = false
        pushStopped = true
        endPush()
    }

    /// Ends the push part of a stopped flush, unless a batch is still on the wire (its answer
    /// ends it). A batch claimed but not sent goes back untouched.
    private func endPush() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !batchOnWire else { return }
        if !readyBatch.isEmpty {
            releaseUnsent(readyBatch.map(\.op.opID))
            readyBatch = []
        }
        finishFlush()
    }

    private func releaseUnsent(_ opIDs: [String]) {
        do { try store.queue.releaseUnsent(opIDs: opIDs) } catch {
            logger.error("could not release unsent: \(StoreError.oneLine(error))")
        }
    }

    private func sendSingle(_ prepared: PreparedOperation) {
        let op = prepared.op
        metricDeltas[.requests, default: 0] += 1
        metricDeltas[.sent, default: 0] += 1
        transport.send(OperationRequest.single(prepared.request, timeout: configuration.requestTimeout)) {
            [self] result in
            queue.async { [self] in
                switch result {
                case .success(let response):
                    if answeredByAnotherDatabase(response, sent: [op]) { return }
                    let body = JSONValue.parse(response.body)
                    let replayed = response.headers[HeaderName.idempotentReplayed.lowercased()] == "true"
                    let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.parse($0, now: clock.now()) }
                    let wholeFailure = apply([
                        OperationAnswer(
                            op: op, status: response.status, body: body, replayed: replayed, retryAfter: retryAfter)
                    ])
                    afterResponse(status: response.status, stopPushing: wholeFailure)
                case .failure(let error):
                    applyNoResponse([op], error: error)
                }
            }
        }
    }

    private func sendBatch(_ claimed: [PreparedOperation]) {
        // Keep the body under the server's limit; what does not fit goes back unsent.
        let (body, count) = OperationRequest.batchBody(claimed.map(\.request), maxBytes: configuration.maxBatchBytes)
        let ops = claimed.prefix(count).map(\.op)
        let leftOver = claimed.dropFirst(ops.count).map(\.op.opID)
        if !leftOver.isEmpty { releaseUnsent(leftOver) }
        metricDeltas[.requests, default: 0] += 1
        metricDeltas[.sent, default: 0] += ops.count
        let request = TransportRequest(
            method: "POST", path: Route.batch, headers: [HeaderName.idempotencyKey: UUID.timeOrdered().wireString],
            body: body, timeout: configuration.requestTimeout)
        batchesOnWire += 1
        transport.send(request) { [self] result in
            queue.async { [self] in
                batchesOnWire -= 1
                answered(ops, result)
            }
        }
    }

    /// A batch's answer: the next batch, claimed while this one travelled, leaves at once unless
    /// the answer says to stop; then this one's results are recorded and the batch after the
    /// next is claimed, in one transaction.
    private func answered(_ sentOps: [OutboxOperation], _ result: Result<TransportResponse, TransportError>) {
        let response: TransportResponse
        switch result {
        case .failure(let error):
            applyNoResponse(sentOps, error: error)
            return
        case .success(let answer):
            response = answer
        }
        if answeredByAnotherDatabase(response, sent: sentOps) { return }
        let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.parse($0, now: clock.now()) }
        guard response.status == 200,
            let decoded = JSONValue.parse(response.body).flatMap({ try? BatchResponse(json: $0) }),
            decoded.results.count == sentOps.count
        else {
            // The batch as a whole was answered (503, 429, 401, …): every op shares it.
            let body = JSONValue.parse(response.body)
            let status = response.status == 200 ? 502 : response.status
            _ = apply(
                sentOps.map {
                    OperationAnswer(op: $0, status: status, body: body, replayed: false, retryAfter: retryAfter)
                })
            stopPushing()
            return
        }
        let rows = zip(sentOps, decoded.results).map { op, result in
            OperationAnswer(
                op: op, status: result.status, body: result.body, replayed: result.replayed, retryAfter: nil)
        }
        let (results, stop) = outcomes(rows)
        if stop {
            pushStopped = true
            flushSucceeded = false
        } else if !readyBatch.isEmpty && !authPaused && !pushStopped {  // (another batch's answer may have stopped it)
            let next = readyBatch
            readyBatch = []
            sendBatch(next)
        }
        if pushStopped {
            record(results)
            endPush()
            return
        }
        // Between two batches: this one's results and the next claim share one flush.
        defer { postCounts(between: true) }
        do {
            let limit = store.affordableOperations(max(1, configuration.batchSize))
            if limit == 0 {
                // Room to record these answers, none to claim more: the push stops after them.
                if record(results) { diskIsFull() }
                stopPushing()
                return
            }
            let (notices, claimed) = try store.queue.complete(
                results, thenClaim: limit, lease: configuration.lease, aheadOfInFlight: batchOnWire)
            for notice in notices { events.post(.notice(notice.message)) }
            if let prepared = prepare(claimed) { readyBatch += prepared } else { return }
        } catch {
            surface("sync answers not recorded (they will be asked again): \(StoreError.oneLine(error))")
            noteWriteFailure(error, unrecorded: results.map(\.opID))
            stopPushing()
            return
        }
        pushNext()
    }

    /// Whether `response` came from a server database other than the one this device synced with
    /// (reset or replaced): its answers are not taken (an edit refused there for a row it never
    /// had would take the row away here). The operations go back unsent, what this device holds
    /// is queued again for the new database (`checkServerIdentity`), and the push starts over.
    private func answeredByAnotherDatabase(_ response: TransportResponse, sent: [OutboxOperation]) -> Bool {
        if replacedThisFlush && pushStopped {
            // A batch that left before the replacement was found: its answers are not taken either.
            releaseUnsent(sent.map(\.opID))
            renewKeys(sent)
            endPush()
            return true
        }
        guard let identity = response.headers[HeaderName.serverIdentity.lowercased()], !identity.isEmpty,
            isAnotherDatabase(identity), seenIdentity != nil
        else { return false }
        // What was claimed for the next batch goes back too, before the resend rewires it.
        releaseUnsent(sent.map(\.opID) + readyBatch.map(\.op.opID))
        readyBatch = []
        renewKeys(sent)
        guard !replacedThisFlush else {
            pullFailure =
                "the server answered from two different databases in one sync (instances on different data?);"
                + " nothing was taken from it"
            feedProblem = pullFailure
            stopPushing()
            return true
        }
        do {
            let check = try store.pull.checkServerIdentity(identity)
            seenIdentity = identity
            if case .replaced(let resent) = check {
                replacedThisFlush = true
                announceResend(resent, because: "is not what this device synced with (it was reset or replaced)")
            }
        } catch {
            noteWriteFailure(error)
        }
        rerunRequested = true
        stopPushing()
        return true
    }

    /// New keys for operations whose answers from a replaced database were not taken.
    private func renewKeys(_ sent: [OutboxOperation]) {
        do { try store.queue.renewKeys(opIDs: sent.map(\.opID)) } catch {
            logger.error("could not renew keys: \(StoreError.oneLine(error))")
        }
    }

    /// Records per-operation answers; returns whether pushing should pause (nothing but
    /// transient failures came back, so hammering on would not help).
    private func apply(_ rows: [OperationAnswer]) -> Bool {
        let (results, stop) = outcomes(rows)
        record(results)
        return stop
    }

    /// What each answer means for its operation (and the events and counters it moves); and
    /// whether pushing should pause.
    private func outcomes(_ rows: [OperationAnswer]) -> (results: [OperationOutcome], stop: Bool) {
        let now = clock.now()
        var results: [OperationOutcome] = []
        var progressed = false
        for answer in rows {
            let (op, status, body) = (answer.op, answer.status, answer.body)
            let problem = body.flatMap { try? Problem(json: $0) }
            let keyInUse = problem?.type == ProblemType.keyInUse
            let idTaken = problem?.type == ProblemType.conflict && problem?.field == WireSet.Field.id.name
            switch ResultClassifier.classify(status: status, kind: op.kind, keyInUse: keyInUse, idTaken: idTaken) {
            case .success:
                progressed = true
                metricDeltas[.succeeded, default: 0] += 1
                if answer.replayed { metricDeltas[.replays, default: 0] += 1 }
                // A taken id answers with a problem, not the entity, and the server's row may be one
                // this device's pull already went past (deleted, or edited, long ago): the next pull
                // reads the whole feed again, so the device ends with that row whatever it is.
                let row = idTaken ? nil : body.flatMap { WireChange.answer(op.entityType, body: $0) }
                results.append(OperationOutcome(opID: op.opID, result: .succeeded(status: status, row: row)))
                if idTaken {
                    saving("a fresh pull after a taken id") { try store.preferences.setMeta(store.pullCursorKey, nil) }
                }
                events.post(.opSucceeded(opID: op.opID))
            case .transient(let reason):
                if reason == .unauthorized { tokenRefused() }
                let retry = answer.retryAfter ?? (reason == .keyInUse ? 1 : nil)
                results.append(
                    transient(
                        op, status: status, reason: reason,
                        error: OperationRequest.reason(status: status, problem: problem),
                        retryAfter: retry, now: now))
            case .permanent where Self.workoutGone(op, status: status, problem: problem):
                // Not a failure of the set: it is kept in a restored copy of its workout and sent again.
                progressed = true
                let reason = OperationRequest.reason(status: status, problem: problem)
                results.append(OperationOutcome(opID: op.opID, result: .workoutGone(status: status, error: reason)))
            case .permanent:
                progressed = true
                let reason = OperationRequest.reason(status: status, problem: problem)
                metricDeltas[.permanentFailures, default: 0] += 1
                results.append(OperationOutcome(opID: op.opID, result: .permanent(status: status, error: reason)))
                events.post(.opFailed(opID: op.opID, reason: reason))
            }
        }
        if rows.contains(where: { $0.status != 401 }) && !authPaused { post(connectivity: .online) }
        if rows.contains(where: { Self.isDefiniteAnswer($0.status) }) { serverAnswered() }
        return (results, !progressed)
    }

    /// Whether the server refused a set's create or edit because the workout it names is gone
    /// (another device deleted it): a 422 about the set's `workout_id`.
    static func workoutGone(_ op: OutboxOperation, status: Int, problem: Problem?) -> Bool {
        op.entityType == .set && op.kind != .delete && status == 422 && problem?.field == WireSet.Field.workoutID.name
    }

    private func transient(
        _ op: OutboxOperation, status: Int?, reason: TransientReason, error: String, retryAfter: TimeInterval?,
        now: Date
    ) -> OperationOutcome {
        metricDeltas[.retried(reason), default: 0] += 1
        let policy = configuration.retryPolicy
        let exhausted =
            OutboxMachine.asksToWait(status)
            ? now.timeIntervalSince(op.createdAt) >= policy.maxAge
            : policy.shouldGiveUp(attempts: op.attemptCount, createdAt: op.createdAt, now: now)
        if exhausted {
            metricDeltas[.gaveUp, default: 0] += 1
            metricDeltas[.permanentFailures, default: 0] += 1
            // Only timeouts, broken connections and 5xx came back: no refusal. It waits, unsent,
            // until the server next answers a request (see `serverAnswered`).
            let message = "\(OutboxMachine.gaveUpPrefix) after \(op.attemptCount) attempts: \(error)"
            events.post(.opFailed(opID: op.opID, reason: message))
            return OperationOutcome(opID: op.opID, result: .gaveUp(status: status, error: message))
        }
        let delay = retryAfter ?? policy.delay(afterAttempt: op.attemptCount, unitRandom: random())
        return OperationOutcome(
            opID: op.opID, result: .transient(status: status, error: error, retryAt: now.addingTimeInterval(delay)))
    }

    /// Whether a status is the server answering for itself (not an overload, a timeout or a
    /// failure of its own): what puts operations that gave up without an answer back in the queue.
    static func isDefiniteAnswer(_ status: Int) -> Bool {
        status < 500 && ![408, 425, 429].contains(status)
    }

    /// The server answers again: what gave up without an answer (it may have landed) goes back
    /// to the queue by itself, with what waits on it, and leaves in this flush or the next.
    private func serverAnswered() {
        do {
            let requeued = try store.queue.requeueNoAnswer()
            if requeued > 0 {
                if running { rerunRequested = true }
                events.post(.notice("\(requeued) operation(s) that got no answer are queued again"))
                postCounts()
            }
        } catch {
            logger.error("operations that gave up without an answer not requeued: \(StoreError.oneLine(error))")
        }
    }

    /// No answer at all: offline (not a try; the operations go back untouched), no connection
    /// (a try that never left: it counts for the backoff, but nothing of it can have landed), or
    /// a broken connection / timeout (a try that may or may not have reached the server).
    private func applyNoResponse(_ ops: [OutboxOperation], error: TransportError) {
        let text: String
        let reason: TransientReason
        switch error {
        case .offline:
            do { try store.queue.releaseUnsent(opIDs: ops.map(\.opID)) } catch {
                logger.error("could not release: \(StoreError.oneLine(error))")
            }
            post(connectivity: .airplane)
            stopPushing()
            return
        case .unreachable(let message), .connection(let message):
            text = "connection failed: \(message)"
            reason = .connection
        case .timeout:
            text = "timed out"
            reason = .timeout
        }
        let now = clock.now()
        var outcomes = ops.map { transient($0, status: nil, reason: reason, error: text, retryAfter: nil, now: now) }
        if case .unreachable = error { for index in outcomes.indices { outcomes[index].neverLeft = true } }
        record(outcomes)
        post(connectivity: .offline(reason: text))
        stopPushing()
    }

    /// - Returns: whether the results were saved.
    @discardableResult
    private func record(_ results: [OperationOutcome]) -> Bool {
        defer { postCounts() }
        do {
            for notice in try store.queue.complete(results) { events.post(.notice(notice.message)) }
            return true
        } catch {
            surface("sync answers not recorded (they will be asked again): \(StoreError.oneLine(error))")
            noteWriteFailure(error, unrecorded: results.map(\.opID))
            return false
        }
    }

    private func afterResponse(status: Int, stopPushing stop: Bool) {
        if stop {
            stopPushing()
        } else {
            pushNext()
        }
    }

    // MARK: Pull

    private func pull() {
        guard configuration.pullEnabled, diskFull == nil else {
            if diskFull != nil { flushSucceeded = false }
            finishFlush()
            return
        }
        unreadableThisPull = 0
        // The first page is small: merging starts as soon as it arrives, and every later page is
        // asked for while one is merged, so only this one's round trip is waited for.
        requestPage(since: pullCursor(), limit: min(configuration.pullPageSize, Self.firstPageSize)).whenAnswered {
            [self] in handlePage($0)
        }
    }

    /// Where the feed was last read to; a cursor that cannot be read pulls the whole feed again
    /// (slower, never wrong).
    private func pullCursor() -> String? {
        do { return try store.preferences.meta(store.pullCursorKey) } catch {
            logger.error("pull cursor unreadable: \(StoreError.oneLine(error))")
            return nil
        }
    }

    /// `GET /v1/changes` after `since`, at most `limit`, held `wait` seconds when nothing is new.
    static func feedPath(since: String?, limit: Int, wait: Int? = nil) -> String {
        var path = "\(Route.changes)?limit=\(limit)"
        if let wait { path += "&wait=\(wait)" }
        if let since, !since.isEmpty {
            path += "&since=\(since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since)"
        }
        return path
    }

    /// Asks for the page after `since`. The page is read off the engine's queue (a page is
    /// thousands of rows) and handed back on it.
    private func requestPage(since: String?, limit: Int? = nil) -> PageRequest {
        dispatchPrecondition(condition: .onQueue(queue))
        let path = Self.feedPath(since: since, limit: limit ?? configuration.pullPageSize)
        metricDeltas[.requests, default: 0] += 1
        let request = PageRequest()
        transport.send(TransportRequest(method: "GET", path: path, timeout: configuration.requestTimeout)) {
            [self] result in
            DispatchQueue.global().async { [self] in
                let answer: PageAnswer
                if case .success(let response) = result, response.status == 200,
                    var page = Self.readChanges(response)
                {
                    page.since = since
                    answer = .page(page)
                } else {
                    answer = .notRead(result)
                }
                queue.async { request.deliver(answer) }
            }
        }
        return request
    }

    private func handlePage(_ answer: PageAnswer) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard case .page(let page) = answer else {
            if case .notRead(let result) = answer { recordPullFailure(result) }
            flushSucceeded = false
            finishFlush()
            return
        }
        if page.unreadable > 0 {
            logger.warning("skipped \(page.unreadable) unreadable changes")
            unreadableThisPull += page.unreadable
        }
        serverAnswered()
        if let identity = page.identity, isAnotherDatabase(identity) {
            guard !replacedThisFlush else {
                return endPull(
                    "the server answered from two different databases in one sync (instances on different data?);"
                        + " nothing was merged")
            }
            do {
                let check = try store.pull.checkServerIdentity(identity)
                seenIdentity = identity
                if case .replaced(let resent) = check {
                    // This page counted from a cursor of the lost database: read the feed again
                    // from its start, and send what was queued again after it.
                    return startOver(
                        resent: resent, because: "is not what this device synced with (it was reset or replaced)")
                }
            } catch {
                noteWriteFailure(error)
                return endPull("changes from the server not saved: \(StoreError.oneLine(error))")
            }
        }
        // The same database, gone back to an older copy: checked after its name, since a new
        // database (also behind the cursor) is a replacement.
        if Self.serverWentBack(page) {
            guard !replacedThisFlush else {
                return endPull("the server's data went back to an older copy twice in one sync; nothing was merged")
            }
            do {
                let resent = try store.pull.serverWentBack()
                return startOver(resent: resent, because: "went back to an older copy (restored from a backup?)")
            } catch {
                noteWriteFailure(error)
                return endPull("changes from the server not saved: \(StoreError.oneLine(error))")
            }
        }
        if let reason = store.noRoomToMerge(page.entities.count) {
            // Not merged, and the cursor stays: the next pull with room asks for this page again.
            diskIsFull(reason)
            pullFailure = "changes from the server not saved: \(reason)"
            flushSucceeded = false
            finishFlush()
            return
        }
        if !authPaused { post(connectivity: .online) }
        // The next page is asked for before this one is merged: the server reads it and the
        // network carries it while SQLite writes this one. Should this merge fail, its answer is
        // dropped unread (the cursor stays where it was, and the next sync asks again).
        let next =
            page.hasMore && !(page.entities.isEmpty && page.unreadable == 0) ? requestPage(since: page.cursor) : nil
        do {
            let (changed, notices) = try store.pull.mergePage(page.entities, cursor: page.cursor)
            metricDeltas[.pulled, default: 0] += changed
            if changed > 0 { events.post(.pulled(count: changed)) }
            for notice in notices { events.post(.notice(notice.message)) }
            // Sets kept in a restored workout were queued by the merge: they go out after this pull.
            if !notices.isEmpty { rerunRequested = true }
            // A value the merge overrode is said at once, on every screen of the user's.
            if page.entities.contains(where: { if case .conflict = $0 { true } else { false } }) {
                for sentence in try store.conflicts.takeAnnouncements() {
                    events.post(.notice("Conflict: \(sentence) (C: conflicts)"))
                }
            }
        } catch {
            noteWriteFailure(error)
            pullFailure = "changes from the server not saved: \(StoreError.oneLine(error))"
            feedProblem = pullFailure
            surface(
                "changes from the server not saved (the next sync reads them again): \(StoreError.oneLine(error))")
            flushSucceeded = false
            finishFlush()
            return
        }
        if let next {
            next.whenAnswered { [self] in handlePage($0) }
        } else {
            // Read to its end; changes that could not be read were passed over (the feed moves
            // on), which this pull says rather than calling everything received.
            pullFailure =
                unreadableThisPull > 0
                ? "\(unreadableThisPull) change(s) from the server could not be read and were skipped" : nil
            feedProblem = pullFailure
            // Records follow the pulled sets once, after the last page (a page at a time
            // would walk a big exercise again for every page).
            do { try store.refreshRecords() } catch {
                logger.error("records not refreshed: \(StoreError.oneLine(error))")
            }
            pullFavorites()
        }
    }

    /// The server refused this account's token: sync pauses until a login, and the account's
    /// mark says so to `status` and to the other processes of this device.
    private func tokenRefused() {
        authPaused = true
        saving("sign-in required") { try store.preferences.setMeta(store.authRequiredKey, "1") }
        post(connectivity: .signInRequired)
    }

    /// Ends the pull under way: not all was received, for `reason`.
    private func endPull(_ reason: String) {
        pullFailure = reason
        feedProblem = reason
        flushSucceeded = false
        finishFlush()
    }

    /// After what this device holds was queued again for a server that lost it (`resent`
    /// entries): says so, reads the feed from its start, and sends them after this pull.
    private func startOver(resent: Int, because what: String) {
        replacedThisFlush = true
        announceResend(resent, because: what)
        rerunRequested = true
        pull()
    }

    /// "The server's data … : N of this device's entries are sent to it again", logged and shown.
    private func announceResend(_ resent: Int, because what: String) {
        let sentence = "the server's data \(what): \(resent) of this device's entries are sent to it again"
        logger.warning("\(sentence)")
        events.post(.notice("The \(sentence.dropFirst(4))"))
    }

    /// Changes asked for in a pull's first page.
    static let firstPageSize = 500

    /// Why a page of the change feed was not read, for `lastPullFailure` and the connectivity shown.
    private func recordPullFailure(_ result: Result<TransportResponse, TransportError>) {
        switch result {
        case .success(let response) where response.status == 401:
            pullFailure = "the server refused the token (sign in again: spotter login)"
            tokenRefused()
        case .failure(.offline):
            pullFailure = "airplane mode is on"
            post(connectivity: .airplane)
        case .failure(let error):
            pullFailure = "\(error)"
            post(connectivity: .offline(reason: "\(error)"))
        case .success(let response) where response.status == 200:
            pullFailure = "the change feed could not be read"
            feedProblem = pullFailure
        case .success(let response):
            pullFailure =
                "the change feed answered HTTP \(response.status): "
                + OperationRequest.reason(
                    status: response.status, problem: JSONValue.parse(response.body).flatMap { try? Problem(json: $0) })
            feedProblem = pullFailure
        }
    }

    /// A page of the change feed in local terms, read through the wire model (parsed once into
    /// `JSONValue`, then typed: a page is thousands of rows). Entries that do not read are counted.
    static func readChanges(_ body: Data) -> ChangePage? {
        guard let json = JSONValue.parse(body), let page = try? WireChangesPage(json: json) else { return nil }
        return ChangePage(
            entities: page.changes.map(\.pulled), unreadable: page.unreadable.count, cursor: page.cursor,
            hasMore: page.hasMore)
    }

    /// `readChanges` of a response's body, with the name the server gives its database.
    static func readChanges(_ response: TransportResponse) -> ChangePage? {
        var page = readChanges(response.body)
        page?.identity = response.headers[HeaderName.serverIdentity.lowercased()].flatMap { $0.isEmpty ? nil : $0 }
        page?.feedHead = response.headers[HeaderName.feedHead.lowercased()].flatMap { Int64($0) }
        return page
    }

    /// Whether `page` answers a cursor past everything the server's database has: it went back
    /// to an older copy.
    static func serverWentBack(_ page: ChangePage) -> Bool {
        guard let head = page.feedHead, let since = page.since.flatMap({ Int64($0) }) else { return false }
        return since > head
    }

    /// Whether `page` names a database other than the one this device last synced with.
    private func serverWasReplaced(_ page: ChangePage) -> Bool {
        guard let identity = page.identity else { return false }
        return isAnotherDatabase(identity) && seenIdentity != nil
    }

    /// Whether `identity` is not the database this device last saw. The kept name is read from
    /// the store again when it differs: another process of this device may have seen it first.
    private func isAnotherDatabase(_ identity: String) -> Bool {
        if seenIdentity == identity { return false }
        seenIdentity = (try? store.pull.knownServerIdentity()) ?? nil
        return seenIdentity != identity
    }

    private func pullFavorites() {
        transport.send(TransportRequest(method: "GET", path: Route.favorites, timeout: configuration.requestTimeout)) {
            [self] result in
            queue.async { [self] in
                if case .success(let response) = result, response.status == 200,
                    let list = JSONValue.parse(response.body).flatMap({ try? FavoritesDTO(json: $0) })
                {
                    saving("the server's favorites") { try store.pull.replaceServerFavorites(list.favorites) }
                }
                finishFlush()
            }
        }
    }

    // MARK: Finishing and timers

    private func finishFlush() {
        dispatchPrecondition(condition: .onQueue(queue))
        // A flush whose requests the server refused for the token reached no sync: the last
        // sync time stays, and so does the mark that sign-in is needed.
        if flushSucceeded, !airplaneOn, !authPaused {
            saving("the last sync time") {
                try store.preferences.setMeta(MetaKey.lastSyncAt, Timestamp.format(clock.now()))
                try store.preferences.setMeta(store.authRequiredKey, nil)
            }
        }
        do {
            try store.queue.incrementMetrics(metricDeltas)
            metricDeltas.removeAll()
            try store.queue.pruneSucceeded(keep: configuration.historyCap)
        } catch {
            logger.error("could not save sync metrics: \(StoreError.oneLine(error))")
        }
        postCounts()
        if feedProblem != toldFeedProblem {
            toldFeedProblem = feedProblem
            events.post(.feedProblem(feedProblem))
        }
        running = false
        events.post(.syncing(false))
        scheduleRetry()
        if rerunRequested && !stopped {
            rerunRequested = false
            beginFlush(.enqueue)
            return
        }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
        if watchOpen == nil, watchTimer == nil { watch() }
    }

    // MARK: The wait on the change feed

    /// Opens one `GET /v1/changes?since=CURSOR&wait=N` (when watching is on, the engine runs,
    /// the device is online and signed in, and none is open). The server answers it the moment a
    /// write of this user commits, with what is new: the engine then flushes (push, then pull),
    /// and opens the next wait when that flush ends. An empty answer (the wait ran out) opens the
    /// next at once; a failure backs off, with jitter, up to `watchBackoffCap`.
    private func watch() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard configuration.watchChanges, configuration.pullEnabled, !stopped, !authPaused, watchOpen == nil,
            !airplaneOn
        else { return }
        watchTimer?.cancel()
        watchTimer = nil
        let path = Self.feedPath(since: pullCursor(), limit: 1, wait: configuration.watchWait)
        watchGeneration += 1
        let generation = watchGeneration
        let request = TransportRequest(
            method: "GET", path: path, timeout: TimeInterval(configuration.watchWait) + configuration.requestTimeout)
        watchOpen = TransportCancellation.ignored  // held while the request is handed over (an answer may come at once)
        let cancellation = transport.sendCancellable(request) { [weak self] result in
            guard let self else { return }
            self.queue.async { self.watchAnswered(result, generation: generation) }
        }
        if watchGeneration == generation, watchOpen != nil { watchOpen = cancellation }
    }

    private func watchAnswered(_ result: Result<TransportResponse, TransportError>, generation: Int) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard generation == watchGeneration else { return }  // given up meanwhile
        watchOpen = nil
        guard !stopped else { return }
        if case .success(let response) = result, response.status == 200, let page = Self.readChanges(response) {
            watchFailures = 0
            // A server whose database is not the one synced with has nothing past this device's
            // cursor to wake it for: the pull that finds the new name starts over.
            if page.entities.isEmpty && page.unreadable == 0 && !serverWasReplaced(page) && page.feedHead == nil {
                watch()  // the wait ran out with nothing new
            } else {
                beginFlush(.remote)  // the next wait opens when this flush ends
                if !running { watch() }
            }
            return
        }
        if case .failure(.offline) = result { return }  // airplane mode: airplane off flushes, then watches
        watchFailures += 1
        let pause = min(configuration.watchBackoffCap, 0.5 * pow(2, Double(min(watchFailures - 1, 16))))
        let jittered = pause * (0.5 + random() * 0.5)
        watchTimer = scheduler.schedule(after: jittered, on: queue) { [weak self] in
            guard let self else { return }
            self.watchTimer = nil
            self.watch()
        }
        // A wait that broke (the server stopped, the network went) may be the first sign that the
        // server is gone; the badge must not keep saying "online" until the periodic pull. One pull
        // asks now, and says online or offline by its own answer. (The wait above is timed: the
        // end of this flush does not reopen it at once, so a down server is not asked in a loop.)
        if case .failure(let error) = result, error != .offline, !running { beginFlush(.remote) }
    }

    /// Gives up the open wait (airplane mode, stop): its connection closes, and its answer, if
    /// one still comes, is ignored.
    private func closeWatch() {
        dispatchPrecondition(condition: .onQueue(queue))
        watchGeneration += 1
        watchTimer?.cancel()
        watchTimer = nil
        let open = watchOpen
        watchOpen = nil
        open?.cancel()
    }

    private func scheduleRetry() {
        retryTimer?.cancel()
        retryTimer = nil
        guard !stopped, !authPaused else { return }
        if diskFull != nil || !unrecorded.isEmpty {
            // Room comes back without telling anyone (a file deleted, a download finished): look again.
            retryTimer = scheduler.schedule(after: configuration.diskFullRetry, on: queue) { [weak self] in
                self?.beginFlush(.retry)
            }
            return
        }
        let due: Date?
        do { due = try store.queue.nextRetryAt() } catch {
            // The periodic tick still runs: a retry is late, never lost.
            logger.error("retry time unreadable: \(StoreError.oneLine(error))")
            return
        }
        guard let due else { return }
        let delay = max(0.01, due.timeIntervalSince(clock.now()))
        retryTimer = scheduler.schedule(after: delay, on: queue) { [weak self] in
            self?.beginFlush(.retry)
        }
    }

    private func schedulePeriodic() {
        periodicTimer?.cancel()
        periodicTimer = scheduler.schedule(after: configuration.periodicInterval, on: queue) { [weak self] in
            guard let self, !self.stopped else { return }
            self.beginFlush(.periodic)
            self.schedulePeriodic()
        }
    }

    // MARK: A full disk

    /// Whether the disk has room for what a flush records. After writes failed for lack of space
    /// it first gives the WAL's room back, and puts the operations whose answers were not
    /// written down back in the queue; while there is no room it says so, and the flush stops.
    private func roomToRecord() -> Bool {
        // A WAL bigger than the room left (a write found the disk full, in this process or another)
        // is copied into the database and truncated first; while that cannot be done, nothing else is.
        let suspect = diskFull != nil || !unrecorded.isEmpty || store.journalNeedsRoom() != nil
        if suspect, !store.reclaimJournalSpace(), let reason = store.journalNeedsRoom() {
            diskIsFull(reason)
            return false
        }
        if let reason = store.diskFullReason() {
            diskIsFull(reason)
            return false
        }
        if !unrecorded.isEmpty {
            do {
                try store.queue.releaseUnsent(opIDs: Array(unrecorded))
                unrecorded.removeAll()
            } catch {
                noteWriteFailure(error)
                return false
            }
        }
        if diskFull != nil {
            diskFull = nil
            logger.notice("the disk has room again: syncing")
            lastConnectivity = nil  // the next answer says online again
            events.post(.connectivity(.online))
        }
        return true
    }

    /// A write of the engine failed: when for lack of space, the disk is full (the WAL's room
    /// is given back at once), and `unrecorded` operations are remembered to be queued again.
    private func noteWriteFailure(_ error: any Error, unrecorded opIDs: [String] = []) {
        guard StoreError.isDiskFull(error) else { return }
        unrecorded.formUnion(opIDs)
        store.reclaimJournalSpace()
        diskIsFull()
    }

    /// - Parameter reason: what to say; by default, the room the disk has now.
    private func diskIsFull(_ reason: String? = nil) {
        let reason = reason ?? store.diskFullReason() ?? DiskSpace.fullReason(available: nil)
        // A state, not a failure: the badge, `status` and `sync`'s exit line each say it, so a
        // command's log (which shows warnings and errors) does not say it a second time.
        if diskFull == nil { logger.notice("\(reason)") }
        diskFull = reason
        post(connectivity: .diskFull(reason: reason))
    }

    /// Why the disk has no room for sync work, or nil when it has. Call from outside the engine's queue.
    public var diskFullReason: String? {
        queue.sync { diskFull }
    }

    /// The airplane switch (fail closed: one that cannot be read is on), the failure logged.
    private var airplaneOn: Bool {
        store.preferences.airplaneIsOn { logger.error("airplane switch unreadable, staying offline: \($0)") }
    }

    /// A write whose loss the user would notice is never swallowed: it is logged.
    private func saving(_ what: String, _ write: () throws -> Void) {
        do { try write() } catch { surface("could not save \(what): \(StoreError.oneLine(error))") }
    }

    /// A failed write the user would notice: logged, and told to the UI as a notice.
    private func surface(_ message: String) {
        logger.error("\(message)")
        events.post(.notice(message))
    }

    /// Posts the queue's counts for the badge. Between two batches of a drain at most every
    /// `countsInterval` (counting thousands of queued operations after every batch slowed the
    /// drain it reports on); the end of a flush always posts.
    private func postCounts(between: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        if between, now &- lastCountsPostedAt < Self.countsInterval { return }
        lastCountsPostedAt = now
        do {
            let counts = try store.queries.queueCounts()
            events.post(
                .outboxChanged(
                    pending: counts.pending, failed: counts.failed + counts.blocked,
                    gaveUp: counts.gaveUp + counts.blockedOnNoAnswer))
        } catch {
            logger.error("outbox counts unreadable: \(StoreError.oneLine(error))")
        }
    }

    private func post(connectivity: Connectivity) {
        guard connectivity != lastConnectivity else { return }
        // An answer that arrives after airplane mode went on (sent just before) says nothing
        // about now: the badge must keep saying airplane, never "online".
        if connectivity != .airplane, airplaneOn {
            post(connectivity: .airplane)
            return
        }
        lastConnectivity = connectivity
        events.post(.connectivity(connectivity))
    }
}

import Foundation

/// Every state of an outbox operation and every way it moves, in one place.
///
/// The product's promise — an operation is sent until it succeeds or visibly fails, never lost,
/// never doubled — is written here as values: given what is known of an operation and what
/// happened to it, `apply` says which state it goes to and what that means for its entity and
/// for the operations that wait on it. The store only carries those effects out; no other file
/// decides a state.
public enum OutboxMachine {
    /// What the store knows of an operation when something happens to it.
    public struct Facts: Sendable, Equatable {
        public var kind: OperationKind
        public var state: OperationState
        /// Tries counted against the safety valve.
        public var attemptCount: Int
        /// Whether any try ever left (a retry may restart the count, never this).
        public var everSent: Bool
        /// The status of the last answer, if one came.
        public var lastStatus: Int?
        /// The user deleted the entity here (its tombstone waits for the delete).
        public var entityDeletedLocally: Bool
        /// Another operation on the same entity is queued after this one.
        public var laterQueued: Bool
        /// The engine gave up on it after tries that got no definite answer (timeouts, broken
        /// connections, 5xx): it may have landed, and the server never refused it.
        public var gaveUpWithoutAnswer: Bool

        public init(
            kind: OperationKind, state: OperationState, attemptCount: Int = 0, everSent: Bool? = nil,
            lastStatus: Int? = nil, entityDeletedLocally: Bool = false, laterQueued: Bool = false,
            gaveUpWithoutAnswer: Bool = false
        ) {
            self.kind = kind
            self.state = state
            self.attemptCount = attemptCount
            self.everSent = everSent ?? (attemptCount > 0)
            self.lastStatus = lastStatus
            self.entityDeletedLocally = entityDeletedLocally
            self.laterQueued = laterQueued
            self.gaveUpWithoutAnswer = gaveUpWithoutAnswer
        }

        /// The server answered it with a definite refusal (a 4xx), as opposed to no answer.
        public var refused: Bool { !gaveUpWithoutAnswer && isRefusal(status: lastStatus) }
    }

    /// What happened to an operation.
    public enum Event: Sendable, Equatable {
        /// The engine takes it to send now (it holds a lease until an answer comes).
        case claimed
        /// It was claimed but never left (airplane mode came on, it did not fit the batch): not a try.
        case notSent
        /// Its lease ran out, or the process that held it is gone: it may have been sent.
        case leaseLost
        /// The server did what was asked (2xx, or 404/410 on a delete).
        case succeeded(status: Int)
        /// Try again later (408, 409 key in use, 425, 429, 5xx, no answer).
        case transient(status: Int?, error: String, retryAt: Date)
        /// It will not be sent again: the server refused it (a definite 4xx).
        case permanent(status: Int?, error: String)
        /// The engine stopped trying after tries that got no definite answer (timeouts, dropped
        /// connections, 5xx, 429): it may have landed. Never a refusal; it goes back to the
        /// queue by itself when the server next answers (`noAnswerRequeue`).
        case gaveUp(status: Int?, error: String)
        /// The server refused a set's create or edit because the workout it names is gone (another
        /// device deleted it): a definite 422, but the set itself is still the user's.
        case workoutGone(status: Int, error: String)
        /// Its row cannot be read: sending it would send made-up fields.
        case unreadable(reason: String)
        /// The operation it depends on failed for good.
        case dependencyFailed(reason: String)
        /// The operation it depends on gave up without an answer: this one waits for it, unrefused.
        case dependencyGaveUp(reason: String)
        /// The server answered a request again (or airplane mode went off): an operation that
        /// gave up without an answer goes back to the queue, with the same key.
        case noAnswerRequeue
        /// The operation it depends on is queued again.
        case dependencyRequeued
        /// The server's change feed shows the entity deleted: a delete that gave up without a
        /// definite answer had in fact landed (or another device deleted it) — its intent is done.
        case seenDeletedOnServer
        /// The user asks to send it again.
        case retry
        /// The user gives up on it.
        case discard
    }

    /// What a transition means beyond the operation's own state.
    public enum Effect: Sendable, Equatable {
        /// Count the try, start the lease.
        case startTry
        /// The claim did not leave: uncount it.
        case undoTry
        /// The server asked to wait (429): the try is not counted against the safety valve.
        case refundTry
        /// Tries and age start over, so the safety valve gives a retried operation a full new run.
        case startAfresh
        case scheduleRetry(at: Date)
        /// Due at once: a retry time still ahead is dropped.
        case dueNow
        case recordAnswer(status: Int?, error: String?)
        /// It is over, one way or the other (the time it ended).
        case complete
        /// The entity takes the server's newest row (nothing later is queued for it).
        case takeServerRow
        /// A delete was acknowledged: the local tombstone goes.
        case removeDeletedEntity
        /// A delete was acknowledged: operations on the same entity that failed for good before it
        /// (a create that gave up, an edit refused) are moot now that the entity is gone from the
        /// server as the user asked — the delete was their discard. They no longer count as failed.
        case settleEarlierFailures
        /// A create found its entity already on the server (409, id taken): the edits made here
        /// after the create still go out, as an update.
        case resendLaterEdits
        case markEntityRejected(String)
        /// The entity waits without having been refused: it says why ("gave up (no answer): …").
        case markEntityWaiting(String)
        /// Remember that the operation ended without a definite answer (it is not a refusal).
        case markNoAnswer
        case blockDependants(String)
        case releaseDependants
        /// The server never had the entity: it goes here, with every operation about it.
        case discardEntity
        /// What waited on a create that is discarded without an answer stays queued, waiting on nothing.
        case keepDependantsQueued
        case removeOperation
        /// An update was refused: the fields it touched return to their before-image.
        case rollBack(String)
        /// An update found its entity deleted on another device.
        case removeEntityLocally
        /// A delete was refused: the entity comes back.
        case restoreEntity(String)
        /// A refusal retried: the same intent, as a new operation with a new key.
        case requeueAsNewIntent
        /// The set's workout was deleted on another device: the set (with the workout's other sets
        /// the server never had) moves into a restored copy of that workout, made here under a new
        /// id, and its intent goes out again as a new operation naming that copy.
        case keepInRestoredWorkout
        /// A change from another device that waited for this operation can now be applied.
        case settleWaitingChange
    }

    /// Where an operation goes and what comes with it; `state` is nil when the row is removed.
    public struct Transition: Sendable, Equatable {
        public var state: OperationState?
        public var effects: [Effect]

        public init(_ state: OperationState?, _ effects: [Effect] = []) {
            self.state = state
            self.effects = effects
        }
    }

    /// An event that cannot happen to an operation in its state (retrying one still queued).
    public struct NotAllowed: Error, Equatable, CustomStringConvertible {
        public let state: OperationState
        public let event: String
        public var description: String {
            switch event {
            case "retry": "the operation is \(state.rawValue); only failed or waiting operations can be retried"
            case "discard": "the operation is \(state.rawValue); only failed or blocked operations can be discarded"
            default: "an operation that is \(state.rawValue) cannot be \(event)"
            }
        }
    }

    /// Whether a final answer means the server did not apply the request (a 4xx refusal), as
    /// opposed to giving up without knowing.
    public static func isRefusal(status: Int?) -> Bool {
        guard let status else { return false }
        return (400..<500).contains(status) && ![401, 408, 425, 429].contains(status)
    }

    /// Whether a create is certain never to have reached the server: never sent, or refused.
    public static func createNeverAccepted(_ facts: Facts) -> Bool {
        facts.kind == .create
            && (facts.state == .blocked || facts.state == .failedPermanent)
            && (!facts.everSent || facts.refused)
    }

    /// A 429: the server asking to wait, an answer rather than a failed try. It spends none of the
    /// twenty tries (the queue gives it back, and the engine's give-up counts only the week in
    /// the queue for it): a busy server would otherwise use them up in a minute.
    public static func asksToWait(_ status: Int?) -> Bool { status == 429 }

    /// What an operation's entity says while the operation gave up without an answer.
    public static func gaveUpText(_ error: String) -> String {
        error.hasPrefix(gaveUpPrefix) ? error : "\(gaveUpPrefix): \(error)"
    }

    /// The words every listing uses for a give-up without an answer (never "rejected").
    public static let gaveUpPrefix = "gave up (no answer)"

    /// The transition for `event` on an operation described by `facts`.
    public static func apply(_ event: Event, to facts: Facts) throws(NotAllowed) -> Transition {
        switch (event, facts.state) {
        case (.claimed, .pending), (.claimed, .failedTransient):
            return Transition(.inFlight, [.startTry])

        case (.notSent, .inFlight):
            return Transition(facts.attemptCount > 1 ? .failedTransient : .pending, [.undoTry])

        case (.leaseLost, .inFlight):
            return Transition(.pending)

        // An answer counts whenever it comes, even after its lease ran out (it was sent).
        case (.succeeded(let status), let state) where state.awaitsAnswer:
            var effects: [Effect] = [.recordAnswer(status: status, error: nil), .complete]
            if facts.kind == .create && status == 409 { effects.append(.resendLaterEdits) }
            if facts.kind == .delete {
                effects.append(.settleEarlierFailures)
                if !facts.laterQueued { effects.append(.removeDeletedEntity) }
            } else if !facts.laterQueued {
                effects.append(.takeServerRow)
            }
            return Transition(.succeeded, effects)

        case (.transient(let status, let error, let retryAt), let state) where state.awaitsAnswer:
            return Transition(
                .failedTransient,
                [.recordAnswer(status: status, error: error), .scheduleRetry(at: retryAt)]
                    + (asksToWait(status) ? [.refundTry] : []))

        case (.permanent(let status, let error), let state) where state.awaitsAnswer:
            return Transition(.failedPermanent, permanentEffects(facts, status: status, error: error))

        // A set sent into a workout another device deleted. A set the user deleted here meanwhile
        // goes as any refused create would; any other is kept, never dropped with the workout.
        case (.workoutGone(let status, let error), let state) where state.awaitsAnswer:
            if facts.kind == .create && facts.entityDeletedLocally || facts.kind == .delete {
                return Transition(.failedPermanent, permanentEffects(facts, status: status, error: error))
            }
            return Transition(nil, [.keepInRestoredWorkout])

        case (.gaveUp(let status, let error), let state) where state.awaitsAnswer:
            return Transition(.failedPermanent, gaveUpEffects(facts, status: status, error: gaveUpText(error)))

        case (.noAnswerRequeue, .failedPermanent) where facts.gaveUpWithoutAnswer:
            return Transition(
                .pending, [.startAfresh, .recordAnswer(status: facts.lastStatus, error: nil), .releaseDependants])

        case (.unreadable(let reason), let state) where state != .succeeded:
            let message = "unreadable operation: \(reason)"
            return Transition(
                .failedPermanent,
                [
                    .recordAnswer(status: nil, error: message), .complete, .markEntityRejected(message),
                    .blockDependants(
                        "waiting on an unreadable operation"),
                ])

        case (.dependencyFailed(let reason), .pending), (.dependencyFailed(let reason), .failedTransient),
            (.dependencyFailed(let reason), .blocked):
            return Transition(.blocked, [.recordAnswer(status: nil, error: reason), .markEntityRejected(reason)])

        case (.dependencyGaveUp(let reason), .pending), (.dependencyGaveUp(let reason), .failedTransient),
            (.dependencyGaveUp(let reason), .blocked):
            return Transition(.blocked, [.recordAnswer(status: nil, error: reason), .markEntityWaiting(reason)])

        case (.dependencyRequeued, .blocked):
            return Transition(.pending, [.recordAnswer(status: nil, error: nil)])

        case (.seenDeletedOnServer, .failedPermanent)
        where facts.kind == .delete && !facts.refused:
            return Transition(
                .succeeded,
                [.recordAnswer(status: nil, error: nil), .complete, .settleEarlierFailures, .removeDeletedEntity])

        // An edit answered 404 because another device had deleted the entity: the delete won (the
        // server recorded the edit as a conflict, which the user sees), so nothing is left to send.
        case (.seenDeletedOnServer, .failedPermanent) where facts.kind == .update && facts.lastStatus == 404:
            return Transition(.succeeded, [.recordAnswer(status: 404, error: nil), .complete])

        // Waiting out a server's Retry-After or the backoff: the lifter asks for it now. The same
        // key (it may have landed), with its attempts so far.
        case (.retry, .failedTransient):
            return Transition(.pending, [.recordAnswer(status: facts.lastStatus, error: nil), .dueNow])

        case (.retry, .failedPermanent):
            if facts.refused {
                // Resending the same key would only replay the refusal: a new intent, a new key.
                return Transition(nil, [.requeueAsNewIntent])
            }
            // The engine gave up without a definite answer: the same key, since it may have landed.
            return Transition(
                .pending, [.startAfresh, .recordAnswer(status: facts.lastStatus, error: nil), .releaseDependants])

        case (.discard, .failedPermanent) where facts.kind == .create && facts.gaveUpWithoutAnswer:
            // No answer came: it may exist on the server. Only the create stops; what waits on
            // it is sent after all (and lands if the entity is there).
            return Transition(nil, [.keepDependantsQueued, .removeOperation, .settleWaitingChange])

        case (.discard, .failedPermanent), (.discard, .blocked):
            if facts.kind == .create { return Transition(nil, [.discardEntity, .settleWaitingChange]) }
            return Transition(nil, [.removeOperation, .settleWaitingChange])

        default:
            throw NotAllowed(state: facts.state, event: name(of: event))
        }
    }

    /// A final refusal (or giving up), by what the operation was for.
    private static func permanentEffects(_ facts: Facts, status: Int?, error: String) -> [Effect] {
        var effects: [Effect] = [.recordAnswer(status: status, error: error), .complete]
        switch facts.kind {
        case .create where facts.entityDeletedLocally:
            // The user deleted it meanwhile. Refused: gone either way. Given up: it may exist on
            // the server, so the delete queued behind it must still go out, in its place.
            effects.append(isRefusal(status: status) ? .discardEntity : .removeOperation)
        case .create:
            effects += [.markEntityRejected(error), .blockDependants(error)]
        case .update where status == 404 || status == 410:
            effects.append(.removeEntityLocally)
        case .update:
            effects.append(.rollBack(error))
        case .delete:
            effects.append(.restoreEntity(error))
        }
        effects.append(.settleWaitingChange)
        return effects
    }

    /// Giving up without an answer: nothing is rolled back or restored (it may have landed), the
    /// entity and what waits on it say so, and none of it is called rejected.
    private static func gaveUpEffects(_ facts: Facts, status: Int?, error: String) -> [Effect] {
        var effects: [Effect] = [.recordAnswer(status: status, error: error), .complete, .markNoAnswer]
        if facts.kind == .create && facts.entityDeletedLocally {
            // The delete queued behind it must still go out, in its place.
            effects.append(.removeOperation)
        } else {
            effects.append(.markEntityWaiting(error))
            if facts.kind == .create { effects.append(.blockDependants(error)) }
        }
        effects.append(.settleWaitingChange)
        return effects
    }

    private static func name(of event: Event) -> String {
        switch event {
        case .claimed: "claimed"
        case .notSent: "released unsent"
        case .leaseLost: "released from its lease"
        case .succeeded: "completed"
        case .transient: "retried later"
        case .permanent: "failed"
        case .gaveUp: "given up"
        case .workoutGone: "kept in a restored workout"
        case .dependencyGaveUp: "held"
        case .noAnswerRequeue: "queued again after no answer"
        case .unreadable: "marked unreadable"
        case .dependencyFailed: "blocked"
        case .dependencyRequeued: "released"
        case .seenDeletedOnServer: "settled by the server's feed"
        case .retry: "retry"
        case .discard: "discard"
        }
    }
}

extension OperationState {
    /// States an answer of the server can still find an operation in: in flight, or back in the
    /// queue after its lease ran out while the request was out.
    public var awaitsAnswer: Bool { self == .inFlight || self == .pending || self == .failedTransient }

    /// States an operation still leaves by being sent, or waits in for its dependency: it is queued.
    public static let queued: [OperationState] = [.pending, .inFlight, .failedTransient, .blocked]
}

/// Enums stored as text write their SQL literals from their cases, so no state, kind or entity
/// type is spelled as a string in a query.
public protocol SQLTextEnum: RawRepresentable where RawValue == String {}

extension SQLTextEnum {
    /// This case as an SQL literal.
    public var sql: String { "'\(rawValue)'" }

    /// A list for SQL `IN (…)`.
    public static func sqlList(_ cases: [Self]) -> String {
        "(" + cases.map(\.sql).joined(separator: ",") + ")"
    }
}

extension OperationState: SQLTextEnum {}
extension OperationKind: SQLTextEnum {}
extension EntityType: SQLTextEnum {}
extension SyncState: SQLTextEnum {}
extension SetKind: SQLTextEnum {}
extension WeightUnit: SQLTextEnum {}

import Foundation
import SpotterCore
import Testing

@Suite("The outbox machine: every state × every event")
struct OutboxMachineTests {
    static let later = Date(timeIntervalSince1970: 1_800_000_000)
    static let events: [OutboxMachine.Event] = [
        .claimed, .notSent, .leaseLost, .succeeded(status: 200), .transient(status: 503, error: "busy", retryAt: later),
        .permanent(status: 422, error: "reps: too many"), .unreadable(reason: "payload holds a BLOB"),
        .dependencyFailed(reason: "waiting on rejected workout"), .dependencyRequeued, .seenDeletedOnServer, .retry,
        .discard, .gaveUp(status: nil, error: "timed out"), .dependencyGaveUp(reason: "waiting on workout"),
        .noAnswerRequeue, .workoutGone(status: 422, error: "workout_id: must name an existing workout of this user"),
    ]

    /// Which state each (state, event) pair leads to for an update; `nil` means the row goes away,
    /// and a missing pair is not allowed.
    static let table: [OperationState: [String: String]] = [
        .pending: [
            "claimed": "in_flight", "unreadable": "failed_permanent", "dependencyFailed": "blocked",
            "succeeded": "succeeded", "transient": "failed_transient", "permanent": "failed_permanent",
            "workoutGone": "removed",
            "gaveUp": "failed_permanent", "dependencyGaveUp": "blocked",
        ],
        .inFlight: [
            "notSent": "pending", "leaseLost": "pending", "succeeded": "succeeded", "transient": "failed_transient",
            "permanent": "failed_permanent", "workoutGone": "removed", "unreadable": "failed_permanent",
            "gaveUp": "failed_permanent",
        ],
        .failedTransient: [
            "claimed": "in_flight", "unreadable": "failed_permanent", "dependencyFailed": "blocked",
            "succeeded": "succeeded", "transient": "failed_transient", "permanent": "failed_permanent",
            "workoutGone": "removed",
            "gaveUp": "failed_permanent", "dependencyGaveUp": "blocked", "retry": "pending",
        ],
        .failedPermanent: ["unreadable": "failed_permanent", "retry": "removed", "discard": "removed"],
        .blocked: [
            "unreadable": "failed_permanent", "dependencyFailed": "blocked", "dependencyRequeued": "pending",
            "discard": "removed", "dependencyGaveUp": "blocked",
        ],
        .succeeded: [:],
    ]

    static func name(_ event: OutboxMachine.Event) -> String {
        switch event {
        case .claimed: "claimed"
        case .notSent: "notSent"
        case .leaseLost: "leaseLost"
        case .succeeded: "succeeded"
        case .transient: "transient"
        case .permanent: "permanent"
        case .unreadable: "unreadable"
        case .dependencyFailed: "dependencyFailed"
        case .dependencyRequeued: "dependencyRequeued"
        case .seenDeletedOnServer: "seenDeletedOnServer"
        case .retry: "retry"
        case .discard: "discard"
        case .gaveUp: "gaveUp"
        case .dependencyGaveUp: "dependencyGaveUp"
        case .noAnswerRequeue: "noAnswerRequeue"
        case .workoutGone: "workoutGone"
        }
    }

    @Test(arguments: OperationState.allCases)
    func everyEventInEveryStateIsATransitionOrRefused(state: OperationState) throws {
        let allowed = try #require(Self.table[state])
        for event in Self.events {
            let facts = OutboxMachine.Facts(kind: .update, state: state, attemptCount: 1, lastStatus: 422)
            if let expected = allowed[Self.name(event)] {
                let transition = try OutboxMachine.apply(event, to: facts)
                #expect((transition.state?.rawValue ?? "removed") == expected, "\(state) + \(Self.name(event))")
            } else {
                #expect(throws: OutboxMachine.NotAllowed.self, "\(state) + \(Self.name(event))") {
                    try OutboxMachine.apply(event, to: facts)
                }
            }
        }
    }

    @Test func aGiveUpWithoutAnswerIsNoRefusalAndGoesBackToTheQueue() throws {
        let gaveUp = try OutboxMachine.apply(
            .gaveUp(status: nil, error: "gave up after 3 attempts: timed out"),
            to: .init(kind: .create, state: .inFlight))
        #expect(gaveUp.state == .failedPermanent)
        #expect(gaveUp.effects.contains(.markNoAnswer))
        #expect(!gaveUp.effects.contains { if case .markEntityRejected = $0 { true } else { false } })
        #expect(gaveUp.effects.contains(.markEntityWaiting("gave up (no answer): gave up after 3 attempts: timed out")))
        let stored = OutboxMachine.Facts(
            kind: .create, state: .failedPermanent, attemptCount: 3, lastStatus: 409, gaveUpWithoutAnswer: true)
        #expect(!stored.refused, "a 409 'key in use' before giving up is no refusal")
        #expect(!OutboxMachine.createNeverAccepted(stored), "it may exist on the server")
        let back = try OutboxMachine.apply(.noAnswerRequeue, to: stored)
        #expect(back.state == .pending)
        #expect(back.effects.contains(.releaseDependants) && back.effects.contains(.startAfresh))
        // A definite refusal never goes back by itself.
        let refused = OutboxMachine.Facts(kind: .create, state: .failedPermanent, attemptCount: 1, lastStatus: 422)
        #expect(throws: OutboxMachine.NotAllowed.self) { try OutboxMachine.apply(.noAnswerRequeue, to: refused) }
        // An update or a delete that gave up is neither rolled back nor restored: it may have landed.
        for kind in [OperationKind.update, .delete] {
            let effects = try OutboxMachine.apply(
                .gaveUp(status: 503, error: "x"), to: .init(kind: kind, state: .inFlight)
            ).effects
            #expect(!effects.contains { if case .rollBack = $0 { true } else { false } })
            #expect(!effects.contains { if case .restoreEntity = $0 { true } else { false } })
        }
    }

    /// A set sent into a workout another device deleted is refused 422; it is no rejection of the
    /// set: it is kept in a restored copy of the workout and sent again. A set the user deleted
    /// here meanwhile goes as any refused create.
    @Test func aSetRefusedBecauseItsWorkoutIsGoneIsKept() throws {
        let gone = OutboxMachine.Event.workoutGone(status: 422, error: "workout_id: must name an existing workout")
        for kind in [OperationKind.create, .update] {
            let kept = try OutboxMachine.apply(gone, to: .init(kind: kind, state: .inFlight, attemptCount: 1))
            #expect(kept == OutboxMachine.Transition(nil, [.keepInRestoredWorkout]), "\(kind)")
        }
        let deleted = try OutboxMachine.apply(
            gone, to: .init(kind: .create, state: .inFlight, attemptCount: 1, entityDeletedLocally: true))
        #expect(deleted.state == .failedPermanent)
        #expect(deleted.effects.contains(.discardEntity))
        #expect(!deleted.effects.contains(.keepInRestoredWorkout))
    }

    @Test func successTakesTheServersRowOnlyWhenNothingLaterIsQueued() throws {
        let alone = try OutboxMachine.apply(.succeeded(status: 200), to: .init(kind: .update, state: .inFlight))
        #expect(alone.effects.contains(.takeServerRow))
        let followed = try OutboxMachine.apply(
            .succeeded(status: 200), to: .init(kind: .update, state: .inFlight, laterQueued: true))
        #expect(!followed.effects.contains(.takeServerRow), "a newer local edit is never overwritten")
        let delete = try OutboxMachine.apply(.succeeded(status: 200), to: .init(kind: .delete, state: .inFlight))
        #expect(delete.effects.contains(.removeDeletedEntity))
    }

    /// A delete that gave up without an answer, then the feed shows the entity deleted: it landed,
    /// so it succeeded. A refused delete stays failed (the entity came back, the user must see why),
    /// and a queued one goes out as usual (404 on a delete counts as done).
    @Test func aGivenUpDeleteIsSettledByATombstoneInTheFeed() throws {
        let gaveUp = try OutboxMachine.apply(
            .seenDeletedOnServer, to: .init(kind: .delete, state: .failedPermanent, attemptCount: 20, lastStatus: 503))
        #expect(gaveUp.state == .succeeded)
        #expect(gaveUp.effects.contains(.removeDeletedEntity) && gaveUp.effects.contains(.settleEarlierFailures))
        #expect(throws: OutboxMachine.NotAllowed.self) {
            try OutboxMachine.apply(
                .seenDeletedOnServer,
                to: .init(kind: .delete, state: .failedPermanent, attemptCount: 1, lastStatus: 403))
        }
        #expect(throws: OutboxMachine.NotAllowed.self) {
            try OutboxMachine.apply(.seenDeletedOnServer, to: .init(kind: .delete, state: .pending))
        }
    }

    /// A create that gave up (it may have landed), then the user deleted the entity and the delete
    /// went through: the failed create is moot and must not say "1 failed" for ever after.
    @Test func anAcknowledgedDeleteSettlesTheEntitysEarlierFailures() throws {
        let delete = try OutboxMachine.apply(.succeeded(status: 204), to: .init(kind: .delete, state: .inFlight))
        #expect(delete.effects.contains(.settleEarlierFailures))
        let update = try OutboxMachine.apply(.succeeded(status: 200), to: .init(kind: .update, state: .inFlight))
        #expect(!update.effects.contains(.settleEarlierFailures), "only a delete makes earlier failures moot")
    }

    @Test func aTransientFailureWaitsForItsRetryTime() throws {
        let transition = try OutboxMachine.apply(
            .transient(status: 429, error: "slow down", retryAt: Self.later), to: .init(kind: .create, state: .inFlight)
        )
        #expect(transition.state == .failedTransient)
        #expect(transition.effects.contains(.scheduleRetry(at: Self.later)))
    }

    @Test func aRefusedCreateIsShownRejectedAndBlocksItsDependants() throws {
        let transition = try OutboxMachine.apply(
            .permanent(status: 422, error: "weight: too heavy"), to: .init(kind: .create, state: .inFlight))
        #expect(transition.state == .failedPermanent)
        #expect(transition.effects.contains(.markEntityRejected("weight: too heavy")))
        #expect(transition.effects.contains(.blockDependants("weight: too heavy")))
    }

    @Test func aCreateDeletedHereIsDiscardedIfRefusedButItsDeleteGoesOutIfItGaveUp() throws {
        let deleted = OutboxMachine.Facts(kind: .create, state: .inFlight, entityDeletedLocally: true)
        let refused = try OutboxMachine.apply(.permanent(status: 422, error: "no"), to: deleted)
        #expect(refused.effects.contains(.discardEntity))
        let gaveUp = try OutboxMachine.apply(.permanent(status: nil, error: "gave up after 20 attempts"), to: deleted)
        #expect(gaveUp.effects.contains(.removeOperation))
        #expect(!gaveUp.effects.contains(.discardEntity), "it may exist on the server: the delete must still go")
    }

    @Test func refusedUpdatesRollBackAndUpdatesOfDeletedEntitiesRemoveThem() throws {
        let refused = try OutboxMachine.apply(
            .permanent(status: 422, error: "rpe"), to: .init(kind: .update, state: .inFlight))
        #expect(refused.effects.contains(.rollBack("rpe")))
        let gone = try OutboxMachine.apply(
            .permanent(status: 404, error: "gone"), to: .init(kind: .update, state: .inFlight))
        #expect(gone.effects.contains(.removeEntityLocally))
        let delete = try OutboxMachine.apply(
            .permanent(status: 403, error: "no"), to: .init(kind: .delete, state: .inFlight))
        #expect(delete.effects.contains(.restoreEntity("no")))
    }

    @Test func aRefusalIsRetriedAsANewIntentAndAGiveUpWithItsOwnKey() throws {
        let refused = try OutboxMachine.apply(
            .retry, to: .init(kind: .create, state: .failedPermanent, attemptCount: 1, lastStatus: 422))
        #expect(refused == OutboxMachine.Transition(nil, [.requeueAsNewIntent]))
        let gaveUp = try OutboxMachine.apply(
            .retry, to: .init(kind: .create, state: .failedPermanent, attemptCount: 20, lastStatus: 503))
        #expect(gaveUp.state == .pending)
        #expect(gaveUp.effects.contains(.releaseDependants))
    }

    @Test func aCreateIsCertainlyNeverAcceptedOnlyWhenNeverSentOrRefused() {
        #expect(OutboxMachine.createNeverAccepted(.init(kind: .create, state: .blocked)))
        #expect(
            OutboxMachine.createNeverAccepted(
                .init(kind: .create, state: .failedPermanent, attemptCount: 1, lastStatus: 409)))
        #expect(
            !OutboxMachine.createNeverAccepted(
                .init(kind: .create, state: .failedPermanent, attemptCount: 20, lastStatus: 503)))
        #expect(!OutboxMachine.createNeverAccepted(.init(kind: .create, state: .failedPermanent, attemptCount: 3)))
        #expect(!OutboxMachine.createNeverAccepted(.init(kind: .update, state: .failedPermanent, lastStatus: 422)))
    }

    @Test func aClaimThatNeverLeftDoesNotCountAsATry() throws {
        #expect(
            try OutboxMachine.apply(.notSent, to: .init(kind: .create, state: .inFlight, attemptCount: 1)).state
                == .pending)
        #expect(
            try OutboxMachine.apply(.notSent, to: .init(kind: .create, state: .inFlight, attemptCount: 3)).state
                == .failedTransient, "earlier tries still count: it waits as a retry")
    }
}

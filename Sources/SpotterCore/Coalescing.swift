import Foundation

/// What the write path should do with a new intent given the entity's newest queued
/// operation. Pure, so every rule is tested without a database.
public enum CoalesceDecision: Equatable, Sendable {
    /// Rewrite the existing, never-sent operation in place with this kind and payload.
    case rewrite(kind: OperationKind, payload: [String: JSONValue], before: [String: JSONValue])
    /// The existing never-sent create and the new delete cancel out: nothing is sent.
    case cancel
    /// Enqueue a new operation; it depends on `dependsOn` when that is set.
    case append(dependsOn: String?)
}

/// The newest not-yet-finished operation of an entity, as coalescing needs to see it.
public struct QueuedOperation: Equatable, Sendable {
    public let opID: String
    public let kind: OperationKind
    public let state: OperationState
    public let attemptCount: Int
    public let payload: [String: JSONValue]
    public let before: [String: JSONValue]

    public init(
        opID: String, kind: OperationKind, state: OperationState, attemptCount: Int,
        payload: [String: JSONValue], before: [String: JSONValue]
    ) {
        self.opID = opID
        self.kind = kind
        self.state = state
        self.attemptCount = attemptCount
        self.payload = payload
        self.before = before
    }

    /// Never sent and not claimed: nobody outside this device has seen its key, so its
    /// payload may still change. Anything that may have reached the server must not.
    public var isRewritable: Bool {
        attemptCount == 0 && (state == .pending || state == .blocked)
    }
}

public enum Coalescing {
    /// Decides how a new intent joins the queue behind `existing`.
    /// - Parameters:
    ///   - existing: the entity's newest operation that is still queued or blocked, if any.
    ///   - kind: the new intent's kind.
    ///   - payload: the fields the new intent sets.
    ///   - before: the before-image of the fields it touches.
    ///   - contentDerivedID: the entity's id comes from its content (an imported row): a create
    ///     and a delete never cancel out, since another device importing the same file would
    ///     create it again; the server must see both, so its tombstone answers that import.
    public static func decide(
        existing: QueuedOperation?, kind: OperationKind,
        payload: [String: JSONValue], before: [String: JSONValue], contentDerivedID: Bool = false
    ) -> CoalesceDecision {
        guard let existing else { return .append(dependsOn: nil) }
        guard existing.isRewritable else { return .append(dependsOn: existing.opID) }
        switch (existing.kind, kind) {
        case (.create, .update):
            // The before-image of a create names the fields edited after it (with their first
            // values): if the server already has the entity (the same import on another device),
            // those edits are still the user's and go out as an update.
            return .rewrite(
                kind: .create, payload: existing.payload.merging(payload) { _, new in new },
                before: existing.before.merging(before) { old, _ in old })
        case (.update, .update) where !Set(existing.payload.keys).isSubset(of: payload.keys):
            // One update carries one stamp, for every field it sends: folded into the new edit,
            // a field the earlier edit alone changed would claim the new edit's time and could
            // beat another device's edit made in between. It goes out as its own update.
            return .append(dependsOn: existing.opID)
        case (.update, .update):
            // The new edit sends every field the queued one did: later wins per field, and the
            // merged update honestly carries the new edit's stamp. The before-image keeps the
            // oldest value of each field, which is what a rollback of the merged patch must restore.
            let mergedBefore = existing.before.merging(before) { old, _ in old }
            return .rewrite(
                kind: .update, payload: existing.payload.merging(payload) { _, new in new }, before: mergedBefore)
        case (.create, .delete) where contentDerivedID:
            return .append(dependsOn: existing.opID)
        case (.create, .delete):
            return .cancel
        case (.update, .delete):
            // The delete replaces the queued edit, and carries what it says of itself (a
            // workout's delete: the sets the device held).
            let mergedBefore = existing.before.merging(before) { old, _ in old }
            return .rewrite(kind: .delete, payload: payload, before: mergedBefore)
        default:
            return .append(dependsOn: existing.opID)
        }
    }
}

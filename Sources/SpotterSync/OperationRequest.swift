import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// A method and a path of the sync API.
struct Endpoint: Equatable {
    let method: String
    let path: String
}

/// How an outbox operation travels: its route, method and body (see openapi.yaml).
public enum OperationRequest {
    /// The operation as one op of a batch. A create's body is read through the wire model
    /// first: a payload it would not accept (a corrupt row) is an error, never sent.
    static func batchOp(_ op: OutboxOperation) throws(WireError) -> BatchOp {
        let endpoint = route(op)
        return BatchOp(
            idempotencyKey: op.idempotencyKey, method: endpoint.method, path: endpoint.path, body: try body(op))
    }

    /// A whole `POST /v1/batch` body of these operations, each serialised once.
    public static func batchBody(_ ops: [OutboxOperation]) throws(WireError) -> Data {
        var prepared: [BatchOp] = []
        for op in ops { prepared.append(try batchOp(op)) }
        return batchBody(prepared).body
    }

    /// The body of `POST /v1/batch` holding the leading operations that fit in `maxBytes` (always
    /// at least one), and how many that is: what does not fit waits for the next batch.
    static func batchBody(_ ops: [BatchOp], maxBytes: Int = .max) -> (body: Data, count: Int) {
        var body = Data()
        body.reserveCapacity(min(maxBytes, ops.count * 400) + 16)
        body.append(contentsOf: "{\"ops\":[".utf8)
        var count = 0
        for op in ops {
            let text = op.json.canonicalData
            if count > 0 && body.count + text.count + 2 > maxBytes { break }
            if count > 0 { body.append(UInt8(ascii: ",")) }
            body.append(text)
            count += 1
        }
        body.append(contentsOf: "]}".utf8)
        return (body, count)
    }

    static func body(_ op: OutboxOperation) throws(WireError) -> JSONValue? {
        switch (op.entityType, op.kind) {
        case (.favorite, _): nil
        case (_, .delete): deleteBody(op)
        case (.workout, .create): try WireWorkout(json: .object(op.payload)).json
        case (.set, .create): try WireSet(json: .object(op.payload)).json
        case (.routine, .create): try WireRoutine(json: .object(op.payload)).json
        case (.bodyWeight, .create): try WireBodyWeight(json: .object(op.payload)).json
        case (_, .update): .object(editBody(op))
        }
    }

    /// An update's fields, with when the edit was made and the version it was made on, which the
    /// server's field merge reads (absent in rows queued before updates carried them).
    static func editBody(_ op: OutboxOperation) -> [String: JSONValue] {
        var body = op.payload
        if let stamp = op.clockStamp { body[EditClockField.stamp] = .string(stamp) }
        if let base = op.baseVersion { body[EditClockField.baseVersion] = .int(base) }
        // A routine's list is merged row by row against the list the edit was made on.
        // (The before image holds the column as stored: the list's JSON text.)
        if op.entityType == .routine, op.payload[Routine.Field.exercises] != nil,
            let before = op.before[Routine.Field.exercises]
        {
            let list = before.stringValue.flatMap { JSONValue.parse($0) } ?? before
            if list.arrayValue != nil { body[EditClockField.baseExercises] = list }
        }
        return body
    }

    /// A delete's body: when it was made, the version it was made on and, for a workout, the
    /// versions of its sets this device held; nil for a delete queued before deletes said so.
    static func deleteBody(_ op: OutboxOperation) -> JSONValue? {
        var body: [String: JSONValue] = [:]
        if let stamp = op.clockStamp { body[EditClockField.stamp] = .string(stamp) }
        if let base = op.baseVersion { body[EditClockField.baseVersion] = .int(base) }
        if let seen = op.payload[OutboxOperation.seenSetsKey], seen.arrayValue != nil {
            body[EditClockField.seenSets] = seen
        }
        return body.isEmpty ? nil : .object(body)
    }

    static func route(_ op: OutboxOperation) -> Endpoint {
        switch op.entityType {
        case .favorite:
            return Endpoint(method: op.kind == .delete ? "DELETE" : "PUT", path: Route.favorite(op.entityID))
        case .workout, .set, .routine, .bodyWeight:
            let collection =
                switch op.entityType {
                case .set: Route.sets
                case .routine: Route.routines
                case .bodyWeight: Route.bodyWeights
                default: Route.workouts
                }
            switch op.kind {
            case .create: return Endpoint(method: "POST", path: collection)
            case .update: return Endpoint(method: "PATCH", path: "\(collection)/\(op.entityID)")
            case .delete: return Endpoint(method: "DELETE", path: "\(collection)/\(op.entityID)")
            }
        }
    }

    /// The operation on its own route, as the naive one-request-per-operation loop sends it.
    static func single(_ batchOp: BatchOp, timeout: TimeInterval) -> TransportRequest {
        TransportRequest(
            method: batchOp.method, path: batchOp.path,
            headers: [HeaderName.idempotencyKey: batchOp.idempotencyKey ?? ""],
            body: batchOp.body.map(\.canonicalData), timeout: timeout)
    }

    /// The user-facing reason in a problem+json body, or the bare status.
    static func reason(status: Int, problem: Problem?) -> String {
        guard let problem else { return "HTTP \(status)" }
        if !problem.detail.isEmpty {
            if let field = problem.field, !problem.detail.contains(field) { return "\(field): \(problem.detail)" }
            return problem.detail
        }
        return "\(problem.title) (HTTP \(status))"
    }
}

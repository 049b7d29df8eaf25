import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// A method and a path of the sync API.
struct Endpoint: Equatable {
    let method: String
    let path: String
}

/// How an outbox operation travels: its route, method and body (SPEC 5.1).
public enum OperationRequest {
    /// The operation as one op of a batch. A create's body is read through the wire model
    /// first: a payload it would not accept (a corrupt row) is an error, never sent.
    static func batchOp(_ op: OutboxOperation) throws(WireError) -> BatchOp {
        let endpoint = route(op)
        return BatchOp(
            idempotencyKey: op.idempotencyKey, method: endpoint.method, path: endpoint.path, body: try body(op))
    }

    /// A whole `POST /v1/batch` body of these operations, each serialised once, as the engine
    /// sends it (the engine also keeps it under the body limit).
    public static func batchBody(_ ops: [OutboxOperation]) throws(WireError) -> Data {
        var body = Data("{\"ops\":[".utf8)
        for (index, op) in ops.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(try batchOp(op).json.canonicalData)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    static func body(_ op: OutboxOperation) throws(WireError) -> JSONValue? {
        switch (op.entityType, op.kind) {
        case (.favorite, _), (_, .delete): nil
        case (.workout, .create): try WireWorkout(json: .object(op.payload)).json
        case (.set, .create): try WireSet(json: .object(op.payload)).json
        case (.routine, .create): try WireRoutine(json: .object(op.payload)).json
        case (_, .update): .object(op.payload)
        }
    }

    static func route(_ op: OutboxOperation) -> Endpoint {
        switch op.entityType {
        case .favorite:
            return Endpoint(method: op.kind == .delete ? "DELETE" : "PUT", path: Route.favorite(op.entityID))
        case .workout, .set, .routine:
            let collection =
                switch op.entityType {
                case .set: Route.sets
                case .routine: Route.routines
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

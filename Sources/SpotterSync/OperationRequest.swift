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
enum OperationRequest {
    static func batchOp(_ op: OutboxOperation) -> BatchOp {
        let endpoint = route(op)
        let body: JSONValue? = op.kind == .delete || op.entityType == .favorite ? nil : .object(op.payload)
        return BatchOp(idempotencyKey: op.idempotencyKey, method: endpoint.method, path: endpoint.path, body: body)
    }

    static func route(_ op: OutboxOperation) -> Endpoint {
        switch op.entityType {
        case .favorite:
            return Endpoint(method: op.kind == .delete ? "DELETE" : "PUT", path: Route.favorite(op.entityID))
        case .workout, .set:
            let collection = op.entityType == .set ? Route.sets : Route.workouts
            switch op.kind {
            case .create: return Endpoint(method: "POST", path: collection)
            case .update: return Endpoint(method: "PATCH", path: "\(collection)/\(op.entityID)")
            case .delete: return Endpoint(method: "DELETE", path: "\(collection)/\(op.entityID)")
            }
        }
    }

    /// The operation on its own route, as the naive one-request-per-operation loop sends it.
    static func single(_ op: OutboxOperation, timeout: TimeInterval) -> TransportRequest {
        let batchOp = batchOp(op)
        return TransportRequest(
            method: batchOp.method, path: batchOp.path, headers: [HeaderName.idempotencyKey: op.idempotencyKey],
            body: batchOp.body.map(\.canonicalData), timeout: timeout)
    }

    /// The user-facing reason in a problem+json body, or the bare status.
    static func reason(status: Int, body: JSONValue?) -> String {
        guard let problem = body.flatMap({ try? Problem(json: $0) }) else { return "HTTP \(status)" }
        if !problem.detail.isEmpty {
            if let field = problem.field, !problem.detail.contains(field) { return "\(field): \(problem.detail)" }
            return problem.detail
        }
        return "\(problem.title) (HTTP \(status))"
    }
}

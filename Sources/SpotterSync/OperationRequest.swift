import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// How an outbox operation travels: its route, method and body (SPEC 5.1).
enum OperationRequest {
    static func batchOp(_ op: OutboxOperation) -> BatchOp {
        let (method, path) = route(op)
        let body: JSONValue? = op.kind == .delete || op.entityType == .favorite ? nil : .object(op.payload)
        return BatchOp(idempotencyKey: op.idempotencyKey, method: method, path: path, body: body)
    }

    static func route(_ op: OutboxOperation) -> (method: String, path: String) {
        switch op.entityType {
        case .favorite:
            return (op.kind == .delete ? "DELETE" : "PUT", Route.favorite(op.entityID))
        case .workout, .set:
            let collection = op.entityType == .set ? Route.sets : Route.workouts
            switch op.kind {
            case .create: return ("POST", collection)
            case .update: return ("PATCH", "\(collection)/\(op.entityID)")
            case .delete: return ("DELETE", "\(collection)/\(op.entityID)")
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
        if let detail = body?["detail"]?.stringValue, !detail.isEmpty {
            if let field = body?["field"]?.stringValue, !detail.contains(field) { return "\(field): \(detail)" }
            return detail
        }
        if let title = body?["title"]?.stringValue { return "\(title) (HTTP \(status))" }
        return "HTTP \(status)"
    }
}

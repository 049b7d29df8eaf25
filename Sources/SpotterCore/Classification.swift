import Foundation

/// Why a try failed but may succeed later; metrics count retries by these classes.
public enum TransientReason: String, Sendable, Codable, CaseIterable {
    case offline
    case connection
    case timeout
    case keyInUse = "key_in_use"
    case unauthorized
    case rateLimited = "rate_limited"
    case serverError = "server_error"
    case requestTimeout = "request_timeout"
}

/// What one result means for its operation (see docs/sync-protocol.md).
public enum ResultClass: Equatable, Sendable {
    case success
    case transient(TransientReason)
    case permanent
}

public enum ResultClassifier {
    /// Classifies an HTTP status for an operation of `kind`.
    /// - Parameter keyInUse: the 409's problem type says the key's first request is still running.
    /// - Parameter idTaken: the 409 says this user already has an entity with the create's id.
    ///   Ids are client-made UUIDs (or derived from an imported row and the account), so that
    ///   entity is this very intent, made on another device (the same file imported twice) or
    ///   sent once more after its key expired: the create is fulfilled, and the server's row
    ///   (pulled) is the entity's state.
    public static func classify(
        status: Int, kind: OperationKind, keyInUse: Bool = false, idTaken: Bool = false
    ) -> ResultClass {
        switch status {
        case 200..<300: return .success
        case 404 where kind == .delete, 410 where kind == .delete: return .success
        case 409 where idTaken && kind == .create: return .success
        case 409 where keyInUse: return .transient(.keyInUse)
        case 401: return .transient(.unauthorized)
        case 408: return .transient(.requestTimeout)
        case 425: return .transient(.serverError)
        case 429: return .transient(.rateLimited)
        case 500..<600: return .transient(.serverError)
        default: return .permanent
        }
    }
}

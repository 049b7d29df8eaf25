import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore

/// What the server said about a token (`GET /v1/me`).
public enum AccountCheck: Sendable, Equatable {
    /// The token belongs to this user.
    case user(String)
    /// 401: the server does not know the token.
    case refused
    /// No answer (offline, airplane mode, timeout) or an answer that names nobody.
    case unreachable(String)

    /// Asks the server who the token belongs to.
    public static func ask(_ transport: any SyncTransport, timeout: TimeInterval) async -> AccountCheck {
        let result = await withCheckedContinuation { continuation in
            transport.send(TransportRequest(method: "GET", path: Route.me, timeout: timeout)) {
                continuation.resume(returning: $0)
            }
        }
        switch result {
        case .success(let response) where response.status == 200:
            guard let user = JSONValue.parse(response.body)?["user"]?.stringValue, !user.isEmpty else {
                return .unreachable("the server's answer to GET /v1/me names no user")
            }
            return .user(user)
        case .success(let response) where response.status == 401:
            return .refused
        case .success(let response):
            return .unreachable("GET /v1/me answered \(response.status)")
        case .failure(.offline):
            return .unreachable("airplane mode is on")
        case .failure(.timeout):
            return .unreachable("no answer within \(Int(timeout)) s")
        case .failure(.connection(let message)), .failure(.unreachable(let message)):
            return .unreachable(message)
        }
    }

    /// Brings a store to the account the server names, and moves to it every queue that is this
    /// account under another name: what was queued with this token before its user was known,
    /// tokens of this server the server refused (typos since corrected), an older version's owners.
    /// - Returns: the store acting for the account (unchanged when the server did not say).
    public static func settle(
        _ store: SpotterStore, server: String, tokenFingerprint: String, check: AccountCheck, legacyOwners: [String]
    ) throws -> SpotterStore {
        switch check {
        case .user(let user):
            let account = store.forUser(QueueOwner.account(server: server, user: user).storedID)
            try account.accounts.recordToken(server: server, fingerprint: tokenFingerprint, user: user)
            try adoptAliases(account, server: server, tokenFingerprint: tokenFingerprint, legacyOwners: legacyOwners)
            return account
        case .refused:
            try store.accounts.recordToken(server: server, fingerprint: tokenFingerprint, user: nil)
            return store
        case .unreachable:
            return store
        }
    }

    /// The local half of `settle` for an account already known: no network needed.
    public static func adoptAliases(
        _ account: SpotterStore, server: String, tokenFingerprint: String, legacyOwners: [String]
    ) throws {
        let aliases =
            [QueueOwner.unverified(server: server, tokenFingerprint: tokenFingerprint).storedID]
            + (try account.accounts.refusedTokenOwners(server: server)) + legacyOwners
        try account.accounts.reassign(from: aliases)
        // A 401 backed these off until the server would take the token; it takes this one now.
        try account.accounts.releaseUnauthorizedBackoff()
    }
}

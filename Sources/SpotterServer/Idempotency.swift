import Crypto
import Foundation
import SpotterCore

/// The rules of the `Idempotency-Key` header and request fingerprint.
enum IdempotencyKeyRules {
    static let maxLength = 255

    /// Why a key is refused, worded for the 400's detail.
    struct Refusal: Error, Equatable {
        var reason: String
    }

    /// The key a header value names. The IETF draft defines the field as a structured-field
    /// string (`"abc"`, RFC 8941 sf-string); clients such as Stripe's send the bare token
    /// (`abc`). Both spell the same key, so both land in the same scope.
    static func key(from raw: String?) -> Result<String, Refusal> {
        guard let raw else {
            return .failure(Refusal(reason: "the Idempotency-Key header is required on POST and PATCH"))
        }
        let key: String
        if raw.hasPrefix("\"") {
            guard let unquoted = sfString(raw) else {
                return .failure(
                    Refusal(
                        reason:
                            "the Idempotency-Key is not a valid structured-field string (a quoted value with only \\\" and \\\\ escaped)"
                    ))
            }
            key = unquoted
        } else {
            key = raw
        }
        guard !key.isEmpty else { return .failure(Refusal(reason: "the Idempotency-Key must not be empty")) }
        guard key.utf8.count <= maxLength else {
            return .failure(Refusal(reason: "the Idempotency-Key must be at most \(maxLength) characters"))
        }
        guard key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return .failure(Refusal(reason: "the Idempotency-Key must be printable ASCII"))
        }
        return .success(key)
    }

    /// Parses an RFC 8941 sf-string filling the whole field value: printable ASCII between
    /// double quotes, where `\"` and `\\` are the only escapes. nil when it is not one.
    static func sfString(_ raw: String) -> String? {
        var bytes = raw.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = bytes.next(), escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else {
                    return nil
                }
                out.append(escaped)
            case UInt8(ascii: "\""):
                // The closing quote must end the value (parameters are not part of this field).
                return bytes.next() == nil ? String(decoding: out, as: UTF8.self) : nil
            case 0x20...0x7E:
                out.append(byte)
            default:
                return nil
            }
        }
        return nil
    }

    /// SHA-256 over method, path and the canonical JSON body (`JSONValue.canonicalData`, which the
    /// caller has written once, also to check its size), so a re-serialised identical body (other
    /// key order, other whitespace) is recognised as the same request.
    static func fingerprint(method: String, path: String, canonicalBody: Data?) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(method.uppercased())\n\(path)\n".utf8))
        if let canonicalBody { hasher.update(data: canonicalBody) }
        return hasher.finalize().withUnsafeBytes { Hex.lowercase($0) }
    }
}

/// The token that marks one claim of a key as ours: 128 random bits in hex. Only compared, never
/// parsed; drawn from the system generator (one `getrandom`), not `UUID()`, which opens and
/// reads `/dev/urandom` on every call — inside the one writer's transaction, on every request.
enum ClaimToken {
    static func fresh() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return Hex.lowercase(withUnsafeBytes(of: (high, low)) { Array($0) })
    }
}

/// What claiming a key does with the record it found — decided here, once, for every store, so
/// SQLite and PostgreSQL cannot answer the same history differently.
enum ClaimDecision: Equatable {
    /// No record, or an expired one: write a fresh in-progress record that is ours.
    case insert
    /// A stale in-progress record (its request presumably died): keep it, with our token.
    case takeOver
    /// Answer without running anything.
    case settled(IdempotencyClaim)

    static func decide(
        existing: IdempotencyRecord?, fingerprint: String, now: Date, expiresAfter: TimeInterval,
        staleAfter: TimeInterval
    ) -> ClaimDecision {
        guard let existing, now.timeIntervalSince(existing.createdAt) < expiresAfter else { return .insert }
        guard existing.fingerprint == fingerprint else { return .settled(.fingerprintMismatch) }
        if existing.isCompleted {
            // A completed record is never run again; one whose answer cannot be read stays "in progress".
            guard let response = existing.response else { return .settled(.inProgress) }
            return .settled(.completed(response))
        }
        guard now.timeIntervalSince(existing.lockedAt) >= staleAfter else { return .settled(.inProgress) }
        return .takeOver
    }
}

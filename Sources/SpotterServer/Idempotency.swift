import Crypto
import Foundation
import SpotterCore

/// The rules of the `Idempotency-Key` header and request fingerprint (SPEC 5.2).
enum IdempotencyKeyRules {
    static let maxLength = 255

    /// nil when `key` is acceptable, otherwise why not.
    static func problem(with key: String?) -> String? {
        guard let key else { return "the Idempotency-Key header is required on POST and PATCH" }
        guard !key.isEmpty else { return "the Idempotency-Key must not be empty" }
        guard key.utf8.count <= maxLength else { return "the Idempotency-Key must be at most \(maxLength) characters" }
        guard key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return "the Idempotency-Key must be printable ASCII"
        }
        return nil
    }

    /// SHA-256 over method, path and the canonical JSON body, so a re-serialised identical
    /// body (other key order, other whitespace) is recognised as the same request.
    static func fingerprint(method: String, path: String, body: JSONValue?) -> String {
        var bytes = Data("\(method.uppercased())\n\(path)\n".utf8)
        if let body { bytes.append(body.canonicalData) }
        return SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore
import SpotterSync
import SpotterTestSupport

/// A transport that answers from a script, for exact fault sequences. (The same behaviour is
/// proven against the real server in `RealServerSyncTests`.)
// @unchecked Sendable: all state is touched under `lock`.
final class ScriptedTransport: SyncTransport, @unchecked Sendable {
    typealias Completion = @Sendable (Result<TransportResponse, TransportError>) -> Void
    /// Answers one batched op: its status and body.
    typealias OpScript = @Sendable (BatchOp) -> (Int, JSONValue?)

    private let lock = NSLock()
    private var _requests: [TransportRequest] = []
    private var held: [(TransportRequest, Completion)] = []
    /// What the next batch requests get as a whole; nil = answer per op.
    var wholeBatch: [Result<TransportResponse, TransportError>] = []
    var holdRequests = false
    /// Holds `GET /v1/changes` too (answered with an empty page on release).
    var holdPulls = false
    /// Bodies for the next `GET /v1/changes` requests, in order.
    var changesPages: [String] = []
    var perOp: OpScript = { op in (op.method == "POST" ? 201 : op.method == "DELETE" ? 204 : 200, op.body) }

    var requests: [TransportRequest] { lock.withLock { _requests } }
    var batchRequests: [BatchRequest] {
        requests.filter { $0.path == Route.batch }.compactMap {
            try? JSONDecoder().decode(BatchRequest.self, from: $0.body ?? Data())
        }
    }

    func script(_ update: (ScriptedTransport) -> Void) { lock.withLock { update(self) } }

    func send(_ request: TransportRequest, completion: @escaping Completion) {
        let answer: Result<TransportResponse, TransportError>? = lock.withLock {
            _requests.append(request)
            if request.method == "GET" {
                if request.path.hasPrefix(Route.changes) {
                    if holdPulls {
                        held.append((request, completion))
                        return nil
                    }
                    if !changesPages.isEmpty {
                        return .success(TransportResponse(status: 200, body: Data(changesPages.removeFirst().utf8)))
                    }
                    return .success(
                        TransportResponse(
                            status: 200, body: Data(#"{"changes":[],"cursor":"0","has_more":false}"#.utf8)))
                }
                return .success(TransportResponse(status: 200, body: Data(#"{"favorites":[]}"#.utf8)))
            }
            if holdRequests {
                held.append((request, completion))
                return nil
            }
            if !wholeBatch.isEmpty { return wholeBatch.removeFirst() }
            guard let body = request.body, let batch = try? JSONDecoder().decode(BatchRequest.self, from: body) else {
                return .success(TransportResponse(status: 400))
            }
            let results = batch.ops.map { op -> BatchResult in
                let (status, body) = perOp(op)
                return BatchResult(idempotencyKey: op.idempotencyKey, status: status, body: body, replayed: false)
            }
            return .success(
                TransportResponse(status: 200, body: try! JSONEncoder().encode(BatchResponse(results: results))))
        }
        if let answer { completion(answer) }
    }

    /// Lets held requests through, answered per op.
    func releaseHeld() {
        let pending: [(TransportRequest, Completion)] = lock.withLock {
            holdRequests = false
            holdPulls = false
            defer { held.removeAll() }
            return held
        }
        for (request, completion) in pending {
            if request.method == "GET" {
                completion(
                    .success(
                        TransportResponse(
                            status: 200, body: Data(#"{"changes":[],"cursor":"0","has_more":false}"#.utf8))))
                continue
            }
            let batch = (try? JSONDecoder().decode(BatchRequest.self, from: request.body ?? Data()))?.ops ?? []
            let results = batch.map {
                BatchResult(idempotencyKey: $0.idempotencyKey, status: 201, body: $0.body, replayed: false)
            }
            completion(
                .success(
                    TransportResponse(status: 200, body: try! JSONEncoder().encode(BatchResponse(results: results)))))
        }
    }

    var heldCount: Int { lock.withLock { held.count } }

    static func status(_ code: Int, headers: [String: String] = [:]) -> Result<TransportResponse, TransportError> {
        .success(
            TransportResponse(
                status: code, headers: headers,
                body: Data(#"{"type":"about:blank","title":"x","status":\#(code),"detail":"scripted"}"#.utf8)))
    }
}

func makeStore(clock: ManualClock = ManualClock(), user: String = "local") throws -> SpotterStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try SpotterStore.open(path: directory.appendingPathComponent("client.db").path, userID: user, clock: clock)
}

func temporaryDirectory() -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-sync-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

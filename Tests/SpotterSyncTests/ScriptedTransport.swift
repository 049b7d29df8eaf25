import Foundation
import SpotterCore
import SpotterProtocol
import SpotterStore
import SpotterSync
import SpotterTestSupport
import Synchronization

/// A transport that answers from a script, for exact fault sequences. (The same behaviour is
/// proven against the real server in `RealServerSyncTests`.)
final class ScriptedTransport: SyncTransport, Sendable {
    typealias Completion = @Sendable (Result<TransportResponse, TransportError>) -> Void
    /// Answers one batched op: its status and body.
    typealias OpScript = @Sendable (BatchOp) -> (Int, JSONValue?)

    /// What a test sets through `script`.
    struct Script {
        /// What the next batch requests get as a whole; nil = answer per op.
        var wholeBatch: [Result<TransportResponse, TransportError>] = []
        var holdRequests = false
        /// Holds `GET /v1/changes` too (answered with an empty page on release).
        var holdPulls = false
        /// Bodies for the next `GET /v1/changes` requests, in order.
        var changesPages: [String] = []
        /// Whole answers for the next `GET /v1/changes` requests, before `changesPages`.
        var changesAnswers: [TransportResponse] = []
        var perOp: OpScript = { op in (op.method == "POST" ? 201 : op.method == "DELETE" ? 204 : 200, op.body) }
    }

    private struct State {
        var requests: [TransportRequest] = []
        var held: [(TransportRequest, Completion)] = []
        var script = Script()
    }

    private let state = Mutex(State())

    var requests: [TransportRequest] { state.withLock { $0.requests } }
    var batchRequests: [BatchRequest] {
        requests.filter { $0.path == Route.batch }.compactMap {
            try? JSONDecoder().decode(BatchRequest.self, from: $0.body ?? Data())
        }
    }

    func script(_ update: (inout Script) -> Void) { state.withLock { update(&$0.script) } }

    func send(_ request: TransportRequest, completion: @escaping Completion) {
        let answer: Result<TransportResponse, TransportError>? = state.withLock { state in
            state.requests.append(request)
            if request.method == "GET" {
                if request.path.hasPrefix(Route.changes) {
                    if state.script.holdPulls {
                        state.held.append((request, completion))
                        return nil
                    }
                    if !state.script.changesAnswers.isEmpty {
                        return .success(state.script.changesAnswers.removeFirst())
                    }
                    if !state.script.changesPages.isEmpty {
                        return .success(
                            TransportResponse(status: 200, body: Data(state.script.changesPages.removeFirst().utf8)))
                    }
                    return .success(
                        TransportResponse(
                            status: 200, body: Data(#"{"changes":[],"cursor":"0","has_more":false}"#.utf8)))
                }
                return .success(TransportResponse(status: 200, body: Data(#"{"favorites":[]}"#.utf8)))
            }
            if state.script.holdRequests {
                state.held.append((request, completion))
                return nil
            }
            if !state.script.wholeBatch.isEmpty { return state.script.wholeBatch.removeFirst() }
            guard let body = request.body, let batch = try? JSONDecoder().decode(BatchRequest.self, from: body) else {
                return .success(TransportResponse(status: 400))
            }
            let perOp = state.script.perOp
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
        let pending: [(TransportRequest, Completion)] = state.withLock { state in
            state.script.holdRequests = false
            state.script.holdPulls = false
            defer { state.held.removeAll() }
            return state.held
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

    var heldCount: Int { state.withLock { $0.held.count } }

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

import Foundation

/// One HTTP exchange as the engine sees it, free of any HTTP library's types.
public struct TransportRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data?
    public var timeout: TimeInterval

    public init(
        method: String, path: String, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 15
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

public struct TransportResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, new in new })
        self.body = body
    }
}

/// Why no response came back. Only `offline` and `unreachable` tell that the server cannot have
/// acted on the request; after the others it may have (a dropped reply).
public enum TransportError: Error, Sendable, Equatable {
    /// Airplane mode: failed at once, no network I/O.
    case offline
    /// No connection could be made at all (refused, no route, the connect timed out): the request
    /// never left this machine.
    case unreachable(String)
    /// The connection broke before a full response: the request may have arrived (the "dropped
    /// reply" case).
    case connection(String)
    case timeout
}

/// The engine's seam to the network (as swift-nio separates abstractions from I/O): the HTTP
/// implementation talks to a real server; tests may script exact fault sequences.
public protocol SyncTransport: Sendable {
    /// Sends one request; calls `completion` exactly once, on any thread.
    func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    )

    /// Sends a request that may be given up before it is answered (a wait on the change feed);
    /// `completion` is still called exactly once, with a failure when it was given up.
    func sendCancellable(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) -> TransportCancellation
}

/// Gives up one request (closes its connection, so the server sees it go).
public struct TransportCancellation: Sendable {
    private let cancelling: @Sendable () -> Void

    public init(_ cancel: @escaping @Sendable () -> Void) { cancelling = cancel }

    public func cancel() { cancelling() }

    /// For a request that cannot be given up: it is left to end by itself.
    public static let ignored = TransportCancellation {}
}

extension SyncTransport {
    public func sendCancellable(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) -> TransportCancellation {
        send(request, completion: completion)
        return .ignored
    }
}

/// Fails every request at once while the airplane switch is on, so airplane mode makes no
/// network I/O whatever the engine asks.
public struct AirplaneGatedTransport: SyncTransport {
    let base: any SyncTransport
    let isAirplaneOn: @Sendable () -> Bool

    public init(base: any SyncTransport, isAirplaneOn: @escaping @Sendable () -> Bool) {
        self.base = base
        self.isAirplaneOn = isAirplaneOn
    }

    public func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) {
        if isAirplaneOn() {
            completion(.failure(.offline))
        } else {
            base.send(request, completion: completion)
        }
    }

    public func sendCancellable(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) -> TransportCancellation {
        if isAirplaneOn() {
            completion(.failure(.offline))
            return .ignored
        }
        return base.sendCancellable(request, completion: completion)
    }
}

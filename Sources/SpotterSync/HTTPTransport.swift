import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The real transport, over AsyncHTTPClient.
///
/// Why AsyncHTTPClient and not URLSession: on Linux URLSession (FoundationNetworking) is a
/// libcurl wrapper whose timeouts and connection reuse behave differently from Apple's, while
/// AsyncHTTPClient is SwiftNIO-native, pools keep-alive connections, takes a hard per-request
/// deadline and reports a connection closed mid-response as its own error — exactly the
/// "server committed, reply lost" case the engine must treat as transient.
public final class HTTPSyncTransport: SyncTransport {
    /// One client (and connection pool) for the process, never shut down: a transport may be
    /// released on one of NIO's own threads, where shutting a client down is not allowed.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(30))
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
    private var client: HTTPClient { Self.client }
    private let baseURL: String
    private let token: String?

    /// - Parameters:
    ///   - baseURL: e.g. `http://127.0.0.1:8080` (no trailing slash needed).
    ///   - token: sent as `Authorization: Bearer`.
    public init(baseURL: String, token: String?) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
    }

    public func send(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) {
        _ = sendCancellable(request, completion: completion)
    }

    public func sendCancellable(
        _ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
    ) -> TransportCancellation {
        var http: HTTPClient.Request
        do {
            http = try HTTPClient.Request(url: baseURL + request.path, method: HTTPMethod(rawValue: request.method))
        } catch {
            completion(.failure(.connection("bad request URL \(baseURL + request.path): \(error)")))
            return .ignored
        }
        if let token { http.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in request.headers { http.headers.replaceOrAdd(name: name, value: value) }
        if let body = request.body {
            http.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            http.body = .data(body)
        }
        let deadline = NIODeadline.now() + .milliseconds(Int64(request.timeout * 1000))
        let task = client.execute(request: http, delegate: ResponseAccumulator(request: http), deadline: deadline)
        task.futureResult.whenComplete { result in
            switch result {
            case .success(let response):
                var headers: [String: String] = [:]
                for (name, value) in response.headers { headers[name.lowercased()] = value }
                let body = response.body.map { Data($0.readableBytesView) } ?? Data()
                completion(.success(TransportResponse(status: Int(response.status.code), headers: headers, body: body)))
            case .failure(let error):
                completion(.failure(Self.classify(error)))
            }
        }
        return TransportCancellation { task.cancel() }
    }

    static func classify(_ error: any Error) -> TransportError {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return .unreachable("could not connect within the connect timeout")
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .timeout
            default: return .connection(String(describing: error))
            }
        }
        // A refused or unroutable connect: nothing was written, so nothing can have landed.
        // Said as the system says it ("Connection refused"), not as NIO's description of the
        // call that failed ("connection reset (error set): Connection refused (errno: 111)").
        if let error = error as? IOError, Self.neverConnected.contains(error.errnoCode) {
            return .unreachable(String(cString: strerror(error.errnoCode)))
        }
        return .connection(String(describing: error))
    }

    /// The errors a TCP connect ends with before any byte of a request is written.
    static let neverConnected: Set<Int32> = [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH]
}

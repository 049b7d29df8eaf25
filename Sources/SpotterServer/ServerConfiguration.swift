import Foundation
import SpotterCore

/// Fault injection for demos and tests, off by default.
///
/// Real networks fail after the server has committed, time out, throttle and stall; these
/// knobs make the server do each on purpose, reproducibly when a seed is given, so the
/// client's retry and idempotency logic can be watched under stress.
public struct ChaosOptions: Sendable {
    /// Probability (0…1) of answering 503 before handling a mutating request.
    public var failRate = 0.0
    /// Probability (0…1) of committing the effect and then closing the connection without a response.
    public var dropRate = 0.0
    /// Probability (0…1) of answering 429 with `Retry-After: 2` before handling.
    public var rate429 = 0.0
    /// Extra milliseconds spent before handling each mutating request.
    public var latencyMS = 0
    /// Seed of the random source; nil draws a fresh one.
    public var seed: UInt64? = nil

    public init() {}

    /// True when any fault is switched on.
    public var isEnabled: Bool { failRate > 0 || dropRate > 0 || rate429 > 0 || latencyMS > 0 }
}

/// Everything `spotter serve`, the embedded server and the tests choose about a server.
///
/// Time is injected (`clock`) so the idempotency rules that depend on it — stale
/// in-progress takeover and record expiry — can be tested without waiting.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 binds an ephemeral port; the bound port is reported once listening.
    public var port = 0
    /// The SQLite file of the server store (when `databaseURL` is nil).
    public var databasePath: String
    /// A PostgreSQL database shared by several instances (`postgres://USER@HOST:PORT/DB`);
    /// when set, `databasePath` is not used.
    public var databaseURL: String? = nil
    /// The PostgreSQL password when `databaseURL` carries none (from `PGPASSWORD` or a passfile, so
    /// that it never appears on a command line).
    public var databasePassword: String? = nil
    /// PostgreSQL connections of this instance, which is also how many of its transactions run at once.
    public var databasePoolSize = 8
    /// Bearer token → user id.
    public var tokens: [String: String]
    public var chaos = ChaosOptions()
    /// How long an idempotency record is kept (8 days, longer than the client's 7-day give-up).
    public var idempotencyTTL: TimeInterval = 8 * 24 * 3600
    /// After this long an in-progress record is presumed abandoned (its process died) and may be taken over.
    public var staleInProgressAfter: TimeInterval = 30
    /// Largest request body of a single route, and of one operation inside a batch.
    public var maxBodyBytes = 64 * 1024
    /// Largest body of `POST /v1/batch` as a whole (each operation is still held to `maxBodyBytes`).
    public var maxBatchBodyBytes = 1024 * 1024
    /// Most operations accepted in one batch.
    public var maxBatchOperations = 1000
    /// The most requests waiting on a change feed at once (`GET /v1/changes?wait=`); one more is
    /// answered 503 with `Retry-After`. They hold a connection each but no other work, and do not
    /// count against `connections.maxConnections` while they wait.
    public var maxWaiting = 10_000
    /// The most requests of one account the instance works on at once (waits on the feed not
    /// counted: they have `maxWaiting`); one more is answered 429 with `Retry-After`, so one
    /// account's burst cannot take every thread, pool connection and lock of the instance.
    public var maxUserConcurrency = 8
    /// The most requests of one account waiting on its feed at once (a device keeps one); one more
    /// is answered 429 with `Retry-After`, so one account cannot take every place of `maxWaiting`.
    public var maxWaitingPerUser = 100
    /// The longest wait a request may ask for, in seconds: under the idle timeouts of common proxies.
    public static let maxWaitSeconds = 25
    /// Budget of one batch response: once the results reach it, the remaining operations are
    /// not run (503 each, sent again by the client). Writes answer with about what they sent,
    /// so a batch within `maxBatchBodyBytes` stays well inside it.
    public var maxBatchResponseBytes = 4 * 1024 * 1024
    public var clock: any SpotterClock = SystemClock()
    /// Read and idle timeouts and the connection limit (`spotter serve --read-timeout` …).
    public var connections = ConnectionLimits()
    /// Longest request path accepted; a longer one is 414 (problem+json).
    public var maxPathBytes = 8 * 1024

    /// Test seam: awaited after an idempotency key is claimed and before the effect runs,
    /// so a test can hold a request "still running" while another one arrives.
    var afterIdempotencyClaim: (@Sendable (_ method: String, _ path: String) async -> Void)? = nil

    /// Test seam: builds the store instead of `SQLiteServerStore(path:)`, e.g. to wrap it
    /// in one that fails on purpose.
    var makeStore: (@Sendable (_ path: String) async throws -> any ServerStore)? = nil

    public init(databasePath: String, tokens: [String: String]) {
        self.databasePath = databasePath
        self.tokens = tokens
    }
}

import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import SpotterProtocol
import Synchronization

/// Limits on connections, so no client can hold the server's sockets without sending requests.
///
/// - A request (head and body) must arrive completely within `readTimeout` of its first byte,
///   or the connection is answered 408 (problem+json) and closed — half-sent headers do not
///   hold a socket forever. A new connection's first request must begin within `readTimeout`
///   of opening, or it is closed: a socket that never sends does not hold a place either.
/// - A connection with no request in flight is closed after `idleTimeout` (Hummingbird's own
///   idle handling).
/// - At most `maxConnections` are open at once; one more is answered 503 and closed at once.
///   A connection whose request waits on the change feed does not count while it waits: those
///   have a limit of their own (`ServerConfiguration.maxWaiting`), so ten thousand idle devices
///   leave the whole budget to the requests that do work.
public struct ConnectionLimits: Sendable {
    public var readTimeout: Duration = .seconds(30)
    /// Longer than the 60 s async-http-client keeps an idle pooled connection, so the client
    /// closes first and never sends into a socket the server is closing.
    public var idleTimeout: Duration = .seconds(75)
    public var maxConnections = 512

    public init() {}
}

/// Open connections, counted across the event loops.
final class ConnectionCounter: Sendable {
    private let open = Mutex(0)

    /// Counts one more connection; returns how many are open with it.
    func opened() -> Int {
        open.withLock { open in
            open += 1
            return open
        }
    }

    func closed() { open.withLock { $0 -= 1 } }
}

/// The counted connections, by channel, so a request that starts waiting on the change feed can
/// hand its connection's place back (`park`) and take it again when the wait ends (`unpark`).
enum ParkedConnections {
    private struct Entry {
        let counter: ConnectionCounter
        var parked: Bool
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    static func register(_ channel: any Channel, counter: ConnectionCounter) {
        entries.withLock { $0[ObjectIdentifier(channel)] = Entry(counter: counter, parked: false) }
    }

    /// Forgets `channel`; true when it was parked (its place already given back).
    static func remove(_ channel: any Channel) -> Bool {
        entries.withLock { $0.removeValue(forKey: ObjectIdentifier(channel))?.parked ?? false }
    }

    /// `channel`'s request waits on the feed now: its connection stops counting against the limit.
    static func park(_ channel: any Channel) {
        let counter = entries.withLock { entries -> ConnectionCounter? in
            guard var entry = entries[ObjectIdentifier(channel)], !entry.parked else { return nil }
            entry.parked = true
            entries[ObjectIdentifier(channel)] = entry
            return entry.counter
        }
        counter?.closed()
    }

    /// The wait is over: the connection counts again (even past the limit: it is open already,
    /// and only new connections are refused).
    static func unpark(_ channel: any Channel) {
        let counter = entries.withLock { entries -> ConnectionCounter? in
            guard var entry = entries[ObjectIdentifier(channel)], entry.parked else { return nil }
            entry.parked = false
            entries[ObjectIdentifier(channel)] = entry
            return entry.counter
        }
        _ = counter?.opened()
    }
}

/// HTTP/1.1 child channels with `ConnectionGuardHandler` in front of the codec and
/// `RequestProgressHandler` behind it; otherwise exactly Hummingbird's `HTTP1Channel`.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let counter: ConnectionCounter

    static func builder(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        let counter = ConnectionCounter()
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                http1: HTTP1Channel(
                    responder: responder,
                    configuration: .init(
                        additionalChannelHandlers: [RequestProgressHandler()],
                        idleTimeout: TimeAmount(limits.idleTimeout))),
                limits: limits, counter: counter)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = limits
        let counter = counter
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuardHandler(
                    readTimeout: TimeAmount(limits.readTimeout), maxConnections: limits.maxConnections,
                    counter: counter))
        }.flatMap { self.http1.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Sent outbound by `RequestProgressHandler` to `ConnectionGuardHandler`.
enum RequestProgress {
    /// The whole request (head, body, end) has been read: the read timer stops.
    case requestReceived
    /// The response has been written: the connection waits for the next request.
    case responseSent
}

/// Sits before the HTTP codec and sees the raw bytes: it starts the read timer on the first
/// byte of a request, answers 408 when the request is not complete in time, and refuses
/// connections over the limit with 503. Its answers are written as raw HTTP/1.1, since no
/// request may have been parsed yet.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case waiting
        case reading
        case answering
        case refused
    }

    private let readTimeout: TimeAmount
    private let maxConnections: Int
    private let counter: ConnectionCounter
    private var state = State.waiting
    private var counted = false
    private var answeredEarly = false
    /// Whether any byte came: until then the connection must start its first request in time.
    private var readAnything = false
    private var timer: Scheduled<Void>?

    init(readTimeout: TimeAmount, maxConnections: Int, counter: ConnectionCounter) {
        self.readTimeout = readTimeout
        self.maxConnections = maxConnections
        self.counter = counter
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { activate(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    private func activate(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        ParkedConnections.register(context.channel, counter: counter)
        if counter.opened() > maxConnections {
            state = .refused
            answer(
                context, status: "503 Service Unavailable",
                problem: Problem(
                    type: ProblemType.unavailable, title: "Service unavailable", status: 503,
                    detail: "the server has \(maxConnections) connections open, its limit; retry later"),
                extraHeaders: "Retry-After: 1\r\n")
            return
        }
        // A connection that sends nothing at all holds one of the `maxConnections` places: its
        // first request must begin within `readTimeout` too, not only after the idle timeout
        // (75 s), or a few silent sockets keep everyone else out.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: readTimeout) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            guard handler.state == .waiting, !handler.readAnything else { return }
            context.close(promise: nil)
        }
    }

    /// A client that closed its side (a device that went offline, an app that quit) is known
    /// to be gone even though the channel stays open for the answer: `ClosedInputs` tells a
    /// request waiting on the feed, which then stops waiting.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { ClosedInputs.mark(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ClosedInputs.unmark(context.channel)
        cancelTimer()
        let parked = ParkedConnections.remove(context.channel)
        if counted {
            counted = false
            if !parked { counter.closed() }
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ClosedInputs.unmark(context.channel)
        if ParkedConnections.remove(context.channel), counted {
            counted = false  // its place was given back when it parked
        }
        cancelTimer()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .refused:
            return  // nothing more is read from a refused connection
        case .waiting:
            state = .reading
            readAnything = true
            cancelTimer()
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: readTimeout) {
                let (handler, context) = loopBound.value
                handler.readTimedOut(context)
            }
        case .reading, .answering:
            break
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? RequestProgress else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch (progress, state) {
        case (.requestReceived, .reading), (.requestReceived, .waiting):
            cancelTimer()
            // Answered before its body was all read (a 413, a 401): the request is done now.
            state = answeredEarly ? .waiting : .answering
            answeredEarly = false
        case (.responseSent, .answering):
            state = .waiting
        case (.responseSent, .reading):
            // The rest of the body must still arrive in time; the timer keeps running.
            answeredEarly = true
        default:
            break
        }
        promise?.succeed(())
    }

    private func readTimedOut(_ context: ChannelHandlerContext) {
        timer = nil
        guard state == .reading else { return }
        state = .refused
        answer(
            context, status: "408 Request Timeout",
            problem: Problem(
                type: "urn:spotter:problem:request-timeout", title: "Request timeout", status: 408,
                detail: "the request did not arrive completely within \(Self.seconds(readTimeout)) seconds"))
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let seconds = Double(amount.nanoseconds) / 1e9
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    /// Writes a complete HTTP/1.1 response straight to the socket, then closes the connection.
    private func answer(
        _ context: ChannelHandlerContext, status: String, problem: Problem, extraHeaders: String = ""
    ) {
        let body = problem.json.canonicalData
        var buffer = context.channel.allocator.buffer(capacity: body.count + 200)
        buffer.writeString(
            "HTTP/1.1 \(status)\r\nContent-Type: \(Problems.contentType)\r\nContent-Length: \(body.count)\r\n"
                + "\(extraHeaders)Connection: close\r\n\r\n")
        buffer.writeBytes(body)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}

/// Sits behind the HTTP codec: tells `ConnectionGuardHandler` when a request has been read and
/// its response written, and gives the bare 400 Hummingbird sends for unparseable HTTP
/// (a 100 KB URL, broken headers) a problem+json body like every other error.
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var parseFailed = false
    private var problemBody: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        context.fireChannelRead(data)
        if case .end = part {
            context.triggerUserOutboundEvent(RequestProgress.requestReceived, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { parseFailed = true }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where parseFailed && head.status == .badRequest:
            let body = Problems.malformed(
                "the request is not valid HTTP/1.1, or its request line or headers are too large"
            ).json.canonicalData
            head.headerFields[.contentType] = Problems.contentType
            head.headerFields[.contentLength] = String(body.count)
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            problemBody = buffer
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end(let trailers):
            if let body = problemBody {
                problemBody = nil
                context.write(wrapOutboundOut(.body(body)), promise: nil)
            }
            context.write(wrapOutboundOut(.end(trailers)), promise: promise)
            context.triggerUserOutboundEvent(RequestProgress.responseSent, promise: nil)
        default:
            context.write(data, promise: promise)
        }
    }
}

/// The connections whose client has closed its side while the channel is still open.
enum ClosedInputs {
    private static let channels = Mutex<Set<ObjectIdentifier>>([])

    static func mark(_ channel: any Channel) { _ = channels.withLock { $0.insert(ObjectIdentifier(channel)) } }
    static func unmark(_ channel: any Channel) { _ = channels.withLock { $0.remove(ObjectIdentifier(channel)) } }

    /// Whether the client behind `channel` may still read an answer.
    static func isOpen(_ channel: any Channel) -> Bool {
        channel.isActive && !channels.withLock { $0.contains(ObjectIdentifier(channel)) }
    }
}

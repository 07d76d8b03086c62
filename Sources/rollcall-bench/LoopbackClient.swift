import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP answer, as much of it as the benchmark reads.
struct LoopbackAnswer {
    var status: HTTPResponseStatus
    var location: String?
    var body: ByteBuffer

    /// The body read as JSON.
    func json<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }
}

/// A scan's answer to a student's token, as the native app reads it: the ticket to check in with.
struct ScanAnswer: Decodable {
    var ticket: String
}

/// What the projector shows: the QR code's link, which ends in the 32 characters of the current code.
struct ProjectorFrame: Decodable {
    var url: String
    var code: String { String(url.suffix(32)) }
}

/// The answer to registering or signing in with a password: the new access token.
struct SignedIn: Decodable {
    var token: String
}

/// A keep-alive HTTP/1.1 connection to the measured server that carries one request at a time. It lives on a single
/// event loop and calls back on it, so that the load generator spends as little of the machine as it can: no
/// connection pool, no task hops, just the bytes.
final class LoopbackConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private var context: ChannelHandlerContext?
    private var waiting: ((Result<LoopbackAnswer, any Error>) -> Void)?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    let port: Int
    let loop: any EventLoop
    var host: String { "127.0.0.1:\(port)" }

    init(port: Int, loop: any EventLoop) {
        self.port = port
        self.loop = loop
    }

    static func open(to port: Int, on loop: any EventLoop) -> EventLoopFuture<LoopbackConnection> {
        let connection = LoopbackConnection(port: port, loop: loop)
        return connection.connect().map { connection }
    }

    private func connect() -> EventLoopFuture<Void> {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(self)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .map { _ in }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Sends a request; `done` runs on the connection's event loop, which is also where this must be called.
    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: String? = nil,
        forwardedFor client: String? = nil, done: @escaping (Result<LoopbackAnswer, any Error>) -> Void
    ) {
        guard let context else {
            // The server closes a keep-alive connection left idle past its timeout (60 s); a browser opens another,
            // and so does the load generator, the time it takes counted in the request's.
            return connect().assumeIsolated().whenComplete { result in
                switch result {
                case .success where self.context != nil:
                    self.send(method, path, token: token, json: json, forwardedFor: client, done: done)
                case .success: done(.failure(LoopbackError("the connection closed as it opened")))
                case .failure(let error): done(.failure(error))
                }
            }
        }
        var headers = HTTPHeaders([("Host", host)])
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let client { headers.add(name: "X-Forwarded-For", value: client) }
        var payload: ByteBuffer?
        if let json {
            payload = context.channel.allocator.buffer(string: json)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(payload!.readableBytes))
        }
        waiting = done
        context.write(
            wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers))),
            promise: nil)
        if let payload { context.write(wrapOutboundOut(.body(.byteBuffer(payload))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head, let done = waiting else { return }
            waiting = nil
            self.head = nil
            done(
                .success(
                    LoopbackAnswer(status: head.status, location: head.headers.first(name: "Location"), body: body)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.context = nil
        if let done = waiting {
            waiting = nil
            done(.failure(LoopbackError("the server closed the connection")))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func close() {
        context?.close(promise: nil)
    }
}

/// Runs `count` operations over the given connections, each starting no earlier than its scheduled time, and times
/// each from that scheduled time to its end, so that waiting for a free connection or a busy server is counted.
final class LoopbackRun: @unchecked Sendable {
    typealias Operation = (LoopbackConnection, Int, @escaping (Result<Void, any Error>) -> Void) -> Void

    private let loop: any EventLoop
    private let count: Int
    private let start: NIODeadline
    private let offset: (Int) -> TimeAmount
    private let operation: Operation
    private var next = 0
    private var finished = 0
    private var latencies: [Int64] = []
    /// Each operation's latency at its own index, for rounds that look at a stretch of the schedule.
    private var byIndex: [Int64]
    private var firstError: (any Error)?
    private var failed = false
    /// Whether a failed operation is counted and the run goes on, rather than ending it.
    private let counting: Bool
    private var failures: [String: Int] = [:]
    private var end = NIODeadline.now()
    private let promise: EventLoopPromise<Measurement>

    /// `offset(i)` is when operation `i` may start, counted from `start`.
    init(
        on loop: any EventLoop, count: Int, start: NIODeadline, offset: @escaping (Int) -> TimeAmount,
        countingFailures: Bool = false, operation: @escaping Operation
    ) {
        self.counting = countingFailures
        self.loop = loop
        self.count = count
        self.start = start
        self.offset = offset
        self.operation = operation
        self.promise = loop.makePromise()
        latencies.reserveCapacity(count)
        byIndex = Array(repeating: 0, count: count)
    }

    func run(over connections: [LoopbackConnection]) async throws -> Measurement {
        loop.execute {
            for connection in connections { self.pump(connection) }
        }
        return try await promise.futureResult.get()
    }

    private func pump(_ connection: LoopbackConnection) {
        guard next < count, firstError == nil else { return }
        let index = next
        next += 1
        let scheduled = start + offset(index)
        let go: @Sendable () -> Void = {
            self.operation(connection, index) { result in
                let now = NIODeadline.now()
                if case .failure(let error) = result {
                    if self.counting {
                        self.failures["\(error)", default: 0] += 1
                    } else if self.firstError == nil {
                        self.firstError = error
                    }
                }
                self.latencies.append((now - scheduled).nanoseconds)
                self.byIndex[index] = (now - scheduled).nanoseconds
                self.finished += 1
                self.end = now
                if let error = self.firstError {
                    if !self.failed { self.promise.fail(error) }
                    self.failed = true
                } else if self.finished == self.count {
                    self.promise.succeed(
                        Measurement(
                            total: .nanoseconds((self.end - self.start).nanoseconds),
                            latencies: self.latencies.sorted().map { .nanoseconds($0) },
                            byIndex: self.byIndex.map { .nanoseconds($0) },
                            failures: self.failures
                        )
                    )
                } else {
                    self.pump(connection)
                }
            }
        }
        if scheduled > .now() {
            loop.scheduleTask(deadline: scheduled) { go() }
        } else {
            go()
        }
    }
}

struct LoopbackError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
